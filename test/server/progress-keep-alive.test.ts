/**
 * Keep-alive progress: while a client request that carried a progress token waits on a person (an
 * elicitation, a confirmation, sampling), the server sends `notifications/progress` for it every
 * `progressKeepAliveMs`, increasing and below the handler's total, and stops the moment the wait or the
 * request ends. A raw WebSocket peer on a fake clock, so every notification is counted exactly.
 */
import { describe, expect, it, vi } from 'vitest';
import type { McpServer, McpServerOptions } from '../../src/index.js';
import { NAME_Q, SAMPLE_Q } from '../helpers/client-requests.js';
import { modernRequest } from '../helpers/modern.js';
import { flush, recordMessages, useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useFakeClock } from '../helpers/fake-clock.js';
import type { Json, WsTestClient } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const fakeClock = useFakeClock();

const PERIOD = 1000;
const CAPABILITIES = { elicitation: { form: {} }, sampling: {}, roots: {} };
/** A keep-alive's step below 1 (steps are 2^-30 of the scale: the larger of 1, the progress and the total). */
const STEP = 2 ** -30;

function progress(progressToken: string | number, value: number, total?: number, message?: string): Json {
  const params: Json = { progressToken, progress: value };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  return { jsonrpc: '2.0', method: 'notifications/progress', params };
}

function text(id: string | number, value: string): Json {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: value }] } };
}

/**
 * A server with `setup` and a 1 s keep-alive, a client that declares elicitation, sampling and roots, and
 * every message the client receives from now on; the clock is fake from here.
 */
async function open(setup: (server: McpServer) => void, options: McpServerOptions = {}) {
  const running = await startWebSocket(cleanups, setup, { server: { progressKeepAliveMs: PERIOD, ...options } });
  const { client, session } = await h.open(running, { capabilities: CAPABILITIES });
  const log = recordMessages(client);
  fakeClock();
  return { running, client, session, log };
}

/** Move the clock on by `ms` and wait until everything the server sent meanwhile has arrived. */
async function advance(client: WsTestClient, ms: number): Promise<void> {
  vi.advanceTimersByTime(ms);
  await flush(client);
}

/** The messages of `log` other than the pings `flush` sent, and forget them. */
function take(log: Json[]): Json[] {
  const taken = log.filter((m) => !('result' in m && typeof m.id === 'number' && Object.keys(m.result).length === 0));
  log.length = 0;
  return taken;
}

const askName = (server: McpServer) =>
  server.registerTool('ask_name', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(NAME_Q);
    return `hello ${String(answer.content?.name)}`;
  });

describe('while an elicitation waits', () => {
  it('sends progress for the request token every progressKeepAliveMs with the question, from 0 in steps of 2^-30, and stops once it is answered', async () => {
    const { client, session, log } = await open(askName);
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name', _meta: { progressToken: 'tok' } } });
    const asked = await client.nextMessage('elicitation/create');
    log.length = 0;

    await advance(client, PERIOD - 1);
    expect(take(log)).toEqual([]);
    await advance(client, 1);
    await advance(client, 2 * PERIOD);
    expect(take(log)).toEqual([
      progress('tok', 0, undefined, 'What is your name?'),
      progress('tok', STEP, undefined, 'What is your name?'),
      progress('tok', 2 * STEP, undefined, 'What is your name?'),
    ]);

    client.respond(asked.id, { action: 'accept', content: { name: 'Ada' } });
    await client.waitFor((m) => m.id === 'call');
    await advance(client, 10 * PERIOD);
    expect(take(log)).toEqual([text('call', 'hello Ada')]);
    expect(session.pendingRequests).toBe(0);
  });

  it('goes on from the handler’s own progress below its total, and the handler’s next progress follows', async () => {
    const { client, log } = await open((server) =>
      server.registerTool('steps', {}, async (_args, ctx) => {
        ctx.progress(1, 4, 'started');
        await ctx.elicit(NAME_Q);
        ctx.progress(2, 4, 'answered');
        return 'done';
      }),
    );
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'steps', _meta: { progressToken: 7 } } });
    const asked = await client.nextMessage('elicitation/create');
    await advance(client, 2 * PERIOD);
    client.respond(asked.id, { action: 'accept', content: { name: 'Ada' } });
    await client.waitFor((m) => m.id === 'call');

    // The scale is the total, 4: each step is 4 × 2^-30.
    expect(take(log)).toEqual([
      progress(7, 1, 4, 'started'),
      asked,
      progress(7, 1 + 4 * STEP, 4, 'What is your name?'),
      progress(7, 1 + 8 * STEP, 4, 'What is your name?'),
      progress(7, 2, 4, 'answered'),
      text('call', 'done'),
    ]);
  });

  it('sends nothing once the handler has reported its total: no progress is left below it', async () => {
    const { client, log } = await open((server) =>
      server.registerTool('finished_first', {}, async (_args, ctx) => {
        ctx.progress(4, 4, 'all done');
        await ctx.elicit(NAME_Q);
        return 'done';
      }),
    );
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'finished_first', _meta: { progressToken: 't' } } });
    const asked = await client.nextMessage('elicitation/create');
    await advance(client, 3 * PERIOD);
    client.respond(asked.id, { action: 'accept', content: { name: 'Ada' } });
    await client.waitFor((m) => m.id === 'call');
    expect(take(log)).toEqual([progress('t', 4, 4, 'all done'), asked, text('call', 'done')]);
  });

  it('sends one notification per period for two questions at once, with the latest one’s message while it waits', async () => {
    const SEAT = { message: 'Which seat?', requestedSchema: { type: 'object', properties: { seat: { type: 'string' } } } } as const;
    const { client, log } = await open((server) =>
      server.registerTool('two', {}, async (_args, ctx) => {
        await Promise.all([ctx.elicit(NAME_Q), ctx.elicit(SEAT)]);
        return 'both';
      }),
    );
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'two', _meta: { progressToken: 't' } } });
    const first = await client.waitFor((m) => m.method === 'elicitation/create' && m.params.message === 'What is your name?');
    const second = await client.waitFor((m) => m.method === 'elicitation/create' && m.params.message === 'Which seat?');
    log.length = 0;
    await advance(client, PERIOD);
    client.respond(second.id, { action: 'accept', content: { seat: '1A' } });
    await flush(client);
    await advance(client, PERIOD);
    client.respond(first.id, { action: 'accept', content: { name: 'Ada' } });
    await client.waitFor((m) => m.id === 'call');
    await advance(client, PERIOD);
    expect(take(log)).toEqual([progress('t', 0, undefined, 'Which seat?'), progress('t', STEP, undefined, 'What is your name?'), text('call', 'both')]);
  });
});

describe('every wait on a person', () => {
  it('keeps a confirmation gate alive with its question', async () => {
    const { client, log } = await open((server) => server.registerTool('delete_note', { confirm: 'Delete note 7?' }, () => 'deleted'));
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'delete_note', _meta: { progressToken: 'gate' } } });
    const asked = await client.nextMessage('elicitation/create');
    await advance(client, 2 * PERIOD);
    client.respond(asked.id, { action: 'accept', content: {} });
    await client.waitFor((m) => m.id === 'call');
    expect(take(log)).toEqual([
      asked,
      progress('gate', 0, undefined, 'Delete note 7?'),
      progress('gate', STEP, undefined, 'Delete note 7?'),
      text('call', 'deleted'),
    ]);
  });

  it('keeps sampling alive, saying what it waits for', async () => {
    const { client, log } = await open((server) =>
      server.registerTool('summarize', {}, async (_args, ctx) => {
        await ctx.createMessage(SAMPLE_Q);
        return 'summarized';
      }),
    );
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'summarize', _meta: { progressToken: 's' } } });
    const asked = await client.nextMessage('sampling/createMessage');
    await advance(client, PERIOD);
    client.respond(asked.id, { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'm' });
    await client.waitFor((m) => m.id === 'call');
    expect(take(log)).toEqual([asked, progress('s', 0, undefined, 'Waiting for the client to answer sampling/createMessage'), text('call', 'summarized')]);
  });
});

describe('the keep-alive stops', () => {
  it('when the elicitation times out', async () => {
    const { client, log } = await open(askName, { elicitationTimeoutMs: 2500 });
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name', _meta: { progressToken: 'tok' } } });
    const asked = await client.nextMessage('elicitation/create');
    log.length = 0;
    await advance(client, 2500);
    await client.waitFor((m) => m.id === 'call');
    await advance(client, 5 * PERIOD);
    expect(take(log)).toEqual([
      progress('tok', 0, undefined, 'What is your name?'),
      progress('tok', STEP, undefined, 'What is your name?'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: asked.id, reason: 'timed out after 2500 ms' } },
      {
        jsonrpc: '2.0',
        id: 'call',
        result: {
          content: [{ type: 'text', text: 'elicitation/create timed out after 2500 ms without a reply; raise timeoutMs if a person has to answer it' }],
          isError: true,
        },
      },
    ]);
  });

  it('when the client cancels the request', async () => {
    const { client, session, log } = await open(askName);
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name', _meta: { progressToken: 'tok' } } });
    const asked = await client.nextMessage('elicitation/create');
    log.length = 0;
    await advance(client, PERIOD);
    client.notify('notifications/cancelled', { requestId: 'call', reason: 'no longer needed' });
    await flush(client);
    await advance(client, 5 * PERIOD);
    expect(take(log)).toEqual([
      progress('tok', 0, undefined, 'What is your name?'),
      { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: asked.id, reason: 'cancelled by the client: no longer needed' } },
    ]);
    expect(session.pendingRequests).toBe(0);
  });

  it('when the request ends while its question still waits', async () => {
    const { client, session, log } = await open((server) =>
      server.registerTool('ask_and_go', {}, (_args, ctx) => {
        void ctx.elicit(NAME_Q).catch(() => {});
        return 'asked';
      }),
    );
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_and_go', _meta: { progressToken: 'tok' } } });
    await client.waitFor((m) => m.id === 'call');
    await advance(client, 5 * PERIOD);
    expect(take(log)).toEqual([expect.objectContaining({ method: 'elicitation/create' }), text('call', 'asked')]);
    expect(session.pendingRequests).toBe(1);
  });
});

describe('nothing is sent', () => {
  it.each([
    ['without a progress token', {}, PERIOD],
    ['with progressKeepAliveMs 0', { progressToken: 'tok' }, 0],
  ])('%s', async (_what, meta, progressKeepAliveMs) => {
    const { client, log } = await open(askName, { progressKeepAliveMs });
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'ask_name', _meta: meta } });
    const asked = await client.nextMessage('elicitation/create');
    await advance(client, 5 * PERIOD);
    client.respond(asked.id, { action: 'accept', content: { name: 'Ada' } });
    await client.waitFor((m) => m.id === 'call');
    expect(take(log)).toEqual([asked, text('call', 'hello Ada')]);
  });

  it('while roots/list waits: no person answers it', async () => {
    const { client, log } = await open((server) => server.registerTool('roots', {}, async (_args, ctx) => `${(await ctx.listRoots()).roots.length} roots`));
    client.sendRaw({ jsonrpc: '2.0', id: 'call', method: 'tools/call', params: { name: 'roots', _meta: { progressToken: 'tok' } } });
    const asked = await client.nextMessage('roots/list');
    await advance(client, 5 * PERIOD);
    client.respond(asked.id, { roots: [] });
    await client.waitFor((m) => m.id === 'call');
    expect(take(log)).toEqual([asked, text('call', '0 roots')]);
  });

  it('on 2026-07-28, where the request is answered input_required at once and never waits', async () => {
    const { client, log } = await open(askName);
    client.sendRaw(
      modernRequest('call', 'tools/call', { name: 'ask_name' }, { progressToken: 'tok', 'io.modelcontextprotocol/clientCapabilities': CAPABILITIES }),
    );
    const answer = await client.waitFor((m) => m.id === 'call');
    expect(answer.result).toMatchObject({ resultType: 'input_required', inputRequests: { 'elicit-1': { method: 'elicitation/create' } } });
    await advance(client, 5 * PERIOD);
    expect(take(log)).toEqual([answer]);
  });
});
