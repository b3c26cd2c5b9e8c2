import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConnectionClosedError, McpError, RequestCancelledError, RequestTimeoutError } from '../../src/protocol/errors.js';
import type { RequestId } from '../../src/protocol/types.js';
import { PendingRequests, type PendingEntryOptions, type RequestOutcome, RequestIds } from '../../src/rpc/requests.js';

const METHOD = 'elicitation/create';

function setup() {
  const onAbandon = vi.fn<(id: RequestId, reason: string) => void>();
  // The third argument (the entry's options) is for the table's owner; these tests watch id and reason.
  const pending = new PendingRequests((id, reason) => onAbandon(id, reason));
  const settled = new Map<RequestId, RequestOutcome[]>();
  const add = (id: RequestId, options: Partial<PendingEntryOptions> = {}) => {
    const onSettle = vi.fn((outcome: RequestOutcome) => {
      settled.set(id, [...(settled.get(id) ?? []), outcome]);
    });
    pending.add(id, { method: METHOD, timeoutMs: 1000, onSettle, ...options });
    return onSettle;
  };
  return { pending, onAbandon, add, settled };
}

/** The single error an entry settled with; fails the test unless it settled exactly once, with an error. */
function onlyError(onSettle: ReturnType<typeof vi.fn>): McpError {
  expect(onSettle).toHaveBeenCalledTimes(1);
  const outcome = onSettle.mock.calls[0][0] as RequestOutcome;
  expect(outcome.ok).toBe(false);
  if (outcome.ok) throw new Error('settled with a result');
  return outcome.error;
}

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(() => {
  vi.useRealTimers();
});

describe('PendingRequests: ids and the table', () => {
  it('nextId counts 0, 1, 2, ... per table', () => {
    const a = new PendingRequests(() => {});
    const b = new PendingRequests(() => {});
    expect([a.nextId(), a.nextId(), a.nextId()]).toEqual([0, 1, 2]);
    expect(b.nextId()).toBe(0);
    expect(a.nextId()).toBe(3);
  });

  it('tracks entries with has, size and method', () => {
    const { pending, add } = setup();
    expect(pending.size).toBe(0);
    add(1);
    add('b', { method: 'roots/list' });
    expect(pending.size).toBe(2);
    expect(pending.has(1)).toBe(true);
    expect(pending.has('b')).toBe(true);
    expect(pending.has(2)).toBe(false);
    expect(pending.method(1)).toBe(METHOD);
    expect(pending.method('b')).toBe('roots/list');
    expect(pending.method(2)).toBeUndefined();
  });

  it('throws when an id that is still pending is added again, and leaves the first entry alone', () => {
    const { pending, add } = setup();
    const first = add(1);
    const second = vi.fn();
    expect(() => pending.add(1, { method: 'roots/list', timeoutMs: 10, onSettle: second })).toThrow('request id 1 is already pending; ids must not be reused');
    expect(() => pending.add('x', { method: METHOD, timeoutMs: 10, onSettle: () => {} })).not.toThrow();
    expect(() => pending.add('x', { method: METHOD, timeoutMs: 10, onSettle: () => {} })).toThrow('request id "x" is already pending; ids must not be reused');
    expect(pending.method(1)).toBe(METHOD);
    // The rejected add armed no timer of its own: only the first entry times out, at its own 1000 ms.
    vi.advanceTimersByTime(10);
    expect(second).not.toHaveBeenCalled();
    expect(pending.has(1)).toBe(true);
    expect(pending.reply(1, { ok: true, result: {} })).toBe('settled');
    expect(first).toHaveBeenCalledWith({ ok: true, result: {} });
  });
});

describe('PendingRequests: each way an entry ends', () => {
  it('a result reply settles once with the result and ends the entry', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(0);
    expect(pending.reply(0, { ok: true, result: { action: 'accept', content: { name: 'a' } } })).toBe('settled');
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onSettle).toHaveBeenCalledWith({ ok: true, result: { action: 'accept', content: { name: 'a' } } });
    expect(pending.has(0)).toBe(false);
    expect(pending.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('an error reply settles once with that error', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(0);
    const error = new McpError(-32602, 'undeclared elicitation mode');
    expect(pending.reply(0, { ok: false, error })).toBe('settled');
    expect(onlyError(onSettle)).toBe(error);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('a timeout settles once with RequestTimeoutError at exactly timeoutMs and calls onAbandon', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(4, { timeoutMs: 1000 });
    vi.advanceTimersByTime(999);
    expect(onSettle).not.toHaveBeenCalled();
    expect(pending.has(4)).toBe(true);
    vi.advanceTimersByTime(1);
    const error = onlyError(onSettle);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    expect(error.code).toBe(-32001);
    expect(error.message).toBe('elicitation/create timed out after 1000 ms without a reply; raise timeoutMs if a person has to answer it');
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith(4, 'timed out after 1000 ms');
    expect(pending.has(4)).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledTimes(1);
  });

  it('cancel settles once with RequestCancelledError, calls onAbandon with the reason, and returns true', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add('c');
    expect(pending.cancel('c', 'user left')).toBe(true);
    const error = onlyError(onSettle);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.code).toBe(-32800);
    expect(error.message).toBe('elicitation/create was cancelled: user left');
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith('c', 'user left');
    expect(pending.cancel('c', 'again')).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledTimes(1);
  });

  it('cancel without a reason tells the peer "cancelled by the server"', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(1);
    expect(pending.cancel(1)).toBe(true);
    expect(onlyError(onSettle).message).toBe('elicitation/create was cancelled');
    expect(onAbandon).toHaveBeenCalledWith(1, 'cancelled by the server');
  });

  it('cancel of an id that is not pending returns false and tells nobody', () => {
    const { pending, onAbandon } = setup();
    expect(pending.cancel(99, 'x')).toBe(false);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('fail settles once with the given error and does not call onAbandon', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(2);
    const error = new ConnectionClosedError(METHOD, 'the transport could not deliver it');
    expect(pending.fail(2, error)).toBe(true);
    expect(onlyError(onSettle)).toBe(error);
    expect(pending.fail(2, error)).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('closeAll settles every entry once with ConnectionClosedError and does not call onAbandon', () => {
    const { pending, onAbandon, add } = setup();
    const a = add(0);
    const b = add(1, { method: 'roots/list' });
    pending.closeAll('session closed');
    const errA = onlyError(a);
    const errB = onlyError(b);
    expect(errA).toBeInstanceOf(ConnectionClosedError);
    expect(errA.code).toBe(-32000);
    expect(errA.message).toBe('elicitation/create could not complete: session closed');
    expect(errB.message).toBe('roots/list could not complete: session closed');
    expect(pending.size).toBe(0);
    pending.closeAll('again');
    vi.advanceTimersByTime(5000);
    expect(a).toHaveBeenCalledTimes(1);
    expect(b).toHaveBeenCalledTimes(1);
    expect(onAbandon).not.toHaveBeenCalled();
  });

  it('an entry whose abort signal fires settles once with RequestCancelledError and calls onAbandon with the abort reason', () => {
    const { pending, onAbandon, add } = setup();
    const controller = new AbortController();
    const onSettle = add(3, { signal: controller.signal });
    controller.abort('no longer needed');
    const error = onlyError(onSettle);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe('elicitation/create was cancelled: no longer needed');
    expect(error.data).toEqual({ reason: 'no longer needed' });
    expect(onAbandon).toHaveBeenCalledTimes(1);
    expect(onAbandon).toHaveBeenCalledWith(3, 'no longer needed');
    expect(pending.has(3)).toBe(false);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
  });

  it('takes the reason from an Error abort reason, and "This operation was aborted" from a plain abort()', () => {
    const { onAbandon, add } = setup();
    const withError = new AbortController();
    const plain = new AbortController();
    const a = add(1, { signal: withError.signal });
    const b = add(2, { signal: plain.signal });
    withError.abort(new Error('shutting down'));
    plain.abort();
    expect(onlyError(a).message).toBe('elicitation/create was cancelled: shutting down');
    expect(onlyError(b).message).toBe('elicitation/create was cancelled: This operation was aborted');
    expect(onAbandon.mock.calls).toEqual([
      [1, 'shutting down'],
      [2, 'This operation was aborted'],
    ]);
  });

  it('an already-aborted signal settles in a microtask with RequestCancelledError and does not call onAbandon', async () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(5, { signal: AbortSignal.abort('too late') });
    expect(onSettle).not.toHaveBeenCalled();
    await Promise.resolve();
    const error = onlyError(onSettle);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect(error.message).toBe('elicitation/create was cancelled: too late');
    expect(pending.has(5)).toBe(false);
    expect(pending.size).toBe(0);
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onAbandon).not.toHaveBeenCalled();
    expect(pending.reply(5, { ok: true, result: {} })).toBe('late');
  });

  it('an abort after the reply does nothing', () => {
    const { pending, onAbandon, add } = setup();
    const controller = new AbortController();
    const onSettle = add(6, { signal: controller.signal });
    pending.reply(6, { ok: true, result: {} });
    controller.abort('after the fact');
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onSettle).toHaveBeenCalledWith({ ok: true, result: {} });
    expect(onAbandon).not.toHaveBeenCalled();
  });
});

describe('PendingRequests: the entry leaves the table before onSettle runs', () => {
  const endings: Array<[string, (pending: PendingRequests, id: RequestId, controller: AbortController) => void]> = [
    ['a result reply', (p, id) => p.reply(id, { ok: true, result: {} })],
    ['an error reply', (p, id) => p.reply(id, { ok: false, error: new McpError(-1, 'no') })],
    ['a timeout', () => vi.advanceTimersByTime(1000)],
    ['cancel', (p, id) => p.cancel(id, 'x')],
    ['an abort', (_p, _id, controller) => controller.abort()],
    ['fail', (p, id) => p.fail(id, new McpError(-1, 'no'))],
    ['closeAll', (p) => p.closeAll('gone')],
  ];

  it.each(endings)('for %s', (label, end) => {
    const onAbandon = vi.fn();
    // The third argument (the entry's options) is for the table's owner; these tests watch id and reason.
    const pending = new PendingRequests((id, reason) => onAbandon(id, reason));
    const controller = new AbortController();
    const seen: Array<{ has: boolean; size: number }> = [];
    pending.add('other', { method: 'roots/list', timeoutMs: 60_000, onSettle: () => {} });
    pending.add(7, {
      method: METHOD,
      timeoutMs: 1000,
      signal: controller.signal,
      onSettle: () => seen.push({ has: pending.has(7), size: pending.size }),
    });
    end(pending, 7, controller);
    expect(seen).toHaveLength(1);
    expect(seen[0].has).toBe(false);
    // closeAll removes entries one at a time; everything else leaves 'other' pending.
    expect(seen[0].size).toBe(label === 'closeAll' ? 0 : 1);
  });

  it('for closeAll, each entry is gone when its own onSettle runs', () => {
    const pending = new PendingRequests(() => {});
    const seen: Array<[RequestId, boolean]> = [];
    for (const id of [1, 2, 3]) {
      pending.add(id, { method: METHOD, timeoutMs: 1000, onSettle: () => seen.push([id, pending.has(id)]) });
    }
    pending.closeAll('gone');
    expect(seen).toEqual([
      [1, false],
      [2, false],
      [3, false],
    ]);
  });
});

describe('PendingRequests: how replies match', () => {
  it('answers settled, then duplicate for a second reply to the same id', () => {
    const { pending, add } = setup();
    const onSettle = add(1);
    expect(pending.reply(1, { ok: true, result: { n: 1 } })).toBe('settled');
    expect(pending.reply(1, { ok: true, result: { n: 2 } })).toBe('duplicate');
    expect(pending.reply(1, { ok: false, error: new McpError(-1, 'x') })).toBe('duplicate');
    expect(onSettle).toHaveBeenCalledTimes(1);
    expect(onSettle).toHaveBeenCalledWith({ ok: true, result: { n: 1 } });
  });

  it('answers late for a reply after a timeout, without settling again', () => {
    const { pending, add } = setup();
    const onSettle = add(1);
    vi.advanceTimersByTime(1000);
    expect(pending.reply(1, { ok: true, result: {} })).toBe('late');
    expect(onSettle).toHaveBeenCalledTimes(1);
  });

  it('answers late for a reply after a cancel', () => {
    const { pending, add } = setup();
    const onSettle = add('k');
    pending.cancel('k');
    expect(pending.reply('k', { ok: true, result: {} })).toBe('late');
    expect(onSettle).toHaveBeenCalledTimes(1);
  });

  it('answers late for a reply after fail or closeAll', () => {
    const { pending, add } = setup();
    add(1);
    add(2);
    pending.fail(1, new McpError(-1, 'x'));
    pending.closeAll('gone');
    expect(pending.reply(1, { ok: true, result: {} })).toBe('late');
    expect(pending.reply(2, { ok: true, result: {} })).toBe('late');
  });

  it('answers unknown for ids that were never sent', () => {
    const { pending, add } = setup();
    add(1);
    expect(pending.reply(2, { ok: true, result: {} })).toBe('unknown');
    expect(pending.reply('1', { ok: true, result: {} })).toBe('unknown');
    expect(pending.has(1)).toBe(true);
  });
});

describe('PendingRequests: progress and the timeout', () => {
  it('progress re-arms the timeout when resetTimeoutOnProgress is set', () => {
    const { pending, add } = setup();
    const onSettle = add(1, { timeoutMs: 1000, resetTimeoutOnProgress: true });
    vi.advanceTimersByTime(800);
    pending.progress(1);
    vi.advanceTimersByTime(999);
    expect(onSettle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onlyError(onSettle)).toBeInstanceOf(RequestTimeoutError);
  });

  it('progress does not move the timeout without resetTimeoutOnProgress', () => {
    const { pending, add } = setup();
    const onSettle = add(1, { timeoutMs: 1000 });
    vi.advanceTimersByTime(800);
    pending.progress(1);
    vi.advanceTimersByTime(199);
    expect(onSettle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    expect(onlyError(onSettle)).toBeInstanceOf(RequestTimeoutError);
  });

  it('progress never extends the wait past maxTotalTimeoutMs', () => {
    const { pending, onAbandon, add } = setup();
    const onSettle = add(1, { timeoutMs: 1000, maxTotalTimeoutMs: 1500, resetTimeoutOnProgress: true });
    vi.advanceTimersByTime(900);
    pending.progress(1);
    vi.advanceTimersByTime(500);
    pending.progress(1);
    vi.advanceTimersByTime(99);
    expect(onSettle).not.toHaveBeenCalled();
    vi.advanceTimersByTime(1);
    const error = onlyError(onSettle);
    expect(error).toBeInstanceOf(RequestTimeoutError);
    // The cap ended it: the error names the whole wait, not the timeout progress kept restarting.
    expect(error.data).toEqual({ timeoutMs: 1500 });
    expect(onAbandon).toHaveBeenCalledWith(1, 'timed out after 1500 ms');
  });

  it('repeated progress keeps a request alive well past timeoutMs when there is no cap', () => {
    const { pending, add } = setup();
    const onSettle = add(1, { timeoutMs: 1000, resetTimeoutOnProgress: true });
    for (let i = 0; i < 10; i++) {
      vi.advanceTimersByTime(900);
      pending.progress(1);
    }
    expect(onSettle).not.toHaveBeenCalled();
    expect(pending.reply(1, { ok: true, result: {} })).toBe('settled');
  });

  it('progress for an id that is not pending does nothing', () => {
    const { pending, add } = setup();
    const onSettle = add(1, { resetTimeoutOnProgress: true });
    expect(() => pending.progress(2)).not.toThrow();
    pending.reply(1, { ok: true, result: {} });
    expect(() => pending.progress(1)).not.toThrow();
    vi.advanceTimersByTime(5000);
    expect(onSettle).toHaveBeenCalledTimes(1);
  });
});

describe('PendingRequests: the memory of ended ids is bounded', () => {
  it('tells late and duplicate replies apart for the last 1024 ended ids, and forgets whole generations past that', () => {
    const { pending, add } = setup();
    for (let id = 0; id < 2048; id++) {
      add(id);
      if (id % 2 === 0) pending.reply(id, { ok: true, result: {} });
      else pending.cancel(id, 'x');
    }
    // 2048 ended: the first generation (ids 0..1023) was dropped whole when the second filled.
    expect([pending.reply(2046, { ok: true, result: {} }), pending.reply(2047, { ok: true, result: {} })]).toEqual(['duplicate', 'late']);
    expect([pending.reply(1024, { ok: true, result: {} }), pending.reply(1025, { ok: true, result: {} })]).toEqual(['duplicate', 'late']);
    expect(pending.reply(1023, { ok: true, result: {} })).toBe('unknown');
    expect(pending.reply(0, { ok: true, result: {} })).toBe('unknown');
  });
});

describe('PendingRequests: what each end adds', () => {
  it("calls the entry's own onAbandon, then the table's, when it is given up", () => {
    const { pending, onAbandon } = setup();
    const order: string[] = [];
    onAbandon.mockImplementation(() => void order.push('table'));
    pending.add(1, { method: METHOD, timeoutMs: 1000, onSettle: () => order.push('settled'), onAbandon: (reason) => order.push(`entry: ${reason}`) });
    pending.cancel(1, 'stop');
    expect(order).toEqual(['settled', 'entry: stop', 'table']);
  });

  it('counts ids from the allocator it is given, and knows which it gave out', () => {
    const pending = new PendingRequests(undefined, undefined, new RequestIds(1));
    expect([pending.nextId(), pending.nextId()]).toEqual([1, 2]);
    expect([pending.issued(0), pending.issued(2), pending.issued(3)]).toEqual([false, true, false]);
  });
});
