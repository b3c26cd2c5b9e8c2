/**
 * The caps on tasks: per principal (`maxTasksPerPrincipal`) and on all of them (`maxTasks`). An owner's
 * creations go one at a time, each saved before its next counts; owners never wait for each other.
 * `maxTasks` counts what the store holds plus the creations under way in this process, so calls at once
 * here cannot pass it together. Instances sharing a store do not see each other's creations under way:
 * together they may pass it by as many creations as they have under way at that moment.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { isTerminalStatus } from '../../protocol/tasks.js';
import type { TaskStore } from './store.js';

export interface TaskCapLimits {
  maxTasksPerPrincipal: number;
  maxTasks: number;
}

const settledAnyway = () => {};

export class TaskCaps {
  /** Each owner's latest creation, settled either way: the owner's next one starts after it. */
  private readonly queues = new Map<string, Promise<void>>();
  /** Creations past the per-principal cap and not yet saved or refused, in this process. */
  private underWay = 0;

  constructor(
    private readonly store: TaskStore,
    private readonly limits: TaskCapLimits,
    /** Whether a task's handler runs in this process (the store may not know it has ended yet). */
    private readonly runsHere: (taskId: string) => boolean,
  ) {}

  /** Run `create`, which saves a new task of `owner`'s, once there is room for it; refused with -32600 when there is none. */
  admit<T>(owner: string, create: () => Promise<T>): Promise<T> {
    const admitted = async () => {
      await this.makeRoomFor(owner);
      return this.withinTotal(create);
    };
    const previous = this.queues.get(owner);
    const created = previous ? previous.then(admitted) : admitted();
    const settled = created.then(settledAnyway, settledAnyway);
    this.queues.set(owner, settled);
    void settled.then(() => {
      if (this.queues.get(owner) === settled) this.queues.delete(owner);
    });
    return created;
  }

  /** At the owner's cap, its oldest finished task goes; with none finished, the call is refused. */
  private async makeRoomFor(owner: string): Promise<void> {
    const owned = await this.store.ownedBy(owner);
    if (owned.length >= this.limits.maxTasksPerPrincipal && !(await this.removeFinished(owned))) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many unfinished tasks: this client has ${owned.length} (maxTasksPerPrincipal); wait for some to finish, or cancel them with tasks/cancel`,
      );
    }
  }

  /**
   * Run `create` once the store's count and the creations under way ahead of this one leave room, the
   * oldest finished tasks (anyone's) going to make it. A creation the store never answers keeps its place.
   */
  private async withinTotal<T>(create: () => Promise<T>): Promise<T> {
    // Counted before the first await: of two calls at once, the later one always counts the earlier.
    const aheadAtStart = this.underWay++;
    try {
      // With the store at most at the cap, this call and the ones ahead of it need one deletion each at most.
      for (let removed = 0; ; removed++) {
        // The ones ahead still under way, at most: one that is done has been saved, and the count shows it.
        const ahead = Math.min(aheadAtStart, this.underWay - 1);
        const held = await this.store.count();
        if (held + ahead < this.limits.maxTasks) break;
        const oldest = removed > aheadAtStart ? undefined : await this.store.oldestFinished();
        // One that runs here was ended through another instance: its run would save it back.
        if (oldest === undefined || this.runsHere(oldest)) {
          throw new McpError(
            ErrorCode.InvalidRequest,
            `Too many unfinished tasks: this server holds ${held + ahead} (maxTasks); try again later, or cancel some with tasks/cancel`,
          );
        }
        await this.store.delete(oldest);
      }
      return await create();
    } finally {
      this.underWay--;
    }
  }

  /** Remove the oldest of `ids` that has finished or expired; false when none has. */
  private async removeFinished(ids: string[]): Promise<boolean> {
    for (const id of ids) {
      if (this.runsHere(id)) continue;
      const task = await this.store.load(id);
      if (!task || isTerminalStatus(task.status)) {
        await this.store.delete(id);
        return true;
      }
    }
    return false;
  }
}
