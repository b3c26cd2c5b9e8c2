/**
 * How often a transport looks for sessions idle past `sessionIdleTimeoutMs`: twice per timeout, so one
 * is closed at most half a timeout late, but not more often than every 10 ms nor less than every minute.
 */
export function idleSweepIntervalMs(sessionIdleTimeoutMs: number): number {
  return Math.min(Math.max(Math.floor(sessionIdleTimeoutMs / 2), 10), 60_000);
}
