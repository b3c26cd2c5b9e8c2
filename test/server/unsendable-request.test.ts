/**
 * A server-to-client request whose params cannot be serialised (a BigInt) fails at once with -32603:
 * it never reached the client, so nothing is left pending (no timeout, no notifications/cancelled later)
 * and the session goes on as before.
 */
import { describe, expect, it, vi } from 'vitest';
import { McpError, type McpSession } from '../../src/index.js';
import { expectQuietAndAlive, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useFakeClock } from '../helpers/fake-clock.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';
import { useHttpSessions } from '../helpers/http-streams.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const web = useHttpSessions(cleanups);
const fakeClock = useFakeClock();

const BIGINT_MESSAGE = (() => {
  try {
    JSON.stringify({ n: 1n });
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('BigInt serialised');
})();

function expectSendFailure(error: unknown, method: string): void {
  expect(error).toBeInstanceOf(McpError);
  const e = error as McpError;
  expect({ name: e.constructor.name, code: e.code, message: e.message }).toEqual({
    name: 'McpError',
    code: -32603,
    message: `${method} could not be sent: ${BIGINT_MESSAGE}`,
  });
}

function pendingSize(session: McpSession): number {
  return session.pendingRequests;
}

describe('a server-to-client request that cannot be serialised (WebSocket)', () => {
  it('rejects at once with McpError -32603, before its timeout, and leaves nothing pending', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const outcome = capture(session.request('x/custom', { n: 10n }, { timeoutMs: 60_000 }));
    await tick();
    expect(outcome.settled()).toBe(true);
    const settled = await outcome.outcome;
    expect(settled.ok).toBe(false);
    expectSendFailure(settled.ok ? undefined : settled.error, 'x/custom');
    expect(pendingSize(session)).toBe(0);
    await expectQuietAndAlive(client);
  });

  it('sends no notifications/cancelled later: not when its timeout would have passed, nor when its signal aborts', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const controller = new AbortController();
    fakeClock();
    const outcome = capture(session.request('x/custom', { nested: { big: 2n ** 70n } }, { timeoutMs: 30, signal: controller.signal }));
    const settled = await outcome.outcome;
    expectSendFailure(settled.ok ? undefined : settled.error, 'x/custom');
    vi.advanceTimersByTime(30); // to the timeout the request would have had
    controller.abort('too late');
    await expectQuietAndAlive(client);
    expect(running.server.stats).toMatchObject({ unknownResponses: 0, lateResponses: 0 });
  });

  it('leaves the session able to send the next request, with the next id', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    await capture(session.request('x/custom', { n: 1n })).outcome;
    const next = session.request('x/echo', { ok: true });
    const sent = await client.nextMessage('x/echo');
    expect(sent).toEqual({ jsonrpc: '2.0', id: 1, method: 'x/echo', params: { ok: true } });
    client.respond(sent.id, { echoed: true });
    await expect(next).resolves.toEqual({ echoed: true });
  });

  it('through ctx.request in a tool: the handler gets the -32603 error at once and can answer', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('asks-badly', {}, async (_args, ctx) => {
        try {
          await ctx.request('x/custom', { n: 3n }, { timeoutMs: 30 });
          return 'sent';
        } catch (err) {
          return `${(err as McpError).code}: ${(err as Error).message}`;
        }
      }),
    );
    const { client } = await h.open(running);
    fakeClock();
    const reply = await client.request('tools/call', { name: 'asks-badly' }, 'c');
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'c', result: { content: [{ type: 'text', text: `-32603: x/custom could not be sent: ${BIGINT_MESSAGE}` }] } });
    vi.advanceTimersByTime(30); // to the timeout the request would have had
    await expectQuietAndAlive(client);
  });
});

describe('a server-to-client request that cannot be serialised (Streamable HTTP)', () => {
  it('rejects at once on the standalone stream, which stays usable: the next request reaches the client on it', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await web.client(running);
    const get = await client.get();
    cleanups.push(() => get.abort());
    expect(get.status).toBe(200);
    await get.nextEvent(() => true); // priming
    fakeClock();
    const settled = await capture(session.request('x/custom', { n: 1n }, { timeoutMs: 30 })).outcome;
    expectSendFailure(settled.ok ? undefined : settled.error, 'x/custom');
    const next = session.request('x/echo', {});
    const sent = await get.nextMessage({ method: 'x/echo' });
    expect(sent).toEqual({ jsonrpc: '2.0', id: 1, method: 'x/echo', params: {} });
    await (await client.reply(1, { echoed: true })).ended;
    await expect(next).resolves.toEqual({ echoed: true });
    vi.advanceTimersByTime(30); // to the timeout the unsendable request would have had
    // Events on one stream arrive in order: once the marker is here, anything sent before it is too.
    session.notify('notifications/test/marker');
    await get.nextMessage({ method: 'notifications/test/marker' });
    expect(get.events.filter((e) => e.message?.method === 'notifications/cancelled')).toEqual([]);
  });

  it('leaves nothing unsendable in the event store: a resumption of the standalone stream replays and stays open', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await web.client(running);
    const get = await client.get();
    await get.nextEvent(() => true); // priming 0_0
    await capture(session.request('x/custom', { n: 1n })).outcome;
    get.abort();
    await get.ended;
    const resumed = await client.get({ 'last-event-id': '0_0' });
    cleanups.push(() => resumed.abort());
    expect({ status: resumed.status, contentType: resumed.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
    session.notify('notifications/test/marker');
    expect(await resumed.nextMessage({ method: 'notifications/test/marker' })).toEqual({ jsonrpc: '2.0', method: 'notifications/test/marker' });
    expect(running.errors).toEqual([]);
  });
});
