/**
 * Server-sent events on a node:http response, one JSON-RPC message per `message` event: writing them, and
 * the streams of a 2025 session (a POST's, or the standalone GET's): their state, the connection each
 * writes to, and what it holds during a resumption.
 */
import type { ServerResponse } from 'node:http';
import type { JsonRpcResponse } from '../../protocol/jsonrpc.js';
import { eventCost, type StoredEvent } from './event-store.js';

/** An event stream's whole header object: made once per set of headers where they are reused (a session's), for writeHead copies them out at once. */
export function eventStreamHeaders(headers: Record<string, string>): Record<string, string> {
  return { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' };
}

/** Answer with an event stream (`headers` from eventStreamHeaders); `first` (a priming event) goes out in the same write as the headers. */
export function startEventStream(res: ServerResponse, headers: Record<string, string>, first?: string): void {
  res.writeHead(200, headers);
  if (first === undefined) res.flushHeaders();
  else res.write(first);
}

/** Write one event; `data` is the message's JSON. With `last`, end the response in the same write. */
export function writeEventData(res: ServerResponse, eventId: string | undefined, data: string, last = false): boolean {
  if (res.writableEnded || res.destroyed) return false;
  const event = `event: message\n${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${data}\n\n`;
  if (last) res.end(event);
  else res.write(event);
  return true;
}

/** How long a response may stay over `boundQueue`'s limit without draining before its connection is closed. */
export const QUEUE_STALL_MS = 2000;

/** A response `boundQueue` is watching (it was over the limit, and has not drained since), or has cut off. */
const WATCHED = Symbol('queueWatched');
const CUT_OFF = Symbol('queueCutOff');

type WatchedQueue = ServerResponse & { [WATCHED]?: true; [CUT_OFF]?: true };

/**
 * Once more than `maxQueued` bytes wait for `res`'s client, give it QUEUE_STALL_MS to drain them; if it
 * does not, close the connection (`wasCutOff` tells it after). A write counts as waiting until the whole
 * of it is read (what one turn writes goes as one write), so a burst to a client that reads is let
 * through and one that does not read is cut off.
 */
export function boundQueue(res: ServerResponse, maxQueued: number): void {
  const watched = res as WatchedQueue;
  // (A peer link's stand-in response counts nothing: the instance its client is on bounds that connection.)
  if (!(res.writableLength > maxQueued) || watched[WATCHED]) return;
  watched[WATCHED] = true;
  const done = () => {
    clearTimeout(timer);
    res.off('drain', done);
    res.off('close', done);
    watched[WATCHED] = undefined;
  };
  const timer = setTimeout(() => {
    done();
    if (res.destroyed || res.writableFinished || !(res.writableLength > maxQueued)) return;
    watched[CUT_OFF] = true;
    res.destroy();
  }, QUEUE_STALL_MS);
  res.on('drain', done);
  res.on('close', done);
}

/** Whether `boundQueue` closed `res` because its client did not read it. */
export function wasCutOff(res: ServerResponse): boolean {
  return (res as WatchedQueue)[CUT_OFF] === true;
}

/** 2025-11-25: an event id with empty data lets the client resume even before the first message; `retry` paces its reconnects. */
export function primingEvent(eventId: string, retryMs: number): string {
  return `id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`;
}

export function writeKeepAlive(res: ServerResponse): void {
  if (!res.writableEnded && !res.destroyed) res.write(': keep-alive\n\n');
}

// --- a session's streams

/** What a stream tells its session. */
export interface StreamOwner {
  /** The connection `res` of `stream` closed. */
  connectionClosed(stream: Stream, res: ServerResponse): void;
}

/** What a resuming connection holds while the store is read: what the default store keeps of a session, counted as it counts. */
const MAX_HELD_BYTES = 4 * 1024 * 1024;

/** What a stream sent while a resumption read the store, to follow the replay in order. */
export interface Held {
  readonly events: StoredEvent[];
  size: number;
  /** One more would have passed MAX_HELD_BYTES: the connection ends after what is held, and the rest waits in the store. */
  full: boolean;
}

/** The response a stream writes to is the `this` of its one shared 'close' listener: the stream hangs on it here. */
const STREAM = Symbol('stream');

type WatchedResponse = ServerResponse & { [STREAM]?: Stream };

/** The standalone GET stream's id; POST streams count up from 1. */
export const STANDALONE = '0';

/** A POST's stream (its requests' responses and what relates to them), or the standalone GET stream. */
export class Stream {
  /** The connection the stream is written to now; undefined while the client is away (it may resume). */
  res: ServerResponse | undefined = undefined;
  /** POST streams start `pending`: JSON unless something related must be sent before the result. */
  mode: 'pending' | 'json' | 'sse' = 'pending';
  /** Responses still to come before this stream ends (its requests' distinct ids). */
  awaiting: number;
  /** A batch's responses, or what a stream got before it became SSE: made for the first. */
  buffered: JsonRpcResponse[] | undefined = undefined;
  seq = 0;
  done = false;
  /** In the session's `live` table: a batch, or a stream that has become SSE (the ones resumption and keep-alives look up). */
  listed = false;
  /** While a resumption reads the store, what the stream sends waits here. */
  held: Held | undefined = undefined;
  /** The version to judge priming by, for the initialize stream (the session has none yet). */
  version: string | undefined = undefined;
  private ownId: string | undefined;

  constructor(
    readonly session: StreamOwner,
    /** The stream's number: its id in base 36, made when an event id or a lookup first needs it. */
    readonly number: number,
    readonly headers: Record<string, string>,
    awaiting: number,
    readonly batch: boolean,
  ) {
    this.awaiting = awaiting;
  }

  get id(): string {
    return (this.ownId ??= this.number === 0 ? STANDALONE : this.number.toString(36));
  }
}

/** 'close' of a watched response: one function for every response, not a closure per request. */
function streamConnectionClosed(this: WatchedResponse): void {
  const stream = this[STREAM];
  if (stream) stream.session.connectionClosed(stream, this);
}

/** Tell `stream`'s session when `res` closes. 'close' comes once: `on` saves the wrapper `once` makes per request. */
export function watchResponse(res: ServerResponse, stream: Stream): void {
  (res as WatchedResponse)[STREAM] = stream;
  res.on('close', streamConnectionClosed);
}

/** Keep `event` to follow the replay, unless that would pass MAX_HELD_BYTES: from then on the store alone has the rest. */
export function hold(held: Held, event: StoredEvent): void {
  if (held.full) return;
  const size = eventCost(event);
  if (held.size + size > MAX_HELD_BYTES) held.full = true;
  else {
    held.events.push(event);
    held.size += size;
  }
}

/** End a stream's connection; an SSE stream first gets `hint` (a `retry` field), when there is one. */
export function endStream(stream: { res: ServerResponse | undefined; mode?: string }, hint: string | undefined): void {
  const res = stream.res;
  if (!res) return;
  if (hint && stream.mode !== 'json' && stream.mode !== 'pending' && !res.writableEnded) res.write(hint);
  res.end();
}
