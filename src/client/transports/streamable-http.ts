/**
 * The client side of Streamable HTTP: every message is a POST of its own, answered with JSON or an SSE
 * stream. Under 2025-11-25 (legacy) there is a session (`Mcp-Session-Id`), a standalone GET stream for
 * what the server pushes, and broken streams resume with GET + `Last-Event-ID` (transports.mdx §Resumability).
 * Under 2026-07-28 each request carries the SEP-2243 headers, its stream cannot be resumed, and closing
 * it is the cancellation. HTTP itself comes from node:http under Node and from fetch elsewhere (a browser),
 * or from the `fetch` given; this file imports neither.
 */
import { ErrorCode } from '../../protocol/errors.js';
import { decode, errorResponse, isRequestId, type JsonRpcMessage, isObject } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import { quote } from '../../protocol/quote.js';
import type { RequestId } from '../../protocol/types.js';
import type { ClientSink, ClientTransport, SendContext } from '../transport.js';
import { isNode } from '../platform.js';
import { guardSink } from './deliver.js';
import { fetchHttpClient } from './fetch-http.js';
import type { FetchLike, HttpClient, HttpExchange, HttpHandlers, HttpResponse } from './http-client.js';
import { isReservedHeader, modernHeaders } from './http-headers.js';
import { type Body, describeStatus, isEventStream, isOk, readText } from './http-response.js';
import { newStream, type Stream, StreamResumption } from './stream-resumption.js';
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
/** transports.mdx §Session Management: a session id is visible ASCII only. */
const SESSION_ID = /^[\x21-\x7e]+$/;
const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

export class StreamableHttpClientTransport implements ClientTransport {
  readonly kind = 'http';
  /** Only 2026-07-28 requests are cancelled this way; a legacy request is cancelled with notifications/cancelled. */
  readonly cancelsByClosingStream = true;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
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
  private readonly resumption: StreamResumption;

  constructor(url: string | URL, options: StreamableHttpClientTransportOptions = {}) {
    this.url = checkUrl('StreamableHttpClientTransport', url, ['http:', 'https:']);
    this.headers = checkHeaders(options.headers, isReservedHeader);
    const reconnect = options.reconnect ?? {};
    if (typeof reconnect !== 'object' || reconnect === null) throw new TypeError('Option reconnect must be { maxRetries?, delayMs? }');
    const maxRetries = reconnect.maxRetries ?? 2;
    const delayMs = reconnect.delayMs ?? 1000;
    nonNegativeInteger('reconnect.maxRetries', maxRetries);
    nonNegativeInteger('reconnect.delayMs', delayMs, MAX_TIMER_MS);
    this.maxMessageBytes = options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    positiveInteger('maxMessageBytes', this.maxMessageBytes);
    if (options.fetch !== undefined && typeof options.fetch !== 'function') throw new TypeError('Option fetch must be a function');
    this.fetchImpl = options.fetch;
    this.resumption = new StreamResumption(
      {
        isOpen: () => this.state === 'open',
        sessionId: () => this.sessionId,
        protocolVersion: () => this.protocolVersion,
        exchange: (method, headers, body, on) => this.exchange(method, headers, body, on),
        deliver: (stream, message) => this.deliver(stream, message),
        answer: (stream, code, message, httpStatus) => this.answer(stream, code, message, httpStatus),
        rememberSession: (res) => this.rememberSession(res),
        sessionEnded: () => this.sessionEnded(),
        error: (error) => this.sink?.error(error),
      },
      { maxRetries, delayMs, maxMessageBytes: this.maxMessageBytes },
    );
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
    this.resumption.reconnect(this.standalone);
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.state !== 'open') return;
      this.state = 'closing';
      this.resumption.clearTimers();
      if (this.sessionId !== undefined) await this.deleteSession();
      this.shutDown('closed by the client');
    })();
    return this.closing;
  }

  /**
   * A notification or a reply: the server says 202 (or 204) and nothing more. Refused, it is reported on
   * `error` and send() resolves (the server had it); send() rejects only when the server was not reached.
   * One refused with 503 (after its Retry-After, 5 s at most) or not reached (after 100, 200, 300 ms) is
   * sent again, up to 4 times in all: behind a balancer the next try may reach another instance, and a
   * reply or notification the server gets twice is taken once.
   */
  private postWithoutAnswer(body: string, headers: Record<string, string>, what: string, attempt = 1): Promise<void> {
    return new Promise((resolve, reject) => {
      // Sent again after `wait` ms, unless the transport closed meanwhile (then it is dropped, quietly).
      const again = (wait: number) =>
        setTimeout(() => {
          if (this.state !== 'open') return resolve();
          this.postWithoutAnswer(body, headers, what, attempt + 1).then(resolve, reject);
        }, wait);
      const retries = attempt < UNAVAILABLE_ATTEMPTS && this.state === 'open';
      this.exchange('POST', headers, body, {
        response: (res) => {
          this.rememberSession(res);
          const status = res.status;
          // 202 is the spec's answer; any 2xx means the server took it.
          if (status >= 200 && status < 300) {
            res.discard();
            return resolve();
          }
          // Unavailable for now (an instance draining, or cut off from what it shares): sent again after the
          // wait it asks for, a few times; a reply the server gets twice is taken once.
          if (status === 503 && retries) {
            res.discard();
            again(retryAfterMs(res.header('retry-after')));
            return;
          }
          void readText(res, this.maxMessageBytes).then(({ text }) => {
            if (status === 404 && headers['mcp-session-id'] !== undefined) this.sessionEnded();
            else this.sink?.error(new Error(`The server refused the POST of ${what}: ${describeStatus(res, text)}`));
            resolve();
          });
        },
        failed: (err) => {
          // Not reached (an instance behind a balancer that went as it was asked): sent again, a few times.
          if (retries) {
            again(UNREACHED_RETRY_MS * attempt);
            return;
          }
          reject(new Error(`Could not POST to ${this.where()}: ${err.message}`, { cause: err }));
        },
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
            if (isEventStream(res) && isOk(res)) return this.resumption.readEvents(stream, res);
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
    this.resumption.clearTimers();
    this.http?.close();
    for (const stream of this.owed.values()) stream.release();
    this.owed.clear();
    this.sink?.closed(reason);
  }

  /** One HTTP request, with the headers option; its handlers never throw, and `failed` runs only when no response came. */
  private exchange(method: string, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange {
    return this.http!.exchange(method, this.url, { ...this.headers, ...headers }, body, on);
  }

  private where(): string {
    return `${this.url.origin}${this.url.pathname}`;
  }
}

/** How many times a notification or reply refused with 503, or that did not reach the server, is sent in all. */
const UNAVAILABLE_ATTEMPTS = 4;
/** The wait before a notification or reply that did not reach the server is sent again, in ms, times the attempts so far. */
const UNREACHED_RETRY_MS = 100;
/** The longest wait a 503's Retry-After may ask of a notification or reply, in ms. */
const MAX_RETRY_AFTER_MS = 5000;

/** A Retry-After in seconds, as ms (at most 5 s); half a second when it is absent or is a date. */
function retryAfterMs(value: string | undefined): number {
  const seconds = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(seconds) && seconds >= 0 ? Math.min(seconds * 1000, MAX_RETRY_AFTER_MS) : 500;
}

/** A lone error with a null (or no) id is the answer to the one request of its POST. */
function withRequestId(value: unknown, id: RequestId | undefined): unknown {
  return id !== undefined && isErrorObject(value) && (value.id === null || value.id === undefined) ? { ...value, id } : value;
}

function isErrorObject(value: unknown): value is Record<string, unknown> {
  return isObject(value) && !('method' in value) && isObject(value.error);
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
