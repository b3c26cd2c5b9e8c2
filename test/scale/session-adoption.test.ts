/**
 * A legacy-era session outlives its owner: two (or three) instances share a real redis-server, the owner
 * keeps each session's record there from initialize on, and when the owner is gone (closed here; killed
 * in fixture-redis.test.ts) the next request for the session on another instance takes it over, with the
 * same Mcp-Session-Id, the protocol version, client info and capabilities, log level and subscriptions
 * it had. Exactly one instance takes a session over; another principal cannot; an ended one is gone.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  connectRedisScale,
  type ElicitResult,
  McpClient,
  McpServer,
  type McpSession,
  StreamableHttpClientTransport,
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
} from '../../src/index.js';
import { gate } from '../helpers/deferred.js';
import { HttpTestClient, send } from '../helpers/http-client.js';
import { useRedis } from '../helpers/redis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const redis = useRedis();

const FORM = { message: 'Who?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
const NOT_FOUND = {
  jsonrpc: '2.0',
  error: { code: -32031, message: 'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one' },
  id: null,
};

async function instance(name: string, prefix: string, transportOptions: StreamableHttpTransportOptions = {}, handsOff = true, port = 0) {
  const scale = await connectRedisScale(redis.url, { prefix });
  const router = scale.sessionRouter();
  // Without handOff, an owner that drains is found so by the forwarded request it refuses.
  if (!handsOff) delete router.handOff;
  const server = new McpServer({ name, version: '1.0.0' });
  server.on('error', () => {});
  const adopted: McpSession[] = [];
  server.on('sessionAdopted', (session) => void adopted.push(session));
  server.registerTool('ask', {}, async (_args, ctx) => {
    ctx.log('info', `asking on ${name}`);
    const answer = await ctx.elicit(FORM);
    return `${answer.content?.name} answered ${name}`;
  });
  // Holds its instance's drain open until the test lets it go.
  const held = gate();
  server.registerTool('hold', {}, async () => {
    await held.opened;
    return 'released';
  });
  server.registerResource('test://note', { name: 'note' }, () => ({ contents: [{ uri: 'test://note', text: 'hi' }] }));
  const transport = new StreamableHttpTransport(server, { router, ...transportOptions });
  const { url } = await transport.listen({ host: '127.0.0.1', port });
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  return { name, server, transport, url, scale, adopted, held };
}

const prefixed = () => `adopt-${Math.random().toString(36).slice(2)}`;

/** A session initialized on `url` (initialize, then notifications/initialized): its request headers. */
async function openSession(url: string, headers: Record<string, string> = {}) {
  const client = new HttpTestClient(url);
  await client.initialize({ capabilities: { elicitation: {} } }, headers);
  return client.headers(headers);
}

const ping = async (url: string, headers: Record<string, string>, id = 2) => {
  const reply = await send(url, 'POST', headers, { jsonrpc: '2.0', id, method: 'ping' });
  return [reply.status, await reply.json()];
};

describe('a legacy-era session whose owner is gone', () => {
  it('goes on on the next instance it reaches: same Mcp-Session-Id, with its version, client, capabilities, log level and subscriptions', async () => {
    const prefix = prefixed();
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    let target = a.url;
    const sent = new Set<string | null>();
    const route = (_input: URL | RequestInfo, init?: RequestInit) => {
      sent.add(new Headers(init?.headers).get('mcp-session-id'));
      return fetch(target, init);
    };
    const started: string[] = [];
    const declared: unknown[] = [];
    a.server.on('sessionNew', (session) => {
      started.push(session.id);
      declared.push(structuredClone(session.clientCapabilities));
    });
    const client = new McpClient({ name: 'moving', version: '1.0.0' }, { era: 'legacy' });
    client.onElicitation((): ElicitResult => ({ action: 'accept', content: { name: 'Ada' } }));
    const logs: unknown[] = [];
    client.on('log', (message) => void logs.push(message.data));
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: route, reconnect: { delayMs: 10 } }));
    await client.setLogLevel('info');
    await client.subscribe('test://note');
    expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'Ada answered a' }]);
    const [sessionId] = started;

    // The owner stops (a rolling restart): the load balancer sends the client to b from now on.
    await a.server.close();
    target = b.url;
    expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'Ada answered b' }]);
    // One initialize, one session id on every request after it.
    expect([...sent]).toEqual([null, sessionId]);
    expect(logs).toEqual(['asking on a', 'asking on b']);
    expect(
      b.adopted.map((session) => [session.id, session.state, session.protocolVersion, session.clientInfo, session.logLevel, [...session.subscriptions]]),
    ).toEqual([[sessionId, 'ready', '2025-11-25', { name: 'moving', version: '1.0.0' }, 'info', ['test://note']]]);
    // The capabilities the owner had, exactly.
    expect(b.adopted[0]!.clientCapabilities).toEqual(declared[0]);
    expect(declared[0]).toHaveProperty('elicitation');
    // b holds it now: the router says so, and a later change (the log level) is kept from b.
    expect(await b.scale.sessionRouter().locate(sessionId)).toBe(b.url);
    await client.setLogLevel('error');
    expect(b.adopted[0]!.logLevel).toBe('error');
  });

  it.each([
    ['handed off as the drain begins', true],
    ['found draining by the first request forwarded to it', false],
  ])(
    'is taken over at once when its owner starts to drain (%s): new calls run on the new owner, an elicitation pending on the old one is still answered there',
    async (_how, handsOff) => {
      const prefix = prefixed();
      const [a, b] = [await instance('a', prefix, {}, handsOff), await instance('b', prefix, {}, handsOff)];
      const responses: [string, unknown][] = [];
      for (const { name, server } of [a, b])
        server.on('responseElicitationCreate', (_session, _request, response) => void responses.push([name, response.content]));
      let target = a.url;
      const client = new McpClient({ name: 'draining', version: '1.0.0' }, { era: 'legacy' });
      let answer!: (result: ElicitResult) => void;
      client.onElicitation(() => new Promise<ElicitResult>((resolve) => (answer = resolve)));
      cleanups.push(() => client.close());
      await client.connect(new StreamableHttpClientTransport(a.url, { fetch: (_input, init) => fetch(target, init) }));
      const pending = client.callTool('ask');
      await expect.poll(() => answer).toBeTypeOf('function');

      // a drains (a rolling restart): from now on the client reaches only b.
      const closed = a.server.close({ drainMs: 10_000 });
      target = b.url;
      answer({ action: 'accept', content: { name: 'Ada' } });
      // The answer reached b, which took the session over and sent it on to a, whose handler asked.
      expect((await pending).content).toEqual([{ type: 'text', text: 'Ada answered a' }]);
      client.onElicitation((): ElicitResult => ({ action: 'accept', content: { name: 'Bo' } }));
      expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'Bo answered b' }]);
      expect(responses).toEqual([
        ['a', { name: 'Ada' }],
        ['b', { name: 'Bo' }],
      ]);
      expect(b.adopted).toHaveLength(1);
      // Nothing left under way on a: its drain ends long before drainMs.
      await closed;

      // A late reply to a request of a's reaches b, and is sent on to a, which restarted in place and holds
      // the session no more (404): it is b's to take (204), not the client's concern.
      await instance('a-again', prefix, {}, handsOff, Number(new URL(a.url).port));
      const late = await send(b.url, 'POST', { ...ACCEPT, 'mcp-session-id': b.adopted[0]!.id }, { jsonrpc: '2.0', id: 900, result: { action: 'cancel' } });
      expect(late.status).toBe(204);
    },
  );

  it('sends a reply that reaches the draining old owner on to the new owner, whose handler asked', async () => {
    const prefix = prefixed();
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    const responses: string[] = [];
    for (const { name, server } of [a, b]) server.on('responseElicitationCreate', () => void responses.push(name));
    let target = a.url;
    const client = new McpClient({ name: 'back-and-forth', version: '1.0.0' }, { era: 'legacy' });
    client.onElicitation((): ElicitResult => {
      // The balancer sends the answer to a, which drains and handed the session off to b.
      target = a.url;
      return { action: 'accept', content: { name: 'Cy' } };
    });
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: (_input, init) => fetch(target, init) }));
    // A call under way keeps a draining.
    const holding = client.callTool('hold');
    await expect.poll(() => a.server.stats.requestsInFlight).toBe(1);
    const closed = a.server.close({ drainMs: 10_000 });
    target = b.url;
    expect((await client.callTool('ask')).content).toEqual([{ type: 'text', text: 'Cy answered b' }]);
    expect(responses).toEqual(['b']);
    a.held.open();
    expect((await holding).content).toEqual([{ type: 'text', text: 'released' }]);
    await closed;
  });

  it('is taken over by exactly one instance when several reach for it at once; the others forward to it', async () => {
    const prefix = prefixed();
    const [a, b, c] = [await instance('a', prefix), await instance('b', prefix), await instance('c', prefix)];
    const session = await openSession(a.url);
    await a.server.close();
    const replies = await Promise.all([b.url, c.url, b.url, c.url].map((url, i) => ping(url, session, 10 + i)));
    expect(replies).toEqual([10, 11, 12, 13].map((id) => [200, { jsonrpc: '2.0', id, result: {} }]));
    expect(b.adopted.length + c.adopted.length).toBe(1);
  });

  it('is taken over again when the instance that took it over is gone too, by an instance that remembered the first owner', async () => {
    const prefix = prefixed();
    const [a, b, c] = [await instance('a', prefix), await instance('b', prefix), await instance('c', prefix)];
    const session = await openSession(a.url);
    // c forwards a ping to a, and remembers a as the owner.
    expect(await ping(c.url, session, 10)).toEqual([200, { jsonrpc: '2.0', id: 10, result: {} }]);
    await a.server.close();
    expect(await ping(b.url, session, 11)).toEqual([200, { jsonrpc: '2.0', id: 11, result: {} }]);
    expect(b.adopted).toHaveLength(1);
    // b dies without a word: its port closes, the router still names it.
    const listening = b.transport.httpServer!;
    listening.closeAllConnections();
    await new Promise((resolve) => listening.close(resolve));
    expect(await ping(c.url, session, 12)).toEqual([200, { jsonrpc: '2.0', id: 12, result: {} }]);
    expect(c.adopted.map((s) => s.id)).toEqual([session['mcp-session-id']]);
  });

  it('is not taken over by another principal (404, as for any unknown session); its own goes on with it', async () => {
    const prefix = prefixed();
    const byUser: StreamableHttpTransportOptions = {
      auth: (req) => (typeof req.headers['x-user'] === 'string' ? { id: req.headers['x-user'] } : undefined),
    };
    const [a, b] = [await instance('a', prefix, byUser), await instance('b', prefix, byUser)];
    const session = await openSession(a.url, { 'x-user': 'alice' });
    await a.server.close();
    expect(await ping(b.url, { ...session, 'x-user': 'mallory' })).toEqual([404, NOT_FOUND]);
    expect(b.adopted).toEqual([]);
    expect(await ping(b.url, session)).toEqual([200, { jsonrpc: '2.0', id: 2, result: {} }]);
    expect(b.adopted.map((s) => s.id)).toEqual([session['mcp-session-id']]);
  });

  it('is gone once it ended (DELETE, idle timeout): its record goes with it, and another instance answers 404', async () => {
    const prefix = prefixed();
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    const session = await openSession(a.url);
    expect((await send(a.url, 'DELETE', session)).status).toBe(200);
    await a.server.close();
    expect(await ping(b.url, session)).toEqual([404, NOT_FOUND]);
    expect(b.adopted).toEqual([]);
  });

  it('takes over no id it never saw: no record, 404', async () => {
    const prefix = prefixed();
    const [, b] = [await instance('a', prefix), await instance('b', prefix)];
    const router = b.scale.sessionRouter();
    expect(await router.takeOver!(randomUUID(), b.url, undefined)).toBeUndefined();
    expect(await ping(b.url, { ...ACCEPT, 'mcp-session-id': randomUUID() })).toEqual([404, NOT_FOUND]);
  });
});
