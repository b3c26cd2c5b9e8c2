/**
 * Tiny test utilities shared by every kind of test: a per-test cleanup stack, promises a test resolves
 * by hand (deferred, gate), one turn of the event loop (tick), a fake clock for timeouts, a promise's
 * outcome captured without throwing, the V8 message of a JSON parse error, and an inbox that hands out
 * what arrives in order.
 */
import { afterEach, expect, vi } from 'vitest';

export type Cleanup = () => unknown;

export interface Cleanups {
  /** Run `cleanup` after the test; cleanups run one at a time, the last pushed first. */
  push(...cleanups: Cleanup[]): void;
}

/** Call once at the top level of a test file (or a helper's `use…`): registers the `afterEach` that runs the cleanups. */
export function useCleanups(): Cleanups {
  const stack: Cleanup[] = [];
  afterEach(async () => {
    while (stack.length > 0) await stack.pop()!();
  });
  return {
    push(...cleanups) {
      stack.push(...cleanups);
    },
  };
}

export interface Deferred<T> {
  promise: Promise<T>;
  resolve(value: T): void;
}

/** A promise and the function that resolves it. */
export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** A latch a test opens by hand. */
export function gate(): { open: () => void; opened: Promise<void> } {
  const latch = deferred();
  return { open: () => latch.resolve(), opened: latch.promise };
}

/** Let pending I/O callbacks and microtasks run (one turn of the event loop). */
export function tick(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Call once at the top level of a test file, after its harness: returns `fake()`, which fakes the clocks
 * request deadlines run on (setTimeout, clearTimeout, Date and performance) until the end of the test, so time moves
 * only with `vi.advanceTimersByTime`. Fake them once the sockets are connected and before the request
 * whose deadline the test follows. Socket I/O, setImmediate and microtasks keep running.
 */
export function useFakeClock(): () => void {
  afterEach(() => {
    vi.useRealTimers();
  });
  return () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
  };
}

/**
 * On a fake clock: `observe()` still gives `before` when the clock has moved to 1 ms short of `ms` from
 * now, and gives `at` once it has moved the last millisecond.
 */
export function expectAtDeadline(ms: number, observe: () => unknown, expected: { before: unknown; at: unknown }): void {
  vi.advanceTimersByTime(ms - 1);
  expect(observe()).toEqual(expected.before);
  vi.advanceTimersByTime(1);
  expect(observe()).toEqual(expected.at);
}

/** A promise's outcome, captured at once so a rejection is never unhandled. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export function capture<T>(promise: Promise<T>): { outcome: Promise<Outcome<T>>; settled: () => boolean } {
  let done = false;
  const outcome = promise.then(
    (value): Outcome<T> => ((done = true), { ok: true, value }),
    (error: unknown): Outcome<T> => ((done = true), { ok: false, error }),
  );
  return { outcome, settled: () => done };
}

/** The message JSON.parse gives for `text`, so parse-error assertions do not depend on the V8 version. */
export function parseErrorMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parses`);
}

/** Items in arrival order: `all` keeps every one, `next()` hands them out one by one. */
export interface Inbox<T> {
  readonly all: T[];
  push(item: T): void;
  next(): Promise<T>;
}

export function inbox<T>(what: string): Inbox<T> {
  const all: T[] = [];
  let taken = 0;
  const waiting: ((item: T) => void)[] = [];
  return {
    all,
    push(item) {
      all.push(item);
      const waiter = waiting.shift();
      if (waiter) {
        taken++;
        waiter(item);
      }
    },
    next() {
      if (taken < all.length) return Promise.resolve(all[taken++]);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no further ${what} within 5000 ms`)), 5000);
        waiting.push((item) => {
          clearTimeout(timer);
          resolve(item);
        });
      });
    },
  };
}
