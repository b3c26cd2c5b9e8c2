/** Per-test lifecycle for WebSocket integration tests: servers and clients opened here close after each test. */
import { afterEach } from 'vitest';
import { startWsServer, type RunningServer } from './servers.js';
import { WsTestClient, type Json } from './ws-client.js';

type InitOptions = Parameters<typeof WsTestClient.initialized>[1];

export interface Harness {
  /** Start a server (see `startWsServer`); it is closed after the test. */
  start(...args: Parameters<typeof startWsServer>): Promise<RunningServer>;
  /** An initialized client whose `notifications/initialized` the server has already processed. */
  ready(url: string, init?: InitOptions): Promise<WsTestClient>;
  /** A connected client that has sent nothing yet. */
  connect(url: string): Promise<WsTestClient>;
}

/** Call at the top of a `describe` (or file): registers the `afterEach` that closes everything. */
export function useHarness(): Harness {
  const servers: RunningServer[] = [];
  const clients: WsTestClient[] = [];
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((client) => client.close()));
    await Promise.all(servers.splice(0).map((running) => running.close()));
  });
  return {
    async start(...args) {
      const running = await startWsServer(...args);
      servers.push(running);
      return running;
    },
    async ready(url, init) {
      const { client } = await WsTestClient.initialized(url, init);
      clients.push(client);
      await flush(client);
      return client;
    },
    async connect(url) {
      const client = await WsTestClient.connect(url);
      clients.push(client);
      return client;
    },
  };
}

/**
 * Round-trip a `ping`. Messages on one socket arrive in order, so once the reply is here, everything
 * the server sent before it handled the ping (including microtask-deferred notifications) has arrived.
 */
export async function flush(client: WsTestClient): Promise<void> {
  const reply = await client.request('ping');
  if (!('result' in reply)) throw new Error(`ping failed: ${JSON.stringify(reply)}`);
}

/** Every message the client receives from now on, in arrival order (waitFor does not remove from it). */
export function recordMessages(client: WsTestClient): Json[] {
  const log: Json[] = [];
  client.socket.on('message', (data) => log.push(JSON.parse(data.toString()) as Json));
  return log;
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
