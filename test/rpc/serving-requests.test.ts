import { describe, expect, it } from 'vitest';
import { ServingRequests } from '../../src/rpc/requests.js';

describe('ServingRequests: the requests from the other end being answered', () => {
  it('cancel takes the request out of the table before it aborts it, once, with the reason', () => {
    const serving = new ServingRequests();
    const control = new AbortController();
    let inTableWhenAborted: boolean | undefined;
    control.signal.addEventListener('abort', () => (inTableWhenAborted = serving.has(1)));
    serving.add(1, control);
    expect(serving.cancel(1, 'no longer needed')).toBe(true);
    expect(control.signal.reason).toBe('no longer needed');
    expect(inTableWhenAborted).toBe(false);
    expect(serving.cancel(1, 'again')).toBe(false);
    expect(serving.cancel('never', 'x')).toBe(false);
  });

  it('remove leaves an id alone once a later request has taken it', () => {
    const serving = new ServingRequests();
    const first = new AbortController();
    const second = new AbortController();
    serving.add(7, first);
    serving.add(7, second);
    serving.remove(7, first);
    expect(serving.has(7)).toBe(true);
    serving.remove(7, second);
    expect(serving.size).toBe(0);
  });

  it('cancelAll empties the table and aborts everything with the reason', () => {
    const serving = new ServingRequests();
    const controls = [new AbortController(), new AbortController()];
    for (const [i, control] of controls.entries()) serving.add(i, control);
    serving.cancelAll('gone');
    expect(serving.size).toBe(0);
    expect(controls.map((c) => c.signal.reason)).toEqual(['gone', 'gone']);
  });
});
