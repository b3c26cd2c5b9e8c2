/**
 * RedisEventStore on a real redis-server: the per-session budgets of the in-memory store (events per
 * stream, streams per session, ended streams per session, bytes per session, an event too large kept nowhere), checked against
 * InMemoryEventStore as the reference over generated sequences; dropSession; expiry. Then across
 * instances: a session's standalone stream, resumed with Last-Event-ID on the instance that took the
 * session over, replays what the old owner sent.
 */
import fc from 'fast-check';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  connectRedisScale,
  InMemoryEventStore,
  McpServer,
  type McpSession,
  type RedisEventStoreOptions,
  type StoredEvent,
  StreamableHttpTransport,
} from '../../src/index.js';
import { EVENT_OVERHEAD_BYTES } from '../../src/transports/http/event-store.js';
import { useCleanups } from '../helpers/cleanups.js';
import { HttpTestClient, send } from '../helpers/http-client.js';
import { useRedis } from '../helpers/redis.js';
import { until } from '../helpers/waits.js';

const cleanups = useCleanups();
const redis = useRedis();

const prefixed = () => `events-${Math.random().toString(36).slice(2)}`;

async function opened(options: RedisEventStoreOptions = {}) {
  const prefix = prefixed();
  const scale = await connectRedisScale(redis.url, { prefix });
  cleanups.push(() => scale.close());
  const raw = new Redis(redis.url);
  cleanups.push(() => raw.quit());
  return { prefix, store: scale.eventStore(options), raw, keys: async () => (await raw.keys(`${prefix}:events:*`)).sort() };
}

/** An event that costs the store `cost` bytes (its id, its data and the overhead). */
function event(eventId: string, cost: number): StoredEvent {
  const size = cost - EVENT_OVERHEAD_BYTES - eventId.length;
  return { eventId, data: JSON.stringify(eventId.padEnd(size - 2, '.')) };
}

describe('RedisEventStore', () => {
  it('replays the events of one stream after Last-Event-ID, in order, and keeps sessions and streams apart', async () => {
    const { store } = await opened();
    for (let n = 1; n <= 4; n++) await store.append('s', '1', { eventId: `1_${n}`, data: `{"n":${n}}` });
    await store.append('s', '2', { eventId: '2_1', data: '{"other":"stream"}' });
    await store.append('t', '1', { eventId: '1_1', data: '{"other":"session"}' });
    expect(await store.replayAfter('s', '1', '1_2')).toEqual([
      { eventId: '1_3', data: '{"n":3}' },
      { eventId: '1_4', data: '{"n":4}' },
    ]);
    expect(await store.replayAfter('s', '1', '1_0')).toHaveLength(4);
    expect(await store.replayAfter('s', '2', '2_0')).toEqual([{ eventId: '2_1', data: '{"other":"stream"}' }]);
    expect(await store.replayAfter('s', '9', '9_0')).toEqual([]);
  });

  it('drops a session whole, leaving no key; the others keep theirs', async () => {
    const { store, keys, prefix } = await opened();
    await store.append('s', '1', event('1_1', 500));
    await store.append('s', '2', event('2_1', 500), true);
    await store.append('t', '1', event('1_1', 500));
    expect(await keys()).toContain(`${prefix}:events:s:ended`);
    await store.dropSession('s');
    expect(await store.replayAfter('s', '1', '1_0')).toEqual([]);
    expect(await keys()).toEqual([`${prefix}:events:t:bytes`, `${prefix}:events:t:stream:1`, `${prefix}:events:t:streams`]);
  });

  it('endStream: a stream ended with no last event counts among the ended ones, in the ended list under the TTL; an unknown stream makes no key', async () => {
    const { store, keys, prefix, raw } = await opened({ maxEndedStreamsPerSession: 1 });
    await store.endStream('u', '1');
    expect(await keys()).toEqual([]);
    await store.append('s', '1', event('1_1', 500));
    await store.append('s', '2', event('2_1', 500));
    await store.endStream('s', '1');
    expect(await raw.lrange(`${prefix}:events:s:ended`, 0, -1)).toEqual(['1']);
    expect(await raw.pttl(`${prefix}:events:s:ended`)).toBeGreaterThan(0);
    await store.endStream('s', '2');
    expect({
      ended: await raw.lrange(`${prefix}:events:s:ended`, 0, -1),
      one: await store.replayAfter('s', '1', '1_0'),
      two: await store.replayAfter('s', '2', '2_0'),
    }).toEqual({ ended: ['2'], one: [], two: [event('2_1', 500)] });
  });

  it('a stream ended twice keeps its first end: past maxEndedStreamsPerSession the stream that ended first goes, as in memory', async () => {
    const limits = { maxEndedStreamsPerSession: 2 };
    const { store } = await opened(limits);
    const model = new InMemoryEventStore(limits);
    for (const target of [store, model]) {
      await target.append('s', '1', event('1_1', 500));
      await target.append('s', '2', event('2_1', 500));
      await target.endStream('s', '1');
      await target.endStream('s', '2');
      await target.append('s', '1', event('1_2', 500), true);
      await target.append('s', '3', event('3_1', 500), true);
    }
    const replays = async (target: typeof store | typeof model) => Promise.all(['1', '2', '3'].map((n) => target.replayAfter('s', n, `${n}_0`)));
    expect(await replays(store)).toEqual([[], [event('2_1', 500)], [event('3_1', 500)]]);
    expect(await replays(store)).toEqual(await replays(model));
  });

  it("expires a session's events ttlMs after its last one", async () => {
    const { store, keys } = await opened({ ttlMs: 200 });
    await store.append('s', '1', event('1_1', 500), true);
    expect(await keys()).toHaveLength(4);
    await until(keys, 'the events to expire', (left) => left.length === 0, 5000);
  });

  it('refuses options that are not positive integers, naming the option', async () => {
    const { prefix } = await opened();
    const scale = await connectRedisScale(redis.url, { prefix });
    cleanups.push(() => scale.close());
    expect(() => scale.eventStore({ maxBytesPerSession: 0 })).toThrow('Option maxBytesPerSession must be a positive integer; got 0');
  });

  it('keeps exactly what InMemoryEventStore keeps under the same per-session budgets, over generated appends, unmarked ends and drops', async () => {
    const limits = { maxEventsPerStream: 4, maxStreamsPerSession: 3, maxEndedStreamsPerSession: 2, maxBytesPerSession: 3000 };
    const op = fc.oneof(
      {
        weight: 8,
        arbitrary: fc.record({
          session: fc.constantFrom('s', 't'),
          stream: fc.constantFrom('1', '2', '3', '4'),
          cost: fc.integer({ min: 300, max: 3200 }),
          last: fc.boolean(),
        }),
      },
      { weight: 2, arbitrary: fc.record({ end: fc.constantFrom('s', 't'), stream: fc.constantFrom('1', '2', '3', '4') }) },
      { weight: 1, arbitrary: fc.record({ drop: fc.constantFrom('s', 't') }) },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(op, { minLength: 1, maxLength: 40 }), async (ops) => {
        const { store } = await opened(limits);
        const model = new InMemoryEventStore({ ...limits, maxBytes: 1 << 30 });
        const seq = new Map<string, number>();
        for (const step of ops) {
          if ('drop' in step) {
            await store.dropSession(step.drop);
            model.dropSession(step.drop);
            continue;
          }
          if ('end' in step) {
            await store.endStream(step.end, step.stream);
            model.endStream(step.end, step.stream);
            continue;
          }
          const key = `${step.session}/${step.stream}`;
          const n = (seq.get(key) ?? 0) + 1;
          seq.set(key, n);
          const appended = event(`${step.stream}_${n}`, step.cost);
          await store.append(step.session, step.stream, appended, step.last);
          model.append(step.session, step.stream, appended, step.last);
        }
        for (const session of ['s', 't']) {
          for (const stream of ['1', '2', '3', '4']) {
            expect(await store.replayAfter(session, stream, `${stream}_0`)).toEqual(model.replayAfter(session, stream, `${stream}_0`));
          }
        }
      }),
      { numRuns: 25, seed: 20261202 },
    );
  });
});

describe('a session taken over, with the event store in Redis', () => {
  it('replays on the new owner what the old owner sent on the standalone stream after Last-Event-ID', async () => {
    const prefix = prefixed();
    const started: McpSession[] = [];
    const instance = async () => {
      const scale = await connectRedisScale(redis.url, { prefix });
      const server = new McpServer({ name: 'events', version: '1.0.0' });
      server.on('error', () => {});
      server.on('sessionNew', (session) => void started.push(session));
      const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter(), eventStore: scale.eventStore() });
      const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
      cleanups.push(
        () => scale.close(),
        () => server.close(),
      );
      return { server, url };
    };
    const [a, b] = [await instance(), await instance()];
    const client = new HttpTestClient(a.url);
    await client.initialize();
    const session = client.headers();
    const stream = await send(a.url, 'GET', { ...session, accept: 'text/event-stream' });
    const sent = ['one', 'two', 'three'].map((data) => ({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data } }));
    for (const message of sent) started[0]!.notify(message.method, message.params);
    const first = await stream.nextEvent((e) => e.message?.params?.data === 'one');
    await stream.nextEvent((e) => e.message?.params?.data === 'three');

    await a.server.close();
    const resumed = await send(b.url, 'GET', { ...session, accept: 'text/event-stream', 'last-event-id': first.id! });
    expect(resumed.status).toBe(200);
    const replayed = [await resumed.nextEvent(), await resumed.nextEvent()];
    expect(replayed.map((e) => e.message)).toEqual(sent.slice(1));
    resumed.res.destroy();
  });
});
