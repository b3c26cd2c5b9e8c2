/** A per-test cleanup stack: what a test opens, closed after it, the last opened first. */
import { afterAll, afterEach } from 'vitest';

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

/** Like `useCleanups`, for what a `beforeAll` opens: the cleanups run once, after every test of the file or `describe`. */
export function useSuiteCleanups(): Cleanups {
  const stack: Cleanup[] = [];
  afterAll(async () => {
    while (stack.length > 0) await stack.pop()!();
  });
  return {
    push(...cleanups) {
      stack.push(...cleanups);
    },
  };
}
