/**
 * Finding a legacy-era session's owner through a real redis-server, counted in Redis's own command stats: an id
 * that is not a session id is answered without asking Redis, an id no instance holds is asked once (its
 * owner, then its record, one GET each) and then remembered for 2 seconds (requests at once share the
 * GET), a real session is still forwarded, and a claim is found once the miss it follows expires.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectRedisScale, ErrorCode, McpServer, StreamableHttpTransport } from '../../src/index.js';
import { send } from '../helpers/http-client.js';
import { useRedis } from '../helpers/redis.js';
import { countRedisCommands } from '../helpers/redis-commands.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const redis = useRedis();

afterEach(() => {
  vi.useRealTimers();
});

const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
const NOT_FOUND = {
  jsonrpc: '2.0',
  error: {
    code: ErrorCode.SessionNotFound,
    message: 'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one',
  },
  id: null,
};

async function instance(name: string, prefix: string) {
  const scale = await connectRedisScale(redis.url, { prefix });
  const server = new McpServer({ name, version: '1.0.0' });
  server.on('error', () => {});
  const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter() });
  const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  return { server, url, scale };
}

/** Two instances sharing a prefix, and a counter of the commands Redis runs from now on. */
async function pair() {
  const prefix = `locate-${Math.random().toString(36).slice(2)}`;
  const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
  const commands = countRedisCommands(redis.url);
  cleanups.push(() => commands.close());
  await commands.reset();
  return { a, b, commands };
}

const ping = (url: string, sessionId: string) => send(url, 'POST', { ...ACCEPT, 'mcp-session-id': sessionId }, { jsonrpc: '2.0', id: 1, method: 'ping' });

/** `count` pings with the session ids `idOf(i)`, 50 at a time: their statuses and bodies, each distinct one with how often it came. */
async function pings(url: string, count: number, idOf: (i: number) => string): Promise<Map<string, number>> {
  const answers = new Map<string, number>();
  for (let i = 0; i < count; i += 50) {
    const replies = await Promise.all(Array.from({ length: Math.min(50, count - i) }, (_, j) => ping(url, idOf(i + j))));
    for (const reply of replies) {
      const seen = `${reply.status} ${JSON.stringify(await reply.json())}`;
      answers.set(seen, (answers.get(seen) ?? 0) + 1);
    }
  }
  return answers;
}

describe('locating a session through Redis', () => {
  it('answers 404 for 2000 ids that are not session ids without a single GET', async () => {
    const { b, commands } = await pair();
    const answers = await pings(b.url, 2000, (i) => `not-a-session-${i}`);
    expect(answers).toEqual(new Map([[`404 ${JSON.stringify(NOT_FOUND)}`, 2000]]));
    expect(await commands.calls('get')).toBe(0);
  });

  it('asks Redis once for a session id no instance holds, for 1000 requests within its 2 seconds; again after', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { b, commands } = await pair();
    const unheld = randomUUID();
    expect(await pings(b.url, 1000, () => unheld)).toEqual(new Map([[`404 ${JSON.stringify(NOT_FOUND)}`, 1000]]));
    // Its owner, and its record (kept for a session whose owner stopped): one GET each.
    expect(await commands.calls('get')).toBe(2);
    vi.setSystemTime(Date.now() + 2001);
    expect((await ping(b.url, unheld)).status).toBe(404);
    expect(await commands.calls('get')).toBe(4);
  });

  it('asks once for each distinct session id no instance holds', async () => {
    const { b, commands } = await pair();
    const ids = Array.from({ length: 200 }, () => randomUUID());
    expect(await pings(b.url, 200, (i) => ids[i]!)).toEqual(new Map([[`404 ${JSON.stringify(NOT_FOUND)}`, 200]]));
    expect(await commands.calls('get')).toBe(400);
  });

  it('still forwards a real session: one GET for its first request on the other instance, none for the next', async () => {
    const { a, b, commands } = await pair();
    const init = await send(a.url, 'POST', ACCEPT, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    await init.json();
    const sessionId = init.headers['mcp-session-id'] as string;
    for (let i = 0; i < 5; i++) {
      const reply = await ping(b.url, sessionId);
      expect([reply.status, await reply.json()]).toEqual([200, { jsonrpc: '2.0', id: 1, result: {} }]);
    }
    expect(await commands.calls('get')).toBe(1);
  });

  it('finds a session claimed on another instance once the miss before it expires; a claim on the same router clears it at once', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { a, b, commands } = await pair();
    const [here, there] = [b.scale.sessionRouter(), a.scale.sessionRouter()];
    const late = randomUUID();
    expect(await here.locate(late)).toBeUndefined();
    await there.claim(late, a.url);
    expect(await here.locate(late)).toBeUndefined();
    vi.setSystemTime(Date.now() + 2001);
    expect(await here.locate(late)).toBe(a.url);

    const own = randomUUID();
    expect(await here.locate(own)).toBeUndefined();
    await here.claim(own, b.url);
    expect(await here.locate(own)).toBe(b.url);
    expect(await commands.calls('get')).toBe(4);
  });

  it("answers a released session as no one's without asking Redis", async () => {
    const { a, commands } = await pair();
    const router = a.scale.sessionRouter();
    const sessionId = randomUUID();
    await router.claim(sessionId, a.url);
    await router.release(sessionId, a.url);
    // The release script's own GET counts as one: start from there.
    await commands.reset();
    expect(await router.locate(sessionId)).toBeUndefined();
    expect(await commands.calls('get')).toBe(0);
  });
});
