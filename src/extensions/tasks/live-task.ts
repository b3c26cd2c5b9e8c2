/**
 * A task whose handler runs in this process, and the states it moves through: working, input_required
 * while its questions wait for `tasks/update`, then completed, failed or cancelled (by the client, its
 * TTL or another instance sharing the store), or failed when the server running it stops. Each change
 * is saved in order and announced; an ended task withdraws every question still open.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS } from '../../protocol/option-checks.js';
import { isTerminalStatus, type TaskStatus } from '../../protocol/tasks.js';
import type { ClientQuestion } from '../../server/extension-api.js';
import { onTheWire, RUNNER_STOPPED } from './shapes.js';
import type { StoredTask, TaskStore } from './store.js';

interface Question {
  question: ClientQuestion;
  resolve: (answer: Record<string, unknown>) => void;
  reject: (error: unknown) => void;
}

/** What a live task needs of the extension. */
export interface LiveTaskHost {
  readonly store: TaskStore;
  /** A new status, new questions or a new status message: to listeners and listen streams. */
  announce(task: StoredTask, status: TaskStatus): void;
  /** It ended: it runs here no more. */
  ended(task: LiveTask): void;
  reportError(error: unknown): void;
}

export class LiveTask {
  readonly controller = new AbortController();
  private readonly questions = new Map<string, Question>();
  /** Saves to the store, in order. */
  saved: Promise<void> = Promise.resolve();
  private expiry: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly task: StoredTask,
    private readonly host: LiveTaskHost,
  ) {
    this.scheduleExpiry();
  }

  /** The handler asks: the task waits in input_required until tasks/update brings the answer. */
  ask(question: ClientQuestion): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      if (isTerminalStatus(this.task.status)) {
        reject(new McpError(ErrorCode.RequestCancelled, `The task is ${this.task.status}`));
        return;
      }
      this.questions.set(question.key, { question: onTheWire(question), resolve, reject });
      this.change('input_required', undefined);
    });
  }

  /** Answers to outstanding questions resume the handler; anything else is ignored (SEP-2663). */
  answer(responses: Record<string, unknown>): void {
    if (this.questions.size === 0) return;
    let answered = 0;
    for (const [key, answer] of Object.entries(responses)) {
      const question = this.questions.get(key);
      if (!question) continue;
      this.questions.delete(key);
      answered++;
      question.resolve(isObject(answer) ? answer : { answer });
    }
    // The answered keys leave inputRequests before the acknowledgement: a tasks/get right after shows only what is still open.
    if (answered > 0) this.change(this.questions.size > 0 ? 'input_required' : 'working', undefined);
  }

  /** The handler's progress is the task's statusMessage (tasks carry no notifications/progress). */
  progress(progress: number, total: number | undefined, message: string | undefined): void {
    if (!isTerminalStatus(this.task.status)) this.change(this.task.status, message ?? (total === undefined ? `${progress}` : `${progress} of ${total}`));
  }

  failed(err: unknown): void {
    if (isTerminalStatus(this.task.status)) return;
    const error =
      err instanceof McpError
        ? { code: err.code, message: err.message, ...(err.data === undefined ? {} : { data: err.data }) }
        : { code: ErrorCode.InternalError, message: err instanceof Error ? err.message : String(err) };
    this.settle('failed', { error, statusMessage: error.message });
  }

  /** The handler's end: the task keeps its result (or error) until it expires. */
  settle(status: 'completed' | 'failed', outcome: Partial<StoredTask>): void {
    if (isTerminalStatus(this.task.status)) return;
    Object.assign(this.task, outcome);
    this.end(undefined, status);
  }

  /** The server running it stops (closes) before the handler ends: failed, with the stopped-server error; the handler is aborted. */
  stop(): void {
    const error = RUNNER_STOPPED('it was shut down');
    if (!isTerminalStatus(this.task.status)) this.task.error = { code: error.code, message: error.message };
    this.end(error, 'failed');
  }

  /** End it: cancelled (with `reason`) or its handler's outcome; every question still open is withdrawn. */
  end(reason: McpError | undefined, status: 'cancelled' | 'completed' | 'failed' = 'cancelled'): void {
    if (!isTerminalStatus(this.task.status)) {
      if (reason) this.task.statusMessage = reason.message;
      this.change(status, undefined);
    }
    this.host.ended(this);
    if (this.expiry) clearTimeout(this.expiry);
    for (const { reject } of this.questions.values()) reject(reason ?? new McpError(ErrorCode.RequestCancelled, `The task is ${status}`));
    this.questions.clear();
    if (reason) this.controller.abort(reason);
  }

  private scheduleExpiry(): void {
    const { expiresAt } = this.task;
    if (expiresAt === null) return;
    const wait = Math.min(Math.max(0, expiresAt - Date.now()), MAX_TIMER_MS);
    this.expiry = setTimeout(() => {
      if (Date.now() < expiresAt) this.scheduleExpiry();
      else this.expire();
    }, wait);
    this.expiry.unref?.();
  }

  /** Its TTL ran out while it ran: it stops, and is gone. */
  private expire(): void {
    const { taskId } = this.task;
    this.end(new McpError(ErrorCode.RequestCancelled, 'The task expired (its ttlMs ran out)'));
    this.saved = this.saved.then(() => this.host.store.delete(taskId)).catch((err: unknown) => this.host.reportError(err));
  }

  /** A new status, new questions or a new status message: stored, then announced. */
  private change(status: TaskStatus, statusMessage: string | undefined): void {
    const { task } = this;
    task.status = status;
    if (statusMessage !== undefined) task.statusMessage = statusMessage;
    task.lastUpdatedAt = new Date().toISOString();
    if (status === 'input_required') {
      task.inputRequests = {};
      for (const [key, { question }] of this.questions) task.inputRequests[key] = { method: question.method, params: question.params };
    } else {
      delete task.inputRequests;
    }
    this.persist();
    this.host.announce(task, status);
  }

  /** Its runner's lease (a store several instances share) runs on to `until`: saved, and told to no one. */
  renew(until: number): void {
    if (isTerminalStatus(this.task.status)) return;
    this.task.leaseExpiresAt = until;
    this.persist();
  }

  /** Save the task as it is now, after the saves before it. */
  private persist(): void {
    const snapshot = { ...this.task };
    // An ended task is no one's to renew: its lease goes with its run.
    if (isTerminalStatus(snapshot.status)) delete snapshot.leaseExpiresAt;
    this.saved = this.saved
      .then(async () => {
        // The store keeps an ended task as it ended: an end recorded meanwhile by another instance sharing
        // it (its tasks/cancel) stands, and ends this run.
        const kept = await this.host.store.save(snapshot);
        if (kept === false && !isTerminalStatus(this.task.status)) {
          this.end(new McpError(ErrorCode.RequestCancelled, CANCELLED_ELSEWHERE));
        }
      })
      .catch((err: unknown) => this.host.reportError(err));
  }
}

/** Why a run ends when another instance sharing the store recorded its cancellation. */
export const CANCELLED_ELSEWHERE = 'The task was cancelled (through another instance)';
