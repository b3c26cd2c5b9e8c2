import { describe, expect, it } from 'vitest';
import { supportsElicitationMode } from '../../src/elicitation/elicit.js';
import { normalizeClientCapabilities } from '../../src/protocol/capabilities.js';
import type { ClientCapabilities } from '../../src/protocol/types.js';

describe('normalizeClientCapabilities', () => {
  it('reads elicitation {} (the 2025-06-18 form) as form mode only', () => {
    expect(normalizeClientCapabilities({ elicitation: {} })).toEqual({ elicitation: { form: {} } });
  });

  it('keeps elicitation {url: {}} as URL mode only, without adding form', () => {
    const caps = normalizeClientCapabilities({ elicitation: { url: {} } });
    expect(caps).toEqual({ elicitation: { url: {} } });
    expect(caps.elicitation).not.toHaveProperty('form');
  });

  it('keeps elicitation {form: {}, url: {}} unchanged', () => {
    expect(normalizeClientCapabilities({ elicitation: { form: {}, url: {} } })).toEqual({ elicitation: { form: {}, url: {} } });
  });

  it('keeps elicitation {form: {}} unchanged', () => {
    expect(normalizeClientCapabilities({ elicitation: { form: {} } })).toEqual({ elicitation: { form: {} } });
  });

  it('keeps other capabilities as declared', () => {
    const raw = {
      roots: { listChanged: true },
      sampling: { context: {}, tools: {} },
      experimental: { x: { y: 1 } },
      tasks: { requests: { elicitation: { create: {} } } },
      futureThing: { a: 1 },
    };
    expect(normalizeClientCapabilities(raw)).toEqual({
      roots: { listChanged: true },
      sampling: { context: {}, tools: {} },
      experimental: { x: { y: 1 } },
      tasks: { requests: { elicitation: { create: {} } } },
      futureThing: { a: 1 },
    });
  });

  it.each([[undefined], [null], ['caps'], [42], [true], [[{ elicitation: {} }]]])('returns {} for the non-object input %j', (raw) => {
    expect(normalizeClientCapabilities(raw)).toEqual({});
  });

  it('drops capability values that are not objects', () => {
    expect(normalizeClientCapabilities({ roots: true, sampling: 'yes', elicitation: null, experimental: [1], logging: 3, tasks: {} })).toEqual({ tasks: {} });
  });

  it('does not mutate its input', () => {
    const raw = { elicitation: {}, roots: { listChanged: true }, sampling: 'bad' };
    const before = structuredClone(raw);
    normalizeClientCapabilities(raw);
    expect(raw).toEqual(before);
    expect(raw.elicitation).toEqual({});
  });
});

describe('supportsElicitationMode', () => {
  it('sees form mode in normalised elicitation {}', () => {
    const caps = normalizeClientCapabilities({ elicitation: {} });
    expect(supportsElicitationMode(caps, 'form')).toBe(true);
    expect(supportsElicitationMode(caps, 'url')).toBe(false);
  });

  it('sees URL mode only when url was declared', () => {
    const caps = normalizeClientCapabilities({ elicitation: { url: {} } });
    expect(supportsElicitationMode(caps, 'url')).toBe(true);
    expect(supportsElicitationMode(caps, 'form')).toBe(false);
  });

  it('sees both modes when both were declared', () => {
    const caps = normalizeClientCapabilities({ elicitation: { form: {}, url: {} } });
    expect(supportsElicitationMode(caps, 'form')).toBe(true);
    expect(supportsElicitationMode(caps, 'url')).toBe(true);
  });

  it('sees no mode when elicitation was not declared', () => {
    const caps = normalizeClientCapabilities({ roots: {} });
    expect(supportsElicitationMode(caps, 'form')).toBe(false);
    expect(supportsElicitationMode(caps, 'url')).toBe(false);
  });

  it('does not count a mode whose value is not an object', () => {
    const caps = { elicitation: { form: true, url: 'yes' } } as unknown as ClientCapabilities;
    expect(supportsElicitationMode(caps, 'form')).toBe(false);
    expect(supportsElicitationMode(caps, 'url')).toBe(false);
  });
});
