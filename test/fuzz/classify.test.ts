/**
 * The JSON-RPC decoder, classifier and batch rules against arbitrary input, in process: they never throw,
 * every value is exactly one of request, notification, response or invalid, as the reference model says,
 * and every refusal is a well-formed error whose id is a string, an integer or null.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { batchRefusal, INITIALIZE_IN_BATCH } from '../../src/protocol/batches.js';
import { type Classified, classify, decode } from '../../src/protocol/jsonrpc.js';
import { LEGACY_PROTOCOL_VERSIONS, MODERN_PROTOCOL_VERSIONS } from '../../src/protocol/versions.js';
import { brief, checkProperty } from '../helpers/fuzz.js';
import { asDecoded, batchArb, messageArb, textArb, toJsonText } from '../helpers/jsonrpc-arbitraries.js';
import { errorProblem, INVALID_REQUEST, isWireId, modelKind, PARSE_ERROR } from '../helpers/jsonrpc-model.js';

const ALL_METHODS = { initialize: true, listen: true, deepValues: true };

/** Decoded values of every sort: messages valid and mutated, batches, any JSON. */
const decodedValue = fc
  .oneof({ weight: 6, arbitrary: messageArb(ALL_METHODS) }, { weight: 1, arbitrary: batchArb(ALL_METHODS) }, { weight: 2, arbitrary: fc.jsonValue() })
  .map(asDecoded);

/** Strings of every sort: any characters, nearly-JSON text, and the text of generated messages. */
const anyText = fc.oneof(
  { weight: 3, arbitrary: textArb(ALL_METHODS) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 300 }) },
  { weight: 3, arbitrary: fc.oneof(messageArb(ALL_METHODS), batchArb(ALL_METHODS)).map(toJsonText) },
);

/** Fails unless `classified` is one well-formed outcome that agrees with the reference model about `value`. */
function expectAsModelled(value: unknown, classified: Classified): void {
  const model = modelKind(value);
  const where = `classify(${brief(value)}) gave ${brief(classified)}; the model says ${brief(model)}`;
  expect(classified.kind, where).toBe(model.kind);
  switch (classified.kind) {
    case 'invalid':
      expect(classified.id === null || isWireId(classified.id), where).toBe(true);
      expect(classified.id, where).toEqual((model as { id: unknown }).id);
      expect(errorProblem(classified.error), where).toBeUndefined();
      expect(classified.error.code, where).toBe(INVALID_REQUEST);
      expect(classified.error.message, where).toMatch(/^Invalid Request: ./);
      return;
    case 'request':
      expect(classified.message, where).toBe(value);
      expect(isWireId(classified.message.id), where).toBe(true);
      return;
    case 'notification':
      expect(classified.message, where).toBe(value);
      return;
    case 'response': {
      const { message } = classified;
      expect(message.id === null || isWireId(message.id), where).toBe(true);
      expect(message.id, where).toEqual((model as { id: unknown }).id);
      if ('error' in message) expect(errorProblem(message.error), where).toBeUndefined();
      else expect(message, where).toBe(value);
    }
  }
}

describe('classify, fuzzed', () => {
  it('classifies every decoded value as exactly what the model says, without throwing', async () => {
    await checkProperty(decodedValue, (value) => expectAsModelled(value, classify(value)), 3000);
  });

  it('decodes every string into a parse error (-32700) exactly when JSON.parse refuses it, and classifies what it decodes', async () => {
    await checkProperty(
      anyText,
      (text) => {
        let parsed: { ok: true; value: unknown } | { ok: false } = { ok: false };
        try {
          parsed = { ok: true, value: JSON.parse(text) };
        } catch {
          /* the decoder must refuse it too */
        }
        const decoded = decode(text);
        const where = `decode(${brief(text)}) gave ${brief(decoded)}`;
        if (!parsed.ok) {
          expect(decoded.kind, where).toBe('parse-error');
          if (decoded.kind !== 'parse-error') return;
          expect(errorProblem(decoded.error), where).toBeUndefined();
          expect(decoded.error.code, where).toBe(PARSE_ERROR);
          return;
        }
        if (Array.isArray(parsed.value)) {
          expect(decoded.kind, where).toBe('batch');
          if (decoded.kind === 'batch') for (const member of decoded.values) expectAsModelled(member, classify(member));
          return;
        }
        expect(decoded.kind, where).toBe('single');
        if (decoded.kind === 'single') expectAsModelled(decoded.value, classify(decoded.value));
      },
      3000,
    );
  });
});

describe('batch rules, fuzzed', () => {
  const version = fc.oneof(
    fc.constantFrom<string | undefined>(undefined, ...LEGACY_PROTOCOL_VERSIONS, ...MODERN_PROTOCOL_VERSIONS, '', '2025-03-26 ', '2025-03-2'),
    fc.string({ unit: 'binary', maxLength: 12 }),
  );

  it('accepts a batch only when it is not empty and the session speaks 2025-03-26, and refuses every other with -32600', async () => {
    await checkProperty(
      fc.record({ version, size: fc.oneof(fc.nat(10), fc.nat()) }),
      ({ version, size }) => {
        const refusal = batchRefusal(version, size);
        const where = `batchRefusal(${brief(version)}, ${size}) gave ${brief(refusal)}`;
        if (size > 0 && version === '2025-03-26') {
          expect(refusal, where).toBeUndefined();
          return;
        }
        expect(refusal, where).toBeDefined();
        expect(errorProblem(refusal), where).toBeUndefined();
        expect(refusal?.code, where).toBe(INVALID_REQUEST);
      },
      1000,
    );
    expect(Object.isFrozen(INITIALIZE_IN_BATCH)).toBe(true);
    expect(errorProblem(INITIALIZE_IN_BATCH)).toBeUndefined();
  });
});
