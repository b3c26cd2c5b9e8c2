/**
 * Where tasks are kept between polls: a small interface, and the in-memory default. A task is kept until
 * its TTL runs out; what is kept is what `tasks/get` answers, plus the task's owner.
 */
import { type DetailedTask, isTerminalStatus } from '../../protocol/tasks.js';

/** A task as stored: what `tasks/get` shows, its owner, and when it expires. */
export interface StoredTask extends DetailedTask {
  /**
   * A digest of the principal that created it: only the same principal finds it. Without a principal
   * (no `auth`), `anonymous:` and a digest of the caller's remote address (an IPv6 one by its /64): any
   * caller without one finds it.
   */
  owner: string;
  /** Epoch milliseconds after which the task is gone; null for never. */
  expiresAt: number | null;
  /**
   * While it runs on an instance sharing the store: epoch milliseconds until which its runner's lease
   * holds. The runner renews it as it runs; once it lapses (the runner stopped), any instance ends it.
   */
  leaseExpiresAt?: number;
}

/** `save`'s condition: keep the task only when the stored one's lease ran out before `leaseLapsedBy` (an instance ending the task of a stopped runner). */
export interface SaveCondition {
  leaseLapsedBy: number;
}

/**
 * A task store. Methods may answer synchronously or with a promise. A store that outlives the process
 * (a database) keeps what the tasks were; the handlers themselves run in the process that created them.
 */
export interface TaskStore {
  /**
   * Keep a new or changed task (the whole record), unless the stored one has ended: an ended task stays
   * ended (another instance sharing the store may have cancelled it). With `condition`, keep it only if
   * the stored task has a lease that lapsed before `condition.leaseLapsedBy` (its runner did not renew
   * it meanwhile). Return false when it was not kept, true (or nothing) when it was.
   */
  save(task: StoredTask, condition?: SaveCondition): boolean | undefined | Promise<boolean | undefined>;
  /** The task, or undefined when it is unknown or expired. */
  load(taskId: string): StoredTask | undefined | Promise<StoredTask | undefined>;
  delete(taskId: string): void | Promise<void>;
  /** The ids of the owner's unexpired tasks, oldest first (the cap per principal counts them). */
  ownedBy(owner: string): string[] | Promise<string[]>;
  /** How many tasks it holds, everyone's (the cap on all tasks counts them; expired ones may count until they go). */
  count(): number | Promise<number>;
  /** The id of its oldest task that has ended or expired, if any: at the cap on all tasks, it makes room. */
  oldestFinished(): string | undefined | Promise<string | undefined>;
  /**
   * Up to `limit` ids of tasks that have not ended and whose lease lapsed before `now` (their runner
   * stopped). Needed only by a store several instances share; without it, such a task is ended only
   * when it is asked for.
   */
  lapsed?(now: number, limit: number): string[] | Promise<string[]>;
  /** The server is closing. */
  close?(): void | Promise<void>;
}

const STORE_METHODS = ['save', 'load', 'delete', 'ownedBy', 'count', 'oldestFinished'] as const;

/** `useTasks`'s `store`, checked for every method it calls. */
export function checkedStore(store: TaskStore): TaskStore {
  for (const method of STORE_METHODS) {
    if (typeof (store as unknown as Record<string, unknown> | null)?.[method] !== 'function') {
      throw new TypeError(`Option store must be a TaskStore (${STORE_METHODS.join(', ')}): its ${method} is not a function`);
    }
  }
  return store;
}

export interface MemoryTaskStoreOptions {
  /** How often expired tasks are swept out, in milliseconds (default 60 000). */
  sweepIntervalMs?: number;
}

/** The default store: a map in this process, swept of expired tasks once a minute (the timer does not hold the process). */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, StoredTask>();
  private readonly owners = new Map<string, Set<string>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: MemoryTaskStoreOptions = {}) {
    this.sweeper = setInterval(() => this.sweep(), options.sweepIntervalMs ?? 60_000);
    this.sweeper.unref?.();
  }

  get size(): number {
    return this.tasks.size;
  }

  save(task: StoredTask, condition?: SaveCondition): boolean {
    const stored = this.tasks.get(task.taskId);
    if (stored && isTerminalStatus(stored.status)) return false;
    if (condition && !(stored?.leaseExpiresAt !== undefined && stored.leaseExpiresAt < condition.leaseLapsedBy)) return false;
    this.tasks.set(task.taskId, structuredClone(task));
    let owned = this.owners.get(task.owner);
    if (!owned) this.owners.set(task.owner, (owned = new Set()));
    owned.add(task.taskId);
    return true;
  }

  load(taskId: string): StoredTask | undefined {
    const task = this.tasks.get(taskId);
    if (!task) return undefined;
    if (expired(task, Date.now())) {
      this.delete(taskId);
      return undefined;
    }
    return structuredClone(task);
  }

  delete(taskId: string): void {
    const task = this.tasks.get(taskId);
    if (!task) return;
    this.tasks.delete(taskId);
    const owned = this.owners.get(task.owner);
    owned?.delete(taskId);
    if (owned?.size === 0) this.owners.delete(task.owner);
  }

  ownedBy(owner: string): string[] {
    const now = Date.now();
    const ids: string[] = [];
    for (const id of this.owners.get(owner) ?? []) {
      const task = this.tasks.get(id);
      if (task && !expired(task, now)) ids.push(id);
    }
    return ids;
  }

  count(): number {
    return this.tasks.size;
  }

  oldestFinished(): string | undefined {
    const now = Date.now();
    // A Map keeps the order tasks were first saved in: the oldest come first.
    for (const task of this.tasks.values()) if (isTerminalStatus(task.status) || expired(task, now)) return task.taskId;
    return undefined;
  }

  lapsed(now: number, limit: number): string[] {
    const ids: string[] = [];
    for (const task of this.tasks.values()) {
      if (ids.length >= limit) break;
      if (task.leaseExpiresAt !== undefined && task.leaseExpiresAt < now && !isTerminalStatus(task.status) && !expired(task, now)) ids.push(task.taskId);
    }
    return ids;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private sweep(): void {
    const now = Date.now();
    for (const task of this.tasks.values()) if (expired(task, now)) this.delete(task.taskId);
  }
}

function expired(task: StoredTask, now: number): boolean {
  return task.expiresAt !== null && task.expiresAt <= now;
}
