import { describe, expect, it } from 'vitest';
import { RequestIds } from '../../src/rpc/requests.js';
import { TaggedRequestIds } from '../../src/rpc/tagged-request-ids.js';

describe('RequestIds', () => {
  it('counts up from its first id, and knows which ids it gave out', () => {
    const ids = new RequestIds(1);
    expect([ids.next(), ids.next(), ids.next()]).toEqual([1, 2, 3]);
    expect([0, 1, 3, 4, 2.5, '1', -1].map((id) => ids.issued(id))).toEqual([false, true, true, false, false, false, false]);
    expect(new RequestIds().next()).toBe(0);
  });

  it('with a tag: strings that carry it, counted from 1, and only those it gave out are its', () => {
    const ids = new TaggedRequestIds('sb.abc.');
    expect([ids.next(), ids.next()]).toEqual(['sb.abc.1', 'sb.abc.2']);
    expect(['sb.abc.1', 'sb.abc.2', 'sb.abc.3', 'sb.abc.0', 'sb.abc.1.5', 'sb.xyz.1', 1, 2].map((id) => ids.issued(id))).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });
});
