/**
 * Two McpServers with `useTasks`, each on its own HTTP port, sharing one redis-server through
 * `scale.taskStore()`: a 2026-07-28 task created through one is found by `tasks/get` on the other with the
 * same status and result, and `tasks/cancel` through the other ends it (the running instance aborts its
 * handler at the handler's next save).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { connectRedisScale, type McpServer, type RedisScale, type SharedState, type Tasks, useTasks } from '../../src/index.js';
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

/** An instance: an McpServer on HTTP whose tasks live in the scale's Redis. */
async function instance(scale: RedisScale, setup: Setup, serverScale: SharedState = scale) {
  let tasks!: Tasks;
  const running = await startHttp(
    cleanups,
    (server) => {
      tasks = useTasks(server, { store: scale.taskStore(), ttlMs: 60_000, pollIntervalMs: 250 });
      setup(server, tasks);
    },
    { server: { scale: serverScale } },
  );
  return { ...running, tasks, client: new ModernClient(running.url, DECLARES) };
}

/** Two instances sharing one Redis prefix, each with its own connection, as two processes have. */
async function pair(setup: Setup, { deafA = false } = {}) {
  const prefix = `test-${Math.random().toString(36).slice(2)}`;
  const scales = [await connectRedisScale(redis.url, { prefix }), await connectRedisScale(redis.url, { prefix })];
  // Pushed first, so it runs last: after both servers (and their task stores) closed.
  cleanups.push(() => Promise.all(scales.map((scale) => scale.close())));
  const [first, second] = scales as [RedisScale, RedisScale];
  // A first instance that misses what the others broadcast (Redis pub/sub delivers at most once).
  const deaf: SharedState = { stateKeys: first.stateKeys, consumeState: (id, at) => first.consumeState(id, at), broadcast: (event) => first.broadcast(event) };
  return { a: await instance(first, setup, deafA ? deaf : first), b: await instance(second, setup) };
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

    // Answers still go to the instance whose handler waits for them; the other says so.
    expect((await b.client.request('tasks/update', { taskId: task.taskId, inputResponses: {} })).body.error).toEqual({
      code: -32603,
      message: `Task ${task.taskId} runs on another server instance: send tasks/update to it (route on the Mcp-Name header, the task id)`,
    });

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
    const stream = await modernPost(
      b.url,
      'subscriptions/listen',
      { notifications: { taskIds: [task.taskId] } },
      { id: 'listen-b', meta: { [META_KEYS.clientCapabilities]: DECLARES } },
    );
    cleanups.push(() => stream.abort());
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
});
