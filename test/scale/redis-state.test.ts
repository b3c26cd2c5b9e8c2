/**
 * Two McpServers sharing a real redis-server: a requestState minted on one verifies on the other (the key
 * ring is created once, in Redis), single use holds across both, Redis down gives a clear error and
 * recovery follows when it returns. The client alternates instances on every request.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CONSUME_STATE } from '../../src/scale/redis.js';
import {
  connectRedisScale,
  type ElicitResult,
  McpClient,
  McpServer,
  type RedisScale,
  StreamableHttpClientTransport,
  StreamableHttpTransport,
} from '../../src/index.js';
import { META_KEYS, MODERN_CAPS, modernCall } from '../helpers/modern.js';
import { useRedis } from '../helpers/redis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const redis = useRedis();

const FORM = { message: 'Where to?', requestedSchema: { type: 'object' as const, properties: { city: { type: 'string' as const } }, required: ['city'] } };

/** An instance: an McpServer on HTTP sharing state through `scale`, with a tool that asks twice. */
async function instance(name: string, scale: RedisScale) {
  const server = new McpServer({ name, version: '1.0.0' }, { scale, requestState: { singleUse: true } });
  server.on('error', () => {});
  const served: string[] = [];
  server.on('requestTool', () => void served.push(name));
  server.registerTool('trip', {}, async (_args, ctx) => {
    const where = await ctx.elicit(FORM);
    const sure = await ctx.elicit({ message: `Go to ${where.content?.city}?`, requestedSchema: { type: 'object', properties: { yes: { type: 'boolean' } } } });
    return `${where.content?.city}: ${sure.content?.yes ? 'booked' : 'not booked'}`;
  });
  const http = new StreamableHttpTransport(server);
  const { url } = await http.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(() => server.close());
  return { server, url, served };
}

async function scale(): Promise<RedisScale> {
  const connected = await connectRedisScale(redis.url, { prefix: `test-${Math.random().toString(36).slice(2)}` });
  cleanups.push(() => connected.close());
  return connected;
}

/** Two instances sharing one Redis prefix. */
async function pair() {
  const prefix = `test-${Math.random().toString(36).slice(2)}`;
  const scales = [await connectRedisScale(redis.url, { prefix }), await connectRedisScale(redis.url, { prefix })];
  cleanups.push(() => Promise.all(scales.map((s) => s.close())));
  return { scales, a: await instance('a', scales[0]!), b: await instance('b', scales[1]!) };
}

describe('requestState across instances sharing Redis', () => {
  it('shares one key ring, created by the first instance', async () => {
    const { scales } = await pair();
    expect(scales[0]!.stateKeys).toEqual(scales[1]!.stateKeys);
    expect(scales[0]!.stateKeys).toHaveLength(1);
    expect(scales[0]!.instanceId).not.toBe(scales[1]!.instanceId);
    const other = await scale();
    expect(other.stateKeys).not.toEqual(scales[0]!.stateKeys);
  });

  it('serves a 2026-07-28 flow of three rounds with each request on the other instance', async () => {
    const { a, b } = await pair();
    let turn = 0;
    // Every request the client sends goes to the next instance: a, b, a, ...
    const alternate = (_input: URL, init: RequestInit) => fetch([a.url, b.url][turn++ % 2]!, init);
    const client = new McpClient({ name: 'alternating', version: '1.0.0' }, { era: 'modern' });
    client.onElicitation((params): ElicitResult => ({ action: 'accept', content: params.message === 'Where to?' ? { city: 'Porto' } : { yes: true } }));
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: alternate }));
    expect((await client.callTool('trip')).content).toEqual([{ type: 'text', text: 'Porto: booked' }]);
    // server/discover on a; tools/list (for SEP-2243 headers) on b; then the call's three rounds on a, b, a.
    expect([a.served, b.served]).toEqual([['a', 'a'], ['b']]);
  });

  it('refuses a requestState used on one instance when it comes again to the other (singleUse)', async () => {
    const { a, b } = await pair();
    const meta = { [META_KEYS.clientCapabilities]: MODERN_CAPS.form };
    const first = await modernCall(a.url, 'tools/call', { name: 'trip', arguments: {} }, { meta });
    const { requestState } = first.result as { requestState: string };
    const retry = { name: 'trip', arguments: {}, requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Lisbon' } } } };
    const second = await modernCall(b.url, 'tools/call', retry, { meta, id: 2 });
    expect(second.result).toMatchObject({ resultType: 'input_required' });
    const replay = await modernCall(a.url, 'tools/call', retry, { meta, id: 3 });
    expect(replay.error).toEqual({ code: -32602, message: 'Invalid or expired requestState', data: { reason: 'already used' } });
  });

  it('gives a clear error while Redis is down, and recovers when it is back', async () => {
    const { a, b, scales } = await pair();
    expect(scales[1]!.healthy()).toBe(true);
    const meta = { [META_KEYS.clientCapabilities]: MODERN_CAPS.form };
    const first = await modernCall(a.url, 'tools/call', { name: 'trip', arguments: {} }, { meta });
    const { requestState } = first.result as { requestState: string };
    const retry = { name: 'trip', arguments: {}, requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Lisbon' } } } };
    await redis.stop();
    try {
      // Not ready (/readyz) while the store is unreachable.
      await expect.poll(() => scales[1]!.healthy(), { timeout: 8000, interval: 50 }).toBe(false);
      const down = await modernCall(b.url, 'tools/call', retry, { meta, id: 2 });
      expect(down.error).toMatchObject({
        code: -32603,
        message: expect.stringMatching(/^Cannot check that this requestState is used only once: the shared store is unreachable \(.+\); retry shortly$/),
      });
    } finally {
      await redis.restart();
    }
    // The connection comes back by itself (a restarted Redis is empty: the state was never marked used).
    await expect
      .poll(async () => ((await modernCall(b.url, 'tools/call', retry, { meta, id: 3 })).result as { resultType?: string } | undefined)?.resultType, {
        timeout: 8000,
        interval: 250,
      })
      .toBe('input_required');
    expect(scales[1]!.healthy()).toBe(true);
  });

  it('fails to connect with where and why, without hanging', async () => {
    const closed = `redis://:secret@127.0.0.1:${redis.port + 1}`;
    await expect(connectRedisScale(closed, { connectTimeoutMs: 1000 })).rejects.toThrow(
      new RegExp(`^Could not share state through Redis at redis://:\\*\\*\\*@127\\.0\\.0\\.1:${redis.port + 1}: `),
    );
  });
});

describe('single-use marks in Redis', () => {
  it('counts a mark as the first use when the same use comes again (a command ioredis sends again after a reconnection), and no other', async () => {
    const raw = new Redis(redis.url);
    cleanups.push(() => raw.quit());
    const key = `marks-${Math.random().toString(36).slice(2)}:used:state-1`;
    const at = Date.now() + 60_000;
    expect(await raw.eval(CONSUME_STATE, 1, key, 'instance-a:1', at)).toBe(1);
    expect(await raw.eval(CONSUME_STATE, 1, key, 'instance-a:1', at)).toBe(1);
    expect(await raw.eval(CONSUME_STATE, 1, key, 'instance-a:2', at)).toBe(0);
    expect(await raw.eval(CONSUME_STATE, 1, key, 'instance-b:1', at)).toBe(0);
    expect(await raw.pttl(key)).toBeGreaterThan(59_000);
  });

  it('refuses a second use through the scale, on either instance', async () => {
    const prefix = `marks-${Math.random().toString(36).slice(2)}`;
    const [a, b] = [await connectRedisScale(redis.url, { prefix }), await connectRedisScale(redis.url, { prefix })];
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const at = Date.now() + 60_000;
    expect([await a.consumeState('s1', at), await a.consumeState('s1', at), await b.consumeState('s1', at), await b.consumeState('s2', at)]).toEqual([
      true,
      false,
      false,
      true,
    ]);
  });
});

describe('the scale option', () => {
  it('is checked at construction', () => {
    expect(() => new McpServer({ name: 'x', version: '1' }, { scale: { stateKeys: 'k' } as never })).toThrow(
      new TypeError('Option scale must be shared state such as connectRedisScale(url) gives: { stateKeys, consumeState }'),
    );
  });
});

describe('singleUse without a shared store', () => {
  it('refuses a requestState seen before, from this process memory', async () => {
    const server = new McpServer({ name: 'one', version: '1.0.0' }, { requestState: { singleUse: true, keys: ['a-test-key-of-at-least-thirty-two-bytes!!'] } });
    server.on('error', () => {});
    server.registerTool('ask', {}, async (_args, ctx) => JSON.stringify((await ctx.elicit(FORM)).content));
    const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    const meta = { [META_KEYS.clientCapabilities]: MODERN_CAPS.form };
    const first = await modernCall(url, 'tools/call', { name: 'ask', arguments: {} }, { meta });
    const retry = {
      name: 'ask',
      arguments: {},
      requestState: (first.result as { requestState: string }).requestState,
      inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Faro' } } },
    };
    expect((await modernCall(url, 'tools/call', retry, { meta, id: 2 })).result).toMatchObject({ content: [{ type: 'text', text: '{"city":"Faro"}' }] });
    expect((await modernCall(url, 'tools/call', retry, { meta, id: 3 })).error).toEqual({
      code: -32602,
      message: 'Invalid or expired requestState',
      data: { reason: 'already used' },
    });
  });
});
