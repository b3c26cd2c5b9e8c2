/**
 * The client side of Streamable HTTP: every message is a POST of its own, answered with JSON or an SSE
 * stream. Under 2025-11-25 (legacy) there is a session (`Mcp-Session-Id`), a standalone GET stream for
 * what the server pushes, and broken streams resume with GET + `Last-Event-ID` (transports.mdx §Resumability).
 * Under 2026-07-28 each request carries the SEP-2243 headers, its stream cannot be resumed, and closing
 * it is the cancellation. HTTP itself comes from node:http under Node and from fetch elsewhere (a browser),
 * or from the `fetch` given; this file imports neither.
 */
import { isObject } from '../../protocol/is-object.js';
import { ErrorCode } from '../../protocol/errors.js';
import { decode, errorResponse, isRequestId, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import { quote } from '../../protocol/quote.js';
import type { RequestId } from '../../protocol/types.js';
import type { ClientSink, ClientTransport, SendContext } from '../transport.js';
import { isNode } from '../platform.js';
import { guardSink } from './deliver.js';
import { fetchHttpClient } from './fetch-http.js';
import type { FetchLike, HttpClient, HttpExchange, HttpHandlers, HttpResponse } from './http-client.js';
import { isReservedHeader, modernHeaders } from './http-headers.js';
import { SseReader } from './sse-reader.js';
import { checkHeaders, checkUrl } from './transport-options.js';

export interface StreamableHttpClientTransportOptions {
  /**
   * Sent on every request (POST, GET and DELETE): `Authorization`, ... The headers the transport sets
   * itself (Accept, Content-Type, Mcp-Session-Id, MCP-Protocol-Version, Last-Event-ID, Mcp-Method,
   * Mcp-Name, Mcp-Param-*) cannot be given.
   */
  headers?: Record<string, string>;
  /** Resuming a broken 2025-11-25 SSE stream with GET + Last-Event-ID. */
  reconnect?: {
    /** Reconnection attempts in a row (the count restarts when events arrive) before the stream is given up. Default 2; 0 never reconnects. */
    maxRetries?: number;
    /** How long to wait before a reconnection when the server sent no `retry:`, in ms. Default 1000. */
    delayMs?: number;
  };
  /**
   * The largest message read, in bytes: a JSON body, or one SSE event as it arrives. A larger one is not
   * read: its request fails (or a standalone stream is given up) with an error saying so. Default 4 MiB.
   */
  maxMessageBytes?: number;
  /** HTTP through this `fetch` instead of node:http (in a browser, the global fetch is used anyway). */
  fetch?: FetchLike;
}

/** How long `close()` waits for the server to answer its DELETE. */
const DELETE_TIMEOUT_MS = 2000;
/** How much of an unexpected body an error message quotes. */
const QUOTED_BODY_CHARS = 200;
/** transports.mdx §Session Management: a session id is visible ASCII only. */
const SESSION_ID = /^[\x21-\x7e]+$/;
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/**
 * One response the client reads for a request or for the server's pushes: a legacy POST stream and the
 * GETs that resume it, the standalone GET stream, or a 2026-07-28 request's own stream.
 */
interface Stream {
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

export class StreamableHttpClientTransport implements ClientTransport {
  readonly kind = 'http';
  /** Only 2026-07-28 requests are cancelled this way; a legacy request is cancelled with notifications/cancelled. */
  readonly cancelsByClosingStream = true;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly maxRetries: number;
  private readonly delayMs: number;
  private readonly maxMessageBytes: number;
  private readonly fetchImpl: FetchLike | undefined;
  /** Made by start(): node:http with a pool of its own (so `close()` leaves no socket behind), or fetch. */
  private http: HttpClient | undefined;
  private sink: ClientSink | undefined;
  private state: 'open' | 'closing' | 'closed' = 'open';
  private closing: Promise<void> | undefined;
  private sessionId: string | undefined;
  /** The legacy version last sent under, for the GET and DELETE requests. */
  private protocolVersion: string | undefined;
  private standalone: Stream | undefined;
  /** Every request not answered yet, by id, with the stream that owes its answer (an answer may come on another). */
  private readonly owed = new Map<RequestId, Stream>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(url: string | URL, options: StreamableHttpClientTransportOptions = {}) {
    this.url = checkUrl('StreamableHttpClientTransport', url, ['http:', 'https:']);
    this.headers = checkHeaders(options.headers, isReservedHeader);
    const reconnect = options.reconnect ?? {};
    if (typeof reconnect !== 'object' || reconnect === null) throw new TypeError('Option reconnect must be { maxRetries?, delayMs? }');
    this.maxRetries = reconnect.maxRetries ?? 2;
    this.delayMs = reconnect.delayMs ?? 1000;
    nonNegativeInteger('reconnect.maxRetries', this.maxRetries);
    nonNegativeInteger('reconnect.delayMs', this.delayMs, MAX_TIMER_MS);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    positiveInteger('maxMessageBytes', this.maxMessageBytes);
    if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('Option fetch must be a function');
    this.fetchImpl = options.fetch;
  }

  /** HTTP has nothing to open: the first POST is the first contact. */
  async start(sink: ClientSink): Promise<void> {
    if (this.state !== 'open') throw new Error('StreamableHttpClientTransport is closed; create another transport to connect again');
    if (this.sink) throw new Error('StreamableHttpClientTransport is already started');
    this.sink = guardSink(sink);
    this.http = this.fetchImpl ? fetchHttpClient(this.fetchImpl) : await platformHttpClient(this.url);
  }

  /**
   * POST one message. A request resolves once its POST is written, and whatever then goes wrong is its
   * answer through the sink (see `answer`); a notification or reply resolves once the server took it.
   */
  async send(message: JsonRpcMessage, context: SendContext = {}): Promise<void> {
    if (this.state !== 'open') throw new Error('Cannot send: the StreamableHttpClientTransport is closed');
    if (!this.sink || !this.http) throw new Error('Cannot send: start() the StreamableHttpClientTransport first');
    const request = 'method' in message && 'id' in message ? message : undefined;
    // Only a request travels the 2026-07-28 way: no session, and the SEP-2243 headers.
    const modern = request ? context.modern : undefined;
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream', 'content-type': 'application/json' };
    if (context.protocolVersion !== undefined) headers['mcp-protocol-version'] = context.protocolVersion;
    if (modern) Object.assign(headers, modernHeaders(modern));
    else {
      if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
      this.protocolVersion = context.protocolVersion ?? this.protocolVersion;
    }
    const body = JSON.stringify(message);
    if (!request) return this.postWithoutAnswer(body, headers, 'method' in message ? message.method : `the reply to request ${quote(message.id)}`);
    if (context.signal?.aborted) return;
    const stream = newStream(modern ? 'modern' : 'legacy', request.id, context.protocolVersion);
    this.owed.set(request.id, stream);
    this.watchAbort(stream, context.signal);
    return this.postRequest(stream, body, headers);
  }

  sessionReady(protocolVersion: string): void {
    this.protocolVersion = protocolVersion;
    if (this.state !== 'open' || this.standalone) return;
    this.standalone = newStream('standalone', undefined, protocolVersion);
    this.reconnect(this.standalone);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.state !== 'open') return;
      this.state = 'closing';
      this.clearTimers();
      if (this.sessionId !== undefined) await this.deleteSession();
      this.shutDown('closed by the client');
    })();
    return this.closing;
  }

  /**
   * A notification or a reply: the server says 202 (or 204) and nothing more. Refused, it is reported on
   * `error` and send() resolves (the server had it); send() rejects only when the server was not reached.
   */
  private postWithoutAnswer(body: string, headers: Record<string, string>, what: string): Promise<void> {
    return new Promise((resolve, reject) => {
      this.exchange('POST', headers, body, {
        response: (res) => {
          this.rememberSession(res);
          const status = res.status;
          // 202 is the spec's answer; any 2xx means the server took it.
          if (status >= 200 && status < 300) {
            res.discard();
            return resolve();
          }
          void readText(res, this.maxMessageBytes).then(({ text }) => {
            if (status === 404 && headers['mcp-session-id'] !== undefined) this.sessionEnded();
            else this.sink?.error(new Error(`The server refused the POST of ${what}: ${describeStatus(res, text)}`));
            resolve();
          });
        },
        failed: (err) => reject(new Error(`Could not POST to ${this.where()}: ${err.message}`, { cause: err })),
      });
    });
  }

  /** A request: its answer comes as JSON or as an SSE stream, or the transport answers it itself. */
  private postRequest(stream: Stream, body: string, headers: Record<string, string>): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        stream.request = this.exchange('POST', headers, body, {
          written: resolve,
          response: (res) => {
            resolve();
            // streamable-http.mdx (2026-07-28): no sessions; a stray Mcp-Session-Id is ignored.
            if (stream.kind !== 'modern') this.rememberSession(res);
            if (isEventStream(res) && isOk(res)) return this.readEvents(stream, res);
            void readText(res, this.maxMessageBytes).then((body) => this.readAnswer(stream, res, body, headers['mcp-session-id'] !== undefined));
          },
          failed: (err) => {
            this.answer(stream, ErrorCode.ConnectionClosed, `could not reach the server at ${this.where()}: ${err.message}`);
            resolve();
          },
        });
      } catch (err) {
        // A header Node refuses (a value from the caller): nothing was sent.
        this.settle(stream);
        reject(new Error(`Cannot send: ${(err as Error).message}`, { cause: err }));
      }
    });
  }

  /** A whole body answered the request: JSON-RPC to deliver, or an HTTP failure to turn into its answer. */
  private readAnswer(stream: Stream, res: HttpResponse, { text, complete, tooLarge }: Body, hadSession: boolean): void {
    if (tooLarge) {
      return this.answer(
        stream,
        ErrorCode.TransportRefused,
        `the server's answer is larger than maxMessageBytes (${this.maxMessageBytes} bytes); it was not read`,
        res.status,
      );
    }
    const decoded = complete ? decode(text) : undefined;
    const values = decoded?.kind === 'single' ? [decoded.value] : decoded?.kind === 'batch' ? decoded.values : [];
    const sessionEnded = res.status === 404 && hadSession;
    if (values.length === 1) values[0] = withRequestId(values[0], stream.owes);
    if (isOk(res) || (values.length === 1 && isErrorObject(values[0]))) {
      for (const value of values) this.deliver(stream, value);
    }
    if (!complete) this.answer(stream, ErrorCode.ConnectionClosed, `the connection broke before the answer was complete (HTTP ${res.status})`, res.status);
    else {
      const why = describeStatus(res, text);
      this.answer(
        stream,
        ErrorCode.TransportRefused,
        isOk(res) ? `the server answered without a response to the request: ${why}` : `the server answered ${why}`,
        res.status,
      );
    }
    if (sessionEnded) this.sessionEnded();
  }

  /** Deliver each event's message; when the stream ends short of its answer, resume it or answer the request. */
  private readEvents(stream: Stream, res: HttpResponse): void {
    const limit = { maxEventBytes: this.maxMessageBytes, onTooLarge: () => this.dropOversized(stream, res) };
    const reader = new SseReader(
      (event) => {
        stream.failures = 0;
        // A priming event (an id with empty data) carries no message; other event types are not MCP's.
        if (event.type !== 'message' || event.data === '') return;
        const decoded = decode(event.data);
        if (decoded.kind === 'parse-error') {
          if (!stream.cancelled && this.state === 'open') {
            this.sink?.error(new Error(`The server sent an SSE event that is not JSON (${decoded.error.message}): ${quote(event.data, QUOTED_BODY_CHARS)}`));
          }
          return;
        }
        for (const value of decoded.kind === 'batch' ? decoded.values : [decoded.value]) this.deliver(stream, value);
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
    const why = `the server sent an SSE event larger than maxMessageBytes (${this.maxMessageBytes} bytes)`;
    if (stream.kind === 'standalone') {
      if (!stream.cancelled && this.state === 'open') this.sink?.error(new Error(`The standalone GET stream for server messages was closed: ${why}`));
    } else this.answer(stream, ErrorCode.TransportRefused, `${why}; it was not read`);
    stream.cancelled = true;
    res.cancel();
  }

  private streamEnded(stream: Stream, how: 'ended' | 'broke off'): void {
    if (stream.cancelled || this.state !== 'open') return;
    if (stream.kind === 'modern') {
      return this.answer(
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
    if (stream.failures >= this.maxRetries) {
      const n = stream.failures;
      const attempts = `${n} reconnection attempt${n === 1 ? '' : 's'} failed (the last: ${stream.lastFailure})`;
      return this.giveUp(stream, n === 0 ? 'reconnecting is off (reconnect.maxRetries is 0)' : attempts);
    }
    stream.failures++;
    // transports.mdx §Resumability: the client MUST wait the `retry` the server sent before it reconnects.
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.reconnect(stream);
    }, stream.retryMs ?? this.delayMs);
    this.timers.add(timer);
  }

  /** GET the stream: the standalone one, or the rest of a broken one after its last event id. */
  private reconnect(stream: Stream): void {
    if (this.state !== 'open') return;
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    const version = stream.protocolVersion ?? this.protocolVersion;
    if (version !== undefined) headers['mcp-protocol-version'] = version;
    if (this.sessionId !== undefined) headers['mcp-session-id'] = this.sessionId;
    if (stream.lastEventId !== '') headers['last-event-id'] = stream.lastEventId;
    try {
      this.exchange('GET', headers, undefined, {
        response: (res) => this.onReconnected(stream, res, headers['mcp-session-id'] !== undefined),
        failed: (err) => {
          if (stream.cancelled || this.state !== 'open') return;
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
    this.rememberSession(res);
    const status = res.status;
    if (status === 200 && isEventStream(res)) return this.readEvents(stream, res);
    void readText(res, this.maxMessageBytes).then(({ text }) => {
      if (stream.cancelled || this.state !== 'open') return;
      // transports.mdx §Listening for Messages: 405 means the server offers no standalone stream; so does a
      // 404 to a GET without a session id (a server without sessions has no such endpoint).
      if (stream.kind === 'standalone' && (status === 405 || (status === 404 && !hadSession))) return;
      if (status >= 500) {
        stream.lastFailure = describeStatus(res, text);
        return this.retry(stream);
      }
      const sessionGone = status === 404 && hadSession;
      if (!(sessionGone && stream.kind === 'standalone')) this.giveUp(stream, describeStatus(res, text), status);
      if (sessionGone) this.sessionEnded();
    });
  }

  /** A stream that cannot go on: its request gets its answer; a lost standalone stream is reported. */
  private giveUp(stream: Stream, why: string, httpStatus?: number): void {
    if (stream.kind === 'standalone') {
      this.sink?.error(new Error(`The standalone GET stream for server messages is unavailable: ${why}`));
      return;
    }
    this.answer(stream, ErrorCode.ConnectionClosed, `the response stream ${stream.how} before the response, and could not be resumed: ${why}`, httpStatus);
  }

  /** Hand one message from `stream` to the client; a response settles whichever stream owed it. */
  private deliver(stream: Stream, message: unknown): void {
    if (stream.cancelled || this.state !== 'open') return;
    if (isObject(message) && !('method' in message) && isRequestId(message.id)) {
      const owner = this.owed.get(message.id);
      if (owner) this.settle(owner);
    }
    this.sink?.message(message);
  }

  /**
   * The transport's own answer to a request the server will not answer, once: ConnectionClosed when the
   * connection failed or broke off first, TransportRefused when HTTP answered without a JSON-RPC response.
   */
  private answer(stream: Stream, code: typeof ErrorCode.ConnectionClosed | typeof ErrorCode.TransportRefused, message: string, httpStatus?: number): void {
    if (stream.owes === undefined) return;
    const error = httpStatus === undefined ? { code, message } : { code, message, data: { httpStatus } };
    this.deliver(stream, errorResponse(stream.owes, error));
  }

  private settle(stream: Stream): void {
    if (stream.owes !== undefined) this.owed.delete(stream.owes);
    stream.owes = undefined;
    stream.release();
  }

  /**
   * The client gave up on a request. A 2026-07-28 request's stream is closed: that is its cancellation
   * (streamable-http.mdx §Cancellation). A legacy request is cancelled by the client's notification; its
   * stream is left to the server, but is owed nothing more: no answer of ours, no resumption.
   */
  private watchAbort(stream: Stream, signal: AbortSignal | undefined): void {
    if (!signal) return;
    const onAbort = () => {
      this.settle(stream);
      if (stream.kind !== 'modern') return;
      stream.cancelled = true;
      stream.request?.cancel();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    stream.release = () => signal.removeEventListener('abort', onAbort);
  }

  private rememberSession(res: HttpResponse): void {
    const id = res.header('mcp-session-id');
    if (typeof id === 'string' && SESSION_ID.test(id)) this.sessionId = id;
  }

  /** transports.mdx §Session Management: 404 to a request with the session id means the session is gone. */
  private sessionEnded(): void {
    if (this.state === 'open') this.shutDown('the server ended the session (HTTP 404)');
  }

  /** DELETE the session; a server that does not allow it (405) or no longer knows it (404) is fine. */
  private deleteSession(): Promise<void> {
    const headers: Record<string, string> = { 'mcp-session-id': this.sessionId! };
    if (this.protocolVersion !== undefined) headers['mcp-protocol-version'] = this.protocolVersion;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        request.cancel();
        done();
      }, DELETE_TIMEOUT_MS);
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      const request = this.exchange('DELETE', headers, undefined, {
        response: (res) => {
          res.discard();
          const status = res.status;
          if (!isOk(res) && status !== 404 && status !== 405) this.sink?.error(new Error(`The server refused to end the session: ${describeStatus(res, '')}`));
          done();
        },
        failed: done,
      });
    });
  }

  private shutDown(reason: string): void {
    this.state = 'closed';
    this.clearTimers();
    this.http?.close();
    for (const stream of this.owed.values()) stream.release();
    this.owed.clear();
    this.sink?.closed(reason);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }

  /** One HTTP request, with the headers option; its handlers never throw, and `failed` runs only when no response came. */
  private exchange(method: string, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange {
    return this.http!.exchange(method, this.url, { ...this.headers, ...headers }, body, on);
  }

  private where(): string {
    return `${this.url.origin}${this.url.pathname}`;
  }
}

function newStream(kind: Stream['kind'], owes: RequestId | undefined, protocolVersion: string | undefined): Stream {
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

/** A lone error with a null (or no) id is the answer to the one request of its POST. */
function withRequestId(value: unknown, id: RequestId | undefined): unknown {
  return id !== undefined && isErrorObject(value) && (value.id === null || value.id === undefined) ? { ...value, id } : value;
}

function isErrorObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !('method' in value) && isObject(value.error);
}

function isOk(res: HttpResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

function isEventStream(res: HttpResponse): boolean {
  return (res.header('content-type') ?? '').split(';')[0].trim().toLowerCase() === 'text/event-stream';
}

/** `HTTP 500 Internal Server Error: <the start of the body>`. */
function describeStatus(res: HttpResponse, body: string): string {
  const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  const text = body.replace(/\s+/g, ' ').trim();
  if (text === '') return status;
  return `${status}: ${text.length > QUOTED_BODY_CHARS ? `${text.slice(0, QUOTED_BODY_CHARS)}…` : text}`;
}

interface Body {
  text: string;
  /** It arrived whole. */
  complete: boolean;
  /** It was longer than the limit, and left unread ('' as text). */
  tooLarge: boolean;
}

/** The whole body as text, unless it is longer than `limit` bytes: then the response is closed unread. */
function readText(res: HttpResponse, limit: number): Promise<Body> {
  return new Promise((resolve) => {
    const decoder = new TextDecoder();
    let text = '';
    let size = 0;
    res.read(
      (chunk) => {
        if (size > limit) return;
        size += chunk.length;
        if (size <= limit) text += decoder.decode(chunk, { stream: true });
        else {
          text = '';
          res.cancel();
        }
      },
      (complete) => resolve({ text: size > limit ? '' : text + decoder.decode(), complete, tooLarge: size > limit }),
    );
  });
}

/** node:http under Node (loaded only there), the global fetch elsewhere. */
async function platformHttpClient(url: URL): Promise<HttpClient> {
  if (isNode()) {
    const { nodeHttpClient } = await import('./node-http.js');
    return nodeHttpClient(url.protocol === 'https:');
  }
  if (typeof globalThis.fetch !== 'function') throw new Error('StreamableHttpClientTransport needs node:http or a global fetch; pass options.fetch');
  return fetchHttpClient((input, init) => globalThis.fetch(input, init));
}

/** Like option-checks' positiveInteger, with 0 allowed: no reconnection, or no wait before one. */
function nonNegativeInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || (value as number) < 0 || (value as number) > max) {
    throw new TypeError(`Option ${name} must be a non-negative integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}; got ${JSON.stringify(value)}`);
  }
}
