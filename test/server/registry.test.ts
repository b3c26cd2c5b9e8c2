import { describe, expect, it, vi } from 'vitest';
import { McpError } from '../../src/protocol/errors.js';
import { Registry } from '../../src/server/registry.js';

interface Item {
  descriptor: { name: string };
}

const item = (name: string): Item => ({ descriptor: { name } });

function filled(count: number) {
  const onChange = vi.fn();
  const registry = new Registry<Item>('Tool', onChange);
  for (let i = 0; i < count; i++) registry.add(`t${i}`, item(`t${i}`));
  return { registry, onChange };
}

const names = (items: Array<{ name: string }>) => items.map((d) => d.name);

/** The McpError a page() call threw; fails the test when it did not throw one. */
function pageError(registry: Registry<Item>, cursor: unknown): McpError {
  try {
    registry.page(cursor, 2);
  } catch (err) {
    expect(err).toBeInstanceOf(McpError);
    return err as McpError;
  }
  throw new Error(`page(${JSON.stringify(cursor)}) did not throw`);
}

describe('Registry: entries', () => {
  it('adds, gets and removes entries', () => {
    const registry = new Registry<Item>('Tool', () => {});
    const a = item('a');
    registry.add('a', a);
    expect(registry.get('a')).toBe(a);
    expect(registry.size).toBe(1);
    expect([...registry.values()]).toEqual([a]);
    expect(registry.remove('a')).toBe(true);
    expect(registry.get('a')).toBeUndefined();
    expect(registry.size).toBe(0);
    expect(registry.remove('a')).toBe(false);
  });

  it('get returns undefined for a key never added', () => {
    expect(new Registry<Item>('Tool', () => {}).get('nope')).toBeUndefined();
  });

  it('keeps entries in the order they were added', () => {
    const { registry } = filled(3);
    expect([...registry.values()].map((e) => e.descriptor.name)).toEqual(['t0', 't1', 't2']);
  });

  it('throws a message naming the noun and the key when a key is added twice, and keeps the first entry', () => {
    const onChange = vi.fn();
    const registry = new Registry<Item>('Prompt', onChange);
    const first = item('greet');
    registry.add('greet', first);
    expect(() => registry.add('greet', item('greet'))).toThrow("Prompt 'greet' is already registered; remove it before registering it again");
    expect(registry.get('greet')).toBe(first);
    expect(onChange).toHaveBeenCalledTimes(1);
  });

  it('allows a key again after it was removed', () => {
    const registry = new Registry<Item>('Tool', () => {});
    registry.add('a', item('a')).remove();
    const again = item('a');
    expect(() => registry.add('a', again)).not.toThrow();
    expect(registry.get('a')).toBe(again);
  });

  it("a Registration's remove() removes its entry, and later calls do nothing", () => {
    const { registry, onChange } = filled(0);
    const registration = registry.add('a', item('a'));
    registration.remove();
    expect(registry.get('a')).toBeUndefined();
    registration.remove();
    expect(onChange).toHaveBeenCalledTimes(2);
  });

  it("a Registration's remove() does not remove a newer entry under the same key", () => {
    const { registry, onChange } = filled(0);
    const old = registry.add('a', item('old'));
    old.remove();
    const newer = item('new');
    registry.add('a', newer);
    old.remove();
    expect(registry.get('a')).toBe(newer);
    expect(onChange).toHaveBeenCalledTimes(3);
  });

  it('remove(key, entry) removes only when that entry is the one registered', () => {
    const registry = new Registry<Item>('Tool', () => {});
    const current = item('a');
    registry.add('a', current);
    expect(registry.remove('a', item('a'))).toBe(false);
    expect(registry.get('a')).toBe(current);
    expect(registry.remove('a', current)).toBe(true);
    expect(registry.get('a')).toBeUndefined();
  });

  it('calls onChange once per add and once per remove, and not for no-op removes', () => {
    const onChange = vi.fn();
    const registry = new Registry<Item>('Tool', onChange);
    registry.add('a', item('a'));
    expect(onChange).toHaveBeenCalledTimes(1);
    registry.add('b', item('b'));
    expect(onChange).toHaveBeenCalledTimes(2);
    registry.remove('a');
    expect(onChange).toHaveBeenCalledTimes(3);
    registry.remove('a');
    registry.remove('missing');
    expect(onChange).toHaveBeenCalledTimes(3);
  });

  it('calls onChange after the change is visible', () => {
    const seen: Array<number> = [];
    const registry: Registry<Item> = new Registry<Item>('Tool', () => seen.push(registry.size));
    registry.add('a', item('a'));
    registry.add('b', item('b'));
    registry.remove('a');
    expect(seen).toEqual([1, 2, 1]);
  });
});

describe('Registry: page()', () => {
  it('returns every descriptor on one page, without nextCursor, when they fit', () => {
    const { registry } = filled(3);
    const page = registry.page(undefined, 3);
    expect(page).toEqual({ items: [{ name: 't0' }, { name: 't1' }, { name: 't2' }] });
    expect(page).not.toHaveProperty('nextCursor');
  });

  it('returns an empty page without nextCursor for an empty registry', () => {
    const page = new Registry<Item>('Tool', () => {}).page(undefined, 10);
    expect(page).toEqual({ items: [] });
    expect(page).not.toHaveProperty('nextCursor');
  });

  it('splits into pages whose nextCursor round-trips to the next page, and ends without nextCursor', () => {
    const { registry } = filled(5);
    const first = registry.page(undefined, 2);
    expect(names(first.items)).toEqual(['t0', 't1']);
    expect(typeof first.nextCursor).toBe('string');
    const second = registry.page(first.nextCursor, 2);
    expect(names(second.items)).toEqual(['t2', 't3']);
    expect(typeof second.nextCursor).toBe('string');
    expect(second.nextCursor).not.toBe(first.nextCursor);
    const last = registry.page(second.nextCursor, 2);
    expect(last).toEqual({ items: [{ name: 't4' }] });
    expect(last).not.toHaveProperty('nextCursor');
  });

  it('ends without nextCursor when the last page is exactly full', () => {
    const { registry } = filled(4);
    const first = registry.page(undefined, 2);
    expect(names(first.items)).toEqual(['t0', 't1']);
    const last = registry.page(first.nextCursor, 2);
    expect(last).toEqual({ items: [{ name: 't2' }, { name: 't3' }] });
    expect(last).not.toHaveProperty('nextCursor');
  });

  it('walks every entry exactly once across pages', () => {
    const { registry } = filled(7);
    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = registry.page(cursor, 3);
      seen.push(...names(page.items));
      cursor = page.nextCursor;
      pages++;
    } while (cursor !== undefined && pages < 10);
    expect(seen).toEqual(['t0', 't1', 't2', 't3', 't4', 't5', 't6']);
    expect(pages).toBe(3);
  });

  it('gives an opaque cursor that does not show the offset as a plain number', () => {
    const { registry } = filled(3);
    const cursor = registry.page(undefined, 1).nextCursor;
    expect(cursor).toBeDefined();
    expect(cursor).not.toBe('1');
    expect(Number.isNaN(Number(cursor))).toBe(true);
  });

  it('reflects entries added or removed since the last listing', () => {
    const { registry } = filled(2);
    expect(names(registry.page(undefined, 10).items)).toEqual(['t0', 't1']);
    registry.add('t2', item('t2'));
    expect(names(registry.page(undefined, 10).items)).toEqual(['t0', 't1', 't2']);
    registry.remove('t0');
    expect(names(registry.page(undefined, 10).items)).toEqual(['t1', 't2']);
  });

  it.each([
    ['a garbage string', 'not-a-cursor!'],
    ['an empty string', ''],
    ['a number', 2],
    ['null', null],
    ['an object', { offset: 2 }],
    ['base64 of something else', Buffer.from('hello world').toString('base64url')],
    ['base64 of a JSON offset', Buffer.from('{"offset":2}').toString('base64')],
    ['base64 of a negative offset', Buffer.from('o:-2').toString('base64url')],
  ])('throws McpError -32602 for %s as cursor', (_label, cursor) => {
    const { registry } = filled(5);
    const err = pageError(registry, cursor);
    expect(err.code).toBe(-32602);
    const quoted = typeof cursor === 'object' && cursor !== null ? 'an object' : JSON.stringify(cursor);
    expect(err.message).toBe(`Invalid cursor: ${quoted}; pass back a nextCursor from an earlier page`);
  });
});

describe('Registry: page() for sessions before 2026-07-28', () => {
  interface Versioned {
    descriptor: { name: string; v?: string };
    legacyDescriptor?: { name: string; v?: string };
  }
  const plain = (name: string): Versioned => ({ descriptor: { name } });
  const same = (name: string): Versioned => {
    const descriptor = { name };
    return { descriptor, legacyDescriptor: descriptor };
  };
  const older = (name: string): Versioned => ({ descriptor: { name, v: 'new' }, legacyDescriptor: { name, v: 'old' } });

  it('shares the one listing when no entry has a legacy descriptor of its own', () => {
    const registry = new Registry<Versioned>('Tool', () => {});
    registry.add('a', plain('a'));
    registry.add('b', same('b'));
    const modern = registry.page(undefined, 10).items;
    expect(registry.page(undefined, 10, true).items).toBe(modern);
    expect(Object.isFrozen(modern)).toBe(true);
  });

  it('lists the legacy descriptor where one differs, and shares the one listing again once that entry is gone', () => {
    const registry = new Registry<Versioned>('Tool', () => {});
    registry.add('a', same('a'));
    const b = registry.add('b', older('b'));
    registry.add('c', plain('c'));
    expect(registry.page(undefined, 10).items).toEqual([{ name: 'a' }, { name: 'b', v: 'new' }, { name: 'c' }]);
    const legacy = registry.page(undefined, 10, true).items;
    expect(legacy).toEqual([{ name: 'a' }, { name: 'b', v: 'old' }, { name: 'c' }]);
    expect(registry.page(undefined, 10, true).items).toBe(legacy);
    expect(registry.page(registry.page(undefined, 2, true).nextCursor, 2, true)).toEqual({ items: [{ name: 'c' }] });
    b.remove();
    expect(registry.page(undefined, 10, true).items).toBe(registry.page(undefined, 10).items);
    expect(registry.page(undefined, 10, true).items).toEqual([{ name: 'a' }, { name: 'c' }]);
  });

  it('counts a differing entry out only when it is the one removed', () => {
    const registry = new Registry<Versioned>('Tool', () => {});
    registry.add('b', older('b'));
    expect(registry.remove('b', older('b'))).toBe(false);
    expect(registry.page(undefined, 10, true).items).toEqual([{ name: 'b', v: 'old' }]);
  });
});
