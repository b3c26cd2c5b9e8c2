/**
 * The TaskStore contract, the same cases against MemoryTaskStore (the reference) and RedisTaskStore on a
 * real redis-server: round trip, an ended task staying ended under a racing save, expiry, ownedBy's
 * order, count, oldestFinished, delete, leases (lapsed, and the save on a lapsed lease). Then what is Redis's own: indexes that do not outlive the tasks,
 * scripts sent again after Redis forgot them, a close that leaves the scale's connection open, and a
 * clear error while Redis is down.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { connectRedisScale, McpError, MemoryTaskStore, type StoredTask, type TaskStore } from '../../src/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useRedis } from '../helpers/redis.js';
import { until } from '../helpers/waits.js';

const cleanups = useCleanups();
const redis = useRedis();

/** Two handles on one store, as two instances sharing it have (the same object, for the memory store). */
interface Stores {
  a: TaskStore;
  b: TaskStore;
}

const uniquePrefix = () => `test-${Math.random().toString(36).slice(2)}`;

const KINDS: [string, () => Promise<Stores>][] = [
  [
    'MemoryTaskStore',
    async () => {
      const store = new MemoryTaskStore();
      cleanups.push(() => store.close());
      return { a: store, b: store };
    },
  ],
  [
    'RedisTaskStore',
    async () => {
      const prefix = uniquePrefix();
      const scales = [await connectRedisScale(redis.url, { prefix }), await connectRedisScale(redis.url, { prefix })];
      cleanups.push(() => Promise.all(scales.map((scale) => scale.close())));
      const [a, b] = scales.map((scale) => scale.taskStore());
      cleanups.push(() => Promise.all([a!.close(), b!.close()]));
      return { a: a!, b: b! };
    },
  ],
];

/** Ten minutes from when the file loads: the same expiresAt for every record that is not meant to expire in the test. */
const LATER = Date.now() + 600_000;

const task = (taskId: string, fields: Partial<StoredTask> = {}): StoredTask => ({
  taskId,
  status: 'working',
  createdAt: '2026-08-01T10:00:00.000Z',
  lastUpdatedAt: '2026-08-01T10:00:00.000Z',
  ttlMs: 60_000,
  pollIntervalMs: 500,
  owner: 'alice',
  expiresAt: LATER,
  ...fields,
});

describe.each(KINDS)('the TaskStore contract: %s', (_kind, open) => {
  it('keeps the whole record: load gives back what was saved, a later save replaces all of it, and an unknown id is undefined', async () => {
    const { a, b } = await open();
    const asking = task('t1', {
      status: 'input_required',
      statusMessage: 'Asking',
      inputRequests: { 'elicit-1': { method: 'elicitation/create', params: { message: 'Name?', requestedSchema: { type: 'object', properties: {} } } } },
    });
    expect(await a.save(asking)).toBe(true);
    expect(await b.load('t1')).toEqual(asking);
    const done = task('t1', { status: 'completed', lastUpdatedAt: '2026-08-01T10:00:05.000Z', result: { content: [{ type: 'text', text: 'hi' }] } });
    expect(await a.save(done)).toBe(true);
    expect(await b.load('t1')).toEqual(done);
    // What load gives is a copy: changing it changes nothing stored.
    const loaded = (await b.load('t1'))!;
    loaded.status = 'working';
    expect((await a.load('t1'))!.status).toBe('completed');
    expect(await b.load('unknown')).toBeUndefined();
    expect(await a.save(task('forever', { ttlMs: null, expiresAt: null }))).toBe(true);
    expect(await b.load('forever')).toEqual(task('forever', { ttlMs: null, expiresAt: null }));
  });

  it('keeps an ended task as it ended: a working save racing a cancel from the other instance never undoes it', async () => {
    const { a, b } = await open();
    for (let i = 0; i < 20; i++) {
      const id = `race-${i}`;
      expect(await a.save(task(id))).toBe(true);
      const cancelled = task(id, { status: 'cancelled', lastUpdatedAt: '2026-08-01T10:00:01.000Z' });
      const working = task(id, { statusMessage: 'still going', lastUpdatedAt: '2026-08-01T10:00:02.000Z' });
      const [cancelKept, workingKept] = await Promise.all([b.save(cancelled), a.save(working)]);
      expect(cancelKept).toBe(true);
      expect(await a.load(id)).toEqual(cancelled);
      // The working save was kept only if it came first, and then the cancel overwrote it.
      expect([true, false]).toContain(workingKept);
    }
    expect(await a.save(task('race-0', { statusMessage: 'too late' }))).toBe(false);
    expect(await a.save(task('race-0', { status: 'completed' }))).toBe(false);
    expect(await b.load('race-0')).toEqual(task('race-0', { status: 'cancelled', lastUpdatedAt: '2026-08-01T10:00:01.000Z' }));
  });

  it('forgets a task once its expiresAt has passed: load is undefined and ownedBy leaves it out', async () => {
    const { a, b } = await open();
    await a.save(task('brief', { expiresAt: Date.now() + 150 }));
    await a.save(task('lasting'));
    expect((await b.load('brief'))?.taskId).toBe('brief');
    expect(await b.ownedBy('alice')).toEqual(['brief', 'lasting']);
    await sleep(250);
    expect(await b.load('brief')).toBeUndefined();
    expect(await a.ownedBy('alice')).toEqual(['lasting']);
    expect((await a.load('lasting'))?.taskId).toBe('lasting');
  });

  it("lists an owner's unexpired tasks oldest first, by first save (a later save does not move one), and no one else's", async () => {
    const { a, b } = await open();
    await a.save(task('o1'));
    await b.save(task('o2', { expiresAt: Date.now() + 150 }));
    await a.save(task('p1', { owner: 'bob' }));
    await b.save(task('o3', { ttlMs: null, expiresAt: null }));
    await a.save(task('o1', { status: 'completed' }));
    expect(await a.ownedBy('alice')).toEqual(['o1', 'o2', 'o3']);
    expect(await b.ownedBy('bob')).toEqual(['p1']);
    expect(await b.ownedBy('carol')).toEqual([]);
    await sleep(250);
    expect(await b.ownedBy('alice')).toEqual(['o1', 'o3']);
  });

  it('counts every task once, whoever owns it, and one fewer after a delete', async () => {
    const { a, b } = await open();
    expect(await a.count()).toBe(0);
    await a.save(task('c1'));
    await b.save(task('c2', { owner: 'bob' }));
    await a.save(task('c3'));
    await b.save(task('c1', { status: 'failed', error: { code: -32603, message: 'broke' } }));
    expect(await b.count()).toBe(3);
    await a.delete('c2');
    expect(await b.count()).toBe(2);
  });

  it('names the oldest task that has ended or expired, anyone’s, or none', async () => {
    const { a, b } = await open();
    expect(await a.oldestFinished()).toBeUndefined();
    await a.save(task('f1'));
    await b.save(task('f2', { expiresAt: Date.now() + 150 }));
    await a.save(task('f3', { owner: 'bob', status: 'completed' }));
    await b.save(task('f4', { status: 'failed' }));
    expect(await b.oldestFinished()).toBe('f3');
    await sleep(250);
    expect(await a.oldestFinished()).toBe('f2');
    await b.delete('f2');
    expect(await a.oldestFinished()).toBe('f3');
    await a.save(task('f1', { status: 'cancelled' }));
    expect(await b.oldestFinished()).toBe('f1');
  });

  it('deletes a task everywhere it is known (load, ownedBy, count, oldestFinished); deleting an unknown id does nothing', async () => {
    const { a, b } = await open();
    await a.save(task('d1', { status: 'completed' }));
    await a.save(task('d2'));
    await b.delete('d1');
    await b.delete('never-saved');
    expect(await a.load('d1')).toBeUndefined();
    expect(await a.ownedBy('alice')).toEqual(['d2']);
    expect(await a.count()).toBe(1);
    expect(await a.oldestFinished()).toBeUndefined();
    // A deleted task may be saved anew, as a new one.
    expect(await a.save(task('d1'))).toBe(true);
    expect(await b.ownedBy('alice')).toEqual(['d2', 'd1']);
  });

  it('lists running tasks whose lease lapsed before now, up to the limit; ended, unleased, renewed and deleted ones are left out', async () => {
    const { a, b } = await open();
    const now = Date.now();
    await a.save(task('l1', { leaseExpiresAt: now - 3000 }));
    await a.save(task('l2', { leaseExpiresAt: now - 2000, status: 'input_required' }));
    await a.save(task('l3', { leaseExpiresAt: now - 1000 }));
    await a.save(task('l4', { leaseExpiresAt: now + 60_000 }));
    await a.save(task('l5'));
    await a.save(task('l6', { leaseExpiresAt: now - 500, status: 'completed' }));
    expect((await b.lapsed!(now, 10)).sort()).toEqual(['l1', 'l2', 'l3']);
    expect(await b.lapsed!(now, 2)).toHaveLength(2);
    // Renewed, ended or deleted: no longer lapsed.
    await a.save(task('l1', { leaseExpiresAt: now + 60_000 }));
    await a.save(task('l2', { status: 'cancelled', leaseExpiresAt: now - 2000 }));
    await a.delete('l3');
    expect(await b.lapsed!(now, 10)).toEqual([]);
  });

  it('saves on a lease condition only over a lease that lapsed by then: not over a renewal, an ended task, an unleased or unknown one', async () => {
    const { a, b } = await open();
    const now = Date.now();
    const failed = (id: string) => task(id, { status: 'failed', error: { code: -32603, message: 'stopped' } });
    await a.save(task('c1', { leaseExpiresAt: now - 1000 }));
    expect(await b.save(failed('c1'), { leaseLapsedBy: now })).toBe(true);
    expect(await a.load('c1')).toEqual(failed('c1'));
    expect(await b.lapsed!(now, 10)).toEqual([]);

    await a.save(task('c2', { leaseExpiresAt: now - 1000 }));
    // Its runner renewed it before the condition was checked.
    await a.save(task('c2', { leaseExpiresAt: now + 1000 }));
    expect(await b.save(failed('c2'), { leaseLapsedBy: now })).toBe(false);
    expect((await a.load('c2'))!.status).toBe('working');

    await a.save(task('c3'));
    expect(await b.save(failed('c3'), { leaseLapsedBy: now })).toBe(false);
    expect(await b.save(failed('c4'), { leaseLapsedBy: now })).toBe(false);
    expect(await a.load('c4')).toBeUndefined();
    await a.save(task('c5', { status: 'completed', leaseExpiresAt: now - 1000 }));
    expect(await b.save(failed('c5'), { leaseLapsedBy: now })).toBe(false);
  });
});

describe('RedisTaskStore', () => {
  /** A store on a scale of its own prefix, and a plain client to look at what it leaves in Redis. */
  async function opened(options?: { sweepIntervalMs?: number }) {
    const prefix = uniquePrefix();
    const scale = await connectRedisScale(redis.url, { prefix });
    const store = scale.taskStore(options);
    const raw = new Redis(redis.url);
    cleanups.push(
      () => scale.close(),
      () => store.close(),
      () => raw.quit(),
    );
    const keys = async () => (await raw.keys(`${prefix}:task*`)).sort();
    return { prefix, scale, store, raw, keys };
  }

  it('leaves no index entry behind once its tasks expire: the sweep drops them and the owner set expires with its last task', async () => {
    const { prefix, store, keys } = await opened({ sweepIntervalMs: 50 });
    for (let i = 0; i < 5; i++)
      await store.save(
        task(`e${i}`, {
          owner: i % 2 ? 'alice' : 'bob',
          status: i === 0 ? 'completed' : 'working',
          expiresAt: Date.now() + 100,
          leaseExpiresAt: Date.now() + 60_000,
        }),
      );
    expect(await keys()).toEqual(
      [
        ...[0, 1, 2, 3, 4].map((i) => `${prefix}:task:e${i}`),
        `${prefix}:tasks`,
        `${prefix}:tasks:ended`,
        `${prefix}:tasks:expiry`,
        `${prefix}:tasks:leases`,
        `${prefix}:tasks:owner:alice`,
        `${prefix}:tasks:owner:bob`,
        `${prefix}:tasks:sequence`,
      ].sort(),
    );
    await until(keys, 'the indexes to be swept', (left) => left.length === 1);
    expect(await keys()).toEqual([`${prefix}:tasks:sequence`]);
    expect(await store.count()).toBe(0);
  });

  it('sends its scripts again when Redis has forgotten them (SCRIPT FLUSH, or a restarted Redis)', async () => {
    const { store, raw } = await opened();
    expect(await store.save(task('s1'))).toBe(true);
    await raw.script('FLUSH');
    expect(await store.save(task('s1', { status: 'completed' }))).toBe(true);
    expect(await store.save(task('s1'))).toBe(false);
    expect(await store.ownedBy('alice')).toEqual(['s1']);
  });

  it('closes without closing the connection it shares with the scale', async () => {
    const { scale, store } = await opened();
    await store.save(task('k1'));
    await store.close();
    expect(scale.healthy()).toBe(true);
    const again = scale.taskStore();
    cleanups.push(() => again.close());
    expect((await again.load('k1'))?.taskId).toBe('k1');
  });

  it('refuses a sweepIntervalMs that is not a positive integer', async () => {
    const { scale } = await opened();
    expect(() => scale.taskStore({ sweepIntervalMs: 0 })).toThrow(new TypeError('Option sweepIntervalMs must be a positive integer up to 2147483647; got 0'));
  });

  // Last in the file: it stops the file's redis-server, and starts it again (empty).
  it('fails a command at once with -32603 while Redis is down, and works again once it is back', async () => {
    const { store } = await opened();
    await redis.stop();
    const failed = await store.load('t1').catch((err: unknown) => err);
    expect(failed).toBeInstanceOf(McpError);
    expect(failed).toMatchObject({ code: -32603, message: expect.stringMatching(/^The shared task store is unreachable \(.+\); retry shortly$/) });
    await redis.restart();
    await until(
      () => store.save(task('t1')).catch(() => false),
      'the store to reach Redis again',
      (kept) => kept === true,
    );
    expect((await store.load('t1'))?.taskId).toBe('t1');
  });
});
