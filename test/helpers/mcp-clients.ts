/**
 * McpClient as the peer of server integration tests: connected over a real socket, closed after the test,
 * with the server-side session it got; and the JSON-RPC error a call failed with, as the server sent it.
 * Tests whose subject is the wire itself (ids, envelopes, malformed frames, ordering) stay on the raw
 * peers (ws-client, http-client, stdio-client).
 */
import { expect } from 'vitest';
import {
  type ClientTransport,
  type ElicitationHandler,
  type ElicitParams,
  type ElicitResult,
  type ElicitUrlParams,
  type HandlerContext,
  type JsonRpcNotification,
  McpClient,
  type McpClientOptions,
  McpError,
  type McpSession,
} from '../../src/index.js';
import { nextEvent } from './server-events.js';
import type { RunningServer } from './servers.js';
import type { Cleanups } from './cleanups.js';
import { type Inbox, inbox } from './inbox.js';

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
  connectUrl(
    target: string | URL | ClientTransport,
    options?: McpClientOptions,
    setup?: (client: McpClient) => void,
  ): Promise<{ client: McpClient; errors: Error[] }>;
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
    async connectUrl(target, options = {}, setup) {
      const client = new McpClient({ name: 'test-client', version: '1.0.0' }, options);
      const errors: Error[] = [];
      client.on('error', (err) => void errors.push(err));
      setup?.(client);
      cleanups.push(() => client.close());
      await client.connect(target);
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

/** An elicitation/create the client received: what its handler got, and the answer to give when the test decides. */
export interface Ask {
  /** The request's id (`ctx.requestId`). */
  id: unknown;
  /** As the handler got them (any field can be read, as in a raw message). */
  params: ElicitParams & Record<string, any>;
  ctx: HandlerContext;
  /** Let the handler return `result`: a peer without its own `answer` holds each answer back until this. */
  answer(result: ElicitResult): void;
}

export interface ElicitationPeer extends ConnectedClient {
  /** Every elicitation/create the client received (also those it refused), in order. */
  asks: Inbox<Ask>;
  /** Every notification the client received, in order. */
  notifications: Inbox<JsonRpcNotification>;
  /** Every elicitationComplete event: the elicitation id and the URL-mode request it completes. */
  completions: Inbox<[string, ElicitUrlParams | undefined]>;
}

export interface ElicitationPeerOptions extends McpClientOptions {
  /** The client's onElicitation handler. Default: one that holds its answer until the test calls `ask.answer`; `null`: none. */
  answer?: ElicitationHandler | null;
}

/** An McpClient on `running` (legacy era, WebSocket) that records what it is asked and holds its answers until the test gives them. */
export async function elicitationPeer(
  clients: ClientHarness,
  running: RunningServer,
  { answer, ...options }: ElicitationPeerOptions = {},
): Promise<ElicitationPeer> {
  const asks = inbox<Ask>('elicitation/create');
  const notifications = inbox<JsonRpcNotification>('notification');
  const completions = inbox<[string, ElicitUrlParams | undefined]>('elicitationComplete');
  const held = new WeakMap<HandlerContext, (result: ElicitResult) => void>();
  const connected = await clients.connect(running, options, (client) => {
    client.on('elicitationCreate', (params, ctx) => asks.push({ id: ctx.requestId, params, ctx, answer: (result) => held.get(ctx)!(result) }));
    client.on('notification', (notification) => notifications.push(notification));
    client.on('elicitationComplete', (elicitationId, request) => completions.push([elicitationId, request]));
    if (answer !== null) client.onElicitation(answer ?? ((_params, ctx) => new Promise<ElicitResult>((resolve) => held.set(ctx, resolve))));
  });
  return { ...connected, asks, notifications, completions };
}

/**
 * The session still answers (a ping round trip, after everything the server sent before it), and since the
 * peer connected it was asked exactly `asked` (each elicitation/create's params), told exactly `notifications`
 * and reported no error.
 */
export async function expectPeerQuietAndAlive(peer: ElicitationPeer, seen: { asked?: unknown[]; notifications?: JsonRpcNotification[] } = {}): Promise<void> {
  await peer.client.ping();
  expect(
    { asked: peer.asks.all.map((ask) => ask.params), notifications: peer.notifications.all, errors: peer.errors },
    'what the peer was asked, told and reported since it connected',
  ).toEqual({ asked: seen.asked ?? [], notifications: seen.notifications ?? [], errors: [] });
}
