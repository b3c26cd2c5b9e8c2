/**
 * Following a task to its end (the Tasks extension, SEP-2663): a `tools/call` answered with a task is
 * polled with `tasks/get` at the server's `pollIntervalMs`; each new question in `inputRequests` goes to
 * the handlers once, and their answers go back with `tasks/update`. The call resolves with the task's
 * result, or fails with its error, as the call itself would have.
 */
import { ErrorCode, McpError, RequestCancelledError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { type DetailedTask, isTerminalStatus, type TaskStatus } from '../protocol/tasks.js';
import { abortReason } from '../rpc/abort-reason.js';

const STATUSES: ReadonlySet<string> = new Set(['working', 'input_required', 'completed', 'failed', 'cancelled']);
/** Polling is kept between these, whatever the server suggests. */
const MIN_POLL_MS = 50;
const MAX_POLL_MS = 30_000;
const DEFAULT_POLL_MS = 1000;
/** Polls that fail for a passing reason (the server drains, the network blips) are tried again this often before the call gives up. */
const MAX_RETRIES = 5;

/** Worth polling again: the server is draining (-32013, HTTP 503), timed out, could not be reached, or a proxy answered 5xx. */
function passing(err: unknown): boolean {
  if (!(err instanceof McpError)) return true;
  if (err.code === ErrorCode.TransportRefused) return isObject(err.data) && typeof err.data.httpStatus === 'number' && err.data.httpStatus >= 500;
  return err.code === ErrorCode.ShuttingDown || err.code === ErrorCode.RequestTimeout || err.code === ErrorCode.ConnectionClosed;
}

/** What following a task needs of the client. */
export interface TaskDriver {
  /** One request on the client's wire (tasks/get, tasks/update, tasks/cancel). */
  send(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** Answer questions through the handlers: answers by key. */
  fulfil(inputRequests: Record<string, unknown>, signal: AbortSignal | undefined, taskId: string): Promise<Record<string, unknown>>;
  /** A new state of the task. */
  changed(task: DetailedTask): void;
  reportError(error: unknown): void;
}

function invalidTask(why: string): McpError {
  return new McpError(ErrorCode.InternalError, `The server's task is invalid: ${why}`);
}

/** A task as the server sent it (CreateTaskResult or tasks/get), checked enough to follow it. */
export function readTask(result: Record<string, unknown>): DetailedTask {
  if (typeof result.taskId !== 'string' || result.taskId.length === 0) throw invalidTask('taskId must be a non-empty string');
  if (typeof result.status !== 'string' || !STATUSES.has(result.status)) throw invalidTask(`unknown status ${JSON.stringify(result.status)}`);
  const { resultType: _type, ...task } = result;
  return task as unknown as DetailedTask;
}

function pollDelay(task: DetailedTask): number {
  const suggested = typeof task.pollIntervalMs === 'number' && Number.isFinite(task.pollIntervalMs) ? task.pollIntervalMs : DEFAULT_POLL_MS;
  return Math.min(MAX_POLL_MS, Math.max(MIN_POLL_MS, suggested));
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** The outcome of a finished task: its result, or its error thrown. */
function outcome(task: DetailedTask): Record<string, unknown> {
  if (task.status === 'completed') {
    if (!isObject(task.result)) throw invalidTask('a completed task must carry result');
    return task.result;
  }
  if (task.status === 'failed') {
    const error: Record<string, unknown> = isObject(task.error) ? task.error : {};
    const code = typeof error.code === 'number' ? error.code : ErrorCode.InternalError;
    const message = typeof error.message === 'string' ? error.message : (task.statusMessage ?? 'The task failed');
    throw new McpError(code, message, error.data);
  }
  throw new McpError(ErrorCode.RequestCancelled, `Task ${task.taskId} was cancelled${task.statusMessage ? `: ${task.statusMessage}` : ''}`);
}

/** tasks/get, tried again with a growing pause while it fails for a passing reason. */
async function poll(driver: TaskDriver, taskId: string, last: DetailedTask, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await driver.send('tasks/get', { taskId });
    } catch (err) {
      if (attempt >= MAX_RETRIES || !passing(err) || signal?.aborted) throw err;
      await sleep(Math.min(MAX_POLL_MS, pollDelay(last) * 2 ** (attempt + 1)), signal);
      if (signal?.aborted) throw new RequestCancelledError('tools/call', abortReason(signal));
    }
  }
}

/**
 * Follow `created` until it ends. Aborting `signal` cancels the task on the server (tasks/cancel) and
 * rejects with RequestCancelledError.
 */
export async function followTask(driver: TaskDriver, created: Record<string, unknown>, signal: AbortSignal | undefined): Promise<Record<string, unknown>> {
  let task = readTask(created);
  const { taskId } = task;
  driver.changed(task);
  /** Keys already answered (or being answered): each question is put to the handlers once. */
  const answered = new Set<string>();
  let last: { status: TaskStatus; lastUpdatedAt: string; keys: string } = { status: task.status, lastUpdatedAt: task.lastUpdatedAt, keys: '' };
  try {
    while (!isTerminalStatus(task.status)) {
      if (signal?.aborted) throw new RequestCancelledError('tools/call', abortReason(signal));
      const fresh =
        task.status === 'input_required' && isObject(task.inputRequests) ? Object.entries(task.inputRequests).filter(([key]) => !answered.has(key)) : [];
      if (fresh.length > 0) {
        for (const [key] of fresh) answered.add(key);
        const inputResponses = await driver.fulfil(Object.fromEntries(fresh), signal, taskId);
        await driver.send('tasks/update', { taskId, inputResponses });
      } else {
        await sleep(pollDelay(task), signal);
        if (signal?.aborted) continue;
      }
      task = readTask(await poll(driver, taskId, task, signal));
      const keys = Object.keys(task.inputRequests ?? {}).join('\n');
      if (task.status !== last.status || task.lastUpdatedAt !== last.lastUpdatedAt || keys !== last.keys) {
        last = { status: task.status, lastUpdatedAt: task.lastUpdatedAt, keys };
        driver.changed(task);
      }
    }
  } catch (err) {
    // The call is given up: the task is not left running for nobody.
    if (!isTerminalStatus(task.status)) driver.send('tasks/cancel', { taskId }).catch((cancelFailed: unknown) => driver.reportError(cancelFailed));
    throw err;
  }
  return outcome(task);
}
