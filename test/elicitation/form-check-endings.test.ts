/**
 * A form's own async check (a Standard schema's refine) ends within its request, over real sockets: a
 * pushed elicitation keeps its deadline, its cancellation and its session's close while the check runs,
 * ending once with their outcome and dropping the late result; a 2026-07-28 retry is answered within
 * elicitationTimeoutMs; a task asks no form again whose check threw; and a retry's answer to a
 * Standard-schema question the handler did not ask again is reported unread, never as a success.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConnectionClosedError, type McpError, RequestCancelledError, RequestTimeoutError } from '../../src/index.js';
import { CAPS, errorOf, expectMcpError, responseLog, succeeded } from '../helpers/client-requests.js';
import { MODERN_CAPS, ModernClient, type Reply } from '../helpers/modern.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { createTask, resultOf, untilStatus, useTaskServers } from '../helpers/tasks.js';
import { capture } from '../helpers/outcome.js';
import { expectAtDeadline, useFakeClock } from '../helpers/fake-clock.js';
import { gate, tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const fakeClock = useFakeClock();
const taskServers = useTaskServers(cleanups);

/** A voucher form whose check waits for `held` to open: a look-up somewhere slow. */
function slowVoucher(held: { opened: Promise<void> }) {
  return z.object({
    code: z.string().refine(async () => {
      await held.opened;
      return true;
    }, 'Unknown voucher'),
  });
}

const VOUCHER_WIRE = { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] };
const SUMMER = { action: 'accept', content: { code: 'SUMMER' } };

const timedOut = (ms: number) => ({
  code: -32001,
  message: `elicitation/create timed out after ${ms} ms without a reply; raise timeoutMs if a person has to answer it`,
  data: { timeoutMs: ms },
});
const asEvent = (error: { code: number; message: string; data: unknown }) => ({
  isError: true,
  errorCode: error.code,
  errorMessage: error.message,
  errorData: error.data,
  action: undefined,
  content: undefined,
});

/** A session whose client has answered a voucher form the check of which is still running. */
async function answeredWhileChecking(options: { timeoutMs?: number; signal?: AbortSignal } = {}) {
  const held = gate();
  const running = await startWebSocket(cleanups);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities: CAPS.form });
  fakeClock();
  const answer = capture(session.elicit({ message: 'Voucher?', requestedSchema: slowVoucher(held) }, options));
  const asked = await client.nextMessage('elicitation/create');
  client.respond(asked.id, SUMMER);
  // The ping's reply proves the server has the answer, which its check now reads.
  await pingOk(client);
  expect([session.pendingRequests, running.server.stats.pendingRequests, log.all]).toEqual([1, 1, []]);
  return { held, running, log, client, session, answer, id: asked.id as number };
}

/** The request ended once, with `error`; the check's late result, once it comes, changes nothing. */
async function expectEndedOnceWith(
  ended: Awaited<ReturnType<typeof answeredWhileChecking>>,
  cls: abstract new (...args: never[]) => McpError,
  error: { code: number; message: string; data: unknown },
) {
  const { held, running, log, session, answer } = ended;
  expectMcpError(errorOf(await answer.outcome), cls, error);
  expect([session.pendingRequests, running.server.stats.pendingRequests]).toEqual([0, 0]);
  held.open();
  await tick();
  expect(log.all.map(([, , response]) => response)).toEqual([asEvent(error)]);
  expect(running.server.stats.invalidResults).toBe(0);
}

describe('an async check of a pushed form answer ends within its request', () => {
  it("times out at the request's deadline with RequestTimeoutError; the client, which answered, is not told to cancel", async () => {
    const ended = await answeredWhileChecking({ timeoutMs: 100 });
    // The reply came at about 0 ms: the deadline is still the request's, counted from sending.
    expectAtDeadline(100, () => ended.log.all.length, { before: 0, at: 1 });
    await expectEndedOnceWith(ended, RequestTimeoutError, timedOut(100));
    await expectQuietAndAlive(ended.client);
  });

  it('ends with ConnectionClosedError when the session closes during the check', async () => {
    const ended = await answeredWhileChecking();
    ended.session.close('bye');
    await expectEndedOnceWith(ended, ConnectionClosedError, { code: -32000, message: 'elicitation/create could not complete: bye', data: { reason: 'bye' } });
  });

  it('ends with RequestCancelledError when its signal aborts during the check', async () => {
    const abort = new AbortController();
    const ended = await answeredWhileChecking({ signal: abort.signal });
    abort.abort('no longer needed');
    await expectEndedOnceWith(ended, RequestCancelledError, {
      code: -32800,
      message: 'elicitation/create was cancelled: no longer needed',
      data: { reason: 'no longer needed' },
    });
    await expectQuietAndAlive(ended.client);
  });

  it('counts a second reply during the check as a duplicate, and the first answer still ends the request', async () => {
    const ended = await answeredWhileChecking();
    ended.client.respond(ended.id, { action: 'decline' });
    await pingOk(ended.client);
    expect(ended.running.server.stats.duplicateResponses).toBe(1);
    ended.held.open();
    expect(await ended.answer.outcome).toEqual({ ok: true, value: SUMMER });
    expect(ended.log.all.map(([, , response]) => response)).toEqual([succeeded('elicitation', SUMMER)]);
  });

  it('ends with RequestCancelledError when the client cancels the tool call whose ctx.elicit it is, during the check', async () => {
    const held = gate();
    const finished = gate();
    let caught: unknown;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('redeem', {}, async (_args, ctx) => {
        try {
          await ctx.elicit({ message: 'Voucher?', requestedSchema: slowVoucher(held) });
        } catch (err) {
          caught = err;
        }
        finished.open();
        return 'done';
      }),
    );
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client, session } = await h.open(running, { capabilities: CAPS.form });
    client.sendRaw({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'redeem', arguments: {} } });
    const asked = await client.nextMessage('elicitation/create');
    client.respond(asked.id, SUMMER);
    await pingOk(client);
    expect(session.pendingRequests).toBe(1);
    client.notify('notifications/cancelled', { requestId: 'call-1', reason: 'changed my mind' });
    await finished.opened;
    const cancelled = {
      code: -32800,
      message: 'elicitation/create was cancelled: cancelled by the client: changed my mind',
      data: { reason: 'cancelled by the client: changed my mind' },
    };
    expectMcpError(caught, RequestCancelledError, cancelled);
    held.open();
    await tick();
    expect(log.all.map(([, , response]) => response)).toEqual([asEvent(cancelled)]);
    // A cancelled tools/call gets no response, and the client, which answered, is not told to cancel the elicitation.
    await expectQuietAndAlive(client);
  });
});

const ok = (id: number, result: Json): Reply => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
const done = (id: number, text: string, isError?: true): Reply =>
  ok(id, isError ? { resultType: 'complete', content: [{ type: 'text', text }], isError } : { resultType: 'complete', content: [{ type: 'text', text }] });

async function http(setup: Parameters<typeof startHttp>[1], options?: Parameters<typeof startHttp>[2]) {
  const running = await startHttp(cleanups, setup, options);
  return { ...running, log: responseLog(running.server, 'responseElicitationCreate') };
}

describe('an async check of a form answer on a 2026-07-28 retry', () => {
  it('fails the tool with the RequestTimeoutError as its isError result at elicitationTimeoutMs, rather than holding the retry', async () => {
    const held = gate();
    const { url, log } = await http(
      (server) =>
        server.registerTool('redeem', {}, async (_args, ctx) => {
          const answer = await ctx.elicit({ message: 'Voucher?', requestedSchema: slowVoucher(held) });
          return answer.action;
        }),
      { server: { elicitationTimeoutMs: 100 } },
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('redeem');
    expect(first.body.result.inputRequests).toEqual({
      'elicit-1': { method: 'elicitation/create', params: { message: 'Voucher?', requestedSchema: VOUCHER_WIRE } },
    });
    const retry = await client.callTool('redeem', {}, { inputResponses: { 'elicit-1': SUMMER }, requestState: first.body.result.requestState });
    expect(retry).toEqual(done(2, timedOut(100).message, true));
    held.open();
    await tick();
    expect(log.all.map(([, request, response]) => [request.id, response])).toEqual([['elicit-1', asEvent(timedOut(100))]]);
  });

  it('reports an answer to a Standard-schema question the handler did not ask again as unread, not as a success', async () => {
    let calls = 0;
    const { url, log } = await http((server) =>
      server.registerTool('maybe', {}, async (_args, ctx) => {
        if (++calls === 1) await ctx.elicit({ message: 'Voucher?', requestedSchema: z.object({ code: z.string() }) });
        return 'changed my mind';
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('maybe');
    const retry = await client.callTool('maybe', {}, { inputResponses: { 'elicit-1': SUMMER }, requestState: first.body.result.requestState });
    expect(retry).toEqual(done(2, 'changed my mind'));
    const reason = 'the handler did not ask it again, so its answer went unread';
    expect(log.all.map(([, request, response]) => [request.id, response])).toEqual([
      ['elicit-1', asEvent({ code: -32800, message: `elicitation/create was cancelled: ${reason}`, data: { reason } })],
    ]);
  });
});

describe('a form in a task (a detached run) whose check throws', () => {
  it('fails the task with the -32603 after one ask, asking nothing again', async () => {
    const broken = z.object({
      code: z.string().refine(() => {
        throw new Error('voucher service down');
      }),
    });
    const { declared, server } = await taskServers.serve((_server, tasks) =>
      tasks.registerTool('redeem', { taskSupport: 'required' }, async (_args, ctx) =>
        JSON.stringify(await ctx.elicit({ message: 'Voucher?', requestedSchema: broken })),
      ),
    );
    const log = responseLog(server, 'responseElicitationCreate');
    const taskId = await createTask(declared, 'redeem');
    await untilStatus(declared, taskId, 'input_required');
    resultOf(await declared.request('tasks/update', { taskId, inputResponses: { 'elicit-1': SUMMER } }));
    const failed = await untilStatus(declared, taskId, 'failed');
    const threw = { code: -32603, message: "The requestedSchema's own check threw: voucher service down" };
    expect(failed.error).toEqual(threw);
    expect(failed.inputRequests).toBeUndefined();
    expect(log.all.map(([, request, response]) => [request.id, response])).toEqual([['elicit-1', asEvent({ ...threw, data: undefined })]]);
  });
});
