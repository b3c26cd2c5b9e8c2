/**
 * Legacy-era sessions across two instances sharing a real redis-server: a request that reaches the instance not
 * holding its session is forwarded to the owner, streams included. The client alternates instances on
 * every HTTP request; every response event fires once, on the owner; DELETE ends the session everywhere;
 * an owner that is gone means 404 (initialize anew); Redis down means 503.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { connectRedisScale, type ElicitResult, McpClient, McpServer, StreamableHttpClientTransport, StreamableHttpTransport } from '../../src/index.js';
import { send } from '../helpers/http-client.js';
import { useRedis } from '../helpers/redis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const redis = useRedis();

const FORM = { message: 'Who?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };

async function instance(name: string, prefix: string) {
  const scale = await connectRedisScale(redis.url, { prefix });
  const server = new McpServer({ name, version: '1.0.0' });
  server.on('error', () => {});
  const events = { tools: 0, responses: [] as unknown[], sessions: [] as string[], forwarded: 0 };
  server.on('requestTool', () => void events.tools++);
  server.on('sessionNew', (session) => void events.sessions.push(session.id));
  server.on('responseElicitationCreate', (_session, _request, response) => void events.responses.push({ action: response.action, content: response.content }));
  server.registerTool('ask', {}, async (_args, ctx) => {
    ctx.log('info', `asking on ${name}`);
    const answer = await ctx.elicit(FORM);
    return `${answer.content?.name} answered ${name}`;
  });
  const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter() });
  transport.on('httpRequest', (req) => void (req.headers['x-switchboard-forwarded'] ? events.forwarded++ : undefined));
  const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  return { name, server, transport, url, scale, events };
}

async function pair() {
  const prefix = `sessions-${Math.random().toString(36).slice(2)}`;
  return [await instance('a', prefix), await instance('b', prefix)] as const;
}

/** A legacy McpClient whose every HTTP request goes to the next instance in turn, starting with the first. */
async function alternatingClient(urls: string[]) {
  let turn = 0;
  const alternate = (_input: URL, init: RequestInit) => fetch(urls[turn++ % urls.length]!, init);
  const client = new McpClient({ name: 'alternating', version: '1.0.0' }, { era: 'legacy' });
  client.onElicitation((): ElicitResult => ({ action: 'accept', content: { name: 'Ada' } }));
  const logs: unknown[] = [];
  client.on('log', (message) => void logs.push(message.data));
  cleanups.push(() => client.close());
  await client.connect(new StreamableHttpClientTransport(urls[0]!, { fetch: alternate }));
  return { client, logs, turns: () => turn };
}

const byName = (x: unknown, y: unknown) =>
  String((x as { content: { name: string } }).content.name).localeCompare((y as { content: { name: string } }).content.name);

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };

describe('legacy-era sessions across instances', () => {
  it('serves a session from either instance: the owner runs the call, the elicitation and its one response event', async () => {
    const [a, b] = await pair();
    const { client, logs, turns } = await alternatingClient([a.url, b.url]);
    expect(a.events.sessions).toHaveLength(1);
    expect(b.events.sessions).toEqual([]);

    const result = await client.callTool('ask');
    expect(result.content).toEqual([{ type: 'text', text: 'Ada answered a' }]);
    expect(logs).toEqual(['asking on a']);
    expect(a.events.tools).toBe(1);
    expect(b.events.tools).toBe(0);
    expect(a.events.responses).toEqual([{ action: 'accept', content: { name: 'Ada' } }]);
    expect(b.events.responses).toEqual([]);
    // Every other request went to b, and b forwarded each to a.
    expect(b.events.forwarded).toBe(0);
    expect(a.events.forwarded).toBeGreaterThanOrEqual(2);
    expect(turns()).toBeGreaterThanOrEqual(5);
  });

  it('keeps several elicitations of one session pending at once, answered through either instance: one response event each, on the owner', async () => {
    const [a, b] = await pair();
    a.server.registerTool('ask_three', {}, async (_args, ctx) => {
      const answers = await Promise.all(['one', 'two', 'three'].map((which) => ctx.elicit({ ...FORM, message: `Who is ${which}?` })));
      return answers.map((answer) => answer.content?.name).join(', ');
    });
    const asked: string[] = [];
    let turn = 0;
    const alternate = (_input: URL | RequestInfo, init?: RequestInit) => fetch([a.url, b.url][turn++ % 2]!, init);
    const client = new McpClient({ name: 'alternating', version: '1.0.0' }, { era: 'legacy' });
    client.onElicitation((params): ElicitResult => {
      asked.push(params.message);
      return { action: 'accept', content: { name: params.message.slice('Who is '.length, -1).toUpperCase() } };
    });
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: alternate }));
    expect((await client.callTool('ask_three')).content).toEqual([{ type: 'text', text: 'ONE, TWO, THREE' }]);
    expect(asked.sort()).toEqual(['Who is one?', 'Who is three?', 'Who is two?']);
    expect([...a.events.responses].sort(byName)).toEqual(['ONE', 'TWO', 'THREE'].map((name) => ({ action: 'accept', content: { name } })).sort(byName));
    expect(b.events.responses).toEqual([]);
    expect(b.events.forwarded + a.events.forwarded).toBeGreaterThanOrEqual(2);
  });

  it('resumes a broken stream with GET and Last-Event-ID on the other instance: the owner replays from its event store', async () => {
    const [a, b] = await pair();
    a.server.registerTool('poll', {}, async (_args, ctx) => {
      ctx.log('info', 'before the break');
      ctx.closeStream();
      await new Promise((resolve) => setTimeout(resolve, 100));
      return 'after the break';
    });
    const resumed: string[] = [];
    a.transport.on('httpRequest', (req) => {
      const id = req.headers['last-event-id'];
      if (req.method === 'GET' && typeof id === 'string' && req.headers['x-switchboard-forwarded']) resumed.push(id);
    });
    // Everything goes to a, but for the GET that resumes the broken stream, which goes to b.
    const route = (_input: URL, init: RequestInit) => {
      const headers = new Headers(init.headers);
      return fetch(init.method === 'GET' && headers.has('last-event-id') ? b.url : a.url, init);
    };
    const client = new McpClient({ name: 'resuming', version: '1.0.0' }, { era: 'legacy' });
    const logs: unknown[] = [];
    client.on('log', (message) => void logs.push(message.data));
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: route, reconnect: { delayMs: 10 } }));
    expect((await client.callTool('poll')).content).toEqual([{ type: 'text', text: 'after the break' }]);
    expect(logs).toEqual(['before the break']);
    expect(resumed).toHaveLength(1);
    expect(resumed[0]).toMatch(/_/);
  });

  it('ends the session everywhere on DELETE, wherever it lands: 404 after, on each instance', async () => {
    const [a, b] = await pair();
    const init = await send(a.url, 'POST', ACCEPT, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    const sessionId = init.headers['mcp-session-id'] as string;
    expect(sessionId).toEqual(a.events.sessions[0]);
    const withSession = { ...ACCEPT, 'mcp-session-id': sessionId };
    expect((await send(b.url, 'POST', withSession, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    expect((await send(b.url, 'DELETE', withSession)).status).toBe(200);
    await expect.poll(async () => (await a.scale.sessionRouter().locate(sessionId)) ?? 'gone').toBe('gone');
    for (const url of [a.url, b.url]) {
      expect((await send(url, 'POST', withSession, { jsonrpc: '2.0', id: 2, method: 'ping' })).status).toBe(404);
    }
  });

  it('answers 404 for a session whose owner is gone, and forgets it, so the client initializes anew', async () => {
    const [, b] = await pair();
    const router = b.scale.sessionRouter();
    const dead = 'http://127.0.0.1:9/mcp';
    // A session id as owners make them: anything else is no one's without asking Redis.
    const lost = randomUUID();
    await router.claim(lost, dead);
    const reply = await send(b.url, 'POST', { ...ACCEPT, 'mcp-session-id': lost }, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(reply.status).toBe(404);
    expect(await router.locate(lost)).toBeUndefined();
  });

  it('answers 503, not 404, while Redis cannot say who holds a session; then serves it again, its owner having written it again', async () => {
    const [a, b] = await pair();
    const { client } = await alternatingClient([a.url, a.url]);
    const sessionId = a.events.sessions[0]!;
    const ping = () => send(b.url, 'POST', { ...ACCEPT, 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 9, method: 'ping' });
    await redis.stop();
    try {
      const down = await ping();
      expect(down.status).toBe(503);
      expect(down.headers['retry-after']).toBe('1');
      expect(((await down.json()) as { error: { message: string } }).error.message).toMatch(
        /^Service Unavailable: cannot find which instance holds this session \(.+\); retry shortly$/,
      );
    } finally {
      await redis.restart();
    }
    // A restarted Redis is empty: the owner writes its sessions again once it reconnects, by itself.
    await expect.poll(async () => (await ping().catch(() => undefined))?.status, { timeout: 8000, interval: 250 }).toBe(200);
    expect(await b.scale.sessionRouter().locate(sessionId)).toBe(a.url);
    await client.ping();
    // Its record too: once the owner stops, b takes the session over.
    await a.server.close();
    expect((await ping()).status).toBe(200);
  });
});
