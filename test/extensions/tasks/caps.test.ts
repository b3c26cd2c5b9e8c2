/**
 * The caps on tasks over real Streamable HTTP: per principal (without auth, per remote address) and on
 * every task the store holds; what a call at a cap gets (-32600), what makes room, calls at once; and
 * TaskCaps against stores that answer late or never.
 */
import { describe, expect, it } from 'vitest';
import { TaskCaps } from '../../../src/extensions/tasks/caps.js';
import { ownerOf } from '../../../src/extensions/tasks/shapes.js';
import { McpError, McpServer, MemoryTaskStore, type StoredTask, type TaskStore, useTasks } from '../../../src/index.js';
import { ModernClientFrom } from '../../helpers/local-address.js';
import { ModernClient } from '../../helpers/modern.js';
import {
  BY_USER,
  createTask,
  DECLARES,
  failure,
  getTask as get,
  resultOf,
  unknownTask,
  untilAborted,
  untilStatus,
  useTaskServers,
} from '../../helpers/tasks.js';
import { until } from '../../helpers/waits.js';
import { gate, tick } from '../../helpers/deferred.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const { serve } = useTaskServers(cleanups);

const atServerCap = (held: number) => ({
  status: 400,
  error: { code: -32600, message: `Too many unfinished tasks: this server holds ${held} (maxTasks); try again later, or cancel some with tasks/cancel` },
});
const atClientCap = (held: number) => ({
  status: 400,
  error: {
    code: -32600,
    message: `Too many unfinished tasks: this client has ${held} (maxTasksPerPrincipal); wait for some to finish, or cancel them with tasks/cancel`,
  },
});

/** A server whose `hold` tool runs until `releases[n]` opens. */
function serveHolding(releases: { opened: Promise<void> }[], options: Parameters<typeof serve>[1], transport?: Parameters<typeof serve>[2]) {
  return serve(
    (_server, tasks) =>
      tasks.registerTool(
        'hold',
        { taskSupport: 'optional', inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] } },
        async (args) => {
          await releases[args.n as number]!.opened;
          return `released ${String(args.n)}`;
        },
      ),
    options,
    transport,
  );
}

/** A server whose `prepared` tool waits in beforeTask for `resume` (counting the calls that reached it), then runs until cancelled. */
function servePrepared(
  resume: { opened: Promise<void> },
  entered: { count: number },
  options: Parameters<typeof serve>[1],
  transport?: Parameters<typeof serve>[2],
) {
  return serve(
    (_server, tasks) =>
      tasks.registerTool(
        'prepared',
        {
          beforeTask: async () => {
            entered.count++;
            await resume.opened;
          },
        },
        untilAborted([]),
      ),
    options,
    transport,
  );
}

describe('maxTasksPerPrincipal', () => {
  it('refuses a call with -32600 while every held task runs; a finished one then makes room and is gone', async () => {
    const releases = [gate(), gate(), gate()];
    const { url } = await serveHolding(releases, { maxTasksPerPrincipal: 2 }, BY_USER);
    const alice = new ModernClient(url, DECLARES, { 'x-user': 'alice' });
    const bob = new ModernClient(url, DECLARES, { 'x-user': 'bob' });
    const first = await createTask(alice, 'hold', { n: 0 });
    const second = await createTask(alice, 'hold', { n: 1 });
    expect(failure(await alice.callTool('hold', { n: 2 }))).toEqual(atClientCap(2));
    // The cap is per principal.
    await createTask(bob, 'hold', { n: 2 });

    releases[0]!.open();
    await untilStatus(alice, first, 'completed');
    const third = await createTask(alice, 'hold', { n: 2 });
    expect(failure(await get(alice, first))).toEqual({ status: 400, error: unknownTask(first) });
    expect(resultOf(await get(alice, second)).status).toBe('working');
    expect(resultOf(await get(alice, third)).status).toBe('working');
    releases[1]!.open();
    releases[2]!.open();
  });

  it('counts a cancelled task as finished', async () => {
    const reasons: unknown[] = [];
    const { declared } = await serve((_server, tasks) => tasks.registerTool('long', { taskSupport: 'optional' }, untilAborted(reasons)), {
      maxTasksPerPrincipal: 1,
    });
    const first = await createTask(declared, 'long');
    expect(failure(await declared.callTool('long'))).toEqual(atClientCap(1));
    await declared.request('tasks/cancel', { taskId: first });
    await until(
      () => reasons.length,
      'the handler to be aborted',
      (n) => n === 1,
    );
    await createTask(declared, 'long');
    expect(failure(await get(declared, first)).error).toEqual(unknownTask(first));
  });
});

describe('maxTasksPerPrincipal under concurrent calls', () => {
  // The cap is read (store.ownedBy) and the task saved (store.save) across awaits: an async beforeTask
  // lines the calls up here, as an async TaskStore (a database) does without one.
  it('refuses the second of two calls that reach the cap together (beforeTask resumes both at once)', async () => {
    const resume = gate();
    const entered = { count: 0 };
    const { declared } = await servePrepared(resume, entered, { maxTasksPerPrincipal: 1 });
    const calls = [declared.callTool('prepared'), declared.callTool('prepared')];
    await until(
      () => entered.count,
      'both calls to be in beforeTask',
      (n) => n === 2,
    );
    resume.open();
    const replies = await Promise.all(calls);
    expect(replies.map((reply) => reply.body.result?.resultType ?? reply.body.error?.code).sort()).toEqual([-32600, 'task']);
  });
});

describe('maxTasksPerPrincipal without auth', () => {
  it('counts each remote address apart, and any caller without a principal still reaches a task by its id', async () => {
    const reasons: unknown[] = [];
    const { url } = await serve((_server, tasks) => tasks.registerTool('long', { taskSupport: 'optional' }, untilAborted(reasons)), {
      maxTasksPerPrincipal: 1,
    });
    const here = new ModernClient(url, DECLARES);
    const elsewhere = new ModernClientFrom('127.0.0.2', url, DECLARES);
    const first = await createTask(here, 'long');
    expect(failure(await here.callTool('long'))).toEqual(atClientCap(1));
    const second = await createTask(elsewhere, 'long');
    expect(resultOf(await get(elsewhere, first)).status).toBe('working');
    expect(resultOf(await get(here, second)).status).toBe('working');
    expect(failure(await elsewhere.callTool('long'))).toEqual(atClientCap(1));
  });

  // Loopback IPv6 is ::1 alone (a second address of its /64 needs the host configured): the key is checked on addresses.
  it('counts an IPv6 caller by its /64, and an IPv4-mapped one as its IPv4 address', () => {
    const owner = (address: string) => ownerOf(undefined, address);
    expect(owner('2001:db8:1:2::a')).toBe(owner('2001:db8:1:2:ffff:ffff:ffff:1'));
    expect(owner('2001:db8:1:2::a')).not.toBe(owner('2001:db8:1:3::a'));
    expect(owner('::ffff:127.0.0.1')).toBe(owner('127.0.0.1'));
    expect(owner('127.0.0.1')).not.toBe(owner('127.0.0.2'));
    expect(owner('2001:db8:1:2::a')).toMatch(/^anonymous:/);
    // A principal is its own key, whatever its address.
    expect(ownerOf({ id: 'alice' }, '2001:db8:1:2::a')).toBe(ownerOf({ id: 'alice' }, '127.0.0.1'));
  });
});

describe('maxTasks', () => {
  it("refuses a call with -32600 once the store holds maxTasks unfinished tasks, whoever holds them; the oldest finished one, anyone's, then makes room and is gone", async () => {
    const releases = [gate(), gate(), gate()];
    const { url } = await serveHolding(releases, { maxTasks: 2 }, BY_USER);
    const [alice, bob, carol] = ['alice', 'bob', 'carol'].map((user) => new ModernClient(url, DECLARES, { 'x-user': user }));
    const first = await createTask(alice!, 'hold', { n: 0 });
    const second = await createTask(bob!, 'hold', { n: 1 });
    expect(failure(await carol!.callTool('hold', { n: 2 }))).toEqual(atServerCap(2));

    releases[0]!.open();
    await untilStatus(alice!, first, 'completed');
    const third = await createTask(carol!, 'hold', { n: 2 });
    expect(failure(await get(alice!, first))).toEqual({ status: 400, error: unknownTask(first) });
    expect(resultOf(await get(bob!, second)).status).toBe('working');
    expect(resultOf(await get(carol!, third)).status).toBe('working');
    releases[1]!.open();
    releases[2]!.open();
  });

  it('refuses the second of two calls from different principals that reach it together', async () => {
    const resume = gate();
    const entered = { count: 0 };
    const { url } = await servePrepared(resume, entered, { maxTasks: 1 }, BY_USER);
    const calls = ['alice', 'bob'].map((user) => new ModernClient(url, DECLARES, { 'x-user': user }).callTool('prepared'));
    await until(
      () => entered.count,
      'both calls to be in beforeTask',
      (n) => n === 2,
    );
    resume.open();
    const replies = await Promise.all(calls);
    expect(replies.map((reply) => reply.body.result?.resultType ?? reply.body.error?.code).sort()).toEqual([-32600, 'task']);
  });

  it('counts what the store holds: a server sharing it is refused while the other holds the cap', async () => {
    const store = new MemoryTaskStore();
    const release = gate();
    const one = await serveHolding([release], { store, maxTasks: 1 });
    const other = await serveHolding([release], { store, maxTasks: 1 });
    const taskId = await createTask(one.declared, 'hold', { n: 0 });
    expect(failure(await other.declared.callTool('hold', { n: 0 }))).toEqual(atServerCap(1));
    release.open();
    await untilStatus(one.declared, taskId, 'completed');
    await createTask(other.declared, 'hold', { n: 0 });
    store.close();
  });
});

describe('TaskCaps against a slow store', () => {
  const task = (taskId: string, owner: string, status: StoredTask['status'] = 'working'): StoredTask => ({
    taskId,
    status,
    owner,
    createdAt: 'x',
    lastUpdatedAt: 'x',
    ttlMs: null,
    expiresAt: null,
  });

  /** `inner`'s methods, each answered through `answer`. */
  function answeredBy(inner: MemoryTaskStore, answer: <T>(method: string, value: () => T) => T | Promise<T>): TaskStore {
    return {
      save: (t) => answer('save', () => inner.save(t)),
      load: (id) => answer('load', () => inner.load(id)),
      delete: (id) => answer('delete', () => inner.delete(id)),
      ownedBy: (owner) => answer(`ownedBy ${owner}`, () => inner.ownedBy(owner)),
      count: () => answer('count', () => inner.count()),
      oldestFinished: () => answer('oldestFinished', () => inner.oldestFinished()),
    };
  }

  it("holds back only the owner whose store call never settles: another owner's creations go ahead", async () => {
    const inner = new MemoryTaskStore();
    const store = answeredBy(inner, (method, value) => (method === 'ownedBy slow' ? new Promise(() => {}) : value()));
    const caps = new TaskCaps(store, { maxTasksPerPrincipal: 10, maxTasks: 10 }, () => false);
    const created: string[] = [];
    const create = (taskId: string, owner: string) => async () => {
      inner.save(task(taskId, owner));
      created.push(taskId);
      return taskId;
    };
    const waiting = [caps.admit('slow', create('s1', 'slow')), caps.admit('slow', create('s2', 'slow'))];
    const other = [caps.admit('other', create('o1', 'other')), caps.admit('other', create('o2', 'other'))];
    expect(await Promise.race([Promise.all(other), tick().then(() => 'still waiting')])).toEqual(['o1', 'o2']);
    expect(await Promise.race([...waiting, tick().then(() => 'still waiting')])).toBe('still waiting');
    expect(created).toEqual(['o1', 'o2']);
    inner.close();
  });

  it('never lets the store pass maxTasks, for calls at once from many owners answered in any order; unfinished tasks stay', async () => {
    const inner = new MemoryTaskStore();
    let calls = 0;
    // Each answer comes 0-3 ms late, so the calls' reads and saves interleave.
    const store = answeredBy(inner, (_method, value) => new Promise((resolve) => setTimeout(() => resolve(value()), calls++ % 4)));
    for (let i = 0; i < 5; i++) inner.save(task(`finished${i}`, 'old', 'completed'));
    for (let i = 0; i < 2; i++) inner.save(task(`running${i}`, 'old'));
    const caps = new TaskCaps(store, { maxTasksPerPrincipal: 100, maxTasks: 10 }, () => false);
    let most = 0;
    const replies = await Promise.allSettled(
      Array.from({ length: 40 }, (_, i) =>
        caps.admit(`owner${i}`, async () => {
          await store.save(task(`new${i}`, `owner${i}`));
          most = Math.max(most, inner.count());
        }),
      ),
    );
    const refused = replies.flatMap((reply) => (reply.status === 'rejected' ? [reply.reason] : []));
    for (const reason of refused) expect([reason instanceof McpError, (reason as McpError).code]).toEqual([true, -32600]);
    // 3 free places and 5 finished tasks to remove: at most 8 calls get in.
    expect(replies.length - refused.length).toBeGreaterThan(0);
    expect(replies.length - refused.length).toBeLessThanOrEqual(8);
    expect(most).toBeLessThanOrEqual(10);
    expect([inner.load('running0')?.status, inner.load('running1')?.status]).toEqual(['working', 'working']);
    inner.close();
  });
});

describe('cap options', () => {
  it.each([
    [{ maxTasks: 0 }, 'Option maxTasks must be a positive integer; got 0'],
    [{ maxTasks: 2.5 }, 'Option maxTasks must be a positive integer; got 2.5'],
  ])('refuses %j', (options, message) => {
    expect(() => useTasks(new McpServer({ name: 'x', version: '1' }), options)).toThrow(new TypeError(message));
  });

  it('refuses a store without a method the caps need, naming it', () => {
    const inner = new MemoryTaskStore();
    const store = { save: inner.save.bind(inner), load: inner.load.bind(inner), delete: inner.delete.bind(inner), ownedBy: inner.ownedBy.bind(inner) };
    expect(() => useTasks(new McpServer({ name: 'x', version: '1' }), { store: store as never })).toThrow(
      new TypeError('Option store must be a TaskStore (save, load, delete, ownedBy, count, oldestFinished): its count is not a function'),
    );
    inner.close();
  });
});

describe('MemoryTaskStore count and oldestFinished', () => {
  it('counts every task, and names the oldest that ended or expired, oldest saved first', () => {
    const store = new MemoryTaskStore();
    const task = (taskId: string, status: StoredTask['status'], expiresAt: number | null = null): StoredTask => ({
      taskId,
      status,
      owner: 'o',
      createdAt: 'x',
      lastUpdatedAt: 'x',
      ttlMs: null,
      expiresAt,
    });
    expect([store.count(), store.oldestFinished()]).toEqual([0, undefined]);
    store.save(task('a', 'working'));
    store.save(task('b', 'completed'));
    store.save(task('c', 'cancelled'));
    expect([store.count(), store.oldestFinished()]).toEqual([3, 'b']);
    // A later save keeps a task where it was first saved.
    store.save(task('a', 'failed'));
    expect(store.oldestFinished()).toBe('a');
    store.delete('a');
    store.delete('b');
    store.save(task('d', 'working', Date.now() - 1));
    expect([store.count(), store.oldestFinished()]).toEqual([2, 'c']);
    store.delete('c');
    expect([store.count(), store.oldestFinished()]).toEqual([1, 'd']);
    store.close();
  });
});
