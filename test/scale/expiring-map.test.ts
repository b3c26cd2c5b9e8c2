/** The bounded map of what a session router remembers: entries last their TTL, and the oldest go first at the bound. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ExpiringMap } from '../../src/scale/expiring-map.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('ExpiringMap', () => {
  it('forgets an entry once its TTL has run out', () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const map = new ExpiringMap<string>(10, 1000);
    map.set('a', 'one');
    vi.setSystemTime(Date.now() + 999);
    expect(map.get('a')).toBe('one');
    vi.setSystemTime(Date.now() + 1);
    expect(map.get('a')).toBeUndefined();
  });

  it('holds maxEntries at most, the oldest going first; setting an entry again makes it the newest', () => {
    const map = new ExpiringMap<number>(3, 60_000);
    for (const [key, value] of [
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ] as const)
      map.set(key, value);
    map.set('a', 10);
    map.set('d', 4);
    expect(['a', 'b', 'c', 'd'].map((key) => map.get(key))).toEqual([10, undefined, 3, 4]);
    map.delete('c');
    map.set('e', 5);
    expect(['a', 'c', 'd', 'e'].map((key) => map.get(key))).toEqual([10, undefined, 4, 5]);
  });
});
