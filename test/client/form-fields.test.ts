/**
 * describeFields: a requestedSchema (or a tool's inputSchema) read into form fields, the one reading that
 * McpClient's SEP-1034 defaults, the terminal client and the console share. Each case asserts the whole
 * field list: every SEP-1330 enum form, defaults that fit and ones that do not, formats, bounds,
 * required, and properties outside the subset (fields of kind `unknown`, since tools take them as JSON).
 */
import { describe, expect, it } from 'vitest';
import { describeFields as fromBrowser } from '../../src/browser.js';
import { describeFields, type FormField } from '../../src/index.js';

const form = (properties: Record<string, unknown>, required?: string[]) => ({ type: 'object', properties, ...(required ? { required } : {}) });
const one = (property: unknown, required = false) => describeFields(form({ p: property }, required ? ['p'] : undefined));
const field = (rest: Partial<FormField> & Pick<FormField, 'kind'>): FormField => ({ name: 'p', title: 'p', required: false, ...rest });
/** Choices from [value, label] pairs. */
const choices = (...pairs: [unknown, string][]) => pairs.map(([value, label]) => ({ value, label }));

describe('describeFields: the SEP-1330 enum forms', () => {
  it('reads a plain enum as a single choice labelled by its values', () => {
    expect(one({ type: 'string', enum: ['red', 'green'] })).toStrictEqual([
      field({ kind: 'single-choice', choices: choices(['red', 'red'], ['green', 'green']) }),
    ]);
  });

  it('labels a legacy enum by its enumNames, and by the value where a name is missing or no string', () => {
    expect(one({ type: 'string', enum: ['s', 'm', 'l'], enumNames: ['Small', 7] })).toStrictEqual([
      field({ kind: 'single-choice', choices: choices(['s', 'Small'], ['m', 'm'], ['l', 'l']) }),
    ]);
  });

  it('reads a titled oneOf of {const, title} as a single choice labelled by its titles', () => {
    expect(
      one({
        type: 'string',
        oneOf: [
          { const: '#f00', title: 'Red' },
          { const: '#0f0', title: 'Green' },
        ],
      }),
    ).toStrictEqual([field({ kind: 'single-choice', choices: choices(['#f00', 'Red'], ['#0f0', 'Green']) })]);
  });

  it('reads a titled anyOf the same way, and labels an untitled const by its value', () => {
    expect(one({ type: 'string', anyOf: [{ const: 'a', title: 'A' }, { const: 'b' }] })).toStrictEqual([
      field({ kind: 'single-choice', choices: choices(['a', 'A'], ['b', 'b']) }),
    ]);
  });

  it('takes oneOf over anyOf, and only the options that carry a const', () => {
    expect(one({ type: 'string', oneOf: [{ const: 'x', title: 'X' }, { type: 'string' }, 'y'], anyOf: [{ const: 'z' }] })).toStrictEqual([
      field({ kind: 'single-choice', choices: choices(['x', 'X']) }),
    ]);
  });

  it('reads a multi-select of items.enum as a multi choice, with its item bounds', () => {
    expect(one({ type: 'array', items: { type: 'string', enum: ['a', 'b'] }, minItems: 1, maxItems: 2 })).toStrictEqual([
      field({
        kind: 'multi-choice',
        choices: choices(['a', 'a'], ['b', 'b']),
        minItems: 1,
        maxItems: 2,
      }),
    ]);
  });

  it('reads a titled multi-select of items.anyOf (and items.oneOf) as a multi choice labelled by its titles', () => {
    const titled = [
      { const: 'wifi', title: 'Wi-Fi' },
      { const: 'meal', title: 'Meal' },
    ];
    const expected = [field({ kind: 'multi-choice', choices: choices(['wifi', 'Wi-Fi'], ['meal', 'Meal']) })];
    expect(one({ type: 'array', items: { anyOf: titled } })).toStrictEqual(expected);
    expect(one({ type: 'array', items: { type: 'string', oneOf: titled } })).toStrictEqual(expected);
  });

  it('reads an enum of another type as a single choice of its values', () => {
    expect(one({ type: 'integer', enum: [1, 2] })).toStrictEqual([field({ kind: 'single-choice', choices: choices([1, '1'], [2, '2']) })]);
  });

  it('reads an empty enum as a choice of nothing, and an empty or const-less oneOf as no choice', () => {
    expect(one({ type: 'string', enum: [] })).toStrictEqual([field({ kind: 'single-choice', choices: [] })]);
    expect(one({ type: 'string', oneOf: [] })).toStrictEqual([field({ kind: 'text' })]);
    expect(one({ type: 'string', anyOf: [{ type: 'string' }] })).toStrictEqual([field({ kind: 'text' })]);
  });
});

describe('describeFields: the primitives, their formats and bounds', () => {
  it('reads a string with its format, pattern and lengths', () => {
    expect(one({ type: 'string', format: 'email', pattern: '^a', minLength: 3, maxLength: 60 })).toStrictEqual([
      field({ kind: 'text', format: 'email', pattern: '^a', minLength: 3, maxLength: 60 }),
    ]);
    for (const format of ['uri', 'date', 'date-time', 'hostname']) expect(one({ type: 'string', format })).toStrictEqual([field({ kind: 'text', format })]);
  });

  it('reads a number and an integer with their bounds, exclusive ones and multipleOf included', () => {
    expect(one({ type: 'number', minimum: 0, maximum: 5000, exclusiveMinimum: -1, exclusiveMaximum: 5001, multipleOf: 0.5 })).toStrictEqual([
      field({ kind: 'number', minimum: 0, maximum: 5000, exclusiveMinimum: -1, exclusiveMaximum: 5001, multipleOf: 0.5 }),
    ]);
    expect(one({ type: 'integer', minimum: 1, maximum: 30 })).toStrictEqual([field({ kind: 'integer', minimum: 1, maximum: 30 })]);
  });

  it('reads a boolean', () => {
    expect(one({ type: 'boolean' })).toStrictEqual([field({ kind: 'boolean' })]);
  });

  it("keeps only the bounds of the field's kind, and only finite numbers", () => {
    expect(one({ type: 'string', minimum: 1, maxItems: 2, minLength: 'two', maxLength: 4, format: 5 })).toStrictEqual([field({ kind: 'text', maxLength: 4 })]);
    expect(one({ type: 'number', minimum: 'ten', maximum: Number.POSITIVE_INFINITY, minLength: 1, exclusiveMinimum: true })).toStrictEqual([
      field({ kind: 'number' }),
    ]);
    expect(one({ type: 'array', items: { enum: ['a'] }, minItems: 1, minLength: 1 })).toStrictEqual([
      field({ kind: 'multi-choice', choices: choices(['a', 'a']), minItems: 1 }),
    ]);
  });

  it('reads the first type of a type list that is not null', () => {
    expect(one({ type: ['string', 'null'], maxLength: 3 })).toStrictEqual([field({ kind: 'text', maxLength: 3 })]);
    expect(one({ type: ['null', 'integer'] })).toStrictEqual([field({ kind: 'integer' })]);
  });
});

describe('describeFields: names, titles, descriptions, required, order', () => {
  it('gives every property a field in its order: the title (or the name), the description when not empty, required as listed', () => {
    const schema = form(
      {
        name: { type: 'string', title: 'Your name', description: 'As on your passport' },
        age: { type: 'integer', title: '', description: '' },
        email: { type: 'string', format: 'email' },
      },
      ['email', 'name', 'missing'],
    );
    expect(describeFields(schema)).toStrictEqual([
      { name: 'name', title: 'Your name', description: 'As on your passport', kind: 'text', required: true },
      { name: 'age', title: 'age', kind: 'integer', required: false },
      { name: 'email', title: 'email', kind: 'text', required: true, format: 'email' },
    ]);
  });

  it('reads a schema without a type as an object schema, and one of another type, without properties or no object at all as no fields', () => {
    expect(describeFields({ properties: { a: { type: 'boolean' } } })).toStrictEqual([{ name: 'a', title: 'a', kind: 'boolean', required: false }]);
    expect(describeFields({ type: 'string', properties: { a: { type: 'boolean' } } })).toStrictEqual([]);
    expect(describeFields({ type: 'object' })).toStrictEqual([]);
    expect(describeFields({ type: 'object', properties: [{ type: 'string' }] })).toStrictEqual([]);
    for (const schema of [undefined, null, 'object', 42, []]) expect(describeFields(schema)).toStrictEqual([]);
  });

  it('ignores a required that is not a list', () => {
    expect(describeFields({ type: 'object', properties: { a: { type: 'string' } }, required: 'a' })).toStrictEqual([
      { name: 'a', title: 'a', kind: 'text', required: false },
    ]);
  });

  it('reads a property named __proto__ as a field like any other', () => {
    const schema = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"string","default":"x"}},"required":["__proto__"]}');
    expect(describeFields(schema)).toStrictEqual([{ name: '__proto__', title: '__proto__', kind: 'text', required: true, default: 'x' }]);
  });

  it('is the same function from the browser entry', () => {
    expect(fromBrowser).toBe(describeFields);
  });
});

describe('describeFields: defaults (SEP-1034), kept only when they fit', () => {
  it.each<[string, Record<string, unknown>, unknown]>([
    ['a string on a string', { type: 'string', default: 'Ada' }, 'Ada'],
    ['an empty string on a string', { type: 'string', default: '' }, ''],
    ['a number on a number', { type: 'number', default: 2.5 }, 2.5],
    ['a whole number on an integer', { type: 'integer', default: 0 }, 0],
    ['false on a boolean', { type: 'boolean', default: false }, false],
    ['a value of the enum', { type: 'string', enum: ['red', 'green'], default: 'green' }, 'green'],
    ['a const of a titled oneOf', { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }], default: '#f00' }, '#f00'],
    ['an array of enum values on a multi-select', { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'c'] }, ['a', 'c']],
    ['an empty array on a multi-select', { type: 'array', items: { enum: ['a'] }, default: [] }, []],
    ['an array of anyOf consts on a titled multi-select', { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['a'] }, ['a']],
  ])('keeps %s', (_case, property, expected) => {
    expect(one(property)[0].default).toStrictEqual(expected);
  });

  it.each<[string, Record<string, unknown>]>([
    ['a number on a string', { type: 'string', default: 5 }],
    ['a string on a number', { type: 'number', default: '5' }],
    ['a fraction on an integer', { type: 'integer', default: 2.5 }],
    ['a string on a boolean', { type: 'boolean', default: 'true' }],
    ['null on a nullable string', { type: ['string', 'null'], default: null }],
    ['a value not in the enum', { type: 'string', enum: ['red'], default: 'blue' }],
    ['an enum value of another type than the property', { type: 'string', enum: ['a', 1], default: 1 }],
    ['a title instead of a const', { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }], default: 'Red' }],
    ['a multi-select default with a value not allowed', { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'z'] }],
    ['a multi-select default that is no array', { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: 'a' }],
    ['a multi-select default of titles', { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['A'] }],
    ['anything on a type JSON Schema does not have', { type: 'date', default: '2025-01-01' }],
    ['an array on an object', { type: 'object', default: [] }],
  ])('drops %s', (_case, property) => {
    const [described] = one(property);
    expect(described).not.toHaveProperty('default');
  });

  it("returns the schema's default value itself", () => {
    const tags = ['a'];
    expect(one({ type: 'array', items: { enum: ['a'] }, default: tags })[0].default).toBe(tags);
  });
});

describe('describeFields: properties outside the subset', () => {
  it('gives each a field of kind unknown with its declared type, and its default when it is of that type', () => {
    const schema = form({
      filter: { type: 'object', title: 'Filter', default: { a: 1 } },
      ids: { type: 'array', items: { type: 'integer' }, default: [1, 2], maxItems: 3 },
      free: { type: 'array', items: { type: 'string' }, default: ['x'] },
      nothing: { type: 'null', default: null },
      anything: { description: 'Any JSON', default: 'text' },
      when: { type: 'date' },
      flag: true,
    });
    expect(describeFields(schema)).toStrictEqual([
      { name: 'filter', title: 'Filter', kind: 'unknown', required: false, type: 'object', default: { a: 1 } },
      { name: 'ids', title: 'ids', kind: 'unknown', required: false, type: 'array', default: [1, 2] },
      { name: 'free', title: 'free', kind: 'unknown', required: false, type: 'array', default: ['x'] },
      { name: 'nothing', title: 'nothing', kind: 'unknown', required: false, type: 'null', default: null },
      { name: 'anything', title: 'anything', description: 'Any JSON', kind: 'unknown', required: false, default: 'text' },
      { name: 'when', title: 'when', kind: 'unknown', required: false, type: 'date' },
      { name: 'flag', title: 'flag', kind: 'unknown', required: false },
    ]);
  });

  it('reads an array whose items list no options, even with an enum of its own, as unknown', () => {
    expect(one({ type: 'array', enum: [['a']], items: { type: 'string' } })).toStrictEqual([field({ kind: 'unknown', type: 'array' })]);
  });
});
