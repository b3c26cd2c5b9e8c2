import { afterEach, describe, expect, it, vi } from 'vitest';
import { settlesWithin } from '../../src/rpc/settles-within.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('settlesWithin', () => {
  it('is true for a promise that fulfils or rejects in time, false for one that does not', async () => {
    expect(await settlesWithin(Promise.resolve(1), 10)).toBe(true);
    expect(await settlesWithin(Promise.reject(new Error('x')), 10)).toBe(true);
    expect(await settlesWithin(new Promise(() => {}), 10)).toBe(false);
  });

  it('checks a condition now and then every 50 ms, until it holds or the time is up', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let holds = false;
    const checks = vi.fn(() => holds);
    const within = settlesWithin(checks, 200);
    expect(checks).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(100);
    expect(checks).toHaveBeenCalledTimes(3);
    holds = true;
    await vi.advanceTimersByTimeAsync(50);
    expect(await within).toBe(true);
    const never = settlesWithin(() => false, 120);
    await vi.advanceTimersByTimeAsync(120);
    expect(await never).toBe(false);
  });

  it('resolves at once for a condition that already holds', async () => {
    expect(await settlesWithin(() => true, 0)).toBe(true);
  });
});
