/**
 * Connections that close while the server is still awaiting something (an async `auth` hook, an async
 * event store) before it attaches their stream: the stream must count as closed at once. Otherwise a
 * standalone GET stream stays "open" for good (every later GET gets 409 and the session never goes idle),
 * and a 2026-07-28 subscriptions/listen stream is never released.
 *
 * The auth hook (and the event store) here wait until the server has seen the client's socket close, so
 * the race the fix is about happens on every run; nothing is asserted about timing.
 */
import { createServer, request as httpRequest, type ClientRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, McpServer, StreamableHttpTransport, type McpSession, type StoredEvent } from '../../../src/index.js';
import type { HttpTestClient } from '../../helpers/http-client.js';
import { priming, useHttpSessions } from '../../helpers/http-streams.js';
import { modernHeaders, modernPost, modernRequest } from '../../helpers/modern.js';
import { nextEvent } from '../../helpers/server-events.js';
import { deferred, gate, tick, type Deferred } from '../../helpers/deferred.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { startHttp, type RunningHttp } from '../../helpers/servers.js';

const cleanups = useCleanups();
const h = useHttpSessions(cleanups);

/** The header that makes the auth hook wait until the client has gone. */
const DROP = 'x-test-drop';
const ALICE = { id: 'alice' };

/** Resolves once the request's socket has closed. */
function socketGone(req: IncomingMessage): Promise<void> {
  const socket = req.socket;
  if (socket.destroyed) return Promise.resolve();
  return new Promise((resolve) => socket.once('close', () => resolve()));
}

interface SlowAuth {
  /** Resolves when the hook is holding a request marked with DROP. */
  holding: Deferred<void>;
  /** Resolves when the hook has returned the principal for that request (the client was gone by then). */
  returned: Deferred<void>;
  hook: (req: IncomingMessage) => Promise<unknown>;
}

/** An async auth hook: requests marked with DROP are held until their client disconnects. */
function slowAuth(): SlowAuth {
  const auth: SlowAuth = {
    holding: deferred(),
    returned: deferred(),
    async hook(req) {
      if (req.headers[DROP] !== undefined) {
        auth.holding.resolve();
        await socketGone(req);
        await tick();
        auth.returned.resolve();
      }
      return ALICE;
    },
  };
  return auth;
}

/** Send a request without waiting for any answer; the caller destroys it. */
function sendAndKeep(url: string, method: string, headers: Record<string, string>, body?: object): ClientRequest {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const req = httpRequest(url, {
    method,
    agent: false,
    headers: payload === undefined ? headers : { ...headers, 'content-length': String(Buffer.byteLength(payload)) },
  });
  req.on('error', () => {}); // ECONNRESET / socket hang up: expected, the test drops it
  req.on('response', (res) => res.resume());
  req.end(payload);
  cleanups.push(() => req.destroy());
  return req;
}

/** A GET for the standalone stream (or a resumption, with Last-Event-ID) that the client drops while auth is still running. */
async function droppedGet(client: HttpTestClient, auth: SlowAuth, extra: Record<string, string> = {}): Promise<void> {
  const req = sendAndKeep(client.url, 'GET', {
    accept: 'text/event-stream',
    'mcp-session-id': client.sessionId!,
    'mcp-protocol-version': client.protocolVersion!,
    [DROP]: '1',
    ...extra,
  });
  await auth.holding.promise;
  req.destroy();
  await auth.returned.promise;
}

async function startAuthed(auth: SlowAuth, options: Parameters<typeof startHttp>[2] = {}, setup: (server: McpServer) => void = () => {}): Promise<RunningHttp> {
  return startHttp(cleanups, setup, { ...options, transport: { auth: auth.hook, ...options.transport } });
}

describe('a standalone GET dropped while auth was running', () => {
  it('leaves no standalone stream: a later GET of the same session gets 200 text/event-stream, not 409', async () => {
    const auth = slowAuth();
    const running = await startAuthed(auth);
    const { client } = await h.client(running);
    await droppedGet(client, auth);
    const get = await client.get();
    cleanups.push(() => get.abort());
    expect({ status: get.status, contentType: get.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
    expect(await get.nextEvent(() => true)).toEqual(priming('0_1'));
    expect(running.errors).toEqual([]);
  });

  it('lets the session go idle: with a short sessionIdleTimeoutMs it is swept (sessionEnd: idle timeout)', async () => {
    const auth = slowAuth();
    const release = gate();
    const running = await startAuthed(auth, { transport: { sessionIdleTimeoutMs: 200 } }, (server) =>
      server.registerTool('hold', {}, async () => {
        await release.opened;
        return 'held';
      }),
    );
    const { client, session } = await h.client(running);
    // A call in flight keeps the session from being swept while the GET is dropped.
    const call = client.request('tools/call', { name: 'hold' }, 1);
    await expect.poll(() => running.server.stats.requestsInFlight).toBe(1);
    await droppedGet(client, auth);
    const ended = nextEvent<[McpSession, string]>(running.server, 'sessionEnd');
    release.open();
    expect((await call).status).toBe(200);
    expect(await ended).toEqual([session, 'idle timeout']);
  });

  it('a resumption of the standalone stream (Last-Event-ID) dropped while auth was running leaves no stream either', async () => {
    const auth = slowAuth();
    const running = await startAuthed(auth);
    const { client } = await h.client(running);
    const first = await client.get();
    expect(await first.nextEvent(() => true)).toEqual(priming('0_0'));
    first.abort();
    await first.ended;
    await droppedGet(client, auth, { 'last-event-id': '0_0' });
    const get = await client.get();
    cleanups.push(() => get.abort());
    expect({ status: get.status, contentType: get.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
  });
});

describe('a resumption dropped while an async event store was replaying', () => {
  it('leaves no standalone stream: a later GET gets 200, not 409', async () => {
    const replaying = deferred();
    const replayGate = gate();
    const inner = new InMemoryEventStore();
    const eventStore = {
      append: (sessionId: string, streamId: string, event: StoredEvent) => inner.append(sessionId, streamId, event),
      dropSession: (sessionId: string) => inner.dropSession(sessionId),
      async replayAfter(sessionId: string, streamId: string, lastEventId: string) {
        replaying.resolve();
        await replayGate.opened;
        return inner.replayAfter(sessionId, streamId, lastEventId);
      },
    };
    const running = await startHttp(cleanups, () => {}, { transport: { eventStore } });
    const { client } = await h.client(running);
    const dropSeen = new Promise<void>((resolve) =>
      running.transport.on('httpResponse', (req) => void (req.headers['last-event-id'] !== undefined && resolve())),
    );
    const req = sendAndKeep(client.url, 'GET', {
      accept: 'text/event-stream',
      'mcp-session-id': client.sessionId!,
      'mcp-protocol-version': client.protocolVersion!,
      'last-event-id': '0_0',
    });
    await replaying.promise;
    req.destroy();
    await dropSeen;
    replayGate.open();
    await tick();
    const get = await client.get();
    cleanups.push(() => get.abort());
    expect({ status: get.status, contentType: get.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
  });
});

/**
 * A 2026-07-28 POST whose body a framework read before the (async) auth hook ran, as express.json() does:
 * on the transport's own port, a client that leaves during auth leaves its body unread and the request is
 * never handled, so the race needs the body read first.
 */
async function startMounted(auth: SlowAuth, setup: (server: McpServer) => void = () => {}): Promise<{ server: McpServer; url: string }> {
  const server = new McpServer({ name: 'mounted', version: '1.0.0' });
  server.on('error', () => {});
  setup(server);
  const transport = new StreamableHttpTransport(server, { auth: auth.hook, keepAliveIntervalMs: 0 });
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      (req as IncomingMessage & { body?: unknown }).body = chunks.length > 0 ? JSON.parse(Buffer.concat(chunks).toString('utf8')) : undefined;
      transport.handler(req, res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      }),
    () => server.close(),
  );
  return { server, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

/** POST a 2026-07-28 request (marked with DROP) and drop it while the auth hook holds it. */
async function droppedModernPost(url: string, auth: SlowAuth, id: string | number, method: string, params: Record<string, unknown>): Promise<void> {
  const req = sendAndKeep(url, 'POST', { ...modernHeaders(method, params), [DROP]: '1' }, modernRequest(id, method, params));
  await auth.holding.promise;
  req.destroy();
  await auth.returned.promise;
}

describe('a 2026-07-28 POST (body already read) dropped while auth was running', () => {
  it('subscriptions/listen leaves no subscription behind: server.subscriptions ends up empty', async () => {
    const auth = slowAuth();
    const { server, url } = await startMounted(auth);
    await droppedModernPost(url, auth, 'listen-1', 'subscriptions/listen', { notifications: { toolsListChanged: true } });
    await expect.poll(() => server.stats.subscriptions, { timeout: 2000 }).toBe(0);
  });

  it('a listen stream that stays connected is kept, beside the dropped one that is not', async () => {
    const auth = slowAuth();
    const { server, url } = await startMounted(auth);
    const params = { notifications: { toolsListChanged: true } };
    await droppedModernPost(url, auth, 'gone', 'subscriptions/listen', params);
    const live = await modernPost(url, 'subscriptions/listen', params, { id: 'live' });
    cleanups.push(() => live.abort());
    expect(live.status).toBe(200);
    await live.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    await expect.poll(() => server.stats.subscriptions, { timeout: 2000 }).toBe(1);
    server.registerTool('announced', {}, () => 'ok');
    expect((await live.nextMessage({ method: 'notifications/tools/list_changed' })).params).toEqual({
      _meta: { 'io.modelcontextprotocol/subscriptionId': 'live' },
    });
  });

  it('a tools/call handler finds its signal aborted already when it starts', async () => {
    const auth = slowAuth();
    const seen = deferred<boolean>();
    const { url } = await startMounted(auth, (server) =>
      server.registerTool('look', {}, (_args, ctx) => {
        seen.resolve(ctx.signal.aborted);
        return 'looked';
      }),
    );
    await droppedModernPost(url, auth, 1, 'tools/call', { name: 'look', arguments: {} });
    expect(await seen.promise).toBe(true);
  });
});
