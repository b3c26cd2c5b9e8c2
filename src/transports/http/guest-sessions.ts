/**
 * `serveWhereTheyLand`: a request that only reads a 2025 session another instance holds is served here,
 * by a guest made from the session's record, instead of being forwarded to the owner. A guest is no
 * session of this server's (no session event, not in `server.sessions`); it serves the session's next
 * requests here too, reading the record again after a while or when the owner says it changed, and ends
 * once unused for a while. Its requests to the client carry this instance's tag in their ids, so that the
 * client's reply reaches it from whichever instance it lands on; cancellations and the session's end
 * reach it as news from the instance that heard them.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Classified, classify } from '../../protocol/jsonrpc.js';
import type { ServerPort } from '../../server/port.js';
import type { EventStore } from './event-store.js';
import { HttpSession, type HttpSessionHost } from './http-session.js';
import type { ResolvedHttpOptions } from './options.js';
import { type KeptSession, mayAdopt } from './session-records.js';
import { type ForwardOptions, type Forwarded, forwardedVia, type GuestNews, type GuestSupport } from './session-router.js';

/** What reads a session and changes nothing of it: what a guest may serve. */
const READS = new Set([
  'tools/call',
  'tools/list',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'completion/complete',
  'ping',
]);

/** A guest's request id: `sb.<the instance's tag>.<n>`. */
const GUEST_ID = /^sb\.([0-9A-Za-z_-]{12})\.[1-9][0-9]*$/;
/**
 * How often, at most, a session served here is noted as used (its owner's idle timeout counts that): a
 * quarter of the idle timeout (this transport's, as instances serving one endpoint share their options),
 * and at least once a minute.
 */
const NOTE_USE_MS = 60_000;
/** How often this instance registers its tag again (it stays registered a day). */
const REGISTER_AGAIN_MS = 3_600_000;
/** How long a guest serves from the record it read, unless the owner says it changed (a news lost while Redis restarts costs no more). */
const RECORD_FRESH_MS = 30_000;
/** A guest with nothing under way ends after this long unused; the sweep looks this often. */
const GUEST_IDLE_MS = 30_000;
const SWEEP_MS = 10_000;
/** How many ended sessions, at most, are remembered (each for RECORD_FRESH_MS). */
const MAX_ENDED = 10_000;

/** What the guests need of their transport. */
export interface GuestHost {
  readonly port: ServerPort;
  readonly options: ResolvedHttpOptions;
  readonly support: GuestSupport;
  readonly eventStore: EventStore;
  /** Send a POST to another instance. */
  forward(req: IncomingMessage, res: ServerResponse, url: string, options: ForwardOptions): Promise<Forwarded>;
  /** Where the other instances reach this one, once known. */
  selfUrl(): string | undefined;
}

interface Guest {
  http: HttpSession;
  kept: KeptSession;
  /** When `kept` was read (epoch ms); 0 once the owner said the session changed. */
  readAt: number;
  /** When it last served a request (epoch ms). */
  usedAt: number;
}

export class GuestSessions {
  /** This instance's tag, in the ids of its guests' requests. */
  readonly tag = randomBytes(9).toString('base64url');
  private readonly idPrefix = `sb.${this.tag}.`;
  private readonly live = new Map<string, Guest>();
  /** POSTs placed here, with their guest. */
  private readonly placed = new WeakMap<IncomingMessage, HttpSession>();
  /** Sessions the owner said ended lately, with when (epoch ms), the oldest first. */
  private readonly ended = new Map<string, number>();
  /** When each session served here was last noted as used. */
  private readonly noted = new Map<string, number>();
  private registered: { at: number; done: Promise<void> } | undefined;
  private readonly sessionHost: HttpSessionHost;
  private readonly stopNews: () => void;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(private readonly host: GuestHost) {
    this.sessionHost = {
      eventStore: host.eventStore,
      retryMs: host.options.retryMs,
      maxBufferedBytes: host.options.maxBufferedBytes,
      guests: true,
      sessionClosed: (http) => {
        if (this.live.get(http.id)?.http === http) this.live.delete(http.id);
      },
      sessionChanged: () => {},
      reportError: (error, connection) => host.port.reportError(error, connection),
      stopping: () => host.port.draining,
    };
    this.stopNews = host.support.onNews((news) => {
      try {
        this.heard(news);
      } catch (err) {
        host.port.reportError(err);
      }
    });
    this.timers.push(setInterval(() => this.sweepIdle(), SWEEP_MS));
    // SSE comments keep idle proxies from closing a guest's open streams, as a held session's.
    const keepAliveMs = host.options.keepAliveIntervalMs;
    if (keepAliveMs > 0) this.timers.push(setInterval(() => this.keepAlive(), keepAliveMs));
    for (const timer of this.timers) timer.unref();
  }

  /**
   * A POST for session `sessionId`, which another instance holds, its body read (`req.body`): 'here'
   * when this instance serves it (a request that only reads, now with its guest, or replies to a guest's
   * requests; its parsed body is in `req.body`), 'owner' when it goes to the owner as before.
   */
  async place(req: IncomingMessage, sessionId: string, principal: unknown): Promise<'here' | 'owner'> {
    const read = (req as { body?: unknown }).body;
    let body: unknown;
    if (typeof read === 'string' || Buffer.isBuffer(read)) {
      try {
        body = JSON.parse(read.toString());
      } catch {
        return 'owner'; // The owner answers what cannot be parsed, as for any forwarded body.
      }
    } else body = read; // What a framework parsed already (express.json()).
    if (guestReplies(body)) {
      (req as { body?: unknown }).body = body;
      return 'here';
    }
    const request = body as { method?: unknown; id?: unknown };
    if (typeof body !== 'object' || body === null || Array.isArray(body) || typeof request.method !== 'string' || !READS.has(request.method)) return 'owner';
    // A draining instance serves nothing new: its owner does.
    if ((typeof request.id !== 'string' && typeof request.id !== 'number') || this.host.port.draining) return 'owner';
    const guest = await this.guestFor(req, sessionId, principal);
    if (!guest) return 'owner';
    this.placed.set(req, guest);
    (req as { body?: unknown }).body = body;
    this.noteUse(sessionId);
    return 'here';
  }

  /** The guest a request placed here goes to. */
  placedGuest(req: IncomingMessage): HttpSession | undefined {
    return this.placed.get(req);
  }

  /** The guest here whose requests replies for `sessionId` answer, when `principal` may use the session. */
  awaiting(sessionId: string, principal: unknown): HttpSession | undefined {
    const live = this.live.get(sessionId);
    return live && this.mayUse(live, principal);
  }

  /** The tag of the instance whose guest asked what these messages (replies only) answer; undefined when they are not that. */
  replyTag(classified: readonly Classified[]): string | undefined {
    let tag: string | undefined;
    for (const message of classified) {
      const own = message.kind === 'response' ? tagOf(message.message.id) : undefined;
      if (own === undefined || (tag !== undefined && own !== tag)) return undefined;
      tag = own;
    }
    return tag;
  }

  /**
   * A batch for session `sessionId` held here that mixes replies to guests' requests with other
   * messages: those replies are sent on to the instances whose guests asked (as news), and the rest is
   * returned, to be served here. Undefined when the batch holds no such reply.
   */
  passOnReplies(sessionId: string, classified: Classified[]): Classified[] | undefined {
    let byTag: Map<string, unknown[]> | undefined;
    let rest: Classified[] | undefined;
    for (const [i, message] of classified.entries()) {
      const tag = message.kind === 'response' ? tagOf(message.message.id) : undefined;
      if (tag === undefined || message.kind !== 'response') {
        rest?.push(message);
        continue;
      }
      rest ??= classified.slice(0, i);
      byTag ??= new Map();
      const replies = byTag.get(tag);
      if (replies) replies.push(message.message);
      else byTag.set(tag, [message.message]);
    }
    if (!byTag || !rest) return undefined;
    for (const [tag, messages] of byTag) this.announce({ type: 'replies', sessionId, tag, messages });
    return rest;
  }

  /**
   * Replies to another instance's guest: sent on to it. False, with nothing sent, when it is gone or
   * awaits them no more (the caller answers them as moot).
   */
  async replyElsewhere(req: IncomingMessage, res: ServerResponse, body: unknown, tag: string): Promise<boolean> {
    (req as { body?: unknown }).body ??= body;
    const self = this.host.selfUrl();
    let url: string | undefined;
    try {
      url = await this.host.support.instance(tag);
    } catch (err) {
      this.host.port.reportError(err);
      return false;
    }
    if (url === undefined || url === self || forwardedVia(req).includes(url)) return false;
    return (await this.host.forward(req, res, url, { unlessGone: true, via: self })) === 'answered';
  }

  /** Tell every instance (a cancellation, a session's end): whether that was done (a failure is reported). */
  announce(news: GuestNews): Promise<boolean> {
    return this.host.support.announce(news).then(
      () => true,
      (err) => {
        this.host.port.reportError(err);
        return false;
      },
    );
  }

  close(): void {
    this.stopNews();
    for (const timer of this.timers) clearInterval(timer);
    for (const { http } of [...this.live.values()]) http.connection.close('server closed');
  }

  private keepAlive(): void {
    for (const { http } of this.live.values()) http.keepAlive();
  }

  /**
   * The router's store is back after a break (it may have restarted empty, and news sent meanwhile was
   * lost): the tag is registered again, uses are noted again, and each guest reads its record again, by
   * the next request.
   */
  reconnected(): void {
    this.registered = undefined;
    this.noted.clear();
    for (const guest of this.live.values()) guest.readAt = 0;
  }

  /** Guests unused for a while, with nothing under way, end; a busy one counts as a use (its owner must not time the session out under it). */
  private sweepIdle(): void {
    const cutoff = Date.now() - GUEST_IDLE_MS;
    for (const { http, usedAt } of [...this.live.values()]) {
      if (!http.idle) this.noteUse(http.id);
      else if (usedAt < cutoff) http.connection.close('guest unused');
    }
  }

  /**
   * The guest of `sessionId` for `principal`: the live one (its record read again when it is old, or
   * changed on the owner), or one made from the session's record. Undefined when there can be none.
   */
  private async guestFor(req: IncomingMessage, sessionId: string, principal: unknown): Promise<HttpSession | undefined> {
    const now = Date.now();
    if (this.endedLately(sessionId)) return undefined;
    const live = this.live.get(sessionId);
    if (live && now - live.readAt < RECORD_FRESH_MS) {
      live.usedAt = now;
      return this.mayUse(live, principal);
    }
    let kept: KeptSession | undefined;
    try {
      [kept] = await Promise.all([this.host.support.recall(sessionId), this.register()]);
    } catch (err) {
      this.host.port.reportError(err);
      return undefined;
    }
    // Another request for it may have made one, or renewed it, meanwhile; or the owner said it ended, after the record was read.
    const guest = this.live.get(sessionId);
    if (kept === undefined || this.endedLately(sessionId)) {
      // Ended on its owner, or keeps no record: what the guest serves of it ends too.
      guest?.http.connection.close('the session ended');
      return undefined;
    }
    const { principal: _digest, ...record } = kept;
    if (guest) {
      guest.http.connection.renewRecord(record);
      Object.assign(guest, { kept, readAt: now, usedAt: now });
    } else {
      const http = new HttpSession(this.sessionHost, req.socket.remoteAddress, principal, true);
      http.connection = this.host.port.guest(http, principal, sessionId, record, this.idPrefix);
      this.live.set(sessionId, { http, kept, readAt: now, usedAt: now });
    }
    return this.mayUse(this.live.get(sessionId)!, principal);
  }

  /** The guest's session for `principal`, when it may use it: the one that made the session, when `auth` is on (its fresher credential kept, as a held session keeps it). */
  private mayUse(guest: Guest, principal: unknown): HttpSession | undefined {
    if (!this.host.options.auth) return guest.http;
    if (!mayAdopt(guest.kept, principal, true)) return undefined;
    guest.http.connection.renewPrincipal(principal);
    return guest.http;
  }

  /** This instance's tag registered, with its URL, before any id carries it. */
  private register(): Promise<void> {
    const now = Date.now();
    if (this.registered && now - this.registered.at < REGISTER_AGAIN_MS) return this.registered.done;
    const url = this.host.selfUrl();
    if (url === undefined) return Promise.reject(new Error('StreamableHttpTransport serves where requests land but has no advertisedUrl'));
    const done = this.host.support.register(this.tag, url);
    this.registered = { at: now, done };
    // A registration that failed is tried again by the next request.
    done.catch(() => {
      if (this.registered?.done === done) this.registered = undefined;
    });
    return done;
  }

  /** Note the use of a session served here (now and then, not each time). */
  private noteUse(sessionId: string): void {
    const now = Date.now();
    const last = this.noted.get(sessionId);
    const every = Math.min(NOTE_USE_MS, this.host.options.sessionIdleTimeoutMs / 4);
    if (last !== undefined && now - last < every) return;
    if (this.noted.size >= 10_000) for (const [id, at] of this.noted) if (now - at >= every) this.noted.delete(id);
    this.noted.set(sessionId, now);
    this.host.support.used(sessionId).catch((err) => this.host.port.reportError(err));
  }

  /** Whether the owner said lately that session `sessionId` ended (a record read before that is stale). */
  private endedLately(sessionId: string): boolean {
    const at = this.ended.get(sessionId);
    if (at === undefined) return false;
    if (Date.now() - at < RECORD_FRESH_MS) return true;
    this.ended.delete(sessionId);
    return false;
  }

  private heard(news: GuestNews): void {
    if (news.type === 'ended') {
      // Remembered a while, for a guest being made from a record read before it.
      if (this.ended.size >= MAX_ENDED) this.ended.delete(this.ended.keys().next().value as string);
      this.ended.set(news.sessionId, Date.now());
    }
    if (news.type === 'replies' && news.tag !== this.tag) return;
    const guest = this.live.get(news.sessionId);
    if (!guest) return;
    if (news.type === 'ended') return guest.http.connection.close('the session ended');
    if (news.type === 'replies') {
      // The owner took them with the POST that carried them (the client was answered there).
      for (const message of news.messages) deliver(guest.http, message);
      return;
    }
    if (news.type === 'changed') {
      guest.readAt = 0;
      return;
    }
    if (!guest.http.carries(news.requestId)) return;
    const params: Record<string, unknown> = { requestId: news.requestId };
    if (news.reason !== undefined) params.reason = news.reason;
    deliver(guest.http, { jsonrpc: '2.0', method: 'notifications/cancelled', params });
  }
}

/** Whether `body` holds only replies, each to a request of one instance's guests (a batch, or one): as `replyTag` will find them. */
function guestReplies(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return false;
  let tag: string | undefined;
  for (const message of messages) {
    if (typeof message !== 'object' || message === null || 'method' in message) return false;
    const own = tagOf((message as { id?: unknown }).id);
    if (own === undefined || (tag !== undefined && own !== tag)) return false;
    tag = own;
  }
  return true;
}

/** A message heard for a guest, handled as if its client had sent it (it has no POST of its own to answer). */
function deliver(guest: HttpSession, message: unknown): void {
  guest.connection.admit([classify(message)], false).deliver(message);
}

/** The tag of the instance whose guest sent the request with this id; undefined when no guest sent it. */
function tagOf(id: unknown): string | undefined {
  return typeof id === 'string' ? GUEST_ID.exec(id)?.[1] : undefined;
}
