/** Checks shared by every component's options, made once at construction with a message per wrong option. */

/** Node's timers fire at once for delays above 2^31 - 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

export function positiveInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || (value as number) <= 0 || (value as number) > max) {
    throw new TypeError(`Option ${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}; got ${JSON.stringify(value)}`);
  }
}
