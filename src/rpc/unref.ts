/** Node's timers can be told not to hold the process open; a browser's are plain numbers, and need not be. */
export function unref(timer: ReturnType<typeof setTimeout>): void {
  (timer as { unref?: () => void }).unref?.();
}
