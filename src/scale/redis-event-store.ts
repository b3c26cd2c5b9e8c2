/**
 * Streamable HTTP's event store kept in Redis, on the connection `connectRedisScale` makes, so that a GET
 * with `Last-Event-ID` replays what a session's earlier owner sent before it went (the session taken over
 * by another instance). Each SSE stream of a session is a Redis stream; a sorted set lists the session's
 * streams in the order they began, a list those that ended, and a hash counts their bytes. The in-memory
 * store's budgets hold per session (events per stream, streams per session, ended streams, bytes per
 * session: the oldest go first, an event that alone costs more is not kept), each write one Lua script;
 * a session's keys expire `ttlMs` after its last event, and go when it ends.
 */
import type { Redis as RedisClient } from 'ioredis';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import { type EventStore, eventCost, eventSeq, type StoredEvent } from '../transports/http/event-store.js';

export interface RedisEventStoreOptions {
  /** Events kept per stream; older ones are dropped first. Default 1000. */
  maxEventsPerStream?: number;
  /** Streams kept per session; the oldest is dropped first. Default 100. */
  maxStreamsPerSession?: number;
  /** Of those, streams that ended (answered, or cancelled), kept for a client that lost the tail of one; past it the one that ended first goes. Default 8. */
  maxEndedStreamsPerSession?: number;
  /** Bytes one session's events may cost, counted as the in-memory store counts them (id + data + 160). Default 4 MiB. */
  maxBytesPerSession?: number;
  /** How long a session's events are kept after its last one, in ms (a session that ends drops them at once). Default one hour. */
  ttlMs?: number;
}

/** Lua that drops a session's stream, and marks stream `id` ended: both scripts below define the locals it reads first. */
const STREAM_FUNCTIONS = `
local function dropStream(other)
  redis.call('DEL', prefix .. other)
  redis.call('LREM', ended, 0, other)
  local spent = tonumber(redis.call('HGET', bytes, other) or '0')
  -- (-0 is no integer to Redis.)
  if spent ~= 0 then redis.call('HINCRBY', bytes, '#total', -spent) end
  redis.call('HDEL', bytes, other)
  redis.call('ZREM', streams, other)
end
-- The stream ended: it joins the ended ones (once: its first end counts, as in memory), and the one that
-- ended first goes past their limit.
local function streamEnded()
  if not redis.call('ZSCORE', streams, id) then return end
  local known = false
  for _, other in ipairs(redis.call('LRANGE', ended, 0, -1)) do if other == id then known = true end end
  if not known then redis.call('RPUSH', ended, id) end
  while redis.call('LLEN', ended) > maxEnded do dropStream(redis.call('LPOP', ended)) end
  redis.call('PEXPIRE', ended, ttl)
end
`;

/**
 * KEYS: the session's streams (zset), its bytes (hash), this stream, the session's ended streams (list).
 * ARGV: stream id, event id, data, cost, max events per stream, max streams per session, max bytes per
 * session, ttl ms, the prefix of the session's stream keys, '1' when the event is its stream's last, max
 * ended streams per session. 0 when the event costs more than a session may hold (not kept), else 1.
 */
const APPEND = `
local streams, bytes, stream, ended = KEYS[1], KEYS[2], KEYS[3], KEYS[4]
local id, cost, prefix = ARGV[1], tonumber(ARGV[4]), ARGV[9]
local maxEvents, maxStreams, maxBytes, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8]
local last, maxEnded = ARGV[10] == '1', tonumber(ARGV[11])
${STREAM_FUNCTIONS}
if cost > maxBytes then
  if last then streamEnded() end
  return 0
end
-- The oldest entry of a stream: its Redis id and its cost.
local function dropOldest(key, name)
  local first = redis.call('XRANGE', key, '-', '+', 'COUNT', 1)[1]
  if not first then return false end
  local fields, spent = first[2], 0
  for i = 1, #fields, 2 do if fields[i] == 'c' then spent = tonumber(fields[i + 1]) end end
  redis.call('XDEL', key, first[1])
  redis.call('HINCRBY', bytes, name, -spent)
  redis.call('HINCRBY', bytes, '#total', -spent)
  return true
end
if not redis.call('ZSCORE', streams, id) then
  redis.call('ZADD', streams, redis.call('HINCRBY', bytes, '#streams', 1), id)
  while redis.call('ZCARD', streams) > maxStreams do dropStream(redis.call('ZRANGE', streams, 0, 0)[1]) end
end
-- Entry ids count the session's arrivals, across its streams: the smallest first entry is its oldest event.
redis.call('XADD', stream, redis.call('HINCRBY', bytes, '#arrivals', 1) .. '-1', 'i', ARGV[2], 'd', ARGV[3], 'c', cost)
redis.call('HINCRBY', bytes, id, cost)
local total = redis.call('HINCRBY', bytes, '#total', cost)
if redis.call('XLEN', stream) > maxEvents then dropOldest(stream, id) end
-- Over the session's budget: its oldest event goes, whichever stream holds it.
total = tonumber(redis.call('HGET', bytes, '#total'))
while total > maxBytes do
  local oldest, oldestName = nil, nil
  for _, name in ipairs(redis.call('ZRANGE', streams, 0, -1)) do
    local first = redis.call('XRANGE', prefix .. name, '-', '+', 'COUNT', 1)[1]
    -- A stream emptied by the budget still counts among the session's streams, as in memory.
    if first then
      local arrival = tonumber(string.match(first[1], '^(%d+)'))
      if not oldest or arrival < oldest then oldest, oldestName = arrival, name end
    end
  end
  if not oldestName then break end
  dropOldest(prefix .. oldestName, oldestName)
  total = tonumber(redis.call('HGET', bytes, '#total'))
end
redis.call('PEXPIRE', streams, ttl)
redis.call('PEXPIRE', bytes, ttl)
redis.call('PEXPIRE', stream, ttl)
if last then streamEnded() end
return 1`;

/**
 * KEYS: the session's streams, its bytes, its ended streams. ARGV: the stream id, the prefix of the
 * session's stream keys, max ended streams per session, ttl ms. A stream ended with no last event.
 */
const END_STREAM = `
local streams, bytes, ended = KEYS[1], KEYS[2], KEYS[3]
local id, prefix, maxEnded, ttl = ARGV[1], ARGV[2], tonumber(ARGV[3]), ARGV[4]
${STREAM_FUNCTIONS}
streamEnded()
return 1`;

/** KEYS: the session's streams, its bytes, its ended streams. ARGV: the prefix of its stream keys. */
const DROP_SESSION = `
for _, name in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do redis.call('DEL', ARGV[1] .. name) end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3])
return 1`;

const COMMANDS = {
  switchboardEventAppend: { numberOfKeys: 4, lua: APPEND },
  switchboardEventEndStream: { numberOfKeys: 3, lua: END_STREAM },
  switchboardEventsDropSession: { numberOfKeys: 3, lua: DROP_SESSION },
} as const;

type Commands = Record<keyof typeof COMMANDS, (...keysThenArgs: (string | number)[]) => Promise<unknown>>;

/** An event store in Redis: `scale.eventStore()`, for `new StreamableHttpTransport(server, { eventStore })`. */
export class RedisEventStore implements EventStore {
  private readonly limits: Required<RedisEventStoreOptions>;

  private constructor(
    private readonly redis: RedisClient,
    private readonly prefix: string,
    options: RedisEventStoreOptions,
  ) {
    this.limits = {
      maxEventsPerStream: options.maxEventsPerStream ?? 1000,
      maxStreamsPerSession: options.maxStreamsPerSession ?? 100,
      maxEndedStreamsPerSession: options.maxEndedStreamsPerSession ?? 8,
      maxBytesPerSession: options.maxBytesPerSession ?? 4 * 1024 * 1024,
      ttlMs: options.ttlMs ?? 3_600_000,
    };
    for (const [name, value] of Object.entries(this.limits)) positiveInteger(name, value, name === 'ttlMs' ? MAX_TIMER_MS : undefined);
    for (const [name, definition] of Object.entries(COMMANDS)) redis.defineCommand(name, definition);
  }

  /**
   * A store on `redis` under `prefix`; `RedisScale.eventStore` makes it on the scale's own connection.
   * @internal
   */
  static over(redis: RedisClient, prefix: string, options: RedisEventStoreOptions = {}): RedisEventStore {
    return new RedisEventStore(redis, prefix, options);
  }

  async append(sessionId: string, streamId: string, event: StoredEvent, last = false): Promise<void> {
    if (typeof event?.eventId !== 'string' || typeof event.data !== 'string') {
      throw new TypeError("RedisEventStore.append takes { eventId, data } with both strings (data is the message's JSON)");
    }
    const { maxEventsPerStream, maxStreamsPerSession, maxEndedStreamsPerSession, maxBytesPerSession, ttlMs } = this.limits;
    const keys = this.keysOf(sessionId);
    await this.call(() =>
      (this.redis as unknown as Commands).switchboardEventAppend(
        keys.streams,
        keys.bytes,
        keys.stream + streamId,
        keys.ended,
        streamId,
        event.eventId,
        event.data,
        eventCost(event),
        maxEventsPerStream,
        maxStreamsPerSession,
        maxBytesPerSession,
        ttlMs,
        keys.stream,
        last ? '1' : '0',
        maxEndedStreamsPerSession,
      ),
    );
  }

  async endStream(sessionId: string, streamId: string): Promise<void> {
    const { maxEndedStreamsPerSession, ttlMs } = this.limits;
    const keys = this.keysOf(sessionId);
    await this.call(() =>
      (this.redis as unknown as Commands).switchboardEventEndStream(
        keys.streams,
        keys.bytes,
        keys.ended,
        streamId,
        keys.stream,
        maxEndedStreamsPerSession,
        ttlMs,
      ),
    );
  }

  async replayAfter(sessionId: string, streamId: string, lastEventId: string): Promise<StoredEvent[]> {
    const entries = await this.call(() => this.redis.xrange(this.keysOf(sessionId).stream + streamId, '-', '+'));
    const after = eventSeq(lastEventId);
    const replay: StoredEvent[] = [];
    for (const [, fields] of entries) {
      let eventId: string | undefined;
      let data: string | undefined;
      for (let i = 0; i < fields.length; i += 2) {
        if (fields[i] === 'i') eventId = fields[i + 1];
        else if (fields[i] === 'd') data = fields[i + 1];
      }
      // An entry written by anyone else with access to the Redis is not ours to replay.
      if (eventId !== undefined && data !== undefined && eventSeq(eventId) > after) replay.push({ eventId, data });
    }
    return replay;
  }

  async dropSession(sessionId: string): Promise<void> {
    const keys = this.keysOf(sessionId);
    await this.call(() => (this.redis as unknown as Commands).switchboardEventsDropSession(keys.streams, keys.bytes, keys.ended, keys.stream));
  }

  private keysOf(sessionId: string): { streams: string; bytes: string; ended: string; stream: string } {
    const base = `${this.prefix}:events:${sessionId}`;
    return { streams: `${base}:streams`, bytes: `${base}:bytes`, ended: `${base}:ended`, stream: `${base}:stream:` };
  }

  /** A command whose failure says the event store is unreachable. */
  private async call<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `The shared event store is unreachable (${(err as Error).message}); retry shortly`);
    }
  }
}
