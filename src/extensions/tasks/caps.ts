/**
 * The caps on tasks: per principal (`maxTasksPerPrincipal`) and on all of them (`maxTasks`). Creations
 * are checked one at a time, each saved before the next counts, so calls at once cannot pass a cap together.
 */
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { isTerminalStatus } from '../../protocol/tasks.js';
import type { TaskStore } from './store.js';

export interface TaskCapLimits {
  maxTasksPerPrincipal: number;
  maxTasks: number;
}

export class TaskCaps {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: TaskStore,
    private readonly limits: TaskCapLimits,
    /** Whether a task's handler runs in this process (the store may not know it has ended yet). */
    private readonly runsHere: (taskId: string) => boolean,
  ) {}

  /** Run `create`, which saves a new task of `owner`'s, once there is room for it; refused with -32600 when there is none. */
  admit<T>(owner: string, create: () => Promise<T>): Promise<T> {
    const admitted = async () => {
      await this.makeRoom(owner);
      return create();
    };
    const created = this.queue.then(admitted, admitted);
    this.queue = created.then(
      () => {},
      () => {},
    );
    return created;
  }

  /** At a cap, the oldest finished task goes (the owner's own at its cap); with none finished, the call is refused. */
  private async makeRoom(owner: string): Promise<void> {
    const owned = await this.store.ownedBy(owner);
    if (owned.length >= this.limits.maxTasksPerPrincipal && !(await this.removeFinished(owned))) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many unfinished tasks: this client has ${owned.length} (maxTasksPerPrincipal); wait for some to finish, or cancel them with tasks/cancel`,
      );
    }
    const held = await this.store.count();
    if (held < this.limits.maxTasks) return;
    const oldest = await this.store.oldestFinished();
    // One that runs here was ended through another instance: its run would save it back.
    if (oldest === undefined || this.runsHere(oldest)) {
      throw new McpError(
        ErrorCode.InvalidRequest,
        `Too many unfinished tasks: this server holds ${held} (maxTasks); try again later, or cancel some with tasks/cancel`,
      );
    }
    await this.store.delete(oldest);
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
