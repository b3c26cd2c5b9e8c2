/** A form as `prepare` gives it back: the asked params exactly, on the wire and to anyone who copies them. */
import { describe, expect, it } from 'vitest';
import { checkedByStandard, elicitationKind } from '../../src/elicitation/elicit.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';

const OPTIONS = { validateElicitation: true, requestTimeoutMs: 1000, elicitationTimeoutMs: 1000, samplingTimeoutMs: 1000 };
const CAPABILITIES = { elicitation: { form: {} } };
const params = () => ({
  message: 'Who are you?',
  requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const, minLength: 1 } }, required: ['name'] },
});

describe('elicitationKind.prepare', () => {
  it('gives a copy of the params that serialises, spreads and compares byte for byte as the params', () => {
    const ctx = { schemas: new SchemaCompiler(), options: OPTIONS };
    const asked = params();
    const prepared = elicitationKind.prepare(ctx, CAPABILITIES, asked);
    expect(prepared).not.toBe(asked);
    expect(JSON.stringify(prepared)).toBe(JSON.stringify(asked));
    expect(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: prepared })).toBe(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'elicitation/create', params: asked }),
    );
    expect(Object.keys(prepared)).toEqual(Object.keys(asked));
    expect({ ...prepared }).toEqual(asked);
    expect(Object.getOwnPropertySymbols(prepared)).toEqual([]);
    expect(checkedByStandard(prepared)).toBe(false);
  });

  it('reads an answer against the schema it prepared, and a copy of the params without it the same way', () => {
    const ctx = { schemas: new SchemaCompiler(), options: OPTIONS };
    const prepared = elicitationKind.prepare(ctx, CAPABILITIES, params());
    const answer = { action: 'accept', content: { name: 'Ada', extra: 1 } };
    expect(elicitationKind.interpret(ctx, answer, prepared)).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(elicitationKind.interpret(ctx, answer, { ...prepared })).toEqual({ action: 'accept', content: { name: 'Ada' } });
    expect(() => elicitationKind.interpret(ctx, { action: 'accept', content: { name: '' } }, prepared)).toThrow();
  });
});
