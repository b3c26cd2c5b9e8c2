/** Start an McpServer on a real WebSocket port for a test, and stop it afterwards. */
import { McpServer, WebSocketTransport, type McpServerOptions, type ServerInfo, type WebSocketTransportOptions } from '../../src/index.js';

export interface RunningServer {
  server: McpServer;
  transport: WebSocketTransport;
  url: string;
  port: number;
  close(): Promise<void>;
}

export async function startWsServer(
  setup: (server: McpServer) => void = () => {},
  options: { info?: ServerInfo; server?: McpServerOptions; transport?: WebSocketTransportOptions } = {},
): Promise<RunningServer> {
  const server = new McpServer(options.info ?? { name: 'test-server', version: '1.0.0' }, options.server);
  // Tests that expect errors listen for them; the rest should not print to stderr.
  server.on('error', () => {});
  setup(server);
  const transport = new WebSocketTransport(server, options.transport);
  const { url, port } = await transport.listen({ host: '127.0.0.1', port: 0 });
  return { server, transport, url, port, close: () => server.close() };
}

/** Resolve on the next emission of `event`, with its arguments. */
export function nextEvent<A extends unknown[]>(emitter: { once(event: string, fn: (...args: any[]) => void): unknown }, event: string, timeoutMs = 5000): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' event within ${timeoutMs} ms`)), timeoutMs);
    emitter.once(event, (...args: any[]) => {
      clearTimeout(timer);
      resolve(args as A);
    });
  });
}
