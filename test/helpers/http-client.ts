/** A raw Streamable HTTP test peer over node:http: exact statuses, headers, JSON bodies and SSE events. */
import { request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { Json } from './ws-client.js';

export const ACCEPT_BOTH = 'application/json, text/event-stream';

export interface SseEvent {
  id?: string;
  event?: string;
  retry?: number;
  /** The raw data lines joined with newlines ('' for a priming event). */
  data: string;
  /** `data` parsed as JSON, when it is JSON. */
  message?: Json;
}

/** An open response: its status and headers at once, then SSE events or the whole body as they arrive. */
export class OpenResponse {
  readonly events: SseEvent[] = [];
  body = '';
  readonly ended: Promise<void>;
  private waiters: { match: (e: SseEvent) => boolean; resolve: (e: SseEvent) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }[] = [];
  private pending = '';

  constructor(readonly res: IncomingMessage) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      this.body += chunk;
      if (this.isSse) this.parse(chunk);
    });
    this.ended = new Promise((resolve) => {
      res.on('end', () => resolve());
      res.on('close', () => resolve());
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  get headers(): IncomingHttpHeaders {
    return this.res.headers;
  }

  get isSse(): boolean {
    return (this.res.headers['content-type'] ?? '').startsWith('text/event-stream');
  }

  /** The body as JSON (waits for the end). */
  async json(): Promise<any> {
    await this.ended;
    return JSON.parse(this.body);
  }

  /** The first event (already received or future) that matches; by default the next one with a message. */
  nextEvent(match: (e: SseEvent) => boolean = (e) => e.message !== undefined, timeoutMs = 5000): Promise<SseEvent> {
    const seen = this.events.find(match);
    if (seen) {
      this.events.splice(this.events.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.timer !== timer);
        reject(new Error(`no matching SSE event within ${timeoutMs} ms; body so far: ${this.body}`));
      }, timeoutMs);
      this.waiters.push({ match, resolve, reject, timer });
    });
  }

  /** The next event whose message has this method, or this id (a response). */
  nextMessage(match: { method?: string; id?: string | number }, timeoutMs?: number): Promise<Json> {
    return this.nextEvent(
      (e) =>
        e.message !== undefined &&
        (match.method === undefined || e.message.method === match.method) &&
        (match.id === undefined || (e.message.id === match.id && !('method' in e.message))),
      timeoutMs,
    ).then((e) => e.message!);
  }

  /** Close the connection from the client side. */
  abort(): void {
    this.res.destroy();
  }

  private parse(chunk: string): void {
    this.pending += chunk;
    let end: number;
    while ((end = this.pending.indexOf('\n\n')) !== -1) {
      const block = this.pending.slice(0, end);
      this.pending = this.pending.slice(end + 2);
      if (block.split('\n').every((line) => line.startsWith(':'))) continue; // keep-alive comment
      const event: SseEvent = { data: '' };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'retry') event.retry = Number(value);
        else if (field === 'data') data.push(value);
      }
      event.data = data.join('\n');
      if (event.data) {
        try {
          event.message = JSON.parse(event.data);
        } catch {
          /* not JSON */
        }
      }
      const waiter = this.waiters.find((w) => w.match(event));
      if (waiter) {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        clearTimeout(waiter.timer);
        waiter.resolve(event);
      } else this.events.push(event);
    }
  }
}

/** Send one HTTP request (a string or bytes body as is, anything else as JSON); resolves once status and headers are in (the body keeps streaming). */
export function send(url: string, method: string, headers: Record<string, string> = {}, body?: string | Uint8Array | object): Promise<OpenResponse> {
  const payload = body === undefined ? undefined : typeof body === 'string' || body instanceof Uint8Array ? body : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      { method, headers: payload === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(payload).toString() } },
      (res) => resolve(new OpenResponse(res)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** A Streamable HTTP client session: tracks Mcp-Session-Id and the negotiated version header. */
export class HttpTestClient {
  sessionId: string | undefined;
  protocolVersion: string | undefined;
  private nextId = 1;

  constructor(readonly url: string) {}

  /** POST initialize, then notifications/initialized; resolves with the initialize result. */
  async initialize(init: { protocolVersion?: string; capabilities?: Json; clientInfo?: Json } = {}, headers: Record<string, string> = {}): Promise<Json> {
    const res = await this.post(
      {
        jsonrpc: '2.0',
        id: this.nextId++,
        method: 'initialize',
        params: {
          protocolVersion: init.protocolVersion ?? '2025-11-25',
          capabilities: init.capabilities ?? {},
          clientInfo: init.clientInfo ?? { name: 'http-test', version: '1.0.0' },
        },
      },
      headers,
    );
    const body = await res.json();
    if (res.status !== 200 || !body.result) throw new Error(`initialize failed: ${res.status} ${res.body}`);
    this.sessionId = res.headers['mcp-session-id'] as string;
    this.protocolVersion = body.result.protocolVersion;
    const initialized = await this.post({ jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
    await initialized.ended;
    return body.result;
  }

  /** Headers a well-behaved client sends after initialize. */
  headers(extra: Record<string, string> = {}): Record<string, string> {
    const headers: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return { ...headers, ...extra };
  }

  post(body: string | object, extra: Record<string, string> = {}): Promise<OpenResponse> {
    return send(this.url, 'POST', this.headers(extra), body);
  }

  /** POST a request with a fresh id (or `id`). */
  request(method: string, params?: Json, id: string | number = this.nextId++, extra?: Record<string, string>): Promise<OpenResponse> {
    return this.post(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params }, extra);
  }

  /** POST a request and resolve with its response message, whether it came as JSON or on an SSE stream. */
  async call(method: string, params?: Json, id: string | number = this.nextId++): Promise<Json> {
    const res = await this.request(method, params, id);
    if (res.isSse) return res.nextMessage({ id });
    return res.json();
  }

  notify(method: string, params?: Json): Promise<OpenResponse> {
    return this.post(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** POST the reply to a server-to-client request. */
  reply(id: string | number, result: Json): Promise<OpenResponse> {
    return this.post({ jsonrpc: '2.0', id, result });
  }

  /** GET the standalone SSE stream (or resume one with Last-Event-ID). */
  get(extra: Record<string, string> = {}): Promise<OpenResponse> {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    if (this.protocolVersion) headers['mcp-protocol-version'] = this.protocolVersion;
    return send(this.url, 'GET', { ...headers, ...extra });
  }

  delete(extra: Record<string, string> = {}): Promise<OpenResponse> {
    const headers: Record<string, string> = {};
    if (this.sessionId) headers['mcp-session-id'] = this.sessionId;
    return send(this.url, 'DELETE', { ...headers, ...extra });
  }
}
