/**
 * Notifications every instance tells its own clients of, through a real redis-server: a resource
 * updated on one instance reaches the subscribers of another (2025 resources/subscribe and 2026-07-28
 * subscriptions/listen), a list changed on one reaches the others' sessions, and what an instance
 * registers before it serves is nobody's news.
 */
import { describe, expect, it } from 'vitest';
import { connectRedisScale, type Era, type JsonRpcNotification, McpClient, McpServer, StreamableHttpTransport } from '../../src/index.js';
import { useRedis } from '../helpers/redis.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const redis = useRedis();

async function instance(name: string, prefix: string) {
  const scale = await connectRedisScale(redis.url, { prefix });
  const server = new McpServer({ name, version: '1.0.0' }, { scale });
  server.on('error', () => {});
  server.registerResource('note://1', { name: 'note' }, () => 'one');
  const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter() });
  const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  return { server, url };
}

async function client(url: string, era: Era) {
  const made = new McpClient({ name: `${era}-client`, version: '1.0.0' }, { era });
  const heard: JsonRpcNotification[] = [];
  made.on('notification', (n) => void heard.push(n));
  cleanups.push(() => made.close());
  await made.connect(url);
  return { client: made, heard, methods: () => heard.map((n) => n.method) };
}

describe('fan-out through Redis', () => {
  it('tells the subscribers on every instance of a resource updated on one', async () => {
    const prefix = `fan-${Math.random().toString(36).slice(2)}`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    const legacy = await client(b.url, 'legacy');
    await legacy.client.subscribe('note://1');
    const modern = await client(b.url, 'modern');
    const listened: JsonRpcNotification[] = [];
    await modern.client.listen({ resourceSubscriptions: ['note://1'] }, { onNotification: (n) => void listened.push(n) });

    expect(a.server.sendResourceUpdated('note://1')).toBe(0); // nobody on a itself
    await expect.poll(() => legacy.methods()).toContain('notifications/resources/updated');
    await expect.poll(() => listened.map((n) => n.method)).toEqual(['notifications/resources/updated']);
    expect(legacy.heard.find((n) => n.method === 'notifications/resources/updated')?.params).toEqual({ uri: 'note://1' });
    expect(listened[0]!.params).toMatchObject({ uri: 'note://1' });
  });

  it("tells every instance's sessions of a list changed on one, once", async () => {
    const prefix = `fan-${Math.random().toString(36).slice(2)}`;
    const [a, b] = [await instance('a', prefix), await instance('b', prefix)];
    // Over HTTP a session hears of a list change on its GET stream: once it is open.
    const streamOpen = new Promise((resolve) => b.server.once('backChannelOpen', resolve));
    const onB = await client(b.url, 'legacy');
    await streamOpen;
    a.server.registerTool('late', {}, () => 'late');
    await expect.poll(() => onB.methods()).toContain('notifications/tools/list_changed');
    await onB.client.ping();
    expect(onB.methods().filter((m) => m === 'notifications/tools/list_changed')).toHaveLength(1);
  });

  it('does not broadcast what an instance registers before it serves, only what changes after', async () => {
    const prefix = `fan-${Math.random().toString(36).slice(2)}`;
    const b = await instance('b', prefix);
    const streamOpen = new Promise((resolve) => b.server.once('backChannelOpen', resolve));
    const onB = await client(b.url, 'legacy');
    await streamOpen;
    // A new instance starting up: it registers its catalog, then listens; a change after that is news.
    const c = await instance('c', prefix);
    await onB.client.ping();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(onB.methods()).toEqual([]);
    c.server.registerTool('late', {}, () => 'late');
    await expect.poll(() => onB.methods()).toEqual(['notifications/tools/list_changed']);
  });

  it('keeps serving its own clients while Redis is down, reporting that the others could not be told', async () => {
    const prefix = `fan-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix);
    const errors: string[] = [];
    a.server.on('error', (err) => void errors.push(err.message));
    const onA = await client(a.url, 'legacy');
    await onA.client.subscribe('note://1');
    await redis.stop();
    try {
      expect(a.server.sendResourceUpdated('note://1')).toBe(1);
      await expect.poll(() => onA.methods()).toContain('notifications/resources/updated');
      await expect
        .poll(() => errors)
        .toEqual([expect.stringMatching(/^Could not tell the other instances of resourceUpdated \(the shared store is unreachable: .+\)$/)]);
    } finally {
      await redis.restart();
    }
  });
});
