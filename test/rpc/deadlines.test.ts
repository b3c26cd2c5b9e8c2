/** Deadlines: many timeouts on one timer, on the monotonic clock, each coming due exactly once. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline, Deadlines } from '../../src/rpc/requests.js';

class Probe extends Deadline {
  constructor(
    readonly name: string,
    private readonly log: string[],
    private readonly fail = false,
  ) {
    super();
  }

  due(): void {
    this.log.push(this.name);
    if (this.fail) throw new Error(`${this.name} failed`);
  }
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Deadlines', () => {
  it('brings each deadline due at its own time, on one timer, whatever the order they were set in', () => {
    const log: string[] = [];
    const deadlines = new Deadlines();
    deadlines.set(new Probe('10min', log), 600_000);
    deadlines.set(new Probe('1min', log), 60_000);
    deadlines.set(new Probe('10min later', log), 600_000);
    vi.advanceTimersByTime(10);
    deadlines.set(new Probe('50ms', log), 50);
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(49);
    expect(log).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['50ms']);
    vi.advanceTimersByTime(60_000 - 60 - 1);
    expect(log).toEqual(['50ms']);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['50ms', '1min']);
    vi.advanceTimersByTime(600_000 - 60_000);
    expect(log).toEqual(['50ms', '1min', '10min', '10min later']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('never brings a cleared deadline due, and can set one again for a new time', () => {
    const log: string[] = [];
    const deadlines = new Deadlines();
    const gone = new Probe('gone', log);
    const moved = new Probe('moved', log);
    deadlines.set(gone, 100);
    deadlines.set(moved, 100);
    deadlines.clear(gone);
    deadlines.set(moved, 300, 100);
    vi.advanceTimersByTime(299);
    expect(log).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['moved']);
  });

  it('is not moved by the wall clock: setting the system time an hour ahead brings nothing due early', () => {
    const log: string[] = [];
    const deadlines = new Deadlines();
    deadlines.set(new Probe('short', log), 100);
    deadlines.set(new Probe('long', log), 600_000);
    vi.setSystemTime(Date.now() + 3_600_000);
    vi.advanceTimersByTime(100);
    expect(log).toEqual(['short']);
    vi.advanceTimersByTime(600_000 - 101);
    expect(log).toEqual(['short']);
    vi.advanceTimersByTime(1);
    expect(log).toEqual(['short', 'long']);
  });

  it('reports a due() that throws and still brings the others due with it', () => {
    const log: string[] = [];
    const errors: unknown[] = [];
    const deadlines = new Deadlines((error) => errors.push(error));
    deadlines.set(new Probe('first', log, true), 100);
    deadlines.set(new Probe('second', log), 100);
    vi.advanceTimersByTime(100);
    expect(log).toEqual(['first', 'second']);
    expect(errors.map((e) => (e as Error).message)).toEqual(['first failed']);
  });
});
