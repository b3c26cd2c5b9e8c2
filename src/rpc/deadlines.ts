/**
 * Timeouts of many requests on one timer. A request that waits on a person holds a 10-minute timeout,
 * and a Node Timeout object per request (made, unref'd, cleared) was the costliest part of sending one.
 * Deadlines of one duration mostly come due in the order they were set, so each duration keeps a list
 * ordered by due time, and one timer waits for the earliest head of all. Time is the monotonic clock
 * (`performance.now()`), as Node's timers keep it: setting the wall clock moves no deadline.
 */
import { unref } from './unref.js';

/** Milliseconds on the monotonic clock. */
export function monotonicNow(): number {
  return performance.now();
}

/** Something with a deadline: `due()` runs when it comes, unless it was cleared first. */
export abstract class Deadline {
  /** When it comes due (monotonic ms); undefined while not set. */
  at: number | undefined = undefined;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  list: DeadlineList | undefined = undefined;

  abstract due(): void;
}

class DeadlineList {
  head: Deadline | undefined;
  tail: Deadline | undefined;
}

export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (monotonic ms). */
  private timerAt = Number.POSITIVE_INFINITY;

  /** @param onError where a `due()` that throws is reported: the others due with it still run. */
  constructor(private readonly onError: (error: unknown) => void = (error) => console.error('[switchboard]', error)) {}

  /** Set `deadline` to come due `ms` from now; `duration` names its list (the request's own timeout). */
  set(deadline: Deadline, ms: number, duration = ms): void {
    if (deadline.list) this.unlink(deadline);
    const at = monotonicNow() + ms;
    deadline.at = at;
    let list = this.lists.get(duration);
    if (!list) this.lists.set(duration, (list = new DeadlineList()));
    // From the tail: a deadline of the list's own duration is due last, so this is one step.
    let after = list.tail;
    while (after && (after.at as number) > at) after = after.prev;
    deadline.list = list;
    deadline.prev = after;
    deadline.next = after ? after.next : list.head;
    if (deadline.next) deadline.next.prev = deadline;
    else list.tail = deadline;
    if (after) after.next = deadline;
    else list.head = deadline;
    if (at < this.timerAt) this.arm(at);
  }

  clear(deadline: Deadline): void {
    if (deadline.list) this.unlink(deadline);
    deadline.at = undefined;
  }

  private unlink(deadline: Deadline): void {
    const list = deadline.list as DeadlineList;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else list.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    else list.tail = deadline.prev;
    deadline.prev = deadline.next = deadline.list = undefined;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - monotonicNow()));
    unref(this.timer);
  }

  private fire(): void {
    // A timer never fires before its time, though its clock and ours may differ by a millisecond.
    const now = Math.max(monotonicNow(), this.timerAt);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const due: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [duration, list] of this.lists) {
      while (list.head && (list.head.at as number) <= now) {
        const deadline = list.head;
        this.unlink(deadline);
        deadline.at = undefined;
        due.push(deadline);
      }
      if (list.head) next = Math.min(next, list.head.at as number);
      else this.lists.delete(duration);
    }
    // Re-armed before the callbacks run, so a deadline they set finds the timer in place.
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const deadline of due) {
      try {
        deadline.due();
      } catch (error) {
        this.onError(error);
      }
    }
  }
}
