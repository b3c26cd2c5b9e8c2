/** The heap a test can reason about: what is still reachable once garbage has been collected. */
import { garbageCollector } from './fuzz.js';

export const MiB = 1024 * 1024;

/** Bytes of the heap in use after two full collections (the second takes what the first's finalizers let go). */
export function heapUsedAfterGc(): number {
  const gc = garbageCollector();
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

/** A byte count in MiB, for assertion messages and reports. */
export function inMiB(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MiB`;
}
