/**
 * The official SDK v1 client as a test peer over a real WebSocket: connect it to a running Switchboard
 * server, get hold of its server-side session, record server events, and close everything after each test.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { afterEach } from 'vitest';
import type { McpServer, McpServerEvents, McpSession } from '../../src/index.js';
import { nextEvent, startWsServer, type RunningServer } from './servers.js';

export interface SdkPeer {
  client: Client;
  /** The server-side session of this client. */
  session: McpSession;
}

export interface SdkHarness {
  /** startWsServer, closed after the test. */
  start(...args: Parameters<typeof startWsServer>): Promise<RunningServer>;
  /**
   * An SDK client that completed initialize, with `setup` run before connecting (register request and
   * notification handlers there). Resolves once the server has handled `notifications/initialized`.
   */
  connect(running: RunningServer, options?: ClientOptions, setup?: (client: Client) => void): Promise<SdkPeer>;
  /** Close something else after the test (before the servers). */
  defer(cleanup: () => Promise<unknown> | unknown): void;
}

/** Call once at the top level of a test file. */
export function useSdkHarness(): SdkHarness {
  const clients: (() => Promise<unknown> | unknown)[] = [];
  const servers: RunningServer[] = [];
  afterEach(async () => {
    while (clients.length > 0) await clients.pop()!();
    await Promise.all(servers.splice(0).map((running) => running.close()));
  });
  return {
    async start(...args) {
      const running = await startWsServer(...args);
      servers.push(running);
      return running;
    },
    async connect(running, options = {}, setup) {
      const client = new Client({ name: 'sdk-v1-peer', version: '1.0.0' }, options);
      setup?.(client);
      const started = nextEvent<[McpSession]>(running.server, 'sessionNew');
      const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
      clients.push(() => client.close());
      await client.connect(new WebSocketClientTransport(new URL(running.url)));
      const [session] = await started;
      const [readySession] = await initialized;
      if (readySession !== session) throw new Error('another session initialized at the same time');
      return { client, session };
    },
    defer(cleanup) {
      clients.push(cleanup);
    },
  };
}

/** Every emission of `event` from now on, as its argument list, in order. */
export function recordEvents<K extends keyof McpServerEvents>(server: McpServer, event: K): McpServerEvents[K][] {
  const log: McpServerEvents[K][] = [];
  (server.on as (event: string, fn: (...args: unknown[]) => void) => unknown)(event, (...args: unknown[]) => void log.push(args as McpServerEvents[K]));
  return log;
}

/** Every message the server sent on `session` from now on. */
export function recordOutgoing(server: McpServer, session?: McpSession): Record<string, unknown>[] {
  const log: Record<string, unknown>[] = [];
  server.on('message', (from, direction, message) => {
    if (direction === 'out' && (session === undefined || from === session)) log.push(message as Record<string, unknown>);
  });
  return log;
}

/** A CallToolResult of one text block, as the SDK client returns it. */
export function textResult(text: string, isError?: true): { content: { type: 'text'; text: string }[]; isError?: true } {
  return isError ? { content: [{ type: 'text', text }], isError } : { content: [{ type: 'text', text }] };
}
