/**
 * Bounded waits whose failure names what was awaited: a promise `within` a time, a probe `until` it holds.
 * Both count real time, so a test's fake clock neither moves nor stops them.
 */
import { setTimeout as sleep } from 'node:timers/promises';

/** `promise`, or a failure naming `what` once `ms` have passed without an outcome. */
export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  const timer = new AbortController();
  const timeout = sleep(ms, undefined, { signal: timer.signal }).then(
    () => Promise.reject(new Error(`timed out after ${ms} ms waiting for ${what}`)),
    () => new Promise<never>(() => {}),
  );
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    timer.abort();
  }
}

/**
 * Probe every 10 ms until `done` holds for what `probe` gives (by default: until it gives something truthy),
 * and resolve with that; a probe that throws has not held yet. Fails after `timeoutMs` naming `what` and
 * the last value (or error) seen.
 */
export async function until<T>(probe: () => T | Promise<T>, what: string, done: (value: T) => boolean = Boolean, timeoutMs = 5000): Promise<T> {
  let expired = false;
  const timer = new AbortController();
  sleep(timeoutMs, undefined, { signal: timer.signal }).then(
    () => (expired = true),
    () => {},
  );
  try {
    for (;;) {
      let last: string;
      try {
        const value = await probe();
        if (done(value)) return value;
        last = JSON.stringify(value);
      } catch (err) {
        last = String(err);
      }
      if (expired) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; last: ${last}`);
      await sleep(10);
    }
  } finally {
    timer.abort();
  }
}
