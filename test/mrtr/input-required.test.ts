/** What a handler that catches the signal `ctx.elicit` throws on 2026-07-28 sees of it. */
import { describe, expect, it } from 'vitest';
import { InputRequiredSignal } from '../../src/index.js';
import { InputRound } from '../../src/mrtr/input-round.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';

describe('InputRequiredSignal', () => {
  it('is an Error named InputRequiredSignal whose message names the input and says to let it propagate', () => {
    const signal = new InputRequiredSignal('name');
    expect(signal).toBeInstanceOf(Error);
    expect(signal.name).toBe('InputRequiredSignal');
    expect(signal.key).toBe('name');
    const message = "input 'name' is required from the client; the handler runs again with the answer (let this error propagate)";
    expect(signal.message).toBe(message);
    expect(String(signal)).toBe(`InputRequiredSignal: ${message}`);
    expect(signal.stack).toBe(`InputRequiredSignal: ${message}`);
  });

  it('reads the same when the runtime makes it (InputRequiredSignal.for) as when made with new', () => {
    const made = InputRequiredSignal.for('name');
    const built = new InputRequiredSignal('name');
    expect(made).toBeInstanceOf(InputRequiredSignal);
    expect(made).toBeInstanceOf(Error);
    for (const signal of [made, built]) {
      expect([signal.name, signal.key, signal.message, String(signal), signal.stack]).toEqual([
        'InputRequiredSignal',
        'name',
        built.message,
        `InputRequiredSignal: ${built.message}`,
        `InputRequiredSignal: ${built.message}`,
      ]);
      expect(Object.keys(signal).sort()).toEqual(['key', 'name']);
    }
    made.message = 'caught while booking';
    expect([made.message, made.stack]).toEqual(['caught while booking', 'InputRequiredSignal: caught while booking']);
  });

  it('takes a message a handler writes over it, on that signal alone', () => {
    const signal = new InputRequiredSignal('name');
    signal.message = `while booking: ${signal.message}`;
    expect(signal.message).toMatch(/^while booking: input 'name' is required/);
    expect(new InputRequiredSignal('seat').message).toMatch(/^input 'seat' is required/);
    expect(Object.keys(signal).sort()).toEqual(['key', 'name']);
  });
});

describe('a question ctx.elicit asks on 2026-07-28', () => {
  it('goes into the input-required as the handler asked it, byte for byte', async () => {
    const kinds = {
      schemas: new SchemaCompiler(),
      options: { validateElicitation: true, requestTimeoutMs: 1000, elicitationTimeoutMs: 1000, samplingTimeoutMs: 1000 },
    };
    const round = new InputRound(kinds, {}, undefined, {}, 0);
    const params = { message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    await expect(round.require({ elicitation: { form: {} } }, { method: 'elicitation/create', params }, 'who')).rejects.toBeInstanceOf(InputRequiredSignal);
    expect(JSON.stringify(round.pending?.inputRequests)).toBe(JSON.stringify({ who: { method: 'elicitation/create', params } }));
  });
});
