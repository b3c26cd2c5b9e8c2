/** A minimal MCP WebSocket client: subprotocol `mcp`, one JSON-RPC message per text frame. */
import WebSocket from 'ws';
import { INITIALIZE_PARAMS, type Json } from './http-client.js';

export class WsClient {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (m: Json) => void; reject: (e: Error) => void }>();

  private constructor(
    private readonly ws: WebSocket,
    /** Answers the server's requests (elicitation/create); undefined leaves one unanswered. */
    answer: (request: Json) => Json | undefined,
    onNotification?: (notification: Json) => void,
  ) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString());
      if (message.method !== undefined) {
        if (message.id === undefined) onNotification?.(message);
        else {
          const result = answer(message);
          if (result !== undefined) ws.send(JSON.stringify({ jsonrpc: '2.0', id: message.id, result }));
        }
        return;
      }
      const waiter = this.pending.get(message.id);
      this.pending.delete(message.id);
      waiter?.resolve(message);
    });
    const fail = (why: string) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`websocket ${why}`));
      this.pending.clear();
    };
    ws.on('error', (err) => fail(err.message));
    ws.on('close', (code) => fail(`closed (${code})`));
  }

  /** Connect and start a 2025-11-25 session. */
  static async open(url: string, answer: (request: Json) => Json | undefined, onNotification?: (notification: Json) => void): Promise<WsClient> {
    const ws = new WebSocket(url, 'mcp');
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    const client = new WsClient(ws, answer, onNotification);
    const init = await client.request('initialize', INITIALIZE_PARAMS);
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)}`);
    ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    return client;
  }

  /** Resolves with the response message (result or error). */
  request(method: string, params: Json): Promise<Json> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  notify(method: string, params: Json): void {
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', method, params }));
  }

  /** Drop the connection without a closing handshake, as a client that goes away does. */
  terminate(): void {
    this.ws.terminate();
  }

  close(): Promise<void> {
    if (this.ws.readyState === WebSocket.CLOSED) return Promise.resolve();
    return new Promise((resolve) => {
      this.ws.once('close', () => resolve());
      this.ws.close(1000);
    });
  }
}
