/**
 * McpClient as the peer of server integration tests: connected over a real socket, closed after the test,
 * with the server-side session it got; and the JSON-RPC error a call failed with, as the server sent it.
 * Tests whose subject is the wire itself (ids, envelopes, malformed frames, ordering) stay on the raw
 * peers (ws-client, http-client, stdio-client).
 */
import { expect } from 'vitest';
import { McpClient, McpError, type McpClientOptions, type McpSession } from '../../src/index.js';
import { nextEvent, type RunningServer } from './servers.js';
import type { Cleanups } from './util.js';

export interface ConnectedClient {
  client: McpClient;
  /** The server-side session (legacy era), once the server has handled notifications/initialized. */
  session: McpSession;
  /** Every `error` event of the client. */
  errors: Error[];
}

export interface ClientHarness {
  /**
   * An McpClient on `running` (legacy era over WebSocket unless `options` say otherwise), with `setup` run
   * before connecting (register handlers there); closed after the test.
   */
  connect(running: RunningServer, options?: McpClientOptions, setup?: (client: McpClient) => void): Promise<ConnectedClient>;
  /** An McpClient connected to any `url` (http, ws) or transport, closed after the test. */
  connectUrl(url: string, options?: McpClientOptions, setup?: (client: McpClient) => void): Promise<{ client: McpClient; errors: Error[] }>;
}

/** Pass the file's `useCleanups()` (or the harness's) so clients close before the servers they talk to. */
export function useMcpClients(cleanups: Cleanups): ClientHarness {
  const harness: ClientHarness = {
    async connect(running, options = {}, setup) {
      const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
      const { client, errors } = await harness.connectUrl(running.url, { era: 'legacy', ...options }, setup);
      const [session] = await initialized;
      return { client, session, errors };
    },
    async connectUrl(url, options = {}, setup) {
      const client = new McpClient({ name: 'test-client', version: '1.0.0' }, options);
      const errors: Error[] = [];
      client.on('error', (err) => void errors.push(err));
      setup?.(client);
      cleanups.push(() => client.close());
      await client.connect(url);
      return { client, errors };
    },
  };
  return harness;
}

/** The JSON-RPC error `call` failed with: `{code, message}`, and `data` when the server sent some. */
export async function rpcError(call: Promise<unknown>): Promise<{ code: number; message: string; data?: unknown }> {
  const failure = await call.then(
    (result) => {
      throw new Error(`expected the call to fail; it answered ${JSON.stringify(result)}`);
    },
    (err: unknown) => err,
  );
  expect(failure).toBeInstanceOf(McpError);
  const { code, message, data } = failure as McpError;
  return data === undefined ? { code, message } : { code, message, data };
}
