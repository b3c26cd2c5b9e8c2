/**
 * An McpServer on a real transport for a test, closed after it: one harness per transport, each called the
 * same way, `startX(cleanups, setup, options)`, and each giving the same shape (server, transport, url,
 * errors, close). `setup` runs before the transport is made; the server is closed on the file's cleanups.
 */
import { PassThrough } from 'node:stream';
import {
  type ListenOptions,
  McpServer,
  type McpServerOptions,
  type McpSession,
  type ServerInfo,
  StdioTransport,
  type StdioTransportOptions,
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
  WebSocketTransport,
  type WebSocketTransportOptions,
} from '../../src/index.js';
import type { Cleanups } from './cleanups.js';
import type { Json } from './ws-client.js';

/** The capabilities an McpServer with default options declares in its initialize result. */
export const DEFAULT_CAPABILITIES = {
  logging: {},
  completions: {},
  prompts: { listChanged: true },
  resources: { subscribe: true, listChanged: true },
  tools: { listChanged: true },
};

/** The serverInfo of every server these harnesses start, unless `info` says otherwise. */
export const TEST_SERVER_INFO: ServerInfo = { name: 'test-server', version: '1.0.0' };

/** The requestState key (32 bytes and more) servers sign with unless `server.requestState` is given: no ephemeral-key warning. */
export const TEST_STATE_KEY = 'switchboard-mrtr-tests-request-state-key-0001';

export type Setup = (server: McpServer) => void;

export interface StartOptions<T> {
  /** Default TEST_SERVER_INFO. */
  info?: ServerInfo;
  server?: McpServerOptions;
  transport?: T;
  /** More of `listen()`'s options (health checks, limits); host 127.0.0.1 unless set, always port 0. */
  listen?: Omit<ListenOptions, 'port'>;
}

export type HttpStartOptions = StartOptions<StreamableHttpTransportOptions>;

/** What every harness gives. */
export interface Started<T> {
  server: McpServer;
  transport: T;
  /** Every `error` the server reported, with its session (recorded, so none is printed). */
  errors: [Error, McpSession | undefined][];
  /** Every session whose back channel opened (`backChannelOpen`), in order. */
  backChannels: McpSession[];
  /** `server.close()`; it also runs after the test. */
  close(): Promise<void>;
}

export interface RunningServer<T = WebSocketTransport | StreamableHttpTransport> extends Started<T> {
  /** The MCP endpoint: `ws://127.0.0.1:<port>/mcp` or `http://127.0.0.1:<port>/mcp`. */
  url: string;
  port: number;
}

export type RunningWebSocket = RunningServer<WebSocketTransport>;
export type RunningHttp = RunningServer<StreamableHttpTransport>;

export interface RunningHttpAndWebSocket extends RunningHttp {
  webSocket: WebSocketTransport;
  /** The WebSocket endpoint on the same port. */
  wsUrl: string;
}

export interface RunningStdio extends Started<StdioTransport> {
  /** What `transport.start()` gave. */
  session: McpSession;
  /** The server's stdin and stdout. */
  input: PassThrough;
  output: PassThrough;
  /** Every line the server wrote, parsed, in order. */
  lines: Json[];
  /** Write one message as a line. */
  send(message: Json): void;
  /** Write raw bytes, in whatever chunks the test wants. */
  write(chunk: string | Uint8Array): void;
  /** Resolves with `lines` once the server has written `count` lines in all. */
  awaitLines(count: number): Promise<Json[]>;
}

/** The server with `setup` applied, its errors and back channels recorded, closed after the test. */
function newServer<T>(cleanups: Cleanups, setup: Setup, options: StartOptions<unknown>): Omit<Started<T>, 'transport'> {
  const server = new McpServer(options.info ?? TEST_SERVER_INFO, { requestState: { keys: [TEST_STATE_KEY] }, ...options.server });
  const errors: Started<T>['errors'] = [];
  server.on('error', (error, session) => void errors.push([error, session]));
  const backChannels: McpSession[] = [];
  server.on('backChannelOpen', (session) => void backChannels.push(session));
  cleanups.push(() => server.close());
  setup(server);
  return { server, errors, backChannels, close: () => server.close() };
}

/** An McpServer on its own WebSocketTransport at 127.0.0.1 (port 0). */
export async function startWebSocket(
  cleanups: Cleanups,
  setup: Setup = () => {},
  options: StartOptions<WebSocketTransportOptions> = {},
): Promise<RunningWebSocket> {
  const started = newServer<WebSocketTransport>(cleanups, setup, options);
  const transport = new WebSocketTransport(started.server, options.transport);
  const { url, port } = await transport.listen({ host: '127.0.0.1', ...options.listen, port: 0 });
  return { ...started, transport, url, port };
}

/** An McpServer on its own StreamableHttpTransport at 127.0.0.1 (port 0), keep-alive comments off unless set. */
export async function startHttp(cleanups: Cleanups, setup: Setup = () => {}, options: HttpStartOptions = {}): Promise<RunningHttp> {
  const started = newServer<StreamableHttpTransport>(cleanups, setup, options);
  const transport = new StreamableHttpTransport(started.server, { keepAliveIntervalMs: 0, ...options.transport });
  const { url, port } = await transport.listen({ host: '127.0.0.1', ...options.listen, port: 0 });
  return { ...started, transport, url, port };
}

/** startHttp, and a WebSocketTransport (with `webSocket` options, `auth` shared unless set) on the same port. */
export async function startHttpAndWebSocket(
  cleanups: Cleanups,
  setup: Setup = () => {},
  options: HttpStartOptions & { webSocket?: WebSocketTransportOptions } = {},
): Promise<RunningHttpAndWebSocket> {
  const running = await startHttp(cleanups, setup, options);
  const webSocket = new WebSocketTransport(running.server, { auth: options.transport?.auth, ...options.webSocket });
  webSocket.attach(running.transport.httpServer!);
  return { ...running, webSocket, wsUrl: `ws://127.0.0.1:${running.port}/mcp` };
}

/** An McpServer on a started StdioTransport over in-process streams. */
export function startStdio(
  cleanups: Cleanups,
  setup: Setup = () => {},
  options: Omit<StartOptions<Omit<StdioTransportOptions, 'input' | 'output'>>, 'listen'> = {},
): RunningStdio {
  const started = newServer<StdioTransport>(cleanups, setup, options);
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioTransport(started.server, { ...options.transport, input, output });
  const lines: Json[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  let pending = '';
  output.setEncoding('utf8');
  output.on('data', (chunk: string) => {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf('\n')) !== -1) {
      lines.push(JSON.parse(pending.slice(0, nl)) as Json);
      pending = pending.slice(nl + 1);
    }
    for (const waiter of waiters.filter((w) => lines.length >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  });
  const session = transport.start();
  return {
    ...started,
    transport,
    session,
    input,
    output,
    lines,
    send: (message) => void input.write(`${JSON.stringify(message)}\n`),
    write: (chunk) => void input.write(chunk),
    awaitLines(count) {
      if (lines.length >= count) return Promise.resolve(lines);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`the server wrote ${lines.length} of ${count} lines within 5000 ms: ${JSON.stringify(lines)}`)), 5000);
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(lines);
          },
        });
      });
    },
  };
}
