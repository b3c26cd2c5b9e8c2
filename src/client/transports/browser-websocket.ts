/**
 * The WebSocket client transport on the platform's own `WebSocket` (a browser's, or Node 22's): subprotocol
 * `mcp`, one JSON-RPC message per text frame. What the platform does not offer is not offered here: no
 * upgrade headers (a browser sends its cookies and Origin), no frame limit of its own.
 */
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import type { ClientSink, ClientTransport } from '../transport.js';
import { deliverText, guardSink } from './deliver.js';
import { settlesWithin } from '../../rpc/settles-within.js';
import { checkUrl } from './transport-options.js';

export interface BrowserWebSocketClientTransportOptions {
  /** `start()` fails when the socket is not open within this long. Default 10 000. */
  connectTimeoutMs?: number;
  /** The WebSocket class to use. Default: the global one. */
  WebSocket?: typeof WebSocket;
}

const SUBPROTOCOL = 'mcp';
const OPEN = 1;
const CLOSED = 3;
/** How long `close()` waits for the server's closing handshake. */
const CLOSE_GRACE_MS = 1000;
const STATES = ['connecting', 'open', 'closing', 'closed'];

export class BrowserWebSocketClientTransport implements ClientTransport {
  readonly kind = 'websocket';
  readonly cancelsByClosingStream = false;
  private readonly url: URL;
  private readonly connectTimeoutMs: number;
  private readonly Socket: typeof WebSocket;
  private ws: WebSocket | undefined;
  private sink: ClientSink | undefined;
  private closing: Promise<void> | undefined;

  constructor(url: string | URL, options: BrowserWebSocketClientTransportOptions = {}) {
    this.url = checkUrl('BrowserWebSocketClientTransport', url, ['ws:', 'wss:']);
    this.connectTimeoutMs = options.connectTimeoutMs ?? 10_000;
    positiveInteger('connectTimeoutMs', this.connectTimeoutMs, MAX_TIMER_MS);
    const Socket = options.WebSocket ?? (globalThis as { WebSocket?: typeof WebSocket }).WebSocket;
    if (typeof Socket !== 'function') throw new TypeError('BrowserWebSocketClientTransport needs a global WebSocket, or options.WebSocket');
    this.Socket = Socket;
  }

  start(sink: ClientSink): Promise<void> {
    if (this.ws) return Promise.reject(new Error('BrowserWebSocketClientTransport is already started; create another transport for another connection'));
    if (this.closing) return Promise.reject(new Error('BrowserWebSocketClientTransport is closed'));
    const where = `${this.url.origin}${this.url.pathname}`;
    let ws: WebSocket;
    try {
      ws = new this.Socket(this.url.href, SUBPROTOCOL);
    } catch (err) {
      return Promise.reject(new Error(`WebSocket connection to ${where} failed: ${(err as Error).message}`, { cause: err }));
    }
    this.ws = ws;
    return new Promise<void>((resolve, reject) => {
      let settled = false;
      const fail = (message: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        reject(new Error(message));
        ws.close();
      };
      const timer = setTimeout(() => fail(`WebSocket connection to ${where} timed out after ${this.connectTimeoutMs} ms`), this.connectTimeoutMs);
      // A browser says nothing more of a failed connection than that it failed (and then closed).
      ws.addEventListener('error', () => fail(`WebSocket connection to ${where} failed`));
      ws.addEventListener('close', (event) => {
        if (!settled) return fail(`WebSocket connection to ${where} closed (${event.code}) before it opened`);
        this.sink?.closed(`websocket closed (${event.reason ? `${event.code}: ${event.reason}` : event.code})`);
      });
      ws.addEventListener('open', () => {
        if (ws.protocol !== SUBPROTOCOL) return fail(`WebSocket connection to ${where} failed: the server did not select subprotocol '${SUBPROTOCOL}'`);
        settled = true;
        clearTimeout(timer);
        this.sink = guardSink(sink);
        resolve();
      });
      ws.addEventListener('message', (event) => {
        const target = this.sink;
        if (!target) return;
        if (typeof event.data !== 'string')
          return target.error(new Error('The server sent a binary WebSocket frame; MCP messages travel as UTF-8 text frames'));
        deliverText(target, event.data, 'WebSocket frame');
      });
    });
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const ws = this.ws;
    if (ws?.readyState !== OPEN) throw new Error(`Cannot send: the WebSocket is ${ws ? STATES[ws.readyState] : 'not started'}`);
    ws.send(JSON.stringify(message));
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const ws = this.ws;
      if (!ws || ws.readyState === CLOSED) return;
      const closed = new Promise<void>((resolve) => ws.addEventListener('close', () => resolve(), { once: true }));
      ws.close(1000, 'client closed');
      await settlesWithin(closed, CLOSE_GRACE_MS);
    })();
    return this.closing;
  }
}
