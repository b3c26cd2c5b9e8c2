/**
 * McpClient and the Tasks extension over real HTTP: with `tasks: true` a tools/call that becomes a task
 * resolves with the task's result, its questions answered through the handlers (each once) with
 * tasks/update; a failed task rejects with its error, an aborted call cancels its task; without the
 * option the same tool answers at once.
 */
import { describe, expect, it } from 'vitest';
import {
  type DetailedTask,
  type ElicitRequestedSchema,
  ErrorCode,
  McpError,
  RequestCancelledError,
  TASKS_EXTENSION,
  type Tasks,
  useTasks,
} from '../../src/index.js';
import { resultKind } from '../../src/client/modern.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttp } from '../helpers/servers.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

/** A server with the tasks extension (polled every 20 ms) and what `setup` registers on it. */
async function serve(setup: (tasks: Tasks) => void) {
  let tasks!: Tasks;
  const { url } = await startHttp(cleanups, (server) => {
    tasks = useTasks(server, { pollIntervalMs: 20 });
    setup(tasks);
  });
  return { tasks, url };
}

const NAME_FORM: ElicitRequestedSchema = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

describe('McpClient following tasks', () => {
  it('declares the extension, and resolves a task with its result after answering its questions once each', async () => {
    const { tasks, url } = await serve((tasks) =>
      tasks.registerTool('book', { taskSupport: 'optional' }, async (_args, ctx) => {
        const who = await ctx.elicit({ message: 'Who travels?', requestedSchema: NAME_FORM });
        const when = await ctx.elicit({ message: 'When?', requestedSchema: { type: 'object', properties: { day: { type: 'string' } } } });
        return `Booked for ${String(who.content?.name)} on ${String(when.content?.day)}`;
      }),
    );
    const created: DetailedTask[] = [];
    tasks.on('taskCreated', (task) => void created.push(task));
    const asked: string[] = [];
    const { client } = await clients.connectUrl(url, { era: 'modern', tasks: true }, (c) =>
      c.onElicitation((params, ctx) => {
        asked.push(`${params.message} (${ctx.inputKey} of task ${ctx.taskId === undefined ? 'none' : 'known'})`);
        const content: Record<string, string> = params.message === 'Who travels?' ? { name: 'Ada' } : { day: 'Monday' };
        return { action: 'accept', content };
      }),
    );
    const seen: DetailedTask[] = [];
    client.on('taskStatus', (task) => void seen.push(task));
    expect(client.capabilities.extensions).toEqual({ [TASKS_EXTENSION]: {} });

    const result = await client.callTool('book');

    // The task's result as the task carries it: the CallToolResult itself.
    expect(result).toEqual({ content: [{ type: 'text', text: 'Booked for Ada on Monday' }] });
    expect(asked).toEqual(['Who travels? (elicit-1 of task known)', 'When? (elicit-2 of task known)']);
    expect(created).toHaveLength(1);
    const taskId = created[0].taskId;
    expect(seen[0]).toMatchObject({ taskId, status: 'working' });
    expect(seen.at(-1)).toMatchObject({ taskId, status: 'completed', result: { content: [{ type: 'text', text: 'Booked for Ada on Monday' }] } });
    expect(seen.filter((t) => t.status === 'input_required').map((t) => Object.keys(t.inputRequests ?? {}))).toEqual([['elicit-1'], ['elicit-2']]);
  });

  it('rejects with the JSON-RPC error of a failed task, and resolves an isError result of a tool that threw', async () => {
    const { url } = await serve((tasks) => {
      tasks.registerTool('crash', { taskSupport: 'required' }, () => {
        throw new McpError(ErrorCode.InternalError, 'disk on fire', { disk: 'sda' });
      });
      tasks.registerTool('oops', { taskSupport: 'required' }, () => {
        throw new Error('bad input');
      });
    });
    const { client } = await clients.connectUrl(url, { era: 'modern', tasks: true });
    expect(await rpcError(client.callTool('crash'))).toEqual({ code: -32603, message: 'disk on fire', data: { disk: 'sda' } });
    expect(await client.callTool('oops')).toEqual({ content: [{ type: 'text', text: 'bad input' }], isError: true });
  });

  it('cancels the task on the server when the call is aborted', async () => {
    const handlerAborted = deferred<unknown>();
    const { tasks, url } = await serve((tasks) =>
      tasks.registerTool('forever', { taskSupport: 'optional' }, (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => handlerAborted.resolve(ctx.signal.reason));
        return new Promise(() => {});
      }),
    );
    const ended: DetailedTask[] = [];
    tasks.on('taskCompleted', (task) => void ended.push(task));
    const { client } = await clients.connectUrl(url, { era: 'modern', tasks: true });
    const working = new Promise<void>((resolve) => client.on('taskStatus', (task) => task.status === 'working' && resolve()));
    const control = new AbortController();
    const call = client.callTool('forever', {}, { signal: control.signal });
    await working;
    control.abort('enough');
    await expect(call).rejects.toBeInstanceOf(RequestCancelledError);
    expect(String(await handlerAborted.promise)).toContain('The task was cancelled by the client');
    expect(ended.map((task) => [task.status, task.statusMessage])).toEqual([['cancelled', 'The task was cancelled by the client']]);
  });

  it('without the option a task-capable tool answers at once, and a task-required one is refused with -32021', async () => {
    const { url } = await serve((tasks) => {
      tasks.registerTool('maybe', { taskSupport: 'optional' }, () => 'at once');
      tasks.registerTool('must', { taskSupport: 'required' }, () => 'never');
    });
    const { client } = await clients.connectUrl(url, { era: 'modern' });
    expect(client.capabilities.extensions).toBeUndefined();
    expect(await client.callTool('maybe')).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'at once' }] });
    expect(await rpcError(client.callTool('must'))).toEqual({
      code: -32021,
      message: `Tool must runs only as a task: it needs the client to declare the extension ${TASKS_EXTENSION} (capabilities.extensions["${TASKS_EXTENSION}"])`,
      data: { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
    });
  });

  it('listens for a task by id and hears its notifications/tasks', async () => {
    const release = deferred<void>();
    const { url } = await serve((tasks) =>
      tasks.registerTool('slow', { taskSupport: 'optional' }, async () => {
        await release.promise;
        return 'done';
      }),
    );
    const { client } = await clients.connectUrl(url, { era: 'modern', tasks: true });
    const created = new Promise<string>((resolve) => client.on('taskStatus', (task) => resolve(task.taskId)));
    const call = client.callTool('slow');
    const taskId = await created;
    const heard: Record<string, unknown>[] = [];
    const completed = deferred<void>();
    const subscription = await client.listen(
      { taskIds: [taskId, 'not-a-task'] },
      {
        onNotification: (n) => {
          heard.push(n.params ?? {});
          if (n.params?.status === 'completed') completed.resolve();
        },
      },
    );
    expect(subscription.notifications).toEqual({ taskIds: [taskId] });
    release.resolve();
    await completed.promise;
    await call;
    subscription.close();
    expect(heard.at(-1)).toMatchObject({ taskId, status: 'completed', result: { content: [{ type: 'text', text: 'done' }] } });
  });

  it('treats a task answer as invalid where the client did not declare the extension, or for another method', () => {
    expect(() => resultKind('tools/call', { resultType: 'task', taskId: 't' })).toThrow(
      `The server's tools/call result is invalid: a task came back though the client did not declare ${TASKS_EXTENSION}`,
    );
    expect(() => resultKind('prompts/get', { resultType: 'task', taskId: 't' }, true)).toThrow(
      "The server's prompts/get result is invalid: only tools/call may answer with a task",
    );
    expect(resultKind('tools/call', { resultType: 'task', taskId: 't' }, true)).toBe('task');
  });
});
