/**
 * Tasks extension test peers: a server with `useTasks` on a real Streamable HTTP port, 2026-07-28 clients
 * that declare the extension (or not), and the shapes of replies, task ids and the errors tasks answer with.
 */
import {
  type McpError,
  type McpServer,
  type RequestContext,
  type StreamableHttpTransport,
  type StreamableHttpTransportOptions,
  type Tasks,
  type TasksOptions,
  TASKS_EXTENSION,
  useTasks,
} from '../../src/index.js';
import { expect } from 'vitest';
import type { Cleanups } from './cleanups.js';
import { MODERN_CAPS, ModernClient, type Reply } from './modern.js';
import { startHttp } from './servers.js';
import { until } from './waits.js';
import type { Json } from './ws-client.js';

/** A 2026-07-28 client that declares the extension (and form elicitation, which task-time questions need). */
export const DECLARES = { extensions: { [TASKS_EXTENSION]: {} }, elicitation: { form: {} } };

/** Two principals, named by the X-User header. */
export const BY_USER: StreamableHttpTransportOptions = {
  auth: (req) => (typeof req.headers['x-user'] === 'string' ? { id: req.headers['x-user'] } : undefined),
};

export interface ServedTasks {
  server: McpServer;
  transport: StreamableHttpTransport;
  url: string;
  tasks: Tasks;
  /** Declares the extension (and form elicitation). */
  declared: ModernClient;
  /** Declares form elicitation only. */
  plain: ModernClient;
}

export type ServeTasks = (
  setup: (server: McpServer, tasks: Tasks) => void,
  options?: TasksOptions,
  transport?: StreamableHttpTransportOptions,
) => Promise<ServedTasks>;

/** Pass the file's `useCleanups()`: servers started through `serve` are closed after each test. */
export function useTaskServers(cleanups: Cleanups): { serve: ServeTasks } {
  const serve: ServeTasks = async (setup, options = {}, transport) => {
    let tasks!: Tasks;
    const running = await startHttp(
      cleanups,
      (server) => {
        tasks = useTasks(server, options);
        setup(server, tasks);
      },
      { transport },
    );
    return {
      server: running.server,
      transport: running.transport,
      url: running.url,
      tasks,
      declared: new ModernClient(running.url, DECLARES),
      plain: new ModernClient(running.url, MODERN_CAPS.form),
    };
  };
  return { serve };
}

/** The result of a 200 reply (fails the test otherwise). */
export function resultOf(reply: Reply): Json {
  if (reply.status !== 200 || reply.body.result === undefined) throw new Error(`expected a result; got ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body.result;
}

/** The HTTP status and JSON-RPC error of a failed reply. */
export function failure(reply: Reply): { status: number; error: Json } {
  if (reply.body.error === undefined) throw new Error(`expected an error; got ${reply.status} ${JSON.stringify(reply.body)}`);
  return { status: reply.status, error: reply.body.error };
}

export const getTask = (client: ModernClient, taskId: string) => client.request('tasks/get', { taskId });

/** tasks/get until the task has `status`; its result then. */
export async function untilStatus(client: ModernClient, taskId: string, status: string): Promise<Json> {
  const reply = await until(
    () => getTask(client, taskId),
    `task ${taskId} to be ${status}`,
    (r) => r.body.result?.status === status,
  );
  return reply.body.result;
}

/** Call `tool` as a task: the CreateTaskResult's task id. */
export async function createTask(client: ModernClient, tool: string, args: Json = {}): Promise<string> {
  const created = resultOf(await client.callTool(tool, args));
  if (created.resultType !== 'task') throw new Error(`expected a task; got ${JSON.stringify(created)}`);
  return created.taskId;
}

/** A handler that waits until its task is cancelled, recording the abort reason. */
export function untilAborted(reasons: unknown[]) {
  return (_args: Record<string, unknown>, ctx: RequestContext) =>
    new Promise<string>((resolve) => {
      ctx.signal.addEventListener(
        'abort',
        () => {
          reasons.push(ctx.signal.reason);
          resolve('stopped');
        },
        { once: true },
      );
    });
}

export const reasonOf = (reason: unknown) => ({ name: (reason as Error).name, code: (reason as McpError).code, message: (reason as Error).message });

export const unknownTask = (taskId: string) => ({
  code: -32602,
  message: `Invalid params: unknown task ${JSON.stringify(taskId)} (it may have expired, or belong to someone else)`,
});

/** An ISO 8601 timestamp as tasks carry them (`createdAt`, `lastUpdatedAt`), for `toEqual`. */
export const ISO_TIME = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

/** What a call that made a task answers, exactly, for `toEqual` (`created` gives both timestamps their one value). */
export function createdTask(created: Json, ttlMs: number, pollIntervalMs: number): Json {
  return { resultType: 'task', taskId: expect.any(String), status: 'working', createdAt: ISO_TIME, lastUpdatedAt: created.createdAt, ttlMs, pollIntervalMs };
}

/** What `tasks/get` answers for `task` (a created task's fields) once it completed with `result`. */
export function completedTask(task: Json, result: Json): Json {
  return { ...task, resultType: 'complete', status: 'completed', lastUpdatedAt: ISO_TIME, result };
}
