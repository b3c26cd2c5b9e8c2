/**
 * What the Tasks extension says on the wire and to whom: a stored task as `tasks/get` shows it, a
 * question as 2026-07-28 carries it, who owns a task, and the errors its methods answer with.
 */
import { createHash } from 'node:crypto';
import { addressKey } from '../../protocol/client-address.js';
import { ClientCapabilityError, ErrorCode, McpError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { principalKey, UNKEYED_PRINCIPAL } from '../../protocol/principal.js';
import { type DetailedTask, TASKS_EXTENSION } from '../../protocol/tasks.js';
import type { ClientCapabilities } from '../../protocol/types.js';
import type { ClientQuestion } from '../../server/extension-api.js';
import { invalidExtensionParams } from '../../server/extensions.js';
import type { StoredTask } from './store.js';

export const SHUTTING_DOWN = () =>
  new McpError(ErrorCode.ShuttingDown, 'The server is shutting down: no new tasks; call again (another instance will take it)');

/**
 * Why a task failed when the server running it stopped before its handler ended: shut down (`how`: 'it
 * was shut down'), or gone without a word (its lease lapsed, seen by another instance sharing the store).
 */
export const RUNNER_STOPPED = (how: string) =>
  new McpError(ErrorCode.InternalError, `The server running this task stopped before the task finished (${how}); call the tool again`);

export function declaresTasks(capabilities: ClientCapabilities): boolean {
  return isObject(capabilities.extensions) && isObject(capabilities.extensions[TASKS_EXTENSION]);
}

export function missingTasksCapability(what: string): ClientCapabilityError {
  return new ClientCapabilityError(`${what} needs the client to declare the extension ${TASKS_EXTENSION} (capabilities.extensions["${TASKS_EXTENSION}"])`, {
    extensions: { [TASKS_EXTENSION]: {} },
  });
}

/** Marks the owner of a task made without a principal (no `auth`): a digest holds no colon. */
const ANONYMOUS = 'anonymous:';

/**
 * Who a task is bound to and counted against: a digest of the principal's key. Without a principal (no
 * `auth`), a digest of the client its remote address stands for (an IPv6 /64, as the connection shares
 * count it), so one client cannot use up every caller's cap.
 */
export function ownerOf(principal: unknown, remoteAddress: string | undefined): string {
  if (isAnonymous(principal)) return `${ANONYMOUS}${digest(addressKey(remoteAddress))}`;
  return digest(keyOf(principal));
}

/** Whether `principal` may reach a task of `owner`: its own, or, without a principal, any made without one. */
export function reaches(principal: unknown, owner: string): boolean {
  if (isAnonymous(principal)) return owner.startsWith(ANONYMOUS);
  return owner === digest(keyOf(principal));
}

/** principalKey's "none": no auth hook, or one that let the request through without a principal. */
function isAnonymous(principal: unknown): boolean {
  return principal === undefined || principal === null;
}

function keyOf(principal: unknown): string {
  const key = principalKey(principal);
  if (key === undefined) throw new McpError(ErrorCode.InternalError, `Cannot bind a task: ${UNKEYED_PRINCIPAL}`);
  return key;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

export function unknownTask(taskId: string): McpError {
  return invalidExtensionParams(`unknown task ${JSON.stringify(taskId)} (it may have expired, or belong to someone else)`);
}

/** 2026-07-28 has no elicitationId: a URL question goes without one. */
export function onTheWire(question: ClientQuestion): ClientQuestion {
  if (question.method !== 'elicitation/create' || question.params.mode !== 'url' || !('elicitationId' in question.params)) return question;
  const { elicitationId: _dropped, ...params } = question.params;
  return { ...question, params };
}

/** What `tasks/get` shows of a stored task: the wire fields only. */
export function detailed(task: StoredTask): DetailedTask {
  const out: DetailedTask = {
    taskId: task.taskId,
    status: task.status,
    createdAt: task.createdAt,
    lastUpdatedAt: task.lastUpdatedAt,
    ttlMs: task.ttlMs,
  };
  if (task.statusMessage !== undefined) out.statusMessage = task.statusMessage;
  if (task.pollIntervalMs !== undefined) out.pollIntervalMs = task.pollIntervalMs;
  if (task.status === 'input_required' && task.inputRequests) out.inputRequests = task.inputRequests;
  if (task.status === 'completed' && task.result) out.result = task.result;
  if (task.status === 'failed' && task.error) out.error = task.error;
  return out;
}
