/**
 * `serveWhereTheyLand`, over a real redis-server with three instances: a request that only reads a
 * session another instance holds is served where it lands, from the session's record; its elicitation's
 * reply finds the instance that asked from wherever it lands; a cancellation or the session's end reaches
 * it through any instance; what changes the session still goes to the owner; the owner's idle timeout
 * counts the use elsewhere.
 */
import { rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer } from 'node:net';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { connectRedisScale, McpServer, type McpSession, type SessionRouter, StreamableHttpTransport } from '../../src/index.js';
import type { GuestNews } from '../../src/transports/http/session-router.js';
import { useCleanups } from '../helpers/cleanups.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { startRedis, useRedis } from '../helpers/redis.js';
import { until } from '../helpers/waits.js';

const cleanups = useCleanups();
const redis = useRedis();

const FORM = { message: 'Who?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };

interface InstanceOptions {
  guests?: boolean;
  sessionIdleTimeoutMs?: number;
  /** Another redis-server than the file's. */
  redisUrl?: string;
  /** The router as the transport gets it: the scale's, or one changed from it. */
  router?: (router: SessionRouter) => SessionRouter;
  /** Mount the handler on a server of the test's, which parses each body into `req.body` first (as express.json() does). */
  parsed?: boolean;
}

/** A node:http server that parses each body into `req.body`, then hands the request to `handler()`. */
async function parsingServer(handler: () => (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (chunks.length > 0) (req as { body?: unknown }).body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      handler()(req, res);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => http.close(resolve)));
  return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
}

async function instance(name: string, prefix: string, options: InstanceOptions = {}) {
  const scale = await connectRedisScale(options.redisUrl ?? redis.url, { prefix });
  const server = new McpServer({ name, version: '1.0.0' });
  const errors: string[] = [];
  server.on('error', (err) => void errors.push((err as Error).message));
  const seen = { sessionEvents: [] as string[], answers: [] as string[], cancelled: [] as string[], started: 0 };
  for (const event of ['sessionNew', 'sessionAdopted', 'sessionEnd'] as const) server.on(event, () => void seen.sessionEvents.push(event));
  server.on(
    'responseElicitationCreate',
    (_session, _request, response) =>
      void seen.answers.push(response.isError ? `error ${response.errorCode}: ${response.errorMessage}` : String(response.content?.name)),
  );
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }, ctx) => {
    (ctx.session as McpSession).data.touched = true;
    return `${name}: ${text} (log level ${ctx.session.logLevel ?? 'unset'})`;
  });
  server.registerTool('ask', {}, async (_args, ctx) => `${(await ctx.elicit(FORM)).content?.name} answered ${name}`);
  server.registerTool('wait', {}, async (_args, ctx) => {
    seen.started++;
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    seen.cancelled.push(String(ctx.signal.reason?.message ?? ctx.signal.reason));
    return 'stopped';
  });
  let transport: StreamableHttpTransport | undefined;
  const mounted = options.parsed ? await parsingServer(() => transport!.handler) : undefined;
  transport = new StreamableHttpTransport(server, {
    ...(mounted ? { advertisedUrl: mounted } : {}),
    router: (options.router ?? ((router) => router))(scale.sessionRouter()),
    serveWhereTheyLand: options.guests ?? true,
    ...(options.sessionIdleTimeoutMs ? { sessionIdleTimeoutMs: options.sessionIdleTimeoutMs } : {}),
  });
  const url = mounted ?? (await transport.listen({ host: '127.0.0.1', port: 0 })).url;
  // What the transport saw, by how it came: straight from a client, or forwarded by another instance.
  const heard: string[] = [];
  transport.on('httpRequest', (req: IncomingMessage) => void heard.push(`${req.method} ${req.headers['x-switchboard-forwarded'] ? 'forwarded' : 'direct'}`));
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  return { transport, url, scale, server, errors, seen, heard };
}

/** A session initialized on `owner` (at `protocolVersion`, by default the latest), and clients for it at each of `others`. */
async function sessionOn(owner: string, ...others: string[]) {
  return sessionAt(undefined, owner, ...others);
}

async function sessionAt(protocolVersion: string | undefined, owner: string, ...others: string[]) {
  const direct = new HttpTestClient(owner);
  await direct.initialize({ capabilities: { elicitation: {} }, ...(protocolVersion ? { protocolVersion } : {}) });
  const at = others.map((url) => {
    const client = new HttpTestClient(url);
    client.sessionId = direct.sessionId;
    client.protocolVersion = direct.protocolVersion;
    return client;
  });
  return { direct, at };
}

/** Instances a, b and c, and a session on a with clients for it at each. */
async function threeInstances() {
  const prefix = prefixed();
  const [a, b, c] = [await instance('a', prefix), await instance('b', prefix), await instance('c', prefix)];
  const { direct, at } = await sessionOn(a.url, b.url, c.url);
  return { a, b, c, direct, viaB: at[0]!, viaC: at[1]! };
}

const text = (message: unknown) => (message as { result: { content: { text: string }[] } }).result.content[0]!.text;
const prefixed = () => `guest-${Math.random().toString(36).slice(2)}`;

describe('serveWhereTheyLand', () => {
  it('serves reads where they land, from the record; what changes the session goes to its owner, and the next read sees it', async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    const { direct, at } = await sessionOn(a.url, b.url);
    const [viaB] = at;
    a.heard.length = 0;

    expect(text(await viaB.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('b: one (log level unset)');
    expect((await viaB.call('tools/list')).result.tools.map((tool: { name: string }) => tool.name)).toEqual(['echo', 'ask', 'wait']);
    expect(a.heard).toEqual([]);

    // logging/setLevel changes the session: its owner serves it, and keeps the record the next read is served from.
    expect((await viaB.call('logging/setLevel', { level: 'debug' })).result).toEqual({});
    expect(a.heard).toEqual(['POST forwarded']);
    await until(
      async () => text(await viaB.call('tools/call', { name: 'echo', arguments: { text: 'two' } })),
      'the new level on b',
      (got) => got === 'b: two (log level debug)',
    );

    // The guest was no session of b's: no session event, not among its sessions; its data was its own.
    expect(b.seen.sessionEvents).toEqual([]);
    expect(b.server.sessions.size).toBe(0);
    expect(a.server.sessions.get(direct.sessionId!)!.data).toEqual({});
    expect(a.seen.sessionEvents).toEqual(['sessionNew']);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('ends each elicitation in one response event on the instance that asked, wherever its reply lands', async () => {
    const { a, b, c, direct, viaB, viaC } = await threeInstances();

    for (const [n, replier] of [direct, viaB, viaC].entries()) {
      const call = await viaB.request('tools/call', { name: 'ask', arguments: {} }, `ask-${n}`);
      expect(call.status).toBe(200);
      const asked = (await call.nextMessage({ method: 'elicitation/create' })) as { id: string };
      // The id names the instance whose guest asked.
      expect(asked.id).toMatch(/^sb\.[0-9A-Za-z_-]{12}\.[1-9][0-9]*$/);
      const replied = await replier.reply(asked.id, { action: 'accept', content: { name: `Ada ${n}` } });
      expect(replied.status).toBe(204);
      expect(text(await call.nextMessage({ id: `ask-${n}` }))).toBe(`Ada ${n} answered b`);
      await call.ended;
    }
    expect(b.seen.answers).toEqual(['Ada 0', 'Ada 1', 'Ada 2']);
    expect([a.seen.answers, c.seen.answers]).toEqual([[], []]);
    // A reply for a request that ended is taken, as any late reply is.
    expect((await viaC.reply('sb.AAAAAAAAAAAA.1', { action: 'decline' })).status).toBe(204);
    expect([...a.errors, ...b.errors, ...c.errors]).toEqual([]);
  });

  it('stops a request a guest serves when the client cancels it through any instance, and ends it when the session is deleted', async () => {
    const { b, direct, viaB, viaC } = await threeInstances();

    const first = viaB.request('tools/call', { name: 'wait', arguments: {} }, 'wait-1');
    await until(
      () => b.seen.started,
      'the wait tool running on b',
      (n) => n === 1,
    );
    expect((await viaC.notify('notifications/cancelled', { requestId: 'wait-1', reason: 'changed my mind' })).status).toBe(202);
    await until(
      () => b.seen.cancelled.length,
      'the cancellation on b',
      (n) => n === 1,
    );
    expect(b.seen.cancelled).toEqual(['cancelled by the client: changed my mind']);
    // A cancelled request gets no response: its POST is answered with no body.
    expect((await first).status).toBe(204);

    const second = await viaB.request('tools/call', { name: 'ask', arguments: {} }, 'ask-1');
    await second.nextMessage({ method: 'elicitation/create' });
    expect((await direct.delete()).status).toBe(200);
    // The guest's stream ends with the session, and the next read is not served: the session is gone.
    await second.ended;
    await until(
      async () => (await viaB.request('tools/call', { name: 'echo', arguments: { text: 'x' } })).status,
      'a 404 on b',
      (status) => status === 404,
    );
    // The elicitation it had pending ended in its one response event, on b.
    expect(b.seen.answers).toEqual(['error -32000: elicitation/create could not complete: the session ended']);
  });

  it("keeps the owner's session while it is used elsewhere: its idle timeout counts that", async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix, { sessionIdleTimeoutMs: 1500 });
    const b = await instance('b', prefix, { sessionIdleTimeoutMs: 1500 });
    const { direct, at } = await sessionOn(a.url, b.url);
    const session = a.server.sessions.get(direct.sessionId!)!;
    // Served on b for longer than a's idle timeout: a keeps the session.
    const until = Date.now() + 2500;
    while (Date.now() < until) {
      expect(text(await at[0]!.call('tools/call', { name: 'echo', arguments: { text: 'still here' } }))).toMatch(/^b: still here/);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(a.server.sessions.get(direct.sessionId!)).toBe(session);
    expect(session.lastActivity.getTime()).toBeGreaterThan(Date.now() - 2500);
  });

  it('forgets a session that ended while Redis was away once it is back: no guest serves it then', async () => {
    // Kept across its restart, as a Redis that comes back after a break keeps what it had.
    const persistent = await startRedis({ persist: true });
    cleanups.push(async () => {
      await persistent.stop();
      await rm(persistent.dataDir!, { recursive: true, force: true });
    });
    const prefix = prefixed();
    const a = await instance('a', prefix, { redisUrl: persistent.url });
    const b = await instance('b', prefix, { redisUrl: persistent.url });
    const { direct, at } = await sessionOn(a.url, b.url);
    const [viaB] = at;
    expect(text(await viaB.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('b: one (log level unset)');

    await persistent.stop();
    // The session ends on its owner while it cannot tell Redis (nor b) of it.
    expect((await direct.delete()).status).toBe(200);
    await persistent.restart();

    const probe = new Redis(persistent.url, { lazyConnect: true });
    cleanups.push(() => probe.quit());
    await until(
      async () => await probe.exists(`${prefix}:session-record:${direct.sessionId}`),
      'the record forgotten once Redis is back',
      (n) => n === 0,
      10_000,
    );
    await until(
      async () => (await viaB.request('tools/call', { name: 'echo', arguments: { text: 'two' } })).status,
      'a 404 on b',
      (status) => status === 404,
      10_000,
    );
  });

  it('makes no guest from a record read just before the session ended', async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix);
    // b's reads of records wait while `held` is set, and what it hears is listed (after it heard it).
    let held: Promise<void> | undefined;
    let recalled = 0;
    const heard: GuestNews['type'][] = [];
    const b = await instance('b', prefix, {
      router: (router) => {
        const guests = router.guests!;
        return {
          ...router,
          guests: {
            ...guests,
            recall: async (sessionId) => {
              const kept = await guests.recall(sessionId);
              recalled++;
              await held;
              return kept;
            },
            onNews: (listener) =>
              guests.onNews((news) => {
                listener(news);
                heard.push(news.type);
              }),
          },
        };
      },
    });
    const { direct, at } = await sessionOn(a.url, b.url);
    let release!: () => void;
    held = new Promise((resolve) => (release = resolve));
    const call = at[0]!.request('tools/call', { name: 'echo', arguments: { text: 'late' } });
    await until(
      () => recalled,
      "b's read of the record",
      (n) => n === 1,
    );
    expect((await direct.delete()).status).toBe(200);
    await until(
      () => heard,
      'the news of the end on b',
      (types) => types.includes('ended'),
    );
    release();
    // The record b read is stale: the request goes to the owner, which holds the session no more.
    expect((await call).status).toBe(404);
    expect(b.seen.sessionEvents).toEqual([]);
  });

  it("sends a batch's replies to a guest's requests on to it when the batch holds other messages too", async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    // Batches are 2025-03-26's.
    const { direct, at } = await sessionAt('2025-03-26', a.url, b.url);
    const call = await at[0]!.request('tools/call', { name: 'ask', arguments: {} }, 'ask-1');
    const asked = (await call.nextMessage({ method: 'elicitation/create' })) as { id: string };
    expect(asked.id).toMatch(/^sb\./);
    const batch = await direct.post([
      { jsonrpc: '2.0', id: asked.id, result: { action: 'accept', content: { name: 'Ada' } } },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    expect(batch.status).toBe(202);
    expect(text(await call.nextMessage({ id: 'ask-1' }))).toBe('Ada answered b');
    expect(b.seen.answers).toEqual(['Ada']);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('serves a read where it lands when a framework parsed the body already', async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix);
    const b = await instance('b', prefix, { parsed: true });
    const { at } = await sessionOn(a.url, b.url);
    a.heard.length = 0;
    expect(text(await at[0]!.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('b: one (log level unset)');
    expect(a.heard).toEqual([]);
    expect([...a.errors, ...b.errors]).toEqual([]);
  });

  it('sends a reply on only to an http(s) URL registered for its tag', async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix);
    const { direct } = await sessionOn(a.url);
    const writer = new Redis(redis.url);
    cleanups.push(() => writer.quit());
    // What listens where the registered URL points: nothing may connect to it.
    let connections = 0;
    const listener = createNetServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => listener.close(resolve)));
    await writer.set(`${prefix}:instance:AAAAAAAAAAAA`, `ftp://127.0.0.1:${(listener.address() as AddressInfo).port}/mcp`);
    expect((await direct.reply('sb.AAAAAAAAAAAA.1', { action: 'decline' })).status).toBe(204);
    expect(connections).toBe(0);
    expect(a.errors).toEqual([]);
  });

  it('without the option, forwards every request to the owner as before', async () => {
    const prefix = prefixed();
    const a = await instance('a', prefix, { guests: false });
    const b = await instance('b', prefix, { guests: false });
    const { at } = await sessionOn(a.url, b.url);
    a.heard.length = 0;
    expect(text(await at[0]!.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('a: one (log level unset)');
    expect(a.heard).toEqual(['POST forwarded']);
  });

  it('refuses the option without a router that serves guests', async () => {
    const server = new McpServer({ name: 'x', version: '1.0.0' });
    cleanups.push(() => server.close());
    expect(() => new StreamableHttpTransport(server, { serveWhereTheyLand: true })).toThrow(
      'Option serveWhereTheyLand needs a router with guests, such as scale.sessionRouter() gives',
    );
  });
});
