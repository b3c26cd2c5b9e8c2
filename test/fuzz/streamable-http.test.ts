/**
 * The Streamable HTTP request checks against generated requests, over a real StreamableHttpTransport on
 * 127.0.0.1:0: GET, POST, DELETE, PUT and OPTIONS with any mix of Accept, Content-Type, Mcp-Session-Id,
 * MCP-Protocol-Version, Origin, Host, Last-Event-ID and the 2026-07-28 Mcp-Method, Mcp-Name and
 * Mcp-Param-* headers, carrying arbitrary bytes, any JSON, or valid and mutated messages of both eras.
 * Every answer has a documented status and a well-formed body, the server reports only documented
 * errors, nothing escapes as an uncaught exception or unhandled rejection, and it still serves.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { brief, checkProperty, expectNoProblems, watchProcessErrors } from '../helpers/fuzz.js';
import { httpCaseArb, sendCase, startHttpFuzzServer } from '../helpers/http-fuzz.js';
import { unexpectedErrors } from '../helpers/server-errors.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

describe('the Streamable HTTP request checks, fuzzed', () => {
  it('answers every request with a documented status and a well-formed body, and keeps serving', async () => {
    const running = await startHttpFuzzServer();
    cleanups.push(() => running.close());
    const cases = fc.array(httpCaseArb({ initialize: true, listen: true, deepValues: true }), { minLength: 5, maxLength: 40, size: 'max' });
    await checkProperty(
      cases,
      async (requests) => {
        const processErrors = watchProcessErrors();
        const errorsBefore = running.errors.length;
        try {
          const sessions = await running.sessions();
          const problems: string[] = [];
          for (const request of requests) problems.push(...(await sendCase(running.url, sessions, request)));
          problems.push(...(await running.stillServes()));
          problems.push(...unexpectedErrors(running.errors.slice(errorsBefore)).map((e) => `the server reported ${e}`));
          problems.push(...processErrors.errors.map((e) => `uncaught in the process: ${brief(e, 2000)}`));
          expectNoProblems(problems, 'what the server answered');
        } finally {
          processErrors.stop();
        }
      },
      100,
    );
  }, 120_000);
});
