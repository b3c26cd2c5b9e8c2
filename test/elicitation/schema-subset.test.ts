/** checkRequestedSchema: the flat form-mode subset (client/elicitation.mdx, SEP-1330 enums, SEP-1034 defaults). */
import { describe, expect, it } from 'vitest';
import { checkRequestedSchema } from '../../src/elicitation/schema-subset.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';

const SUFFIX = '. Elicitation forms take a flat object of string, number, integer, boolean and enum properties';

/** A requestedSchema with one property. */
function one(name: string, property: unknown): Record<string, unknown> {
  return { type: 'object', properties: { [name]: property } };
}

function check(schema: unknown): void {
  checkRequestedSchema(schema, new SchemaCompiler());
}

function thrown(schema: unknown): unknown {
  try {
    check(schema);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('schemas inside the subset pass', () => {
  const allowed: [string, unknown][] = [
    ['an object with no properties', { type: 'object', properties: {} }],
    [
      'top-level $schema, title, description and required',
      {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        title: 'T',
        description: 'D',
        properties: { a: { type: 'string' } },
        required: ['a'],
      },
    ],
    ['a draft-07 $schema', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string', default: 'x' } } }],
    [
      'a string with every keyword it allows',
      one('name', { type: 'string', title: 'Name', description: 'Your name', minLength: 1, maxLength: 20, pattern: '^[a-z]+$', default: 'abc' }),
    ],
    ['a string with format email and a default', one('e', { type: 'string', format: 'email', default: 'a@example.com' })],
    ['a string with format uri and a default', one('u', { type: 'string', format: 'uri', default: 'https://example.com/x' })],
    ['a string with format date and a default', one('d', { type: 'string', format: 'date', default: '2025-11-25' })],
    ['a string with format date-time and a default', one('t', { type: 'string', format: 'date-time', default: '2025-11-25T10:00:00Z' })],
    [
      'a number with minimum, maximum and a fractional default',
      one('n', { type: 'number', title: 'N', description: 'D', minimum: -1.5, maximum: 10, default: 2.5 }),
    ],
    ['an integer with minimum, maximum and a whole default', one('i', { type: 'integer', minimum: 0, maximum: 100, default: 30 })],
    ['a boolean with a default', one('b', { type: 'boolean', title: 'B', description: 'D', default: true })],
    ['an untitled single-select enum with a default (SEP-1330)', one('size', { type: 'string', title: 'Size', enum: ['s', 'm', 'l'], default: 'm' })],
    [
      'a titled single-select oneOf with a default (SEP-1330)',
      one('color', {
        type: 'string',
        oneOf: [
          { const: '#f00', title: 'Red' },
          { const: '#0f0', title: 'Green' },
        ],
        default: '#0f0',
      }),
    ],
    [
      'an untitled multi-select with minItems, maxItems and a default (SEP-1330)',
      one('tags', { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'c'] }),
    ],
    [
      'a titled multi-select anyOf with a default (SEP-1330)',
      one('tags', {
        type: 'array',
        items: {
          anyOf: [
            { const: 'a', title: 'A' },
            { const: 'b', title: 'B' },
          ],
        },
        default: ['b'],
      }),
    ],
    ['a titled multi-select anyOf with items.type "string"', one('tags', { type: 'array', items: { type: 'string', anyOf: [{ const: 'a', title: 'A' }] } })],
    [
      'a legacy titled enum with enumNames and a default (SEP-1330)',
      one('plan', { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'], default: 'pro' }),
    ],
    ['an empty-string default on a string', one('s', { type: 'string', default: '' })],
    ['a false default on a boolean', one('b', { type: 'boolean', default: false })],
    ['an empty default on a multi-select', one('tags', { type: 'array', items: { type: 'string', enum: ['a'] }, default: [] })],
    [
      'the example of the spec digest',
      {
        type: 'object',
        properties: {
          name: { type: 'string', description: 'Your full name' },
          email: { type: 'string', format: 'email' },
          age: { type: 'number', minimum: 18 },
          color: {
            type: 'string',
            oneOf: [
              { const: '#FF0000', title: 'Red' },
              { const: '#00FF00', title: 'Green' },
            ],
            default: '#FF0000',
          },
          tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a'] },
        },
        required: ['name', 'email'],
      },
    ],
  ];

  it.each(allowed)('accepts %s', (_name, schema) => {
    expect(thrown(schema)).toBeUndefined();
  });
});

describe('schemas outside the subset throw a TypeError naming the property', () => {
  const violations: [string, unknown, string][] = [
    // The shape of the schema itself
    ['a schema that is not an object', null, 'requestedSchema: must be an object'],
    ['a schema that is an array', [], 'requestedSchema: must be an object'],
    ['a top-level type other than object', { type: 'string', properties: {} }, 'requestedSchema.type: must be "object"'],
    ['a missing top-level type', { properties: {} }, 'requestedSchema.type: must be "object"'],
    [
      'an unknown top-level keyword',
      { type: 'object', properties: {}, additionalProperties: false },
      "requestedSchema: 'additionalProperties' is not allowed at the top level",
    ],
    ['a non-string $schema', { $schema: 7, type: 'object', properties: {} }, 'requestedSchema.$schema: must be a string'],
    ['missing properties', { type: 'object' }, 'requestedSchema.properties: must be an object'],
    ['properties as an array', { type: 'object', properties: [] }, 'requestedSchema.properties: must be an object'],
    [
      'required that is not an array of strings',
      { type: 'object', properties: { a: { type: 'string' } }, required: 'a' },
      'requestedSchema.required: must be an array of property names',
    ],
    [
      'required naming a missing property',
      { type: 'object', properties: { a: { type: 'string' } }, required: ['a', 'age'] },
      "requestedSchema.required: names 'age', which is not a property",
    ],
    // Property types
    [
      'a nested object',
      one('address', { type: 'object', properties: { street: { type: 'string' } } }),
      'requestedSchema.properties.address: type must be one of string, number, integer, boolean, array (got "object")',
    ],
    [
      'a property without a type',
      one('x', { title: 'X' }),
      'requestedSchema.properties.x: type must be one of string, number, integer, boolean, array (got undefined)',
    ],
    ['a null type', one('x', { type: 'null' }), 'requestedSchema.properties.x: type must be one of string, number, integer, boolean, array (got "null")'],
    [
      'a type list',
      one('x', { type: ['string', 'null'] }),
      'requestedSchema.properties.x: type must be one of string, number, integer, boolean, array (got ["string","null"])',
    ],
    ['a property that is not an object', one('x', 'string'), 'requestedSchema.properties.x: must be an object'],
    // Keywords
    [
      'an unknown keyword on a string',
      one('code', { type: 'string', const: 'x' }),
      "requestedSchema.properties.code: 'const' is not allowed on a string property",
    ],
    ['$ref on a string', one('code', { type: 'string', $ref: '#/x' }), "requestedSchema.properties.code: '$ref' is not allowed on a string property"],
    ['format on a number', one('n', { type: 'number', format: 'email' }), "requestedSchema.properties.n: 'format' is not allowed on a number property"],
    [
      'exclusiveMinimum on an integer',
      one('n', { type: 'integer', exclusiveMinimum: 0 }),
      "requestedSchema.properties.n: 'exclusiveMinimum' is not allowed on a integer property",
    ],
    ['enum on a boolean', one('b', { type: 'boolean', enum: [true] }), "requestedSchema.properties.b: 'enum' is not allowed on a boolean property"],
    [
      'uniqueItems on a multi-select',
      one('tags', { type: 'array', uniqueItems: true, items: { type: 'string', enum: ['a'] } }),
      "requestedSchema.properties.tags: 'uniqueItems' is not allowed on a array property",
    ],
    ['a non-string title', one('x', { type: 'string', title: 5 }), 'requestedSchema.properties.x: title must be a string'],
    ['a non-string description', one('x', { type: 'boolean', description: {} }), 'requestedSchema.properties.x: description must be a string'],
    // String details
    [
      'an unsupported format',
      one('ip', { type: 'string', format: 'ipv4' }),
      'requestedSchema.properties.ip: format must be one of email, uri, date, date-time (got "ipv4")',
    ],
    ['a negative minLength', one('s', { type: 'string', minLength: -1 }), 'requestedSchema.properties.s: minLength must be a non-negative integer'],
    ['a fractional maxLength', one('s', { type: 'string', maxLength: 1.5 }), 'requestedSchema.properties.s: maxLength must be a non-negative integer'],
    ['a non-string pattern', one('s', { type: 'string', pattern: 5 }), 'requestedSchema.properties.s: pattern must be a valid regular expression (got 5)'],
    ['an empty enum', one('size', { type: 'string', enum: [] }), 'requestedSchema.properties.size: enum must be a non-empty array of strings'],
    ['an enum of numbers', one('size', { type: 'string', enum: [1, 2] }), 'requestedSchema.properties.size: enum must be a non-empty array of strings'],
    [
      'enumNames shorter than enum',
      one('plan', { type: 'string', enum: ['free', 'pro'], enumNames: ['Free'] }),
      'requestedSchema.properties.plan: enumNames needs an enum of the same length',
    ],
    [
      'enumNames longer than enum',
      one('plan', { type: 'string', enum: ['free'], enumNames: ['Free', 'Pro'] }),
      'requestedSchema.properties.plan: enumNames needs an enum of the same length',
    ],
    [
      'enumNames without enum',
      one('plan', { type: 'string', enumNames: ['Free'] }),
      'requestedSchema.properties.plan: enumNames needs an enum of the same length',
    ],
    [
      'enumNames that are not strings',
      one('plan', { type: 'string', enum: ['free'], enumNames: [1] }),
      'requestedSchema.properties.plan: enumNames must be an array of strings',
    ],
    [
      'both enum and oneOf',
      one('c', { type: 'string', enum: ['a'], oneOf: [{ const: 'a', title: 'A' }] }),
      'requestedSchema.properties.c: use either enum or oneOf, not both',
    ],
    ['an empty oneOf', one('c', { type: 'string', oneOf: [] }), 'requestedSchema.properties.c: oneOf must be a non-empty array of {const, title}'],
    [
      'a oneOf option without a title',
      one('c', { type: 'string', oneOf: [{ const: 'a', title: 'A' }, { const: 'b' }] }),
      'requestedSchema.properties.c: oneOf[1] must be {const: string, title: string}',
    ],
    [
      'a oneOf option with a numeric const',
      one('c', { type: 'string', oneOf: [{ const: 1, title: 'One' }] }),
      'requestedSchema.properties.c: oneOf[0] must be {const: string, title: string}',
    ],
    // Number details
    ['a string minimum', one('n', { type: 'number', minimum: '1' }), 'requestedSchema.properties.n: minimum must be a finite number'],
    ['an infinite maximum', one('n', { type: 'integer', maximum: Infinity }), 'requestedSchema.properties.n: maximum must be a finite number'],
    // Arrays are multi-select enums only
    [
      'an array without items',
      one('tags', { type: 'array' }),
      'requestedSchema.properties.tags: a multi-select needs items: {type: "string", enum: [...]} or {anyOf: [{const, title}]}',
    ],
    [
      'an array of free strings',
      one('tags', { type: 'array', items: { type: 'string' } }),
      'requestedSchema.properties.tags.items: must be {type: "string", enum: [...]} or {anyOf: [{const, title}]}; arrays are only for multi-select enums',
    ],
    [
      'an array of objects',
      one('rows', { type: 'array', items: { type: 'object', properties: {} } }),
      'requestedSchema.properties.rows.items: must be {type: "string", enum: [...]} or {anyOf: [{const, title}]}; arrays are only for multi-select enums',
    ],
    [
      'an array of number enums',
      one('tags', { type: 'array', items: { type: 'number', enum: [1] } }),
      'requestedSchema.properties.tags.items: must be {type: "string", enum: [...]} or {anyOf: [{const, title}]}; arrays are only for multi-select enums',
    ],
    [
      'extra keywords on enum items',
      one('tags', { type: 'array', items: { type: 'string', enum: ['a'], minLength: 1 } }),
      'requestedSchema.properties.tags.items: only type and enum are allowed',
    ],
    [
      'extra keywords on anyOf items',
      one('tags', { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }], enum: ['a'] } }),
      'requestedSchema.properties.tags.items: only anyOf (and type "string") are allowed',
    ],
    [
      'anyOf items of another type',
      one('tags', { type: 'array', items: { type: 'number', anyOf: [{ const: 'a', title: 'A' }] } }),
      'requestedSchema.properties.tags.items: type must be "string"',
    ],
    [
      'an anyOf option without const',
      one('tags', { type: 'array', items: { anyOf: [{ title: 'A' }] } }),
      'requestedSchema.properties.tags.items: anyOf[0] must be {const: string, title: string}',
    ],
    [
      'a negative minItems',
      one('tags', { type: 'array', minItems: -1, items: { type: 'string', enum: ['a'] } }),
      'requestedSchema.properties.tags: minItems must be a non-negative integer',
    ],
    [
      'a fractional maxItems',
      one('tags', { type: 'array', maxItems: 0.5, items: { type: 'string', enum: ['a'] } }),
      'requestedSchema.properties.tags: maxItems must be a non-negative integer',
    ],
    // SEP-1034 defaults
    [
      'a number default on a string',
      one('name', { type: 'string', default: 5 }),
      'requestedSchema.properties.name: default 5 does not fit the property: (root): must be string',
    ],
    [
      'a default shorter than minLength',
      one('name', { type: 'string', minLength: 3, default: 'ab' }),
      'requestedSchema.properties.name: default "ab" does not fit the property: (root): must NOT have fewer than 3 characters',
    ],
    [
      'a default that is not an email',
      one('email', { type: 'string', format: 'email', default: 'nobody' }),
      'requestedSchema.properties.email: default "nobody" does not fit the property: (root): must match format "email"',
    ],
    [
      'a string default on a number',
      one('age', { type: 'number', default: '30' }),
      'requestedSchema.properties.age: default "30" does not fit the property: (root): must be number',
    ],
    [
      'a fractional default on an integer',
      one('age', { type: 'integer', default: 1.5 }),
      'requestedSchema.properties.age: default 1.5 does not fit the property: (root): must be integer',
    ],
    [
      'a default below minimum',
      one('age', { type: 'integer', minimum: 18, default: 3 }),
      'requestedSchema.properties.age: default 3 does not fit the property: (root): must be >= 18',
    ],
    [
      'a string default on a boolean',
      one('ok', { type: 'boolean', default: 'yes' }),
      'requestedSchema.properties.ok: default "yes" does not fit the property: (root): must be boolean',
    ],
    [
      'an enum default outside the enum',
      one('size', { type: 'string', enum: ['s', 'm'], default: 'xl' }),
      'requestedSchema.properties.size: default "xl" does not fit the property: (root): must be equal to one of the allowed values',
    ],
    [
      'a legacy enum default outside the enum',
      one('plan', { type: 'string', enum: ['free'], enumNames: ['Free'], default: 'pro' }),
      'requestedSchema.properties.plan: default "pro" does not fit the property: (root): must be equal to one of the allowed values',
    ],
    [
      'a oneOf default outside the options',
      one('color', {
        type: 'string',
        oneOf: [
          { const: 'a', title: 'A' },
          { const: 'b', title: 'B' },
        ],
        default: 'z',
      }),
      'requestedSchema.properties.color: default "z" does not fit the property: (root): must be equal to constant; (root): must be equal to constant; (root): must match exactly one schema in oneOf',
    ],
    [
      'a multi-select default with a value outside the enum',
      one('tags', { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'z'] }),
      'requestedSchema.properties.tags: default ["a","z"] does not fit the property: /1: must be equal to one of the allowed values',
    ],
    [
      'a multi-select anyOf default outside the options',
      one('tags', { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['b'] }),
      'requestedSchema.properties.tags: default ["b"] does not fit the property: /0: must be equal to constant; /0: must match a schema in anyOf',
    ],
    [
      'a multi-select default above maxItems',
      one('tags', { type: 'array', maxItems: 1, items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'b'] }),
      'requestedSchema.properties.tags: default ["a","b"] does not fit the property: (root): must NOT have more than 1 items',
    ],
    [
      'a string default on a multi-select',
      one('tags', { type: 'array', items: { type: 'string', enum: ['a'] }, default: 'a' }),
      'requestedSchema.properties.tags: default "a" does not fit the property: (root): must be array',
    ],
  ];

  it.each(violations)('rejects %s', (_name, schema, problem) => {
    const error = thrown(schema);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(problem + SUFFIX);
  });

  it('names the offending property when several properties are fine', () => {
    const error = thrown({
      type: 'object',
      properties: { name: { type: 'string' }, age: { type: 'integer' }, address: { type: 'object' }, ok: { type: 'boolean' } },
    });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^requestedSchema\.properties\.address: /);
  });

  it('rejects a property whose type names an Object.prototype member with a TypeError naming the property', () => {
    const error = thrown(one('kind', { type: 'constructor' }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(
      `requestedSchema.properties.kind: type must be one of string, number, integer, boolean, array (got "constructor")${SUFFIX}`,
    );
  });

  it('rejects required naming an Object.prototype member that is not a property', () => {
    const error = thrown({ type: 'object', properties: { a: { type: 'string' } }, required: ['constructor'] });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`requestedSchema.required: names 'constructor', which is not a property${SUFFIX}`);
  });

  it('rejects a pattern that is not a valid regular expression with a TypeError naming the property', () => {
    const error = thrown(one('code', { type: 'string', pattern: '(' }));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^requestedSchema\.properties\.code: /);
  });

  it('checks defaults with the compiler it is given, and caches them there by content', () => {
    const compiler = new SchemaCompiler();
    const property = { type: 'string', enum: ['a', 'b'], default: 'a' };
    checkRequestedSchema(one('x', property), compiler);
    const compiled = compiler.compile({ ...property });
    expect(compiled('b')).toBeNull();
    expect(compiled('c')).toEqual([{ path: '', rule: 'enum', message: 'must be equal to one of the allowed values' }]);
    expect((compiler as unknown as { cache: Map<string, unknown> }).cache.size).toBe(1);
  });
});
