/**
 * Values the server must not turn into text whole: nested some thousands deep (JSON.stringify and String
 * overflow the stack on them) or objects whose toString is no function. Each place the server quotes a
 * client's value in an answer, a header check or a cancellation is fuzzed with them: the answer is the
 * documented one, nothing is reported, and the process and the connection live on.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { META } from '../../src/protocol/meta.js';
import { brief, checkProperty, expectNoProblems, watchProcessErrors } from '../helpers/fuzz.js';
import { type HttpCase, sendCase, startHttpFuzzServer } from '../helpers/http-fuzz.js';
import { deepArb, type Frame, type RawJson, unprintableObject, validId } from '../helpers/jsonrpc-arbitraries.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWsFuzzServer } from '../helpers/ws-fuzz.js';

const cleanups = useCleanups();

/** Deep enough that JSON.stringify and String overflow the stack wherever the server calls them. */
const deep = deepArb(10_000);
const deepArray = deepArb(10_000, ['array']);

const envelope = (extra: Record<string, unknown>) => ({ [META.protocolVersion]: '2026-07-28', [META.clientCapabilities]: {}, ...extra });

/** Requests whose cursor, log level or completion reference type is nested deep. */
const deepParamRequest: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    id: validId,
    call: fc.oneof(
      fc
        .record({ method: fc.constantFrom('tools/list', 'prompts/list', 'resources/list', 'resources/templates/list'), cursor: deep })
        .map(({ method, cursor }) => ({ method, params: { cursor } })),
      deep.map((level) => ({ method: 'logging/setLevel', params: { level } })),
      deepArray.map((type) => ({ method: 'completion/complete', params: { ref: { type }, argument: { name: 'a', value: 'b' } } })),
    ),
  })
  .map(({ id, call }) => ({ jsonrpc: '2.0', id, ...call }));

/** 2026-07-28 requests whose `_meta` log level or protocol version is nested deep. */
const deepEnvelopeRequest: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    id: validId,
    method: fc.constantFrom('tools/list', 'server/discover', 'prompts/list'),
    meta: fc.oneof(
      deep.map((level) => envelope({ [META.logLevel]: level })),
      deep.map((version) => envelope({ [META.protocolVersion]: version })),
    ),
  })
  .map(({ id, method, meta }) => ({ jsonrpc: '2.0', id, method, params: { _meta: meta } }));

/** A 2026-07-28 tools/call whose argument mirrored in the Mcp-Param-Region header is nested deep. */
const deepMirroredArgument: fc.Arbitrary<Record<string, unknown>> = fc
  .record({ id: validId, region: deep })
  .map(({ id, region }: { id: unknown; region: RawJson }) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name: 'regional', arguments: { region }, _meta: envelope({}) },
  }));

/** A notifications/cancelled naming a request id, with a reason String() cannot take: an array nested deep, or an object whose toString is no function. */
const unprintableCancelReason: fc.Arbitrary<Record<string, unknown>> = fc
  .record({ requestId: validId, reason: fc.oneof(deepArray, unprintableObject) })
  .map((params) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params }));

const json = (value: unknown): Frame => ({ kind: 'json', value });

describe('values nested deep or unprintable, fuzzed', () => {
  it('answers a cursor, a log level or a completion reference type nested deep with -32602, reporting nothing', async () => {
    const running = await startWsFuzzServer();
    cleanups.push(() => running.close());
    await checkProperty(
      fc.array(deepParamRequest, { minLength: 1, maxLength: 4 }),
      async (requests) => {
        const errorsBefore = running.errors.length;
        const strict: string[] = [];
        const problems = await running.round(async (open) => {
          const socket = await open('2025-11-25');
          for (const request of requests) socket.send(json(request));
          await socket.settle();
          for (const answer of socket.received) {
            if ((answer as { error?: { code?: unknown } }).error?.code !== -32602) strict.push(`answered ${brief(answer)}`);
          }
        });
        strict.push(...running.errors.slice(errorsBefore).map((e) => `the server reported ${e.message}`));
        expectNoProblems([...strict, ...problems], 'deeply nested params');
      },
      10,
    );
  });

  it('answers a 2026-07-28 POST whose _meta or mirrored argument is nested deep, and a cancellation whose reason is unprintable, with a documented status', async () => {
    const running = await startHttpFuzzServer();
    cleanups.push(() => running.close());
    const post = (value: Record<string, unknown>): HttpCase => ({
      method: 'POST',
      path: '/mcp',
      session: 'usual',
      batching: false,
      version: 'usual',
      headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
      mirrors: { 'mcp-method': { mirror: 'plain' }, 'mcp-name': { mirror: 'plain' }, 'mcp-param-region': { mirror: 'plain' } },
      body: json(value),
    });
    await checkProperty(
      fc.oneof(deepEnvelopeRequest, deepMirroredArgument, unprintableCancelReason).map(post),
      async (request) => {
        const processErrors = watchProcessErrors();
        const errorsBefore = running.errors.length;
        try {
          const problems = await sendCase(running.url, await running.sessions(), request);
          problems.push(...running.errors.slice(errorsBefore).map((e) => `the server reported ${e.name}: ${e.message}`));
          problems.push(...processErrors.errors.map((e) => `uncaught in the process: ${brief(e)}`));
          expectNoProblems(problems, 'a POST the server cannot turn into text');
        } finally {
          processErrors.stop();
        }
      },
      10,
    );
  });

  it('answers a 2026-07-28 request whose _meta is nested deep, takes a cancellation whose reason is unprintable, and lives on', async () => {
    const running = await startWsFuzzServer();
    cleanups.push(() => running.close());
    await checkProperty(
      fc.array(fc.oneof(deepEnvelopeRequest, unprintableCancelReason), { minLength: 1, maxLength: 4 }),
      async (messages) => {
        const problems = await running.round(async (open) => {
          const socket = await open('2025-03-26');
          for (const message of messages) socket.send(json(message));
        });
        expectNoProblems(problems, 'values the message path cannot turn into text');
      },
      10,
    );
  }, 60_000);
});
