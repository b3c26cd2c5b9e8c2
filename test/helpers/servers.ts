/**
 * Start an McpServer on a real WebSocket port for a test, and stop it afterwards; wait for and record
 * the server's events and outgoing messages.
 */
import {
  McpServer,
  WebSocketTransport,
  type McpServerEvents,
  type McpServerOptions,
  type McpSession,
  type ServerInfo,
  type WebSocketTransportOptions,
} from '../../src/index.js';

/** The capabilities an McpServer with default options declares in its initialize result. */
export const DEFAULT_CAPABILITIES = {
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
};

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
export function nextEvent<A extends unknown[]>(
  emitter: { once(event: string, fn: (...args: any[]) => void): unknown },
  event: string,
  timeoutMs = 5000,
): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' event within ${timeoutMs} ms`)), timeoutMs);
    emitter.once(event, (...args: any[]) => {
      clearTimeout(timer);
      resolve(args as A);
    });
  });
}

/** Every emission of `event` from now on, as its argument list, in order. */
export function recordEvents<K extends keyof McpServerEvents>(server: McpServer, event: K): McpServerEvents[K][] {
  const log: McpServerEvents[K][] = [];
  (server.on as (event: string, fn: (...args: unknown[]) => void) => unknown)(event, (...args: unknown[]) => void log.push(args as McpServerEvents[K]));
  return log;
}

/** Every message the server sent (on `session`, when given) from now on. */
export function recordOutgoing(server: McpServer, session?: McpSession): Record<string, unknown>[] {
  const log: Record<string, unknown>[] = [];
  server.on('message', (from, direction, message) => {
    if (direction === 'out' && (session === undefined || from === session)) log.push(message as Record<string, unknown>);
  });
  return log;
}
