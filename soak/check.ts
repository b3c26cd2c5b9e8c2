/** Checks that say what was expected: a failed one throws an error whose message is the soak's error text. */
import { isDeepStrictEqual } from 'node:util';

const MAX_SHOWN = 400;

export function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > MAX_SHOWN ? `${text.slice(0, MAX_SHOWN)}…` : text;
}

export function expectEqual(actual: unknown, expected: unknown, what: string): void {
  if (!isDeepStrictEqual(actual, expected)) throw new Error(`${what}: expected ${shown(expected)}, got ${shown(actual)}`);
}

export function expectThat(ok: boolean, what: string, got: unknown): void {
  if (!ok) throw new Error(`${what}, got ${shown(got)}`);
}

/** `promise`, or an error naming `what` when it takes longer than `ms`. */
export function within<T>(ms: number, what: string, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s: ${what}`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}
