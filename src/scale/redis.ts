/**
 * State shared by several Switchboard instances through Redis (ioredis, an optional peer dependency,
 * loaded only here): the requestState key ring, created by whichever instance comes first and read by
 * the rest, and single-use marks that expire with the states they mark.
 *
 * Commands fail fast while Redis is unreachable (no offline queue), so a request that needs it gets a
 * clear error instead of hanging; the connection retries in the background and recovers by itself.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Redis as RedisClient } from 'ioredis';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { SharedEvent, SharedState } from '../server/shared-state.js';
import { isKeptSession, type TakenOver } from '../transports/http/session-records.js';
import { type GuestNews, HANDED_OFF, type SessionRouter } from '../transports/http/session-router.js';
import { ExpiringMap } from './expiring-map.js';
import { hearGuestNews, redisGuestSupport, SESSION_ID } from './redis-guests.js';
import { RedisEventStore, type RedisEventStoreOptions } from './redis-event-store.js';
import { RedisTaskStore, type RedisTaskStoreOptions } from './redis-task-store.js';

export interface RedisScaleOptions {
  /** The prefix of every key this instance reads or writes. Default `switchboard`. */
  prefix?: string;
  /** How long one command may take before it fails, in ms. Default 2000. */
  commandTimeoutMs?: number;
  /** How long `connect` waits for Redis, in ms. Default 5000. */
  connectTimeoutMs?: number;
}

export class RedisScale implements SharedState {
  /** This instance, among those sharing the store. */
  readonly instanceId: string = randomUUID();

  /** How many single-use marks this instance made: each mark's token counts them. */
  private consumed = 0;
  /** Listeners of what the other instances broadcast. */
  private readonly listeners = new Set<(event: SharedEvent) => void>();
  /** Listeners of a reconnection: Redis may have restarted empty, and what this instance holds is written again. */
  private readonly reconnected = new Set<() => void>();
  /** A connection of its own for pub/sub (a subscribed connection runs no other command). */
  private subscriber: RedisClient | undefined;

  private constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    readonly stateKeys: readonly string[],
  ) {
    // After the first connection, each 'ready' is a reconnection.
    redis.on('ready', () => this.afterReconnect());
    for (const [name, definition] of Object.entries(COMMANDS)) redis.defineCommand(name, definition);
  }

  /**
   * Redis is back after a break. It may have restarted empty: the key ring is offered again (the first
   * instance to do so wins, as at startup, so instances that started meanwhile share it), and each
   * listener writes again what this instance holds (its sessions' owner entries and records).
   */
  private afterReconnect(): void {
    void this.redis.set(`${this.prefix}:state-keys`, JSON.stringify(this.stateKeys), 'NX').catch(() => {});
    for (const listener of this.reconnected) {
      try {
        listener();
      } catch {
        // A listener's failure is its own to report; the others still run.
      }
    }
  }

  /** The scripts, on the connection they were defined on. */
  private get commands(): Commands {
    return this.redis as unknown as Commands;
  }

  /** Whether the connection to Redis is up (ioredis reconnects by itself; meanwhile commands fail fast). */
  healthy(): boolean {
    return this.redis.status === 'ready';
  }

  private get channel(): string {
    return `${this.prefix}:events`;
  }

  async broadcast(event: SharedEvent): Promise<void> {
    try {
      await this.redis.publish(this.channel, JSON.stringify({ from: this.instanceId, event }));
    } catch (err) {
      throw new Error(`Could not tell the other instances of ${event.type} (the shared store is unreachable: ${(err as Error).message})`, { cause: err });
    }
  }

  onBroadcast(listener: (event: SharedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** The pub/sub connection (a subscribed connection runs no other command), subscribed before `connect` returns. */
  private async listen(): Promise<void> {
    // Subscriptions are made again by ioredis after a reconnection; what was broadcast meanwhile is lost.
    const subscriber = this.redis.duplicate({ enableOfflineQueue: true });
    subscriber.on('error', () => {});
    subscriber.on('message', (channel: string, text: string) => (channel === this.guestChannel ? hearGuestNews(text, this.guestListeners) : this.heard(text)));
    this.subscriber = subscriber;
    try {
      await subscriber.subscribe(this.channel, this.guestChannel);
    } catch (err) {
      subscriber.disconnect();
      throw err;
    }
  }

  /** Where instances tell each other about the sessions they serve as guests. */
  private get guestChannel(): string {
    return `${this.prefix}:guests`;
  }

  /** Listeners of the guests' news. */
  private readonly guestListeners = new Set<(news: GuestNews) => void>();

  private heard(text: string): void {
    let message: { from?: unknown; event?: SharedEvent };
    try {
      message = JSON.parse(text);
    } catch {
      return;
    }
    if (message.from === this.instanceId || !isSharedEvent(message.event)) return;
    for (const listener of this.listeners) {
      try {
        listener(message.event);
      } catch {
        // A listener's failure is its own to report; the others still hear.
      }
    }
  }

  /** Connect to Redis at `url` (`redis://host:port/db`), and read (or create) the shared key ring. */
  static async connect(url: string, options: RedisScaleOptions = {}): Promise<RedisScale> {
    const prefix = options.prefix ?? 'switchboard';
    if (typeof prefix !== 'string' || prefix === '' || /\s/.test(prefix))
      throw new TypeError(`Option prefix must be a non-empty string without spaces; got ${JSON.stringify(prefix)}`);
    let Redis: typeof import('ioredis').Redis;
    try {
      ({ Redis } = await import('ioredis'));
    } catch (err) {
      throw new Error('Sharing state through Redis needs the ioredis package: npm install ioredis', { cause: err });
    }
    const redis = new Redis(url, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      commandTimeout: options.commandTimeoutMs ?? 2000,
      connectTimeout: options.connectTimeoutMs ?? 5000,
      retryStrategy: (attempt) => Math.min(attempt * 200, 2000),
    });
    // Reconnection is ioredis's; what each failed command met is told to its caller.
    redis.on('error', () => {});
    try {
      await redis.connect();
      const ringKey = `${prefix}:state-keys`;
      await redis.set(ringKey, JSON.stringify([randomBytes(32).toString('base64url')]), 'NX');
      const ring: unknown = JSON.parse((await redis.get(ringKey)) ?? 'null');
      if (!Array.isArray(ring) || ring.length === 0 || !ring.every((key) => typeof key === 'string' && key.length >= 32)) {
        throw new Error(`${ringKey} holds no key ring (a JSON array of secrets of 32 characters or more)`);
      }
      const scale = new RedisScale(redis, prefix, ring);
      // Subscribed before it is handed out: a change another instance broadcasts from now on is heard.
      await scale.listen();
      return scale;
    } catch (err) {
      redis.disconnect();
      throw new Error(`Could not share state through Redis at ${redact(url)}: ${(err as Error).message}`, { cause: err });
    }
  }

  async consumeState(id: string, expiresAt: number): Promise<boolean> {
    // Each mark is this use's own: a command ioredis sends again after a reconnection (its reply was lost)
    // finds its own mark, and is still the first use.
    const token = `${this.instanceId}:${++this.consumed}`;
    try {
      const first = await this.commands.switchboardConsumeState(`${this.prefix}:used:${id}`, token, Math.max(expiresAt, Date.now() + 1));
      return first === 1;
    } catch (err) {
      throw new McpError(
        ErrorCode.InternalError,
        `Cannot check that this requestState is used only once: the shared store is unreachable (${(err as Error).message}); retry shortly`,
      );
    }
  }

  /**
   * Who holds which Streamable HTTP session, for `new StreamableHttpTransport(server, { router })`: a
   * session's owner is kept for `ttlMs` (default 24 hours) after it was created, and forgotten when the
   * session ends (or when its owner cannot be reached). An id that is not a session id is no one's
   * without asking Redis; an id Redis says no one holds is no one's for the next 2 seconds.
   *
   * Each session's record (what `initialize` settled, the log level and subscriptions, a digest of the
   * principal) is kept too, for `ttlMs` from its last change: when its owner is gone (stopped, or
   * killed), the next request for it on another instance takes it over, and it goes on there.
   *
   * Its `peerKeys` are the key ring: the instances forward to each other over peer links with it.
   */
  sessionRouter(options: { ttlMs?: number } = {}): SessionRouter {
    const ttlMs = options.ttlMs ?? 24 * 3_600_000;
    const key = (sessionId: string) => `${this.prefix}:session:${sessionId}`;
    const recordKey = (sessionId: string) => `${this.prefix}:session-record:${sessionId}`;
    // A session never moves: who holds it is remembered here for a while. A stale answer costs nothing
    // wrong: the old owner answers 404 for a session it ended, and an owner that is gone is released.
    const known = new ExpiringMap<string>(LOCATE_CACHE_SIZE, LOCATE_CACHE_MS);
    // A session claimed elsewhere just after a miss here is found once the miss expires; its owner claims
    // it before answering initialize, so only a request that overtakes that SET can meet the window.
    const unheld = new ExpiringMap<true>(MISS_CACHE_SIZE, MISS_CACHE_MS);
    // Likewise an id with no record: a request for it is 404 without asking again.
    const unrecorded = new ExpiringMap<true>(MISS_CACHE_SIZE, MISS_CACHE_MS);
    // Requests at once for one id share one GET.
    const asking = new Map<string, Promise<string | undefined>>();
    const ask = async (sessionId: string): Promise<string | undefined> => {
      const owner = (await this.redis.get(key(sessionId))) ?? undefined;
      if (owner === undefined) unheld.set(sessionId, true);
      else known.set(sessionId, owner);
      return owner;
    };
    const takingOver = new Map<string, Promise<TakenOver | { owner: string } | undefined>>();
    const takeOver = async (sessionId: string, ownerUrl: string, formerOwner: string | undefined) => {
      const [outcome, value, previous] = await this.commands.switchboardTakeOver(key(sessionId), recordKey(sessionId), ownerUrl, formerOwner ?? '', ttlMs);
      if (outcome === 1) {
        known.set(sessionId, value!);
        return { owner: value! };
      }
      let kept: unknown;
      try {
        kept = outcome === 2 ? JSON.parse(value!) : undefined;
      } catch {
        kept = undefined;
      }
      if (!isKeptSession(kept)) {
        unrecorded.set(sessionId, true);
        return undefined;
      }
      unheld.delete(sessionId);
      known.set(sessionId, ownerUrl);
      return previous?.startsWith(HANDED_OFF) ? { kept, handedOffBy: previous.slice(HANDED_OFF.length) } : { kept };
    };
    return {
      claim: async (sessionId, ownerUrl) => {
        unheld.delete(sessionId);
        await this.redis.set(key(sessionId), ownerUrl, 'PX', ttlMs);
      },
      release: async (sessionId, ownerUrl) => {
        known.delete(sessionId);
        unheld.set(sessionId, true);
        // Only the owner's own entry: a session id is never reused, but an entry may have moved on.
        await this.commands.switchboardRelease(key(sessionId), ownerUrl);
      },
      remember: async (sessionId, kept) => {
        await this.redis.set(recordKey(sessionId), JSON.stringify(kept), 'PX', ttlMs);
      },
      forget: async (sessionId) => {
        await this.redis.del(recordKey(sessionId));
      },
      takeOver: (sessionId, ownerUrl, formerOwner) => {
        if (!SESSION_ID.test(sessionId) || unrecorded.get(sessionId)) return Promise.resolve(undefined);
        // Requests at once for one id share one script.
        let taking = takingOver.get(sessionId);
        if (taking === undefined) {
          taking = takeOver(sessionId, ownerUrl, formerOwner).finally(() => takingOver.delete(sessionId));
          takingOver.set(sessionId, taking);
        }
        return taking;
      },
      handOff: async (sessionId, ownerUrl) => {
        known.set(sessionId, HANDED_OFF + ownerUrl);
        await this.commands.switchboardHandOff(key(sessionId), ownerUrl);
      },
      peerKeys: this.stateKeys,
      guests: redisGuestSupport({ redis: this.redis, prefix: this.prefix, channel: this.guestChannel, listeners: this.guestListeners, recordKey, ttlMs }),
      onReconnect: (listener) => {
        this.reconnected.add(listener);
        return () => void this.reconnected.delete(listener);
      },
      locate: (sessionId, options) => {
        // Session ids are randomUUID()s (server/session.ts): anything else is held by no instance.
        if (!SESSION_ID.test(sessionId)) return Promise.resolve(undefined);
        if (!options?.fresh) {
          if (unheld.get(sessionId)) return Promise.resolve(undefined);
          const owner = known.get(sessionId);
          if (owner !== undefined) return Promise.resolve(owner);
        }
        let answer = asking.get(sessionId);
        if (answer === undefined) {
          answer = ask(sessionId).finally(() => asking.delete(sessionId));
          asking.set(sessionId, answer);
        }
        return answer;
      },
    };
  }

  /**
   * The Tasks extension's store in this Redis, for `useTasks(server, { store: scale.taskStore() })`: any
   * instance answers `tasks/get` and records `tasks/cancel` for a task any of them created. Its `close`
   * leaves the connection open; `scale.close()` lets it go.
   */
  taskStore(options?: RedisTaskStoreOptions): RedisTaskStore {
    return RedisTaskStore.over(this.redis, this.prefix, options);
  }

  /**
   * Streamable HTTP's event store in this Redis, for `new StreamableHttpTransport(server, { eventStore:
   * scale.eventStore() })`: a GET with `Last-Event-ID` on any instance replays what the session's owner
   * sent, the owner before a takeover included. Per-session budgets as the in-memory store's.
   */
  eventStore(options?: RedisEventStoreOptions): RedisEventStore {
    return RedisEventStore.over(this.redis, this.prefix, options);
  }

  /** Let go of the connection. */
  async close(): Promise<void> {
    this.listeners.clear();
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}

/** What the channel carries is checked: anything with access to the Redis can publish on it. */
function isSharedEvent(event: unknown): event is SharedEvent {
  if (typeof event !== 'object' || event === null) return false;
  const { type, uri, list, id, news } = event as { type?: unknown; uri?: unknown; list?: unknown; id?: unknown; news?: unknown };
  if (type === 'resourceUpdated') return typeof uri === 'string' && uri.length <= 8192;
  // An extension's news is its own to read (its `shared` checks what it takes); here only its shape.
  if (type === 'extension') return typeof id === 'string' && typeof news === 'object' && news !== null && !Array.isArray(news);
  return type === 'listChanged' && (list === 'tools' || list === 'prompts' || list === 'resources');
}

/** How many owners, and for how long, a router remembers without asking Redis again. */
const LOCATE_CACHE_SIZE = 10_000;
const LOCATE_CACHE_MS = 30_000;
/** How many ids no one holds, and for how long, a router remembers: short, as a new session may be claimed meanwhile. */
const MISS_CACHE_SIZE = 10_000;
const MISS_CACHE_MS = 2000;

const RELEASE_IF_OWNER = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/**
 * KEYS: the owner entry, the record. ARGV: this instance's URL, the former owner ('' for none), ttlMs.
 * {0} when no record is kept; {1, owner} when another instance holds the session; {2, record, previous
 * owner entry ('' for none)} when it is this instance's now (no one held it, the former owner did, an
 * instance that drains handed it off, or this instance already did).
 */
const TAKE_OVER = `
local record = redis.call('GET', KEYS[2])
if not record then return {0} end
local owner = redis.call('GET', KEYS[1])
if owner and owner ~= ARGV[1] and owner ~= ARGV[2] and string.sub(owner, 1, 1) ~= '${HANDED_OFF}' then return {1, owner} end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
return {2, record, owner or ''}`;

/** KEYS: the owner entry. ARGV: this instance's URL. Marked handed off, if this instance holds it. */
const HAND_OFF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], '${HANDED_OFF}' .. ARGV[1], 'KEEPTTL') else return 0 end`;

/**
 * KEYS: the mark. ARGV: this use's token, when the mark expires (epoch ms). 1 when this is the first use
 * (the mark is set now, or was set by this very use: the command sent again), else 0.
 * @internal exported for its test
 */
export const CONSUME_STATE = `
if redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2], 'NX') then return 1 end
if redis.call('GET', KEYS[1]) == ARGV[1] then return 1 end
return 0`;

/** The scripts, as ioredis commands (sent by digest, and whole only when Redis does not have them). */
const COMMANDS = {
  switchboardConsumeState: { numberOfKeys: 1, lua: CONSUME_STATE },
  switchboardTakeOver: { numberOfKeys: 2, lua: TAKE_OVER },
  switchboardHandOff: { numberOfKeys: 1, lua: HAND_OFF },
  switchboardRelease: { numberOfKeys: 1, lua: RELEASE_IF_OWNER },
} as const;

/** What the commands take (keys, then arguments) and answer. */
interface Commands {
  switchboardConsumeState(mark: string, token: string, expiresAt: number): Promise<number>;
  switchboardTakeOver(owner: string, record: string, ownerUrl: string, formerOwner: string, ttlMs: number): Promise<[number, string?, string?]>;
  switchboardHandOff(owner: string, ownerUrl: string): Promise<unknown>;
  switchboardRelease(owner: string, ownerUrl: string): Promise<unknown>;
}

/** `connectRedisScale(url, options?)`: `RedisScale.connect`. */
export const connectRedisScale = (url: string, options?: RedisScaleOptions) => RedisScale.connect(url, options);

/** A URL without its password, for messages. */
function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return JSON.stringify(url);
  }
}
