/**
 * Two McpServers with `useTasks`, each on its own HTTP port, sharing one redis-server through
 * `scale.taskStore()`: a 2026-07-28 task created through one is found by `tasks/get` on the other with the
 * same status and result, `tasks/update` through the other reaches the handler, `tasks/cancel` through the
 * other ends it, and a task whose runner stopped without a word (its lease lapsed) fails everywhere.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  connectRedisScale,
  type McpServer,
  type RedisScale,
  type SharedState,
  type TaskStore,
  type Tasks,
  type TasksOptions,
  useTasks,
} from '../../src/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { gate } from '../helpers/deferred.js';
import { META_KEYS, ModernClient, modernPost } from '../helpers/modern.js';
import { useRedis } from '../helpers/redis.js';
import { startHttp } from '../helpers/servers.js';
import { completedTask, createdTask, DECLARES, getTask, reasonOf, resultOf, untilStatus } from '../helpers/tasks.js';
import { until } from '../helpers/waits.js';

const cleanups = useCleanups();
const redis = useRedis();

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
const ack = { resultType: 'complete' };

type Setup = (server: McpServer, tasks: Tasks) => void;

interface PairOptions {
  /** The first instance misses what the others broadcast. */
  deafA?: boolean;
  /** More options for both instances' useTasks. */
  tasks?: TasksOptions;
  /** The first instance's store, made from the scale's (to stop its writes, as a runner that stopped). */
  storeA?: (store: TaskStore) => TaskStore;
}

/** An instance: an McpServer on HTTP whose tasks live in the scale's Redis. */
async function instance(scale: RedisScale, setup: Setup, serverScale: SharedState = scale, options: TasksOptions = {}, store: TaskStore = scale.taskStore()) {
  let tasks!: Tasks;
  const running = await startHttp(
    cleanups,
    (server) => {
      tasks = useTasks(server, { store, ttlMs: 60_000, pollIntervalMs: 250, ...options });
      setup(server, tasks);
    },
    { server: { scale: serverScale } },
  );
  return { ...running, tasks, client: new ModernClient(running.url, DECLARES) };
}

/** Two instances sharing one Redis prefix, each with its own connection, as two processes have. */
async function pair(setup: Setup, { deafA = false, tasks, storeA = (store) => store }: PairOptions = {}) {
  const prefix = `test-${Math.random().toString(36).slice(2)}`;
  const scales = [await connectRedisScale(redis.url, { prefix }), await connectRedisScale(redis.url, { prefix })];
  // Pushed first, so it runs last: after both servers (and their task stores) closed.
  cleanups.push(() => Promise.all(scales.map((scale) => scale.close())));
  const [first, second] = scales as [RedisScale, RedisScale];
  // A first instance that misses what the others broadcast (Redis pub/sub delivers at most once).
  const deaf: SharedState = { stateKeys: first.stateKeys, consumeState: (id, at) => first.consumeState(id, at), broadcast: (event) => first.broadcast(event) };
  return {
    a: await instance(first, setup, deafA ? deaf : first, tasks, storeA(first.taskStore())),
    b: await instance(second, setup, second, tasks),
  };
}

/** A task started on `a` whose handler saves nothing and ends only when aborted, cancelled through `b`; `reasons` collects its abort reasons. */
async function cancelQuietElsewhere(options: { deafA?: boolean } = {}) {
  const reasons: unknown[] = [];
  const quiet: Setup = (_server, tasks) =>
    tasks.registerTool('quiet', { taskSupport: 'optional' }, (_args, ctx) => {
      // Saves nothing while it waits: only its signal can end it.
      return new Promise((resolve) => {
        ctx.signal.addEventListener('abort', () => {
          reasons.push(ctx.signal.reason);
          resolve('stopped');
        });
      });
    });
  const { a, b } = await pair(quiet, options);
  const { resultType: _task, ...task } = resultOf(await a.client.callTool('quiet'));
  expect(resultOf(await b.client.request('tasks/cancel', { taskId: task.taskId }))).toEqual(ack);
  return { a, b, task, reasons };
}

type Instance = Awaited<ReturnType<typeof instance>>;

/** A subscriptions/listen stream on `where` for the task's notifications (id `listen-b`), closed after the test. */
async function listenOn(where: Instance, taskId: string) {
  const stream = await modernPost(
    where.url,
    'subscriptions/listen',
    { notifications: { taskIds: [taskId] } },
    { id: 'listen-b', meta: { [META_KEYS.clientCapabilities]: DECLARES } },
  );
  cleanups.push(() => stream.abort());
  return stream;
}

/** Once the runner `a` lets the task go, both instances show it as the cancel through `b` left it (the runner's own end is not saved over it). */
async function cancelledOnBoth(a: Instance, b: Instance, taskId: string, cancelled: unknown) {
  await until(
    () => a.tasks.running,
    'the first instance to let the task go',
    (n) => n === 0,
  );
  const seen = resultOf(await getTask(b.client, taskId));
  expect(seen).toEqual(cancelled);
  expect(resultOf(await getTask(a.client, taskId))).toEqual(seen);
  return seen;
}

describe('tasks shared through Redis by two instances', () => {
  it('shows a task created through one on tasks/get on the other, working and then completed with its result', async () => {
    const release = gate();
    const { a, b } = await pair((_server, tasks) =>
      tasks.registerTool('work', { taskSupport: 'optional' }, async () => {
        await release.opened;
        return { content: [{ type: 'text', text: 'done' }], structuredContent: { answer: 42 } };
      }),
    );
    const created = resultOf(await a.client.callTool('work'));
    expect(created).toEqual(createdTask(created, 60_000, 250));
    const { resultType: _task, ...task } = created;
    expect(resultOf(await getTask(b.client, task.taskId))).toEqual({ resultType: 'complete', ...task });

    release.open();
    const done = await untilStatus(b.client, task.taskId, 'completed');
    expect(done).toEqual(completedTask(task, { content: [{ type: 'text', text: 'done' }], structuredContent: { answer: 42 } }));
    expect(resultOf(await getTask(a.client, task.taskId))).toEqual(done);
  });

  it('ends a task on tasks/cancel through the other instance: cancelled everywhere, and its handler aborted at its next save', async () => {
    const reasons: unknown[] = [];
    const { a, b } = await pair((_server, tasks) =>
      tasks.registerTool('steps', { taskSupport: 'optional' }, async (_args, ctx) => {
        // Each step is saved (a task's progress is its statusMessage): the save after the cancel is refused.
        for (let step = 1; !ctx.signal.aborted; step++) {
          ctx.progress(step, undefined, 'Working');
          await sleep(25);
        }
        reasons.push(ctx.signal.reason);
        return 'stopped';
      }),
    );
    const created = resultOf(await a.client.callTool('steps'));
    const { resultType: _task, ...task } = created;
    await until(
      () => getTask(b.client, task.taskId),
      'the other instance to see the progress',
      (reply) => reply.body.result?.statusMessage === 'Working',
    );

    expect(resultOf(await b.client.request('tasks/cancel', { taskId: task.taskId }))).toEqual(ack);
    const cancelled = { ...task, resultType: 'complete', status: 'cancelled', statusMessage: 'Working', lastUpdatedAt: ISO };
    expect(resultOf(await getTask(b.client, task.taskId))).toEqual(cancelled);

    await until(
      () => reasons.length,
      'the handler on the first instance to be aborted',
      (n) => n === 1,
    );
    expect(reasonOf(reasons[0])).toEqual({ name: 'McpError', code: -32800, message: 'The task was cancelled (through another instance)' });
    const seen = await cancelledOnBoth(a, b, task.taskId, cancelled);
    expect(resultOf(await b.client.request('tasks/cancel', { taskId: task.taskId }))).toEqual(ack);
    expect(resultOf(await getTask(a.client, task.taskId))).toEqual(seen);
  });

  it('keeps a cancel through the other instance when the handler saves nothing until it ends: its result is not kept', async () => {
    const release = gate();
    const { a, b } = await pair((_server, tasks) =>
      tasks.registerTool('quiet', { taskSupport: 'optional' }, async () => {
        await release.opened;
        return 'finished anyway';
      }),
    );
    const { resultType: _task, ...task } = resultOf(await a.client.callTool('quiet'));
    expect(resultOf(await b.client.request('tasks/cancel', { taskId: task.taskId }))).toEqual(ack);
    const cancelled = { ...task, resultType: 'complete', status: 'cancelled', lastUpdatedAt: ISO };
    expect(resultOf(await getTask(b.client, task.taskId))).toEqual(cancelled);
    release.open();
    await cancelledOnBoth(a, b, task.taskId, cancelled);
  });

  it('ends the run on the running instance as soon as another instance records a cancel', async () => {
    const { a, b, task, reasons } = await cancelQuietElsewhere();
    await until(
      () => reasons.length,
      'the run on the first instance to end, unasked',
      (n) => n === 1,
    );
    expect(reasons.map(reasonOf)).toEqual([{ name: 'McpError', code: -32800, message: 'The task was cancelled (through another instance)' }]);
    await cancelledOnBoth(a, b, task.taskId, { ...task, resultType: 'complete', status: 'cancelled', lastUpdatedAt: ISO });
  });

  it('ends the run when the running instance, which missed the news, is asked for a task another instance cancelled', async () => {
    const { a, b, task, reasons } = await cancelQuietElsewhere({ deafA: true });
    const cancelled = resultOf(await getTask(b.client, task.taskId));
    expect(cancelled).toEqual({ ...task, resultType: 'complete', status: 'cancelled', lastUpdatedAt: ISO });
    expect(reasons).toEqual([]);

    expect(resultOf(await getTask(a.client, task.taskId))).toEqual(cancelled);
    expect(reasons.map(reasonOf)).toEqual([{ name: 'McpError', code: -32800, message: 'The task was cancelled (through another instance)' }]);
    await cancelledOnBoth(a, b, task.taskId, cancelled);
  });

  it('tells a listen stream on the other instance of each status change of the task, as notifications/tasks with the tasks/get fields', async () => {
    const release = gate();
    const { a, b } = await pair((_server, tasks) =>
      tasks.registerTool('work', { taskSupport: 'optional' }, async (_args, ctx) => {
        ctx.progress(1, 2, 'Halfway');
        await release.opened;
        return 'done';
      }),
    );
    const { resultType: _task, ...task } = resultOf(await a.client.callTool('work'));
    await until(
      () => getTask(b.client, task.taskId),
      'the other instance to see the progress',
      (reply) => reply.body.result?.statusMessage === 'Halfway',
    );
    const stream = await listenOn(b, task.taskId);
    const sub = { [META_KEYS.subscriptionId]: 'listen-b' };
    expect(await stream.nextMessage({ method: 'notifications/subscriptions/acknowledged' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/subscriptions/acknowledged',
      params: { _meta: sub, notifications: { taskIds: [task.taskId] } },
    });

    release.open();
    const completed = await stream.nextMessage({ method: 'notifications/tasks' });
    const done = await untilStatus(a.client, task.taskId, 'completed');
    expect(done).toEqual(completedTask({ ...task, statusMessage: 'Halfway' }, { content: [{ type: 'text', text: 'done' }] }));
    const { resultType: _complete, ...fields } = done;
    expect(completed).toEqual({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...fields, _meta: sub } });
  });

  it('carries tasks/update through the other instance to the handler: acknowledged once applied there, and the task completes with the answer', async () => {
    const { a, b } = await pair((_server, tasks) =>
      tasks.registerTool('asks', { taskSupport: 'optional' }, async (_args, ctx) => {
        const answer = await ctx.elicit({
          message: 'Name?',
          requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
        });
        return `Hello ${answer.content?.name}`;
      }),
    );
    const { resultType: _task, ...task } = resultOf(await a.client.callTool('asks'));
    const waiting = await untilStatus(b.client, task.taskId, 'input_required');
    expect(Object.keys(waiting.inputRequests)).toEqual(['elicit-1']);

    const update = { taskId: task.taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } } };
    expect(resultOf(await b.client.request('tasks/update', update))).toEqual(ack);
    // Acknowledged once the runner saved what the answer changed: the question is gone on every instance.
    for (const where of [b, a]) expect(resultOf(await getTask(where.client, task.taskId))).not.toHaveProperty('inputRequests');
    const done = await untilStatus(b.client, task.taskId, 'completed');
    expect(done).toEqual(completedTask(task, { content: [{ type: 'text', text: 'Hello Ada' }] }));
    // Sent again, answers already applied are ignored, through either instance.
    expect(resultOf(await b.client.request('tasks/update', update))).toEqual(ack);
    expect(resultOf(await a.client.request('tasks/update', update))).toEqual(ack);
  });

  it('answers a tasks/update the runner never confirms (it misses the news) with -32603 after updateTimeoutMs, the task left as it was', async () => {
    const { a, b } = await pair(
      (_server, tasks) =>
        tasks.registerTool('asks', { taskSupport: 'optional' }, async (_args, ctx) => {
          const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } });
          return `Hello ${answer.content?.name}`;
        }),
      { deafA: true, tasks: { updateTimeoutMs: 300 } },
    );
    const { resultType: _task, ...task } = resultOf(await a.client.callTool('asks'));
    const waiting = await untilStatus(b.client, task.taskId, 'input_required');
    const reply = await b.client.request('tasks/update', { taskId: task.taskId, inputResponses: { 'elicit-1': { action: 'decline' } } });
    expect({ status: reply.status, error: reply.body.error }).toEqual({
      status: 200,
      error: {
        code: -32603,
        message: `The server instance running task ${task.taskId} did not confirm the answers in time; send the tasks/update again (answers already applied are ignored)`,
      },
    });
    expect(resultOf(await getTask(b.client, task.taskId))).toEqual(waiting);
    // Through the runner itself, the same answers go in.
    expect(
      resultOf(await a.client.request('tasks/update', { taskId: task.taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Bo' } } } })),
    ).toEqual(ack);
    expect((await untilStatus(b.client, task.taskId, 'completed')).result).toEqual({ content: [{ type: 'text', text: 'Hello Bo' }] });
  });

  it('fails a task whose runner stopped without a word (its lease lapsed), on every instance and its listen streams, with the stopped-server error', async () => {
    let stopped = false;
    const silenced = (store: TaskStore): TaskStore => ({
      save: (task, condition) => (stopped ? true : store.save(task, condition)),
      load: (taskId) => store.load(taskId),
      delete: (taskId) => store.delete(taskId),
      ownedBy: (owner) => store.ownedBy(owner),
      count: () => store.count(),
      oldestFinished: () => store.oldestFinished(),
      lapsed: (now, limit) => store.lapsed!(now, limit),
      close: () => store.close?.(),
    });
    const { a, b } = await pair(
      (_server, tasks) =>
        tasks.registerTool(
          'forever',
          { taskSupport: 'optional' },
          (_args, ctx) => new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('aborted'))),
        ),
      { tasks: { leaseMs: 400 }, storeA: silenced },
    );
    const { resultType: _task, ...task } = resultOf(await a.client.callTool('forever'));
    const stream = await listenOn(b, task.taskId);
    await stream.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    // Renewed as it runs: past several leases, it is still working.
    await sleep(1000);
    expect(resultOf(await getTask(b.client, task.taskId)).status).toBe('working');

    // The runner's writes stop, its renewals with them: within 1.25 leases, another instance ends the task.
    stopped = true;
    const message = 'The server running this task stopped before the task finished (its lease lapsed); call the tool again';
    const failed = { ...task, resultType: 'complete', status: 'failed', statusMessage: message, error: { code: -32603, message }, lastUpdatedAt: ISO };
    const heard = await stream.nextMessage({ method: 'notifications/tasks' });
    const { resultType: _complete, ...fields } = failed;
    expect(heard).toEqual({ jsonrpc: '2.0', method: 'notifications/tasks', params: { ...fields, _meta: { [META_KEYS.subscriptionId]: 'listen-b' } } });
    expect(resultOf(await getTask(b.client, task.taskId))).toEqual(failed);
  });
});
