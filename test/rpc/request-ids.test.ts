import { describe, expect, it } from 'vitest';
import { RequestIds } from '../../src/rpc/requests.js';

describe('RequestIds', () => {
  it('counts up from its first id, and knows which ids it gave out', () => {
    const ids = new RequestIds(1);
    expect([ids.next(), ids.next(), ids.next()]).toEqual([1, 2, 3]);
    expect([0, 1, 3, 4, 2.5, '1', -1].map((id) => ids.issued(id))).toEqual([false, true, true, false, false, false, false]);
    expect(new RequestIds().next()).toBe(0);
  });
});
