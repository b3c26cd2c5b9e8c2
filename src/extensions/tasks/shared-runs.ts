/**
 * What the Tasks extension does when several instances share its store. Each instance renews the lease
 * of every task it runs; an instance that finds a task whose lease lapsed (the instance running it
 * stopped without a word) ends it as failed, so no client polls a `working` task until its TTL. Answers
 * (`tasks/update`) that reach an instance other than the one running the task are carried to it on the
 * scale's broadcast, and the `tasks/update` is answered once the runner applied them.
 */
import { randomUUID } from 'node:crypto';
import { isObject } from '../../protocol/jsonrpc.js';
import { isTerminalStatus } from '../../protocol/tasks.js';
import type { LiveTask } from './live-task.js';
import { RUNNER_STOPPED } from './shapes.js';
import type { StoredTask, TaskStore } from './store.js';

/** What the shared runs need of the extension. */
export interface SharedRunsHost {
  readonly store: TaskStore;
  /** The tasks running in this process, by id. */
  readonly live: ReadonlyMap<string, LiveTask>;
  /** Tell the other instances (the extension handle's `share`). */
  share(news: Record<string, unknown>): void;
  /** A task this instance ended for a runner that stopped: to its listeners and listen streams, here and elsewhere. */
  announce(task: StoredTask): void;
  reportError(error: unknown): void;
}

export interface SharedRunsOptions {
  /** How long a runner's lease holds without renewal, in ms; it is renewed every quarter of that. */
  leaseMs: number;
  /** How long answers carried to another instance may wait for its acknowledgement, in ms. */
  updateTimeoutMs: number;
}

/** How many lapsed tasks one sweep ends. */
const SWEEP_LIMIT = 100;

export class SharedRuns {
  private readonly timer: NodeJS.Timeout;
  /** Answers carried to another instance, by nonce: resolved by its acknowledgement, or false at the timeout. */
  private readonly acks = new Map<string, (applied: boolean) => void>();
  private sweeping = false;

  constructor(
    private readonly host: SharedRunsHost,
    private readonly options: SharedRunsOptions,
  ) {
    // One beat renews this instance's leases and ends the lapsed ones of others: a stopped runner's task ends
    // at most a lease and a beat after its last renewal.
    this.timer = setInterval(() => this.beat(), Math.max(1, Math.floor(options.leaseMs / 4)));
    this.timer.unref?.();
  }

  /** The end of a lease taken now, for a task starting here. */
  leaseFromNow(): number {
    return Date.now() + this.options.leaseMs;
  }

  /**
   * `task` as it stands: when its runner's lease lapsed (and it does not run here), ended first as
   * failed. Undefined when it went meanwhile.
   */
  async current(task: StoredTask): Promise<StoredTask | undefined> {
    const now = Date.now();
    if (!lapsed(task, now) || this.host.live.has(task.taskId)) return task;
    return this.endLapsed(task, now);
  }

  /**
   * Carry `responses` for `task` (not running here) to the instance running it. True once its runner
   * applied them (and saved what they changed), false when no acknowledgement came in time.
   */
  deliver(taskId: string, responses: Record<string, unknown>): Promise<boolean> {
    const nonce = randomUUID();
    const applied = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => settle(false), this.options.updateTimeoutMs);
      const settle = (done: boolean) => {
        clearTimeout(timer);
        this.acks.delete(nonce);
        resolve(done);
      };
      this.acks.set(nonce, settle);
    });
    this.host.share({ update: { taskId, inputResponses: responses, nonce } });
    return applied;
  }

  /**
   * Another instance's news about runs: answers for a task running here (applied, then acknowledged once
   * saved), or the acknowledgement of answers this instance carried. False for any other news.
   */
  heard(news: Record<string, unknown>): boolean {
    if (typeof news.applied === 'string') {
      this.acks.get(news.applied)?.(true);
      return true;
    }
    const { update } = news;
    if (!isObject(update)) return false;
    const { taskId, inputResponses, nonce } = update;
    const live = typeof taskId === 'string' ? this.host.live.get(taskId) : undefined;
    if (live && isObject(inputResponses) && typeof nonce === 'string') {
      live.answer(inputResponses);
      void live.saved.then(() => this.host.share({ applied: nonce }));
    }
    return true;
  }

  /** The server is closing: no more beats, and answers still carried are not acknowledged. */
  close(): void {
    clearInterval(this.timer);
    for (const settle of [...this.acks.values()]) settle(false);
  }

  private beat(): void {
    const until = this.leaseFromNow();
    for (const live of this.host.live.values()) live.renew(until);
    if (!this.sweeping && this.host.store.lapsed) {
      this.sweeping = true;
      this.sweep()
        .catch((err: unknown) => this.host.reportError(err))
        .finally(() => {
          this.sweeping = false;
        });
    }
  }

  /** End the tasks whose runner stopped, a batch at a time. */
  private async sweep(): Promise<void> {
    const now = Date.now();
    for (const taskId of (await this.host.store.lapsed?.(now, SWEEP_LIMIT)) ?? []) {
      // A lease of this instance's own that looks lapsed is renewed by the next beat, not ended.
      if (this.host.live.has(taskId)) continue;
      const task = await this.host.store.load(taskId);
      if (task && lapsed(task, now)) await this.endLapsed(task, now);
    }
  }

  /** Fail `task`, unless its runner renewed it meanwhile or another instance ended it first: then as the store has it. */
  private async endLapsed(task: StoredTask, now: number): Promise<StoredTask | undefined> {
    const error = RUNNER_STOPPED('its lease lapsed');
    const { inputRequests: _open, leaseExpiresAt: _lease, ...rest } = task;
    const ended: StoredTask = {
      ...rest,
      status: 'failed',
      statusMessage: error.message,
      error: { code: error.code, message: error.message },
      lastUpdatedAt: new Date(now).toISOString(),
    };
    if ((await this.host.store.save(ended, { leaseLapsedBy: now })) !== false) {
      this.host.announce(ended);
      return ended;
    }
    return this.host.store.load(task.taskId);
  }
}

/** Whether `task` runs still by its record, under a lease that ran out before `now`. */
function lapsed(task: StoredTask, now: number): boolean {
  return !isTerminalStatus(task.status) && task.leaseExpiresAt !== undefined && task.leaseExpiresAt < now;
}
