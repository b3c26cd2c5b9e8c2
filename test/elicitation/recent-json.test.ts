/** Recognising a form schema seen lately by its content, without serialising it, and never by mistake. */
import { describe, expect, it } from 'vitest';
import { recentJson, rememberJson } from '../../src/elicitation/elicit.js';

const schema = () => ({
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
  required: ['name'],
});

describe('recentJson', () => {
  it('finds the JSON of a new object with the content of a schema it remembers, in any key order', () => {
    const json = JSON.stringify({ ...schema(), title: 'first' });
    rememberJson(json);
    expect(recentJson({ ...schema(), title: 'first' })).toBe(json);
    const reordered = { required: ['name'], title: 'first', properties: schema().properties, type: 'object' };
    expect(recentJson(reordered)).toBe(json);
  });

  it('keeps a copy of its own: changing the object it was given changes nothing it remembers', () => {
    const original = { ...schema(), title: 'second' };
    const json = JSON.stringify(original);
    rememberJson(json);
    original.properties.name.minLength = 5;
    expect(recentJson(original)).toBeUndefined();
    expect(recentJson({ ...schema(), title: 'second' })).toBe(json);
  });

  it.each([
    ['a different value', { ...schema(), title: 'third', required: ['tags'] }],
    ['an extra key', { ...schema(), title: 'third', description: 'x' }],
    ['a missing key', { type: 'object', properties: schema().properties, title: 'third' }],
    ['a key whose value is undefined (JSON drops it)', { ...schema(), title: 'third', description: undefined }],
    ['NaN where the copy has null', { ...schema(), title: 'third', maxProperties: Number.NaN }],
    ['an array for an object', { ...schema(), title: 'third', properties: [] }],
    ['a class instance for a plain object', { ...schema(), title: 'third', properties: Object.assign(new (class Props {})(), schema().properties) }],
    ['a longer array', { ...schema(), title: 'third', required: ['name', 'tags'] }],
  ])('does not match %s', (_what, candidate) => {
    const json = JSON.stringify({ ...schema(), title: 'third' });
    rememberJson(json);
    expect(recentJson(candidate)).toBeUndefined();
    expect(recentJson({ ...schema(), title: 'third' })).toBe(json);
  });

  it('remembers the last eight schemas, most recently used first', () => {
    const jsons = Array.from({ length: 9 }, (_, i) => JSON.stringify({ ...schema(), title: `kept ${i}` }));
    for (const json of jsons) rememberJson(json);
    expect(recentJson({ ...schema(), title: 'kept 0' })).toBeUndefined();
    for (let i = 1; i < 9; i++) expect(recentJson({ ...schema(), title: `kept ${i}` })).toBe(jsons[i]);
  });
});
