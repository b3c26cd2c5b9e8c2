/**
 * One Streamable HTTP session as a Channel: each client request's POST carries its own stream (JSON, or
 * SSE once something related must go out first), and the standalone GET stream carries the rest.
 */
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage, JsonRpcResponse } from '../../protocol/jsonrpc.js';
import type { RequestId } from '../../protocol/types.js';
import { isAtLeast } from '../../protocol/versions.js';
import type { Channel, Connection } from '../../server/port.js';
import { eventSeq, type EventStore, type StoredEvent } from './event-store.js';
import { connectionGone, type JsonHeaders, jsonHeaders, sendJson, sendPreparedJson } from './request.js';
import {
  eventStreamHeaders,
  primingEvent,
  startEventStream,
  writeEventData,
  writeKeepAlive,
  boundQueue,
  endStream,
  hold,
  STANDALONE,
  Stream,
  type StreamOwner,
  watchResponse,
} from './sse.js';

export type ResponseMode = 'auto' | 'json' | 'sse';

/** What a session needs from its transport. */
export interface HttpSessionHost {
  readonly eventStore: EventStore;
  readonly retryMs: number;
  /** Bytes queued to a stream's connection that its client has not read, past which (undrained for 2 s) the connection is closed; the stream goes on. */
  readonly maxBufferedBytes: number;
  sessionClosed(session: HttpSession): void;
  /** What another instance would need to go on with the session changed (its `connection.record`). */
  sessionChanged(session: HttpSession): void;
  reportError(error: unknown, connection?: Connection): void;
  /** The server is stopping: streams that end say when to come back (`retry`), to whichever instance then serves. */
  stopping(): boolean;
  /** Serves guests (`serveWhereTheyLand`): their streams carry no event ids, as none can be resumed elsewhere. */
  readonly guests?: boolean;
}

/** The reconnection delay a stream ended by a stopping server suggests, in ms. */
const STOPPING_RETRY_MS = 5000;

function isResponse(message: JsonRpcMessage | JsonRpcMessage[]): message is JsonRpcResponse {
  return !Array.isArray(message) && !('method' in message);
}

export class HttpSession implements Channel, StreamOwner {
  readonly kind = 'http';
  /** Set right after construction, by the transport. */
  connection!: Connection;
  /**
   * Taken over from an instance that drains and still finishes what the session had under way there:
   * replies this instance does not await go to it.
   */
  formerOwner: string | undefined;
  /** When it was taken over from another instance (epoch ms): its streams up to this number were that instance's. */
  private adoptedAt: number | undefined;
  /** This instance drains and handed the session off: another instance keeps its record from now. */
  handedOff = false;
  /** Streams resumption and keep-alives look up: batches, and streams that became SSE. A single request's JSON answer is only in `byRequest`. */
  private readonly live = new Map<string, Stream>();
  private readonly byRequest = new Map<RequestId, Stream>();
  /** POST streams whose responses have not all gone out. */
  private unfinished = 0;
  private standalone: Stream | undefined;
  private lastStream = 0;
  private closed = false;

  /** The stream of the `initialize` request: the session is closed when its answer is an error. */
  private initializeStream: Stream | undefined;

  constructor(
    private readonly host: HttpSessionHost,
    readonly remoteAddress: string | undefined,
    /** What the `auth` hook returned for the request that created the session. */
    readonly principal: unknown,
    /**
     * Gone on with from another instance: its streams, and its standalone stream's events, are numbered
     * from now (epoch ms), past any the earlier owner numbered, so an old event id never names one of this
     * instance's (and a shared event store keeps both apart).
     */
    adopted = false,
  ) {
    if (adopted) this.lastStream = this.standaloneSeq = this.adoptedAt = Date.now();
  }

  /** Gone on with here from another instance's record (taken over, or a guest). */
  get adopted(): boolean {
    return this.adoptedAt !== undefined;
  }

  sessionChanged(): void {
    if (!this.handedOff) this.host.sessionChanged(this);
  }

  get id(): string {
    return this.connection.id;
  }

  /** The headers of each POST's answer without CORS: made once per session, never changed. */
  get idHeaders(): Record<string, string> {
    return (this.ownIdHeaders ??= { 'mcp-session-id': this.connection.id });
  }

  private ownIdHeaders: Record<string, string> | undefined;
  /** idHeaders with a JSON answer's own: made for the first such answer, reused by the rest. */
  private jsonIdHeaders: JsonHeaders | undefined;
  /** The same, for an event stream. */
  private sseIdHeaders: Record<string, string> | undefined;

  /** Whether the session has no open connection and nothing in flight: what counts as idle. */
  get idle(): boolean {
    return this.unfinished === 0 && this.standalone === undefined && !this.connection.busy;
  }

  /** Event ids and replay exist since 2025-03-26; priming events and polling since 2025-11-25. */
  private get resumable(): boolean {
    return !this.host.guests && isAtLeast(this.connection.protocolVersion, '2025-03-26');
  }

  private primes(stream?: Stream): boolean {
    return !this.host.guests && isAtLeast(stream?.version ?? this.connection.protocolVersion, '2025-11-25');
  }

  /**
   * A POST that carries requests: their responses (and anything related to them) go on this stream.
   * `version` is the protocol version to judge priming by while the session has none (initialize).
   */
  openPostStream(res: ServerResponse, requestIds: RequestId[], batch: boolean, mode: ResponseMode, headers: Record<string, string>, version?: string): void {
    const stream = new Stream(this, ++this.lastStream, headers, batch ? new Set(requestIds).size : 1, batch);
    stream.version = version;
    if (version !== undefined) this.initializeStream = stream;
    this.unfinished++;
    if (batch) {
      this.list(stream);
      for (const id of requestIds) {
        // An id still mapped to another stream (a refused duplicate): that stream stays where close() finds it.
        const previous = this.byRequest.get(id);
        if (previous && previous !== stream) this.list(previous);
        this.byRequest.set(id, stream);
      }
    } else this.byRequest.set(requestIds[0], stream);
    this.watch(stream, res);
    if (mode === 'sse') this.upgrade(stream);
    else if (mode === 'json') stream.mode = 'json';
  }

  /** GET without Last-Event-ID: the standalone stream. Returns false when one is already open (409). */
  openStandaloneStream(res: ServerResponse, headers: Record<string, string>): boolean {
    if (this.standalone) return false;
    const stream = this.openStandalone(headers);
    this.watch(stream, res);
    // A re-opened stream's priming id takes a number of its own, so ids stay unique across GET connections.
    const primingSeq = this.standaloneOpens++ === 0 ? stream.seq : ++stream.seq;
    startEventStream(res, eventStreamHeaders(headers), this.primes() ? primingEvent(`${STANDALONE}_${primingSeq}`, this.host.retryMs) : undefined);
    this.connection.backChannelOpened();
    return true;
  }

  private standaloneOpens = 0;

  /** The standalone stream's event counter outlives each GET connection, so ids stay unique. */
  private standaloneSeq = 0;

  private list(stream: Stream): void {
    if (stream.listed || stream.done) return;
    stream.listed = true;
    this.live.set(stream.id, stream);
  }

  private finished(stream: Stream): void {
    stream.done = true;
    this.unfinished--;
    if (stream.listed) this.live.delete(stream.id);
  }

  private openStandalone(headers: Record<string, string>): Stream {
    const stream = new Stream(this, 0, headers, 0, false);
    stream.mode = 'sse';
    stream.seq = this.standaloneSeq;
    this.standalone = stream;
    return stream;
  }

  /** Write the stream to `res` from now on, until that connection closes. */
  private watch(stream: Stream, res: ServerResponse): void {
    stream.res = res;
    // An await may have come first (auth, an event store): the client may be gone already.
    if (connectionGone(res)) this.connectionClosed(stream, res);
    else watchResponse(res, stream);
  }

  /** The connection `res` of `stream` closed. */
  connectionClosed(stream: Stream, res: ServerResponse): void {
    if (stream.res !== res) return;
    // transports.mdx: a disconnect is not a cancellation; the request goes on and can be resumed.
    stream.res = undefined;
    if (this.standalone === stream) {
      this.standaloneSeq = stream.seq;
      this.standalone = undefined;
      this.connection.touch(); // idle from now, not from when the stream opened
    }
  }

  /**
   * GET with Last-Event-ID: replay what that stream missed, then keep the connection for the rest of it.
   * Resolves 'unknown' when the id names no event stream of this session (400), 'busy' when the standalone stream is open (409).
   */
  async resume(res: ServerResponse, lastEventId: string, headers: Record<string, string>): Promise<'ok' | 'unknown' | 'busy' | 'lost'> {
    const cut = lastEventId.lastIndexOf('_');
    const streamId = cut > 0 ? lastEventId.slice(0, cut) : '';
    const lastSeq = eventSeq(lastEventId);
    if (!/^[0-9a-z]+$/.test(streamId) || Number.isNaN(lastSeq) || (streamId !== STANDALONE && parseInt(streamId, 36) > this.lastStream)) return 'unknown';
    if (streamId === STANDALONE && this.standalone) return 'busy';
    const live = streamId === STANDALONE ? undefined : this.unfinishedStream(streamId);
    // Only an event stream has ids to resume from; a POST still answering as JSON has none.
    if (live && live.mode !== 'sse') return 'unknown';
    // The stream keeps what it sends while the store is read, so nothing falls between replay and live.
    const stream = streamId === STANDALONE ? this.openStandalone(headers) : live;
    if (stream) {
      const previous = stream.res;
      stream.res = undefined;
      previous?.end();
      stream.held = { events: [], size: 0, full: false };
    }
    let replayed: StoredEvent[];
    try {
      const stored = this.host.eventStore.replayAfter(this.id, streamId, lastEventId);
      replayed = Array.isArray(stored) ? stored : await stored;
      checkReplay(replayed);
    } catch (err) {
      if (stream) this.release(stream);
      throw err;
    }
    // A POST stream of the owner this session was taken over from, with nothing after the client's last
    // event: its request was under way there, and nothing can come of it here.
    if (!stream && replayed.length === 0 && this.adoptedAt !== undefined && parseInt(streamId, 36) <= this.adoptedAt) return 'lost';
    startEventStream(res, eventStreamHeaders(headers));
    let seen = lastSeq;
    for (const event of replayed) {
      writeEventData(res, event.eventId, event.data);
      seen = Math.max(seen, eventSeq(event.eventId));
    }
    const held = stream?.held;
    if (stream) stream.held = undefined;
    for (const event of held?.events ?? []) if (eventSeq(event.eventId) > seen) writeEventData(res, event.eventId, event.data);
    // A replay as large as a custom store keeps waits for a client that reads it, as live events do.
    boundQueue(res, this.host.maxBufferedBytes);
    if (stream && held?.full && !this.closed) {
      this.release(stream);
      // transports.mdx: the server may close a connection without ending its stream; the client resumes from the last event it got.
      res.end(this.primes(stream) ? `retry: ${this.host.retryMs}\n\n` : undefined);
      return 'ok';
    }
    if (!stream || stream.done || this.closed) {
      if (stream) this.release(stream);
      res.end(); // The request finished while the client was away; its response was in the replay.
      return 'ok';
    }
    this.watch(stream, res);
    if (stream === this.standalone) this.connection.backChannelOpened();
    return 'ok';
  }

  /** The POST stream `id` whose responses have not all gone out: listed, or a single request's (looked up by its request, rarely). */
  private unfinishedStream(id: string): Stream | undefined {
    const listed = this.live.get(id);
    if (listed) return listed;
    for (const stream of this.byRequest.values()) if (!stream.listed && stream.id === id) return stream;
    return undefined;
  }

  /** A resumption that did not attach: the stream writes again, and a standalone stream without a connection is no stream. */
  private release(stream: Stream): void {
    stream.held = undefined;
    if (this.standalone === stream && !stream.res) {
      this.standaloneSeq = stream.seq; // it may have sent events while held: their ids stay taken
      this.standalone = undefined;
    }
  }

  /** Whether a POST stream here waits for the response to client request `requestId`. */
  carries(requestId: RequestId): boolean {
    return this.byRequest.has(requestId);
  }

  /** A request ended without a response (it was cancelled): its stream must not wait for one. */
  requestEnded(requestId: RequestId): void {
    const stream = this.byRequest.get(requestId);
    if (!stream) return;
    this.byRequest.delete(requestId);
    if (--stream.awaiting > 0) return;
    this.finished(stream);
    this.connection.touch();
    // Its events were kept with none marked last: the store learns it ended, so it counts among the ended streams.
    if (stream.seq > 0) this.endStored(stream.id);
    const res = stream.res;
    if (!res) return;
    if (stream.mode !== 'sse' && stream.buffered !== undefined && stream.buffered.length > 0) this.writeJson(stream, JSON.stringify(stream.buffered));
    else if (!res.headersSent) res.writeHead(204, stream.headers).end();
    else res.end();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean {
    if (this.closed) return false;
    // Serialise first: a message that cannot be (a BigInt, a cycle) throws before any stream changes state.
    const data = JSON.stringify(message);
    if (isResponse(message) && message.id !== null) {
      const stream = this.byRequest.get(message.id);
      if (stream) {
        this.byRequest.delete(message.id);
        stream.awaiting--;
        this.deliverResponse(stream, message, data);
        return true;
      }
    } else if (relatedRequestId !== undefined) {
      const stream = this.byRequest.get(relatedRequestId);
      if (stream && stream.mode !== 'json') {
        this.deliver(stream, data);
        return true;
      }
    }
    // Unrelated messages, and related ones whose stream cannot carry them, go on the standalone stream.
    if (!this.standalone) return false;
    this.deliver(this.standalone, data);
    return true;
  }

  canPush(relatedRequestId: RequestId | undefined): boolean {
    if (this.closed) return false;
    const stream = relatedRequestId === undefined ? undefined : this.byRequest.get(relatedRequestId);
    return (stream !== undefined && stream.mode !== 'json') || this.standalone !== undefined;
  }

  closeStream(requestId: RequestId): boolean {
    const stream = this.byRequest.get(requestId);
    // SEP-1699: only after an event id was sent, and only for clients that know to reconnect.
    if (!stream || stream.mode === 'json' || !this.primes(stream)) return false;
    if (stream.mode === 'pending') this.upgrade(stream);
    const res = stream.res;
    stream.res = undefined;
    res?.end();
    return true;
  }

  /** SSE comments keep idle proxies from closing open streams. */
  keepAlive(): void {
    for (const stream of this.live.values()) if (stream.mode === 'sse' && stream.res) writeKeepAlive(stream.res);
    if (this.standalone?.res) writeKeepAlive(this.standalone.res);
  }

  close(_reason: string): void {
    if (this.closed) return;
    this.closed = true;
    const hint = this.host.stopping() ? `retry: ${STOPPING_RETRY_MS}\n\n` : undefined;
    for (const stream of this.live.values()) endStream(stream, hint);
    // A single request's stream is in `byRequest` alone.
    for (const stream of this.byRequest.values()) if (!stream.listed) endStream(stream, hint);
    if (this.standalone) endStream(this.standalone, hint);
    this.live.clear();
    this.byRequest.clear();
    this.unfinished = 0;
    this.standalone = undefined;
    this.host.sessionClosed(this);
  }

  /** Write a message's JSON on the stream as an event (stored for resumption); `last` ends the stream's connection with it. */
  private deliver(stream: Stream, data: string, last = false): void {
    if (stream.mode === 'pending') this.upgrade(stream);
    const event = this.resumable ? { eventId: `${stream.id}_${++stream.seq}`, data } : undefined;
    if (event) this.store(stream.id, event, last);
    if (stream.held && event) hold(stream.held, event);
    else if (stream.res && writeEventData(stream.res, event?.eventId, data, last) && !last) boundQueue(stream.res, this.host.maxBufferedBytes);
  }

  private deliverResponse(stream: Stream, response: JsonRpcResponse, data: string): void {
    const last = stream.awaiting === 0;
    if (last) {
      this.finished(stream);
      this.connection.touch(); // idle from now, not from when the request arrived
    }
    if (stream.mode === 'sse') this.deliver(stream, data, last);
    else if (stream.batch) (stream.buffered ??= []).push(response);
    if (!last) return;
    if (stream.mode !== 'sse') this.writeJson(stream, stream.batch ? JSON.stringify(stream.buffered) : data);
    stream.res?.end();
    // No session id was valid without a successful initialize: a failed one ends the session at once.
    if (stream === this.initializeStream) {
      this.initializeStream = undefined;
      if (this.connection.state === 'new') this.connection.close('initialize failed');
    }
  }

  private writeJson(stream: Stream, body: string): void {
    const res = stream.res;
    if (!res || res.headersSent || res.destroyed) return;
    if (stream.headers === this.ownIdHeaders) sendPreparedJson(res, 200, (this.jsonIdHeaders ??= jsonHeaders(stream.headers)), body);
    else sendJson(res, 200, stream.headers, body);
  }

  private upgrade(stream: Stream): void {
    stream.mode = 'sse';
    if (stream !== this.standalone) this.list(stream);
    if (stream.res && !stream.res.headersSent) {
      // Most streams carry just the session's id: their event-stream headers are made once.
      const headers = stream.headers === this.ownIdHeaders ? (this.sseIdHeaders ??= eventStreamHeaders(stream.headers)) : eventStreamHeaders(stream.headers);
      startEventStream(stream.res, headers, this.primes(stream) ? primingEvent(`${stream.id}_0`, this.host.retryMs) : undefined);
    }
    const buffered = stream.buffered;
    stream.buffered = undefined;
    for (const response of buffered ?? []) this.deliver(stream, JSON.stringify(response));
  }

  private endStored(streamId: string): void {
    const store = this.host.eventStore;
    if (typeof store.endStream !== 'function') return;
    try {
      const ended = store.endStream(this.id, streamId);
      if (ended instanceof Promise) ended.catch((err) => this.host.reportError(err, this.connection));
    } catch (err) {
      this.host.reportError(err, this.connection);
    }
  }

  private store(streamId: string, event: StoredEvent, last: boolean): void {
    try {
      const stored = this.host.eventStore.append(this.id, streamId, event, last);
      if (stored instanceof Promise) stored.catch((err) => this.host.reportError(err, this.connection));
    } catch (err) {
      this.host.reportError(err, this.connection);
    }
  }
}

/** A custom store's replay is written as it is: an event it cannot write is refused before the stream starts. */
function checkReplay(events: unknown): asserts events is StoredEvent[] {
  if (!Array.isArray(events)) throw new TypeError(`eventStore.replayAfter must return an array of { eventId, data }; got ${typeof events}`);
  for (const event of events) {
    if (typeof event?.eventId !== 'string' || typeof event.data !== 'string')
      throw new TypeError("eventStore.replayAfter must return events as { eventId, data }, both strings (data is the message's JSON, as appended)");
  }
}
