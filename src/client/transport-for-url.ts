/**
 * Which transport a URL means: `http(s)` Streamable HTTP, `ws(s)` WebSocket. Each is loaded on demand,
 * so the client's core imports no Node-only module.
 */
import { isNode } from './platform.js';
import type { ClientTransport } from './transport.js';

export async function transportFor(target: string | URL): Promise<ClientTransport> {
  const url = new URL(target);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const { StreamableHttpClientTransport } = await import('./transports/streamable-http.js');
    return new StreamableHttpClientTransport(url);
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    // Under Node the ws package (upgrade headers, a frame limit); elsewhere the platform's WebSocket.
    if (isNode()) {
      const { WebSocketClientTransport } = await import('./transports/websocket.js');
      return new WebSocketClientTransport(url);
    }
    const { BrowserWebSocketClientTransport } = await import('./transports/browser-websocket.js');
    return new BrowserWebSocketClientTransport(url);
  }
  throw new TypeError(
    `McpClient.connect takes an http(s) or ws(s) URL, or a transport (new StdioClientTransport({ command }) spawns a server); got ${url.protocol}`,
  );
}
