/**
 * Raw WebSocket clients of a running server for a test, closed after it: get hold of the server-side
 * McpSession of a client, wait until the server has handled everything a client sent (`pingOk`, `flush`),
 * record what a client receives, and check that a session is quiet and still answering.
 */
import { expect } from 'vitest';
import type { McpSession } from '../../src/index.js';
import { nextEvent } from './server-events.js';
import type { Cleanups } from './cleanups.js';
import type { RunningServer } from './servers.js';
import { WsTestClient, type Json } from './ws-client.js';

type InitOptions = Parameters<typeof WsTestClient.initialized>[1];
type ConnectOptions = Parameters<typeof WsTestClient.connect>[1];

export interface WsSessions {
  /** A connected (not initialized) client and its server-side session, closed after the test. */
  connect(running: RunningServer): Promise<{ client: WsTestClient; session: McpSession }>;
  /**
   * A client that completed `initialize` and `notifications/initialized` (the session is `ready`
   * when this resolves, checked with `pingOk`), and its server-side session.
   */
  open(running: RunningServer, init?: InitOptions): Promise<{ client: WsTestClient; session: McpSession; result: Json }>;
  /**
   * An initialized client at `url` whose `notifications/initialized` the server has already processed
   * (checked with `flush`, so the ping takes the client's next numeric id), closed after the test.
   */
  ready(url: string, init?: InitOptions): Promise<WsTestClient>;
  /** A client connected to `url` (with any `WsTestClient.connect` options) that has sent nothing yet, closed after the test. */
  connectUrl(url: string, options?: ConnectOptions): Promise<WsTestClient>;
}

/** Pass the file's `useCleanups()`, so clients close before the servers they talk to. */
export function useWsSessions(cleanups: Cleanups): WsSessions {
  const harness: WsSessions = {
    async connect(running) {
      const connected = nextEvent<[McpSession]>(running.server, 'connect');
      const client = await harness.connectUrl(running.url);
      const [session] = await connected;
      return { client, session };
    },
    async open(running, init = {}) {
      const { client, session } = await harness.connect(running);
      const result = await client.initialize(init);
      // The ping's reply proves notifications/initialized (sent before it) has been handled.
      await pingOk(client);
      return { client, session, result };
    },
    async ready(url, init) {
      const { client } = await WsTestClient.initialized(url, init);
      cleanups.push(() => client.close());
      await flush(client);
      return client;
    },
    async connectUrl(url, options) {
      const client = await WsTestClient.connect(url, options);
      cleanups.push(() => client.close());
      return client;
    },
  };
  return harness;
}

let barrierSeq = 0;

/** Ping the server with a fresh string id and expect exactly `{}` back. */
export async function pingOk(client: WsTestClient): Promise<void> {
  const id = `ping-${++barrierSeq}`;
  const reply = await client.request('ping', undefined, id);
  expect(reply).toEqual({ jsonrpc: '2.0', id, result: {} });
}

/**
 * Round-trip a `ping` with the client's next numeric id. Messages on one socket arrive in order, so once
 * the reply is here, everything the server sent before it handled the ping (including microtask-deferred
 * notifications) has arrived.
 */
export async function flush(client: WsTestClient): Promise<void> {
  const reply = await client.request('ping');
  if (!('result' in reply)) throw new Error(`ping failed: ${JSON.stringify(reply)}`);
}

/**
 * The session still answers, and nothing else arrived: a ping round trip, after which every
 * message the client received has been consumed by the test.
 */
export async function expectQuietAndAlive(client: WsTestClient): Promise<void> {
  await pingOk(client);
  expect(client.received).toEqual([]);
}

/** Every message the client receives from now on, in arrival order (waitFor does not remove from it). */
export function recordMessages(client: WsTestClient): Json[] {
  const log: Json[] = [];
  client.socket.on('message', (data) => log.push(JSON.parse(data.toString()) as Json));
  return log;
}
