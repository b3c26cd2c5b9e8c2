/** Items in arrival order: `all` keeps every one, `next()` hands them out one by one. */
export interface Inbox<T> {
  readonly all: T[];
  push(item: T): void;
  next(): Promise<T>;
}

export function inbox<T>(what: string): Inbox<T> {
  const all: T[] = [];
  let taken = 0;
  const waiting: ((item: T) => void)[] = [];
  return {
    all,
    push(item) {
      all.push(item);
      const waiter = waiting.shift();
      if (waiter) {
        taken++;
        waiter(item);
      }
    },
    next() {
      if (taken < all.length) return Promise.resolve(all[taken++]);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no further ${what} within 5000 ms`)), 5000);
        waiting.push((item) => {
          clearTimeout(timer);
          resolve(item);
        });
      });
    },
  };
}
