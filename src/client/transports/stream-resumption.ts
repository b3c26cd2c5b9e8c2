/**
 * Resuming a broken 2025-11-25 SSE stream (transports.mdx §Resumability): a POST's stream or the
 * standalone GET stream that ends short is reopened with GET + `Last-Event-ID`, after the `retry` the
 * server sent, up to `reconnect.maxRetries` attempts in a row; then its request gets its answer (or a
 * lost standalone stream is reported). A 2026-07-28 stream is never resumed: it ends its request.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { decode } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS } from '../../protocol/option-checks.js';
import { quote } from '../../protocol/quote.js';
import type { RequestId } from '../../protocol/types.js';
import type { HttpExchange, HttpHandlers, HttpResponse } from './http-client.js';
import { describeStatus, isEventStream, QUOTED_BODY_CHARS, readText } from './http-response.js';
import { SseReader } from './sse-reader.js';

/**
 * One response the client reads for a request or for the server's pushes: a legacy POST stream and the
 * GETs that resume it, the standalone GET stream, or a 2026-07-28 request's own stream.
 */
export interface Stream {
  readonly kind: 'legacy' | 'standalone' | 'modern';
  /** The request this stream must still answer; undefined once it is answered or given up. */
  owes: RequestId | undefined;
  readonly protocolVersion: string | undefined;
  lastEventId: string;
  retryMs: number | undefined;
  /** How it last stopped, for the message when it is given up. */
  how: 'ended' | 'broke off';
  /** Reconnections in a row that brought no event. */
  failures: number;
  /** What the last failed reconnection met, for the message when the stream is given up. */
  lastFailure: string | undefined;
  /** The POST that carries it: a 2026-07-28 request is cancelled by cancelling it. */
  request: HttpExchange | undefined;
  /** Nothing more is delivered for it (a 2026-07-28 request whose stream the client closed). */
  cancelled: boolean;
  /** Detaches the request's abort listener once the request needs no more watching. */
  release(): void;
}

export function newStream(kind: Stream['kind'], owes: RequestId | undefined, protocolVersion: string | undefined): Stream {
  return {
    kind,
    owes,
    protocolVersion,
    lastEventId: '',
    retryMs: undefined,
    how: 'ended',
    failures: 0,
    lastFailure: undefined,
    request: undefined,
    cancelled: false,
    release() {},
  };
}

/** What resuming needs of the transport. */
export interface ResumptionHost {
  /** Whether the transport is still open: nothing is resumed or delivered once it is not. */
  isOpen(): boolean;
  sessionId(): string | undefined;
  /** The legacy version last sent under. */
  protocolVersion(): string | undefined;
  exchange(method: string, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange;
  /** Hand one message from `stream` to the client. */
  deliver(stream: Stream, message: unknown): void;
  /** The transport's own answer to the request `stream` owes. */
  answer(stream: Stream, code: typeof ErrorCode.ConnectionClosed | typeof ErrorCode.TransportRefused, message: string, httpStatus?: number): void;
  rememberSession(res: HttpResponse): void;
  /** The server answered 404 to a request with the session id: the session is gone. */
  sessionEnded(): void;
  error(error: Error): void;
}

export interface ResumptionOptions {
  maxRetries: number;
  delayMs: number;
  maxMessageBytes: number;
}

export class StreamResumption {
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();

  constructor(
    private readonly host: ResumptionHost,
    private readonly options: ResumptionOptions,
  ) {}

  /** Deliver each event's message; when the stream ends short of its answer, resume it or answer the request. */
  readEvents(stream: Stream, res: HttpResponse): void {
    const limit = { maxEventBytes: this.options.maxMessageBytes, onTooLarge: () => this.dropOversized(stream, res) };
    const reader = new SseReader(
      (event) => {
        stream.failures = 0;
        // A priming event (an id with empty data) carries no message; other event types are not MCP's.
        if (event.type !== 'message' || event.data === '') return;
        const decoded = decode(event.data);
        if (decoded.kind === 'parse-error') {
          if (!stream.cancelled && this.host.isOpen()) {
            this.host.error(new Error(`The server sent an SSE event that is not JSON (${decoded.error.message}): ${quote(event.data, QUOTED_BODY_CHARS)}`));
          }
          return;
        }
        for (const value of decoded.kind === 'batch' ? decoded.values : [decoded.value]) this.host.deliver(stream, value);
      },
      stream.lastEventId,
      limit,
    );
    res.read(
      (chunk) => reader.push(chunk),
      (complete) => {
        stream.lastEventId = reader.lastEventId;
        if (reader.retryMs !== undefined) stream.retryMs = Math.min(reader.retryMs, MAX_TIMER_MS);
        this.streamEnded(stream, complete ? 'ended' : 'broke off');
      },
    );
  }

  /**
   * An event grew past maxMessageBytes: the stream is closed and not resumed (the server would send the
   * same event again). Its request gets that as its answer; a standalone stream is given up.
   */
  private dropOversized(stream: Stream, res: HttpResponse): void {
    const why = `the server sent an SSE event larger than maxMessageBytes (${this.options.maxMessageBytes} bytes)`;
    if (stream.kind === 'standalone') {
      if (!stream.cancelled && this.host.isOpen()) this.host.error(new Error(`The standalone GET stream for server messages was closed: ${why}`));
    } else this.host.answer(stream, ErrorCode.TransportRefused, `${why}; it was not read`);
    stream.cancelled = true;
    res.cancel();
  }

  private streamEnded(stream: Stream, how: 'ended' | 'broke off'): void {
    if (stream.cancelled || !this.host.isOpen()) return;
    if (stream.kind === 'modern') {
      return this.host.answer(
        stream,
        ErrorCode.ConnectionClosed,
        `the response stream ${how} before the response; 2026-07-28 streams cannot be resumed, so re-issue the request`,
      );
    }
    if (stream.kind === 'legacy' && stream.owes === undefined) return;
    stream.how = how;
    // The standalone stream is reopened even without an id: it is how the server reaches the client.
    if (stream.kind === 'legacy' && stream.lastEventId === '') return this.giveUp(stream, 'the server sent no event id');
    stream.lastFailure = `the stream ${how}`;
    this.retry(stream);
  }

  /** Schedule the next reconnection of a broken stream, or give it up when the attempts in a row are spent. */
  private retry(stream: Stream): void {
    if (stream.failures >= this.options.maxRetries) {
      const n = stream.failures;
      const attempts = `${n} reconnection attempt${n === 1 ? '' : 's'} failed (the last: ${stream.lastFailure})`;
      return this.giveUp(stream, n === 0 ? 'reconnecting is off (reconnect.maxRetries is 0)' : attempts);
    }
    stream.failures++;
    // transports.mdx §Resumability: the client MUST wait the `retry` the server sent before it reconnects.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.reconnect(stream);
    }, stream.retryMs ?? this.options.delayMs);
    this.timers.add(timer);
  }

  /** GET the stream: the standalone one, or the rest of a broken one after its last event id. */
  reconnect(stream: Stream): void {
    if (!this.host.isOpen()) return;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const version = stream.protocolVersion ?? this.host.protocolVersion();
    if (version !== undefined) headers['mcp-protocol-version'] = version;
    const sessionId = this.host.sessionId();
    if (sessionId !== undefined) headers['mcp-session-id'] = sessionId;
    if (stream.lastEventId !== '') headers['last-event-id'] = stream.lastEventId;
    try {
      this.host.exchange('GET', headers, undefined, {
        response: (res) => this.onReconnected(stream, res, headers['mcp-session-id'] !== undefined),
        failed: (err) => {
          if (stream.cancelled || !this.host.isOpen()) return;
          stream.lastFailure = err.message;
          this.retry(stream);
        },
      });
    } catch (err) {
      // An event id Node will not put in a header.
      this.giveUp(stream, (err as Error).message);
    }
  }

  private onReconnected(stream: Stream, res: HttpResponse, hadSession: boolean): void {
    this.host.rememberSession(res);
    const status = res.status;
    if (status === 200 && isEventStream(res)) return this.readEvents(stream, res);
    void readText(res, this.options.maxMessageBytes).then(({ text }) => {
      if (stream.cancelled || !this.host.isOpen()) return;
      // transports.mdx §Listening for Messages: 405 means the server offers no standalone stream; so does a
      // 404 to a GET without a session id (a server without sessions has no such endpoint).
      if (stream.kind === 'standalone' && (status === 405 || (status === 404 && !hadSession))) return;
      if (status >= 500) {
        stream.lastFailure = describeStatus(res, text);
        return this.retry(stream);
      }
      const sessionGone = status === 404 && hadSession;
      if (!(sessionGone && stream.kind === 'standalone')) this.giveUp(stream, describeStatus(res, text), status);
      if (sessionGone) this.host.sessionEnded();
    });
  }

  /** A stream that cannot go on: its request gets its answer; a lost standalone stream is reported. */
  private giveUp(stream: Stream, why: string, httpStatus?: number): void {
    if (stream.kind === 'standalone') {
      this.host.error(new Error(`The standalone GET stream for server messages is unavailable: ${why}`));
      return;
    }
    this.host.answer(stream, ErrorCode.ConnectionClosed, `the response stream ${stream.how} before the response, and could not be resumed: ${why}`, httpStatus);
  }

  clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
