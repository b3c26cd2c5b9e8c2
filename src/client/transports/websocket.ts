/**
 * The client side of the WebSocket convention both official SDKs used: subprotocol `mcp`, one JSON-RPC
 * message per UTF-8 text frame, the connection is the session (no MCP revision defines a WebSocket transport).
 */
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import type { ClientSink, ClientTransport } from '../transport.js';
import { deliverText, guardSink } from './deliver.js';
import { settlesWithin } from '../../rpc/settles-within.js';
import { checkHeaders, checkUrl } from './transport-options.js';

export interface WebSocketClientTransportOptions {
  /** Headers of the upgrade request (`Authorization`, ...). */
  headers?: Record<string, string>;
  /** The largest message read, in bytes (one frame); a larger one closes the connection with 1009. Default 4 MiB. */
  maxMessageBytes?: number;
  /** `start()` fails when the socket is not open within this long. Default 10 000. */
  connectTimeoutMs?: number;
}

const SUBPROTOCOL = 'mcp';
/** Above this many bytes queued on the socket, `send()` resolves only once its frame is written. */
const SEND_HIGH_WATER_MARK = 1024 * 1024;
/** How long `close()` waits for the server's closing handshake before it drops the socket. */
const CLOSE_GRACE_MS = 1000;
/** Enough of a refused upgrade's body to say why (the server's one-line reason). */
const MAX_REFUSAL_BODY_BYTES = 1024;

export class WebSocketClientTransport implements ClientTransport {
  readonly kind = 'websocket';
  readonly cancelsByClosingStream = false;
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly maxMessageBytes: number;
  private readonly connectTimeoutMs: number;
  private ws: WebSocket | undefined;
  private sink: ClientSink | undefined;
  private closing: Promise<void> | undefined;
  /** Why the open socket failed, for the close reason: ws reports 1006 whatever went wrong. */
  private failure: string | undefined;

  constructor(url: string | URL, options: WebSocketClientTransportOptions = {}) {
    this.url = checkUrl('WebSocketClientTransport', url, ['ws:', 'wss:']);
    this.headers = checkHeaders(options.headers, (name) => name.startsWith('sec-websocket-') || name === 'upgrade' || name === 'connection');
    this.maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    positiveInteger('maxMessageBytes', this.maxMessageBytes);
    positiveInteger('connectTimeoutMs', this.connectTimeoutMs, MAX_TIMER_MS);
  }

  start(sink: ClientSink): Promise<void> {
    if (this.ws) return Promise.reject(new Error('WebSocketClientTransport is already started; create another transport for another connection'));
    if (this.closing) return Promise.reject(new Error('WebSocketClientTransport is closed'));
    const where = `${this.url.origin}${this.url.pathname}`;
    let ws: WebSocket;
    try {
      ws = new WebSocket(this.url, SUBPROTOCOL, { headers: this.headers, maxPayload: this.maxMessageBytes, perMessageDeflate: false });
    } catch (err) {
      return Promise.reject(new Error(`WebSocket connection to ${where} failed: ${(err as Error).message}`, { cause: err }));
    }
    this.ws = ws;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (message: string, cause?: unknown) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(message, cause === undefined ? undefined : { cause }));
        ws.terminate();
      };
      const timer = setTimeout(() => fail(`WebSocket connection to ${where} timed out after ${this.connectTimeoutMs} ms`), this.connectTimeoutMs);
      ws.on('unexpected-response', (_req, res: IncomingMessage) => {
        void readBody(res).then((body) => {
          const status = `HTTP ${res.statusCode}${res.statusMessage ? ` ${res.statusMessage}` : ''}`;
          fail(`WebSocket upgrade to ${where} refused: ${status}${body ? `: ${body}` : ''}`);
        });
      });
      ws.on('error', (err: Error & { code?: string }) => {
        if (!settled) {
          const reason = err.message === 'Server sent no subprotocol' ? `the server did not select subprotocol '${SUBPROTOCOL}'` : err.message;
          return fail(`WebSocket connection to ${where} failed: ${reason}`, err);
        }
        // ws closes with 1009 itself and never reads the server's close frame, so the close event says 1006.
        this.failure ??=
          err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH' ? `1009: a frame exceeded maxMessageBytes (${this.maxMessageBytes} bytes)` : `1006: ${err.message}`;
      });
      ws.on('close', (code: number, reason: Buffer) => {
        if (!settled) return fail(`WebSocket connection to ${where} closed (${code}) before it opened`);
        const why = reason.length > 0 ? `${code}: ${reason.toString()}` : (this.failure ?? String(code));
        this.sink?.closed(`websocket closed (${why})`);
      });
      ws.on('open', () => {
        // ws fails the handshake itself when the server picks another subprotocol; this holds either way.
        if (ws.protocol !== SUBPROTOCOL) return fail(`WebSocket connection to ${where} failed: the server did not select subprotocol '${SUBPROTOCOL}'`);
        settled = true;
        clearTimeout(timer);
        this.sink = guardSink(sink);
        resolve();
      });
      ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
        const target = this.sink;
        if (!target) return;
        if (isBinary) return target.error(new Error('The server sent a binary WebSocket frame; MCP messages travel as UTF-8 text frames'));
        deliverText(target, rawToString(data), 'WebSocket frame');
      });
    });
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const ws = this.ws;
    if (ws?.readyState !== WebSocket.OPEN) throw new Error(`Cannot send: the WebSocket is ${ws ? STATES[ws.readyState] : 'not started'}`);
    const text = JSON.stringify(message);
    if (ws.bufferedAmount < SEND_HIGH_WATER_MARK) return ws.send(text);
    // The server is slow to read: let the caller wait for the socket rather than queue without bound.
    await new Promise<void>((resolve, reject) => ws.send(text, (err) => (err ? reject(err) : resolve())));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const ws = this.ws;
      if (!ws || ws.readyState === WebSocket.CLOSED) return;
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.close(1000, 'client closed');
      if (!(await settlesWithin(closed, CLOSE_GRACE_MS))) {
        ws.terminate();
        await closed;
      }
    })();
    return this.closing;
  }
}

const STATES = ['connecting', 'open', 'closing', 'closed'];

/** The start of a refused upgrade's body, as one trimmed line of text; '' when there is none. */
function readBody(res: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = () => {
      res.off('data', onData);
      resolve(Buffer.concat(chunks).subarray(0, MAX_REFUSAL_BODY_BYTES).toString('utf8').replace(/\s+/g, ' ').trim());
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_REFUSAL_BODY_BYTES) done();
    };
    res.on('data', onData);
    res.once('end', done);
    res.once('close', done);
    res.once('error', done);
  });
}

function rawToString(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
