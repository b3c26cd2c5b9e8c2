/**
 * Per-test bookkeeping for server tests: start servers and connect clients that are always closed
 * after each test, get hold of the server-side McpSession of a client, and check that a session
 * is quiet and still answering.
 */
import { afterEach, expect } from 'vitest';
import type { McpServer, McpSession } from '../../src/index.js';
import { nextEvent, startWsServer, type RunningServer } from './servers.js';
import { WsTestClient, type Json } from './ws-client.js';

export interface Harness {
  /** startWsServer, closed after the test. */
  start(...args: Parameters<typeof startWsServer>): Promise<RunningServer>;
  /** A connected (not initialized) client and its server-side session, closed after the test. */
  connect(running: RunningServer): Promise<{ client: WsTestClient; session: McpSession }>;
  /**
   * A client that completed `initialize` and `notifications/initialized` (the session is `ready`
   * when this resolves), and its server-side session.
   */
  open(
    running: RunningServer,
    init?: { protocolVersion?: string; capabilities?: Json; clientInfo?: Json },
  ): Promise<{ client: WsTestClient; session: McpSession; result: Json }>;
}

/** Call once at the top level of a test file. */
export function useHarness(): Harness {
  const cleanups: (() => Promise<unknown>)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });

  const harness: Harness = {
    async start(...args) {
      const running = await startWsServer(...args);
      cleanups.push(() => running.close());
      return running;
    },
    async connect(running) {
      const connected = nextEvent<[McpSession]>(running.server, 'connect');
      const client = await WsTestClient.connect(running.url);
      cleanups.push(() => client.close());
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
 * The session still answers, and nothing else arrived: a ping round trip, after which every
 * message the client received has been consumed by the test.
 */
export async function expectQuietAndAlive(client: WsTestClient): Promise<void> {
  await pingOk(client);
  expect(client.received).toEqual([]);
}

/** A promise's outcome, captured at once so a rejection is never unhandled. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function capture<T>(promise: Promise<T>): { outcome: Promise<Outcome<T>>; settled: () => boolean } {
  let done = false;
  const outcome = promise.then(
    (value): Outcome<T> => ((done = true), { ok: true, value }),
    (error: unknown): Outcome<T> => ((done = true), { ok: false, error }),
  );
  return { outcome, settled: () => done };
}

/** Let pending I/O callbacks and microtasks run. */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** A latch a test opens by hand. */
export function gate(): { open: () => void; opened: Promise<void> } {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Collect every emission of `event` while the test runs. */
export function record<A extends unknown[]>(server: McpServer, event: string): A[] {
  const seen: A[] = [];
  (server as unknown as { on(e: string, fn: (...args: unknown[]) => void): void }).on(event, (...args: unknown[]) => seen.push(args as A));
  return seen;
}
