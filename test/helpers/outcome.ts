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
