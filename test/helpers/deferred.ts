/** Promises a test settles by hand (deferred, gate), and one turn of the event loop (tick). */

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
