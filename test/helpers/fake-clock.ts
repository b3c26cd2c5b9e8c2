/** A fake clock for the deadlines a test follows: time moves only when the test moves it. */
import { afterEach, expect, vi } from 'vitest';

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
