/**
 * The client side of elicitation/create: what the client answers for each request a server may send (no
 * handler, malformed params, an undeclared mode), for each answer its handler may give (a bad one, a
 * throw, decline and cancel), and for an accept: SEP-1034 defaults merged, then the content validated
 * against requestedSchema, compiled once per schema content. URL mode takes https: and plain http on
 * loopback only, the server's rule, checked over a real connection too.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  applyDefaults,
  ClientElicitation,
  type ElicitationAnswer,
  type ElicitationContext,
  type ElicitationHandler,
  type ElicitationPolicy,
} from '../../src/client/elicitation.js';
import { McpError } from '../../src/protocol/errors.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket } from '../helpers/servers.js';

afterEach(() => {
  vi.restoreAllMocks();
});

const CTX: ElicitationContext = { signal: new AbortController().signal, era: 'legacy', requestId: 7 };

/** A policy with both modes declared and validation on, unless `overrides` say otherwise. */
function policy(handler: ElicitationHandler | undefined, overrides: Partial<ElicitationPolicy> = {}): ElicitationPolicy {
  return { handler, declared: { form: true, url: true }, validate: true, ...overrides };
}

/** The answer of a fresh ClientElicitation (with its own compiler) to `params`. */
function ask(params: unknown, handler: ElicitationHandler | undefined, overrides: Partial<ElicitationPolicy> = {}): Promise<ElicitationAnswer> {
  return new ClientElicitation(new SchemaCompiler()).answer(params, policy(handler, overrides), CTX);
}

/** A handler that returns `result` as it is, whatever its shape. */
function returning(result: unknown): ElicitationHandler {
  return () => result as never;
}

const accepting = (content?: Record<string, unknown>): ElicitationHandler => returning({ action: 'accept', content });

function form(properties: Record<string, unknown>, required?: string[]) {
  return { message: 'Tell us', requestedSchema: { type: 'object', properties, ...(required ? { required } : {}) } };
}

/** The items of a titled multi-select (SEP-1330) with options a and b. */
const TITLED_AB = {
  anyOf: [
    { const: 'a', title: 'A' },
    { const: 'b', title: 'B' },
  ],
};

const URL_ASK = { mode: 'url', message: 'Connect your account', url: 'https://example.com/connect', elicitationId: 'e-1' };

describe('rule 1: no handler', () => {
  it('answers -32601 saying the client has no elicitation handler', async () => {
    expect(await ask(form({ name: { type: 'string' } }), undefined)).toEqual({
      ok: false,
      error: { code: -32601, message: 'Method not found: this client has no elicitation handler' },
    });
  });
});

describe('rule 2: malformed params are answered -32602 naming what is wrong, and the handler is not asked', () => {
  it.each([
    ['params that are not an object', 'ask me', 'elicitation/create needs an object, {message, requestedSchema} or {mode: "url", message, url}; got "ask me"'],
    ['params that are an array', [1], 'elicitation/create needs an object, {message, requestedSchema} or {mode: "url", message, url}; got an array'],
    ['no params at all', undefined, 'elicitation/create needs an object, {message, requestedSchema} or {mode: "url", message, url}; got undefined'],
    ['an unknown mode', { mode: 'sms', message: 'Q' }, 'elicitation mode must be "form" or "url"; got "sms"'],
    [
      'a missing message',
      { requestedSchema: { type: 'object', properties: {} } },
      'elicitation/create needs message, the text shown to the user; got undefined',
    ],
    [
      'a message that is not a string',
      { message: 42, requestedSchema: { type: 'object', properties: {} } },
      'elicitation/create needs message, the text shown to the user; got 42',
    ],
    ['form mode without requestedSchema', { message: 'Q' }, 'form-mode elicitation/create needs requestedSchema, a JSON Schema object; got undefined'],
    [
      'form mode with a requestedSchema that is no object',
      { mode: 'form', message: 'Q', requestedSchema: 'name' },
      'form-mode elicitation/create needs requestedSchema, a JSON Schema object; got "name"',
    ],
    ['URL mode without url', { mode: 'url', message: 'Q' }, 'URL-mode elicitation/create needs url, a string; got undefined'],
    ['URL mode with a url that is not a string', { mode: 'url', message: 'Q', url: 7 }, 'URL-mode elicitation/create needs url, a string; got 7'],
    [
      'URL mode with a url that is not absolute',
      { mode: 'url', message: 'Q', url: '/connect' },
      'URL-mode elicitation/create needs an absolute http: or https: url; got "/connect"',
    ],
    [
      'URL mode with a javascript: url',
      { mode: 'url', message: 'Q', url: 'javascript:alert(1)' },
      'URL-mode elicitation/create needs an absolute http: or https: url; got "javascript:alert(1)"',
    ],
    ['URL mode with an elicitationId that is not a string', { ...URL_ASK, elicitationId: 5 }, 'elicitationId must be a string; got 5'],
    ...[
      ['plain http to another host', 'http://evil.example/login'],
      ['plain http to a host that only starts with localhost', 'http://localhost.evil.example/'],
      ['plain http to a host that only starts with 127.0.0.1', 'http://127.0.0.1.evil.example/'],
      ['plain http with localhost as the user name', 'http://localhost@evil.example/'],
      ['plain http to a loopback address other than 127.0.0.1, as the server rules', 'http://127.0.0.2/'],
      ['plain http to a subdomain of localhost, as the server rules', 'http://app.localhost/'],
    ].map(([what, url]): [string, unknown, string] => [
      `URL mode with ${what}`,
      { mode: 'url', message: 'Q', url },
      `URL-mode elicitation/create needs an https: url (http: only on loopback: localhost, 127.0.0.1 or [::1]); got ${JSON.stringify(url)}`,
    ]),
  ])('%s', async (_case, params, problem) => {
    const handler = vi.fn(accepting({}));
    expect(await ask(params, handler)).toEqual({ ok: false, error: { code: -32602, message: `Invalid params: ${problem}` } });
    expect(handler).not.toHaveBeenCalled();
  });
});

describe('rule 3: a mode the client did not declare is answered -32602 naming it', () => {
  it.each([
    ['form, when mode is absent', form({}), { form: false, url: true }, 'form'],
    ['form, when mode is "form"', { mode: 'form', ...form({}) }, { form: false, url: true }, 'form'],
    ['url', URL_ASK, { form: true, url: false }, 'url'],
  ])('%s', async (_case, params, declared, mode) => {
    const handler = vi.fn(accepting({}));
    expect(await ask(params, handler, { declared })).toEqual({
      ok: false,
      error: { code: -32602, message: `Invalid params: this client did not declare ${mode}-mode elicitation (capabilities.elicitation.${mode})` },
    });
    expect(handler).not.toHaveBeenCalled();
  });
});

describe("rule 4: the handler's answer", () => {
  it('reaches the handler with the params and the context as given', async () => {
    const params = form({ name: { type: 'string' } });
    const handler = vi.fn(returning({ action: 'decline' }));
    await ask(params, handler);
    expect(handler).toHaveBeenCalledWith(params, CTX);
  });

  const INVALID = { code: -32603, message: 'Internal error: the elicitation handler returned an invalid answer' };
  it.each([
    ['nothing', undefined, 'The elicitation handler returned undefined; expected {action: "accept" | "decline" | "cancel"}'],
    ['a bare action string', 'accept', 'The elicitation handler returned "accept"; expected {action: "accept" | "decline" | "cancel"}'],
    ['an unknown action', { action: 'ok' }, 'The elicitation handler returned action "ok"; expected {action: "accept" | "decline" | "cancel"}'],
    ['no action', { content: { name: 'Ada' } }, 'The elicitation handler returned action undefined; expected {action: "accept" | "decline" | "cancel"}'],
    [
      'an accept whose content is no object',
      { action: 'accept', content: ['Ada'] },
      "The elicitation handler accepted with content an array; content must be an object of the form's fields",
    ],
  ])('answers -32603 without details when the handler returns %s, and reports the details as the cause', async (_case, returned, detail) => {
    const answer = await ask(form({ name: { type: 'string' } }), returning(returned));
    expect(answer).toEqual({ ok: false, error: INVALID, cause: new TypeError(detail) });
    expect((answer as { cause: Error }).cause).toBeInstanceOf(TypeError);
  });

  it.each([
    ['decline', { action: 'decline', content: { name: 'Ada' } }, { action: 'decline' }],
    ['cancel', { action: 'cancel', content: { name: 'Ada' } }, { action: 'cancel' }],
  ])('drops content from a %s', async (_case, returned, result) => {
    expect(await ask(form({ name: { type: 'string', default: 'Bob' } }, ['name']), returning(returned))).toEqual({ ok: true, result });
  });

  it('sends only action and content, not other fields the handler returned', async () => {
    const answer = await ask(form({ name: { type: 'string' } }), returning({ action: 'accept', content: { name: 'Ada' }, _meta: { x: 1 }, note: 'hi' }));
    expect(answer).toEqual({ ok: true, result: { action: 'accept', content: { name: 'Ada' } } });
  });

  it('answers -32603 "Internal error" when the handler rejects, keeping the error itself as the cause', async () => {
    const failure = new Error('ENOENT: /home/ada/.secrets/form.json');
    const answer = await ask(form({}), () => Promise.reject(failure));
    expect(answer).toEqual({ ok: false, error: { code: -32603, message: 'Internal error' }, cause: failure });
    expect((answer as { cause: Error }).cause).toBe(failure);
  });

  it('answers with the McpError a handler throws, code, message and data as given (as with sampling and roots)', async () => {
    const answer = await ask(form({}), () => {
      throw new McpError(-32602, 'Unsupported schema', { property: 'name' });
    });
    expect(answer).toEqual({ ok: false, error: { code: -32602, message: 'Unsupported schema', data: { property: 'name' } } });
  });

  it('answers -32603 "Internal error" when the handler throws synchronously', async () => {
    const failure = new RangeError('no window');
    const answer = await ask(form({}), () => {
      throw failure;
    });
    expect(answer).toEqual({ ok: false, error: { code: -32603, message: 'Internal error' }, cause: failure });
  });

  it('wraps a thrown value that is no Error in one, keeping the value as its cause', async () => {
    const answer = await ask(form({}), () => {
      throw 'token abc123';
    });
    expect(answer.ok).toBe(false);
    const { error, cause } = answer as Extract<ElicitationAnswer, { ok: false }>;
    expect(error).toEqual({ code: -32603, message: 'Internal error' });
    expect(cause).toBeInstanceOf(Error);
    expect(cause?.message).toBe('The elicitation handler threw "token abc123"');
    expect(cause?.cause).toBe('token abc123');
  });
});

describe('rule 5: SEP-1034 defaults (applyDefaults)', () => {
  const PROPERTIES = {
    name: { type: 'string', default: 'Ada' },
    age: { type: 'integer', default: 36 },
    score: { type: 'number', default: 2.5 },
    subscribe: { type: 'boolean', default: true },
  };
  const ALL_DEFAULTS = { name: 'Ada', age: 36, score: 2.5, subscribe: true };
  const schema = (properties: Record<string, unknown>) => ({ type: 'object', properties });

  it.each<[string, unknown, Record<string, unknown> | undefined, Record<string, unknown>]>([
    ['fills every absent field from its default', schema(PROPERTIES), {}, ALL_DEFAULTS],
    ['fills the fields of an accept that carried no content', schema(PROPERTIES), undefined, ALL_DEFAULTS],
    ['lets the user input win over a default', schema(PROPERTIES), { name: 'Grace', age: 40 }, { ...ALL_DEFAULTS, name: 'Grace', age: 40 }],
    [
      'keeps a user value of 0, "" or false over a default',
      schema(PROPERTIES),
      { name: '', age: 0, score: 0, subscribe: false },
      { name: '', age: 0, score: 0, subscribe: false },
    ],
    ['counts a field whose value is undefined as absent', schema(PROPERTIES), { name: undefined, age: 1 }, { ...ALL_DEFAULTS, age: 1 }],
    ['leaves out a field whose value is undefined and that has no default', schema({ note: { type: 'string' } }), { note: undefined }, {}],
    ['keeps fields that have no default absent', schema({ name: { type: 'string' } }), {}, {}],
    ['drops a string default on a number property', schema({ n: { type: 'number', default: '5' } }), {}, {}],
    ['drops a number default on a string property', schema({ s: { type: 'string', default: 5 } }), {}, {}],
    ['drops a string default on a boolean property', schema({ b: { type: 'boolean', default: 'true' } }), {}, {}],
    ['drops a fractional default on an integer property', schema({ i: { type: 'integer', default: 2.5 } }), {}, {}],
    ['takes a whole-number default on an integer property', schema({ i: { type: 'integer', default: 2 } }), {}, { i: 2 }],
    ['drops a default that is not in the enum', schema({ c: { type: 'string', enum: ['red', 'green'], default: 'blue' } }), {}, {}],
    ['takes a default that is in the enum', schema({ c: { type: 'string', enum: ['red', 'green'], default: 'green' } }), {}, { c: 'green' }],
    [
      'drops a default that is no const of a titled oneOf (SEP-1330)',
      schema({ c: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }], default: 'Red' } }),
      {},
      {},
    ],
    [
      'takes a default that is a const of a titled oneOf',
      schema({ c: { type: 'string', oneOf: [{ const: '#f00', title: 'Red' }], default: '#f00' } }),
      {},
      { c: '#f00' },
    ],
    [
      'takes a multi-select default that is an array of allowed values',
      schema({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b', 'c'] }, default: ['a', 'c'] } }),
      {},
      { tags: ['a', 'c'] },
    ],
    [
      'drops a multi-select default with a value not allowed',
      schema({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: ['a', 'z'] } }),
      {},
      {},
    ],
    [
      'drops a multi-select default that is not an array',
      schema({ tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: 'a' } }),
      {},
      {},
    ],
    [
      'takes a titled multi-select default whose values are anyOf consts',
      schema({
        tags: {
          type: 'array',
          items: TITLED_AB,
          default: ['b'],
        },
      }),
      {},
      { tags: ['b'] },
    ],
    [
      'drops a titled multi-select default with a title instead of a const',
      schema({ tags: { type: 'array', items: { anyOf: [{ const: 'a', title: 'A' }] }, default: ['A'] } }),
      {},
      {},
    ],
    ['drops a default on a property of unknown type', schema({ x: { type: 'date', default: '2025-01-01' } }), {}, {}],
    ['leaves the content as it is for a schema that is not an object', 'object', { a: 1 }, { a: 1 }],
    [
      'leaves the content as it is for a schema whose type is not object',
      { type: 'string', properties: { b: { type: 'string', default: 'x' } } },
      { a: 1 },
      { a: 1 },
    ],
    ['leaves the content as it is for a schema without properties', { type: 'object' }, { a: 1 }, { a: 1 }],
  ])('%s', (_case, requestedSchema, content, expected) => {
    expect(applyDefaults(requestedSchema, content)).toStrictEqual(expected);
  });

  it('returns a new object and copies an array default, so neither the content nor the schema changes', () => {
    const tags = ['a'];
    const requested = schema({ name: { type: 'string', default: 'Ada' }, tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] }, default: tags } });
    const content = { other: 1 };
    const merged = applyDefaults(requested, content);
    expect(content).toStrictEqual({ other: 1 });
    (merged.tags as string[]).push('b');
    expect(tags).toEqual(['a']);
  });

  it('sets a field named __proto__ as a field, not as the prototype', () => {
    const requested = JSON.parse('{"type":"object","properties":{"__proto__":{"type":"array","items":{"type":"string"},"default":["x"]}}}');
    const merged = applyDefaults(requested, {});
    expect(Object.getPrototypeOf(merged)).toBe(Object.prototype);
    expect(Object.hasOwn(merged, '__proto__')).toBe(true);
    expect(JSON.stringify(merged)).toBe('{"__proto__":["x"]}');
  });

  it('merges defaults into an accept before it is sent', async () => {
    expect(await ask(form(PROPERTIES), accepting({ name: 'Grace' }))).toEqual({
      ok: true,
      result: { action: 'accept', content: { ...ALL_DEFAULTS, name: 'Grace' } },
    });
  });

  it('merges defaults when validation is off', async () => {
    expect(await ask(form(PROPERTIES), accepting(), { validate: false })).toEqual({ ok: true, result: { action: 'accept', content: ALL_DEFAULTS } });
  });
});

describe('rule 6: an accept is validated against requestedSchema after the merge', () => {
  it('answers -32602 listing the violations, with each in data.violations, instead of sending the content', async () => {
    const answer = await ask(
      form({ email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 18 } }, ['email']),
      accepting({ email: 'not-an-address', age: 12 }),
    );
    expect(answer).toEqual({
      ok: false,
      error: {
        code: -32602,
        message: 'The elicitation answer does not match requestedSchema: email must match format "email"; age must be >= 18',
        data: {
          violations: [
            { property: 'email', rule: 'format', message: 'must match format "email"' },
            { property: 'age', rule: 'minimum', message: 'must be >= 18' },
          ],
        },
      },
      cause: expect.objectContaining({ name: 'ElicitationValidationError', code: -32602 }),
    });
  });

  it('reports a required property still missing after the merge as a violation', async () => {
    const answer = await ask(form({ name: { type: 'string' }, nick: { type: 'string' } }, ['name']), accepting({ nick: 'ada' }));
    expect(answer).toMatchObject({
      ok: false,
      error: {
        code: -32602,
        message: "The elicitation answer does not match requestedSchema: name must have required property 'name'",
        data: { violations: [{ property: 'name', rule: 'required', message: "must have required property 'name'" }] },
      },
    });
  });

  it('accepts a required property that only its default supplies', async () => {
    expect(await ask(form({ name: { type: 'string', default: 'Ada' } }, ['name']), accepting({}))).toEqual({
      ok: true,
      result: { action: 'accept', content: { name: 'Ada' } },
    });
  });

  it('reports a default that breaks a bound, since only type and options are checked before the merge', async () => {
    const answer = await ask(form({ code: { type: 'string', minLength: 3, default: 'ab' } }), accepting({}));
    expect(answer).toMatchObject({ ok: false, error: { code: -32602, data: { violations: [{ property: 'code', rule: 'minLength' }] } } });
  });

  describe('formats (ajv-formats)', () => {
    it.each([
      ['email', 'ada@example.com', 'ada@'],
      ['uri', 'https://example.com/a?b=c', 'example dot com'],
      ['date', '2025-11-25', '2025-02-30'],
      ['date-time', '2025-11-25T10:00:00Z', '2025-11-25 10:00'],
    ])('%s: accepts %j and reports %j', async (format, good, bad) => {
      const params = form({ value: { type: 'string', format } });
      expect(await ask(params, accepting({ value: good }))).toEqual({ ok: true, result: { action: 'accept', content: { value: good } } });
      expect(await ask(params, accepting({ value: bad }))).toMatchObject({
        ok: false,
        error: { code: -32602, data: { violations: [{ property: 'value', rule: 'format', message: `must match format "${format}"` }] } },
      });
    });
  });

  describe('enums (SEP-1330)', () => {
    const ENUMS = {
      plain: { type: 'string', enum: ['red', 'green'] },
      legacy: { type: 'string', enum: ['r', 'g'], enumNames: ['Red', 'Green'] },
      titled: {
        type: 'string',
        oneOf: [
          { const: '#f00', title: 'Red' },
          { const: '#0f0', title: 'Green' },
        ],
      },
      multi: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
      titledMulti: {
        type: 'array',
        items: TITLED_AB,
      },
    };

    it('accepts a value of each kind of enum', async () => {
      const content = { plain: 'green', legacy: 'g', titled: '#0f0', multi: ['a', 'b'], titledMulti: ['b'] };
      expect(await ask(form(ENUMS), accepting(content))).toEqual({ ok: true, result: { action: 'accept', content } });
    });

    it.each([
      ['plain', 'blue', 'enum'],
      ['legacy', 'Red', 'enum'],
      ['titled', 'Red', 'oneOf'],
      ['multi', ['a', 'z'], 'enum'],
      ['titledMulti', ['A'], 'anyOf'],
    ])('reports a value outside the %s enum', async (property, value, rule) => {
      const answer = await ask(form(ENUMS), accepting({ [property]: value }));
      expect(answer.ok).toBe(false);
      const { error } = answer as Extract<ElicitationAnswer, { ok: false }>;
      expect(error.code).toBe(-32602);
      expect((error.data as { violations: { property: string; rule: string }[] }).violations).toContainEqual(expect.objectContaining({ property, rule }));
    });
  });

  it('compiles each schema once per content, across answers and new params objects', async () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const elicitation = new ClientElicitation(new SchemaCompiler());
    const schema = () => ({ type: 'object', properties: { name: { type: 'string', minLength: 2 } }, required: ['name'] });
    const answers = [];
    for (const name of ['Ada', 'B', 'Grace']) {
      answers.push(await elicitation.answer({ message: 'Q', requestedSchema: schema() }, policy(accepting({ name })), CTX));
    }
    expect(answers.map((a) => a.ok)).toEqual([true, false, true]);
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('validates with the compiler it is given, sharing its cache', async () => {
    const compiler = new SchemaCompiler();
    const params = form({ name: { type: 'string' } });
    compiler.compile(params.requestedSchema);
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    expect(await new ClientElicitation(compiler).answer(params, policy(accepting({ name: 'Ada' })), CTX)).toMatchObject({ ok: true });
    expect(compile).not.toHaveBeenCalled();
    expect(compiler.size).toBe(1);
  });

  it('sends the merged content unvalidated when ajv cannot compile the schema, and tries that schema once', async () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const elicitation = new ClientElicitation(new SchemaCompiler());
    const params = { message: 'Q', requestedSchema: { type: 'object', properties: { n: { type: 'number', minimum: 'ten', default: 3 } } } };
    for (let i = 0; i < 2; i++) {
      expect(await elicitation.answer(params, policy(accepting({ extra: true })), CTX)).toEqual({
        ok: true,
        result: { action: 'accept', content: { extra: true, n: 3 } },
      });
    }
    expect(compile).toHaveBeenCalledTimes(1);
  });

  it('sends the content unvalidated when the schema is malformed (properties is no object)', async () => {
    const params = { message: 'Q', requestedSchema: { type: 'object', properties: 'name', required: ['name'] } };
    expect(await ask(params, accepting({ other: 1 }))).toEqual({ ok: true, result: { action: 'accept', content: { other: 1 } } });
  });

  it('does not compile a schema with an $id, which would claim that name in a compiler a local server may share', async () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    const params = { message: 'Q', requestedSchema: { $id: 'https://example.com/form', type: 'object', properties: { n: { type: 'number' } } } };
    expect(await ask(params, accepting({ n: 'x' }))).toEqual({ ok: true, result: { action: 'accept', content: { n: 'x' } } });
    expect(compile).not.toHaveBeenCalled();
  });

  it('sends the content unvalidated when validate is false', async () => {
    const params = form({ email: { type: 'string', format: 'email' } }, ['email', 'name']);
    expect(await ask(params, accepting({ email: 'nope' }), { validate: false })).toEqual({
      ok: true,
      result: { action: 'accept', content: { email: 'nope' } },
    });
  });

  it('validates only an accept: a decline of a form with required fields is sent as it is', async () => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    expect(await ask(form({ name: { type: 'string' } }, ['name']), returning({ action: 'decline' }))).toEqual({ ok: true, result: { action: 'decline' } });
    expect(compile).not.toHaveBeenCalled();
  });
});

describe('rule 7: URL mode', () => {
  it.each([
    ['accept', { action: 'accept', content: { token: 'abc' } }, { action: 'accept' }],
    ['decline', { action: 'decline' }, { action: 'decline' }],
    ['cancel', { action: 'cancel', content: {} }, { action: 'cancel' }],
  ])('sends a %s with no content, unvalidated', async (_case, returned, result) => {
    const compile = vi.spyOn(Ajv2020.prototype, 'compile');
    expect(await ask(URL_ASK, returning(returned))).toEqual({ ok: true, result });
    expect(compile).not.toHaveBeenCalled();
  });

  it.each(['http://localhost:3000/callback', 'http://LOCALHOST/x', 'http://127.0.0.1/x', 'http://[::1]:8080/x', 'http://0x7f.0.0.1/x'])(
    'takes plain http on loopback, as the server does: %s',
    async (url) => {
      expect(await ask({ ...URL_ASK, url }, returning({ action: 'accept' }))).toEqual({ ok: true, result: { action: 'accept' } });
    },
  );

  it('merges no defaults, even when the params carry a requestedSchema', async () => {
    const params = { ...URL_ASK, requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } } };
    expect(await ask(params, accepting())).toEqual({ ok: true, result: { action: 'accept' } });
  });

  it('takes a 2026-07-28 request, which has no elicitationId', async () => {
    const { elicitationId: _, ...modern } = URL_ASK;
    const answer = await new ClientElicitation().answer(modern, policy(returning({ action: 'accept' })), {
      ...CTX,
      era: 'modern',
      inputKey: 'login',
      requestId: undefined,
    });
    expect(answer).toEqual({ ok: true, result: { action: 'accept' } });
  });
});

describe('rule 8: plain http to another host is refused before the handler, as the server refuses to send it', () => {
  const cleanups = useCleanups();
  const clients = useMcpClients(cleanups);
  const URL_PLAIN = 'http://localhost.evil.example/login';
  const REFUSAL = `Invalid params: URL-mode elicitation/create needs an https: url (http: only on loopback: localhost, 127.0.0.1 or [::1]); got "${URL_PLAIN}"`;

  it('answers an elicitation/create that an McpServer pushes raw over WebSocket -32602', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('login', {}, async (_args, ctx) => {
        try {
          return JSON.stringify(await ctx.request('elicitation/create', { mode: 'url', message: 'Log in', url: URL_PLAIN, elicitationId: 'e1' }));
        } catch (err) {
          return JSON.stringify({ code: (err as McpError).code, message: (err as McpError).message });
        }
      }),
    );
    const handler = vi.fn(returning({ action: 'accept' }));
    const { client, errors } = await clients.connect(running, { capabilities: { elicitation: { url: {} } } }, (c) => c.onElicitation(handler));
    const result = await client.callTool('login', {});
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ code: -32602, message: REFUSAL }) }]);
    expect(handler).not.toHaveBeenCalled();
    expect(errors).toEqual([]);
  });
});
