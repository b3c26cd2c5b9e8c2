import { describe, expect, it } from 'vitest';
import { SchemaCompiler, describeViolations } from '../../src/schema/compiler.js';

const contact = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 18 },
    address: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  },
  required: ['name'],
};

describe('SchemaCompiler: violations', () => {
  it('returns null for a valid value', () => {
    expect(new SchemaCompiler().compile(contact)({ name: 'Ada', age: 36 })).toBeNull();
  });

  it('reports a missing required property at the pointer of that property', () => {
    expect(new SchemaCompiler().compile(contact)({})).toEqual([{ path: '/name', rule: 'required', message: "must have required property 'name'" }]);
  });

  it('reports a missing nested required property at its full pointer', () => {
    expect(new SchemaCompiler().compile(contact)({ name: 'Ada', address: {} })).toEqual([
      { path: '/address/city', rule: 'required', message: "must have required property 'city'" },
    ]);
  });

  it('reports a wrong type and a failed minimum at the property, with the rule that failed', () => {
    expect(new SchemaCompiler().compile(contact)({ name: 5, age: 12 })).toEqual([
      { path: '/name', rule: 'type', message: 'must be string' },
      { path: '/age', rule: 'minimum', message: 'must be >= 18' },
    ]);
  });

  it('reports every violation, not only the first', () => {
    const violations = new SchemaCompiler().compile(contact)({ age: 'old', address: { city: 1 } });
    expect(violations).toEqual([
      { path: '/name', rule: 'required', message: "must have required property 'name'" },
      { path: '/age', rule: 'type', message: 'must be integer' },
      { path: '/address/city', rule: 'type', message: 'must be string' },
    ]);
  });

  it('reports a violation of the value itself at the empty pointer', () => {
    expect(new SchemaCompiler().compile({ type: 'object' })('text')).toEqual([{ path: '', rule: 'type', message: 'must be object' }]);
  });

  it('escapes / and ~ in property names as JSON pointers (RFC 6901), for type and required alike', () => {
    const validate = new SchemaCompiler().compile({
      type: 'object',
      properties: { 'a/b': { type: 'string' } },
      required: ['c~d', 'e/f'],
    });
    expect(validate({ 'a/b': 1 })).toEqual([
      { path: '/c~0d', rule: 'required', message: "must have required property 'c~d'" },
      { path: '/e~1f', rule: 'required', message: "must have required property 'e/f'" },
      { path: '/a~1b', rule: 'type', message: 'must be string' },
    ]);
  });

  it('accepts an integer written as 30 or 30.0 in JSON but not 30.5', () => {
    const validate = new SchemaCompiler().compile({ type: 'object', properties: { age: { type: 'integer' } } });
    expect(validate(JSON.parse('{"age":30}'))).toBeNull();
    expect(validate(JSON.parse('{"age":30.0}'))).toBeNull();
    expect(validate(JSON.parse('{"age":30.5}'))).toEqual([{ path: '/age', rule: 'type', message: 'must be integer' }]);
  });

  it('ignores annotations ajv does not know (strict mode is off)', () => {
    const validate = new SchemaCompiler().compile({ type: 'string', enum: ['a', 'b'], enumNames: ['A', 'B'], 'x-mcp-header': 'X' });
    expect(validate('a')).toBeNull();
    expect(validate('c')).toEqual([{ path: '', rule: 'enum', message: 'must be equal to one of the allowed values' }]);
  });
});

describe('SchemaCompiler: caching', () => {
  it('returns the same validator for equal schemas that are different objects', () => {
    const compiler = new SchemaCompiler();
    const a = { type: 'object', properties: { n: { type: 'number' } } };
    expect(compiler.compile(a)).toBe(compiler.compile(structuredClone(a)));
  });

  it('returns the same validator when the same schema is compiled twice', () => {
    const compiler = new SchemaCompiler();
    expect(compiler.compile(contact)).toBe(compiler.compile(contact));
  });

  it('returns different validators for different schemas', () => {
    const compiler = new SchemaCompiler();
    const asString = compiler.compile({ type: 'string' });
    const asNumber = compiler.compile({ type: 'number' });
    expect(asString).not.toBe(asNumber);
    expect(asString('x')).toBeNull();
    expect(asNumber('x')).toEqual([{ path: '', rule: 'type', message: 'must be number' }]);
  });

  it('does not share a cache between compilers', () => {
    expect(new SchemaCompiler().compile({ type: 'string' })).not.toBe(new SchemaCompiler().compile({ type: 'string' }));
  });
});

describe('SchemaCompiler: dialects', () => {
  it('uses 2020-12 when there is no $schema: prefixItems constrains the tuple', () => {
    const validate = new SchemaCompiler().compile({ type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false });
    expect(validate(['a', 1])).toBeNull();
    expect(validate([1, 'a'])).toEqual([
      { path: '/0', rule: 'type', message: 'must be string' },
      { path: '/1', rule: 'type', message: 'must be number' },
    ]);
    expect(validate(['a', 1, true])).toEqual([{ path: '', rule: 'items', message: 'must NOT have more than 2 items' }]);
  });

  it('uses 2020-12 for an explicit 2020-12 $schema', () => {
    const validate = new SchemaCompiler().compile({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'array',
      prefixItems: [{ type: 'string' }],
    });
    expect(validate(['a'])).toBeNull();
    expect(validate([1])).toEqual([{ path: '/0', rule: 'type', message: 'must be string' }]);
  });

  it('rejects the draft-07 array form of items under 2020-12', () => {
    expect(() => new SchemaCompiler().compile({ type: 'array', items: [{ type: 'string' }] })).toThrow(/schema is invalid/);
  });

  it('uses draft-07 for a draft-07 $schema: items as an array is a tuple and prefixItems means nothing', () => {
    const compiler = new SchemaCompiler();
    const tuple = compiler.compile({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', items: [{ type: 'string' }], additionalItems: false });
    expect(tuple(['a'])).toBeNull();
    expect(tuple([1])).toEqual([{ path: '/0', rule: 'type', message: 'must be string' }]);
    expect(tuple(['a', 'b'])).toEqual([{ path: '', rule: 'additionalItems', message: 'must NOT have more than 1 items' }]);
    const ignored = compiler.compile({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'array', prefixItems: [{ type: 'string' }] });
    expect(ignored([1])).toBeNull();
  });

  it('uses draft-07 for a draft-07 $schema written without the trailing #', () => {
    const validate = new SchemaCompiler().compile({ $schema: 'http://json-schema.org/draft-07/schema', type: 'array', prefixItems: [{ type: 'string' }] });
    expect(validate([1])).toBeNull();
  });

  it('gives a draft-06 $schema a draft-07 validator instead of throwing', () => {
    const validate = new SchemaCompiler().compile({
      $schema: 'http://json-schema.org/draft-06/schema#',
      type: 'object',
      properties: { n: { type: 'number' } },
    });
    expect(validate({ n: 1 })).toBeNull();
    expect(validate({ n: 'x' })).toEqual([{ path: '/n', rule: 'type', message: 'must be number' }]);
  });
});

describe('SchemaCompiler: formats', () => {
  const compiler = new SchemaCompiler();
  const cases: Array<[string, string[], string[]]> = [
    ['email', ['octocat@github.com', 'a.b+c@example.co.uk'], ['octocat', 'a@', '@example.com']],
    ['uri', ['https://example.com/path?q=1', 'mailto:a@example.com', 'urn:isbn:0451450523'], ['example.com', 'not a uri', '/relative/path']],
    ['date', ['2025-11-25', '2024-02-29'], ['2025-13-01', '2023-02-29', '25/11/2025', '2025-11-25T10:00:00Z']],
    ['date-time', ['2025-11-25T10:00:00Z', '2025-11-25T10:00:00.5+02:00'], ['2025-11-25', '2025-11-25 10:00', '2025-11-25T25:00:00Z']],
  ];

  it.each(cases)('validates format %s', (format, good, bad) => {
    const validate = compiler.compile({ type: 'string', format });
    for (const value of good) expect(validate(value), value).toBeNull();
    for (const value of bad) expect(validate(value), value).toEqual([{ path: '', rule: 'format', message: `must match format "${format}"` }]);
  });
});

describe('SchemaCompiler: invalid schemas', () => {
  it('throws for a schema with an unknown type', () => {
    expect(() => new SchemaCompiler().compile({ type: 'nope' })).toThrow(/^schema is invalid: data\/type must be equal to one of the allowed values/);
  });

  it('throws for a schema whose keyword has the wrong type', () => {
    expect(() => new SchemaCompiler().compile({ type: 'string', minLength: 'five' })).toThrow(/^schema is invalid: data\/minLength must be integer/);
  });

  it('does not cache a schema that failed to compile', () => {
    const compiler = new SchemaCompiler();
    expect(() => compiler.compile({ type: 'nope' })).toThrow();
    expect(() => compiler.compile({ type: 'nope' })).toThrow();
  });
});

describe('describeViolations', () => {
  it('joins "path: message" for each violation with "; "', () => {
    expect(
      describeViolations([
        { path: '/name', rule: 'required', message: "must have required property 'name'" },
        { path: '/age', rule: 'minimum', message: 'must be >= 18' },
      ]),
    ).toBe("/name: must have required property 'name'; /age: must be >= 18");
  });

  it('names the value itself "(root)"', () => {
    expect(describeViolations([{ path: '', rule: 'type', message: 'must be object' }])).toBe('(root): must be object');
  });

  it('is empty for no violations', () => {
    expect(describeViolations([])).toBe('');
  });

  it('describes what a compiled validator reports', () => {
    const violations = new SchemaCompiler().compile(contact)({ age: 3 });
    expect(violations).not.toBeNull();
    expect(describeViolations(violations!)).toBe("/name: must have required property 'name'; /age: must be >= 18");
  });
});
