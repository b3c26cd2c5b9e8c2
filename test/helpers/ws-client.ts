/** A raw JSON-RPC test peer over a real WebSocket: send exact frames, await exact replies. */
import WebSocket from 'ws';

export type Json = Record<string, any>;

export class WsTestClient {
  /** Every message received, in order. */
  readonly received: Json[] = [];
  private readonly waiters: { match: (m: Json) => boolean; resolve: (m: Json) => void; reject: (e: Error) => void; timer: NodeJS.Timeout }[] = [];
  private nextId = 1;
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data, isBinary) => {
      const message = JSON.parse(data.toString()) as Json;
      this.received.push(message);
      for (const w of [...this.waiters]) {
        if (w.match(message)) {
          this.waiters.splice(this.waiters.indexOf(w), 1);
          clearTimeout(w.timer);
          w.resolve(message);
          break;
        }
      }
      void isBinary;
    });
    this.closed = new Promise((resolve) => socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  /** Open a socket (subprotocol `mcp` unless `protocols` says otherwise). */
  static async connect(url: string, options: { protocols?: string[]; headers?: Record<string, string> } = {}): Promise<WsTestClient> {
    const socket = new WebSocket(url, options.protocols ?? ['mcp'], { headers: options.headers });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
    });
    return new WsTestClient(socket);
  }

  /** Open a socket and run `initialize` + `notifications/initialized`; resolves with the initialize result. */
  static async initialized(
    url: string,
    init: { protocolVersion?: string; capabilities?: Json; clientInfo?: Json } = {},
  ): Promise<{ client: WsTestClient; result: Json }> {
    const client = await WsTestClient.connect(url);
    const result = await client.initialize(init);
    return { client, result };
  }

  async initialize(init: { protocolVersion?: string; capabilities?: Json; clientInfo?: Json } = {}): Promise<Json> {
    const response = await this.request('initialize', {
      protocolVersion: init.protocolVersion ?? '2025-11-25',
      capabilities: init.capabilities ?? {},
      clientInfo: init.clientInfo ?? { name: 'test-client', version: '1.0.0' },
    });
    if (response.error) throw new Error(`initialize failed: ${JSON.stringify(response.error)}`);
    this.notify('notifications/initialized');
    return response.result;
  }

  /** Send a raw frame (string as is, anything else JSON-encoded). */
  sendRaw(data: string | Buffer | object, options?: { binary?: boolean }): void {
    const frame = typeof data === 'string' || Buffer.isBuffer(data) ? data : JSON.stringify(data);
    this.socket.send(frame, { binary: options?.binary ?? false });
  }

  /** Send a request with a fresh id (or `id`), and resolve with the whole response message. */
  request(method: string, params?: Json, id: string | number = this.nextId++): Promise<Json> {
    const reply = this.waitFor((m) => m.id === id && ('result' in m || 'error' in m) && !('method' in m));
    this.sendRaw(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return reply;
  }

  notify(method: string, params?: Json): void {
    this.sendRaw(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  /** Reply to a server-to-client request. */
  respond(id: string | number, result: Json): void {
    this.sendRaw({ jsonrpc: '2.0', id, result });
  }

  respondError(id: string | number, code: number, message: string, data?: unknown): void {
    this.sendRaw({ jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } });
  }

  /** Resolve with the first message (already received or future) that matches. */
  waitFor(match: (m: Json) => boolean, timeoutMs = 5000): Promise<Json> {
    const seen = this.received.find(match);
    if (seen) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.splice(
          this.waiters.findIndex((w) => w.timer === timer),
          1,
        );
        reject(new Error(`no matching message within ${timeoutMs} ms; received: ${JSON.stringify(this.received)}`));
      }, timeoutMs);
      this.waiters.push({
        match,
        resolve: (m) => {
          this.received.splice(this.received.indexOf(m), 1);
          resolve(m);
        },
        reject,
        timer,
      });
    });
  }

  /** The next server-to-client request or notification with this method. */
  nextMessage(method: string, timeoutMs?: number): Promise<Json> {
    return this.waitFor((m) => m.method === method, timeoutMs);
  }

  /** Messages with this method received so far (not consumed). */
  messages(method: string): Json[] {
    return this.received.filter((m) => m.method === method);
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close();
    await this.closed;
  }
}
