/** A 2026-07-28 client: every request a POST of its own, self-described in `_meta`, with the headers that repeat it. */
import type { HttpEndpoint, Json } from '../bench/http-client.js';
import { HttpConnections } from './http-connections.js';
import type { Exchange, OnMessage, Transport } from './transport.js';

const VERSION = '2026-07-28';
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
  'io.modelcontextprotocol/clientInfo': { name: 'soak', version: '1' },
  'io.modelcontextprotocol/logLevel': 'info',
};

function headersFor(method: string, params: Json): Record<string, string> {
  return { 'mcp-protocol-version': VERSION, 'mcp-method': method, ...(method === 'tools/call' ? { 'mcp-name': String(params.name) } : {}) };
}

export class StatelessHttp implements Transport {
  readonly era = 'modern';
  private nextId = 1;
  private readonly http: HttpConnections;

  constructor(endpoint: HttpEndpoint) {
    this.http = new HttpConnections(endpoint);
  }

  request(method: string, params: Json, onMessage?: OnMessage): Promise<Exchange> {
    const body = { jsonrpc: '2.0', id: this.nextId++, method, params: { ...params, _meta: { ...META, ...params._meta } } };
    return this.http.exchange(body, headersFor(method, params), onMessage);
  }

  notify(method: string, params: Json): Promise<void> {
    return this.http.notify({ jsonrpc: '2.0', method, params: { ...params, _meta: META } }, headersFor(method, params));
  }

  drop(): void {
    this.http.drop();
  }

  /** There is no session to end. */
  async close(): Promise<void> {}
}
