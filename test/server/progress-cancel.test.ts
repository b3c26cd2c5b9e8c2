/**
 * Progress a tool reports and cancellation of a tool call. An McpClient is the caller where it asks for
 * progress and cancels through an AbortSignal; the raw peer stays where the test picks the token or the id
 * (a string, 0, one shared by two sessions, one never sent, one already answered) or checks the frames'
 * order against the response.
 */
import { describe, expect, it } from 'vitest';
import { ErrorCode, McpError, type CancelledParams, type McpClient, type McpSession, type ProgressParams, type RequestId } from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { nextEvent, recordOutgoing } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { flush, recordMessages, useWsSessions } from '../helpers/ws-sessions.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

function progress(progressToken: string | number, value: number, total?: number, message?: string) {
  const params: Record<string, unknown> = { progressToken, progress: value };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  return { jsonrpc: '2.0', method: 'notifications/progress', params };
}

/** The server's reply to a ping of the McpClient (whose ids the client picks). */
const PING_REPLY = { jsonrpc: '2.0', id: expect.any(Number), result: {} };

/** An McpClient on `running`, with every message the server sends its session and every notification the client receives from now on. */
async function connect(running: RunningServer) {
  const { client, session } = await clients.connect(running);
  const sent = recordOutgoing(running.server, session);
  const notifications: unknown[] = [];
  client.on('notification', (notification) => void notifications.push(notification));
  return { client, session, sent, notifications };
}

/**
 * Progress for one call, as its onProgress gets it: the McpClient passes it only the notifications that
 * carry the token it sent with that call, so `token()` is that token.
 */
function progressOf() {
  const seen: ProgressParams[] = [];
  return { seen, onProgress: (params: ProgressParams) => void seen.push(params), token: () => seen[0]?.progressToken };
}

describe('progress', () => {
  const counter = (server: import('../../src/index.js').McpServer) =>
    server.registerTool('count', {}, (_args, ctx) => {
      ctx.progress(1, 3, 'one');
      ctx.progress(2, 3, 'two');
      ctx.progress(3, 3, 'three');
      return 'counted';
    });

  it.each([
    ['a string', 'tok-abc'],
    ['an integer', 42],
    ['the integer 0', 0],
  ])('sends notifications/progress echoing %s token, in order, before the result', async (_what, token) => {
    const { url } = await startWebSocket(cleanups, counter);
    const client = await h.ready(url);
    const log = recordMessages(client);

    await client.request('tools/call', { name: 'count', _meta: { progressToken: token } }, 'p');

    expect(log).toEqual([
      progress(token, 1, 3, 'one'),
      progress(token, 2, 3, 'two'),
      progress(token, 3, 3, 'three'),
      { jsonrpc: '2.0', id: 'p', result: { content: [{ type: 'text', text: 'counted' }] } },
    ]);
  });

  it('leaves total and message out when the handler gives neither, and accepts fractional progress', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('frac', {}, (_args, ctx) => {
        ctx.progress(0.25);
        ctx.progress(0.5, undefined, 'half');
        return 'ok';
      }),
    );
    const { client, notifications } = await connect(running);
    const frac = progressOf();

    expect(await client.callTool('frac', {}, { onProgress: frac.onProgress })).toEqual({ content: [{ type: 'text', text: 'ok' }] });

    const token = frac.token();
    expect(token).toEqual(expect.any(Number));
    expect(frac.seen).toStrictEqual([progress(token!, 0.25).params, progress(token!, 0.5, undefined, 'half').params]);
    await client.ping();
    expect(notifications).toStrictEqual([progress(token!, 0.25), progress(token!, 0.5, undefined, 'half')]);
  });

  it('sends no progress when the request has no progressToken', async () => {
    const running = await startWebSocket(cleanups, counter);
    const { client, notifications } = await connect(running);

    expect(await client.callTool('count')).toEqual({ content: [{ type: 'text', text: 'counted' }] });

    await client.ping();
    expect(notifications).toEqual([]);
  });

  it.each([
    ['repeated', 2, 'progress must increase with each notification: got 2 after 2'],
    ['decreasing', 1, 'progress must increase with each notification: got 1 after 2'],
  ])('throws a RangeError in the handler for %s progress, which becomes an isError result', async (_what, next, message) => {
    const thrown: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('bad', {}, (_args, ctx) => {
        ctx.progress(2, 10);
        try {
          ctx.progress(next, 10);
        } catch (err) {
          thrown.push(err);
          throw err;
        }
        return 'unreachable';
      }),
    );
    const { client, notifications } = await connect(running);
    const bad = progressOf();

    expect(await client.callTool('bad', {}, { onProgress: bad.onProgress })).toEqual({ content: [{ type: 'text', text: message }], isError: true });

    const token = bad.token();
    expect(token).toEqual(expect.any(Number));
    expect(bad.seen).toStrictEqual([progress(token!, 2, 10).params]);
    await client.ping();
    expect(notifications).toStrictEqual([progress(token!, 2, 10)]);
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(RangeError);
  });

  it('keeps the progress of concurrent requests apart, each with its own token', async () => {
    const running = await startWebSocket(cleanups, counter);
    const { client, notifications } = await connect(running);
    const pa = progressOf();
    const pb = progressOf();

    const [a, b] = await Promise.all([
      client.callTool('count', {}, { onProgress: pa.onProgress }),
      client.callTool('count', {}, { onProgress: pb.onProgress }),
    ]);

    expect(a).toEqual({ content: [{ type: 'text', text: 'counted' }] });
    expect(b).toEqual({ content: [{ type: 'text', text: 'counted' }] });
    const [ta, tb] = [pa.token()!, pb.token()!];
    expect(ta).toEqual(expect.any(Number));
    expect(tb).toEqual(expect.any(Number));
    expect(ta).not.toBe(tb);
    expect(pa.seen).toEqual([progress(ta, 1, 3, 'one').params, progress(ta, 2, 3, 'two').params, progress(ta, 3, 3, 'three').params]);
    expect(pb.seen).toEqual([progress(tb, 1, 3, 'one').params, progress(tb, 2, 3, 'two').params, progress(tb, 3, 3, 'three').params]);
    await client.ping();
    expect(notifications).toHaveLength(6);
  });
});

describe('cancellation', () => {
  /**
   * Wait until the server has ended every request of the client (the cancelled one included), then
   * round-trip a ping: whatever the server sent for those requests arrived before its reply.
   */
  async function endedAndFlushed(client: McpClient, running: RunningServer): Promise<void> {
    await client.ping();
    expect(running.server.stats.requestsInFlight).toBe(0);
    await client.ping();
  }

  interface Observed {
    aborted: boolean;
    reason: unknown;
  }

  /** A tool that waits until its request is aborted (`started` gives the request's id), then reports what it saw and returns (or throws). */
  function startCancellable(after: 'return' | 'throw' = 'return') {
    const started = deferred<RequestId>();
    const finished = deferred<Observed>();
    const promise = startWebSocket(cleanups, (server) =>
      server.registerTool('wait', {}, async (_args, ctx) => {
        const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        started.resolve(ctx.requestId);
        await aborted;
        ctx.progress(1); // context.ts: nothing related to an aborted request is sent
        ctx.log('error', 'still running after the cancel');
        ctx.notify('notifications/custom', { late: true });
        finished.resolve({ aborted: ctx.signal.aborted, reason: ctx.signal.reason });
        if (after === 'throw') throw ctx.signal.reason;
        return 'finished anyway';
      }),
    );
    return { promise, started: started.promise, finished: finished.promise };
  }

  it('aborts the handler signal, sends no response for the request, emits cancelled, and the session keeps working', async () => {
    const tool = startCancellable();
    const running = await tool.promise;
    const { server } = running;
    const { client, session, sent, notifications } = await connect(running);
    const controller = new AbortController();

    const call = client.callTool('wait', {}, { signal: controller.signal, onProgress: () => {} });
    const callId = await tool.started;
    const cancelled = nextEvent<[McpSession, CancelledParams]>(server, 'cancelled');
    controller.abort('user pressed stop');
    expect(await rpcError(call)).toEqual({ code: -32800, message: 'tools/call was cancelled: user pressed stop', data: { reason: 'user pressed stop' } });

    const observed = await tool.finished;
    expect(observed.aborted).toBe(true);
    expect(observed.reason).toBeInstanceOf(McpError);
    expect((observed.reason as McpError).code).toBe(ErrorCode.RequestCancelled);
    expect((observed.reason as McpError).message).toBe('cancelled by the client: user pressed stop');

    const [eventSession, params] = await cancelled;
    expect(eventSession).toBe(session);
    expect(params).toEqual({ requestId: callId, reason: 'user pressed stop' });

    await endedAndFlushed(client, running);
    // No response for the call, no progress, log message or other notification: only the pings' replies.
    expect(sent).toEqual([PING_REPLY, PING_REPLY]);
    expect(notifications).toEqual([]);

    expect(await rpcError(client.callTool('nothing-here'))).toEqual({ code: -32602, message: 'Unknown tool: nothing-here' });
    expect(session.state).toBe('ready');
  });

  it('sends no response when the cancelled handler throws its abort reason', async () => {
    const tool = startCancellable('throw');
    const running = await tool.promise;
    const { client, sent } = await connect(running);
    const controller = new AbortController();

    const call = client.callTool('wait', {}, { signal: controller.signal });
    await tool.started;
    controller.abort();
    expect(await rpcError(call)).toEqual({
      code: -32800,
      message: 'tools/call was cancelled: This operation was aborted',
      data: { reason: 'This operation was aborted' },
    });
    expect((await tool.finished).aborted).toBe(true);

    await endedAndFlushed(client, running);
    expect(sent).toEqual([PING_REPLY, PING_REPLY]);
  });

  it('cancels only the named request, leaving another in flight to answer', async () => {
    const gate = deferred();
    const started = deferred();
    let abortedSecond = false;
    const { url } = await startWebSocket(cleanups, (server) =>
      server.registerTool('gated', {}, async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => (abortedSecond = true));
        started.resolve();
        await gate.promise;
        return 'released';
      }),
    );
    const client = await h.ready(url);

    const reply = client.request('tools/call', { name: 'gated' }, 'keep');
    await started.promise;
    client.notify('notifications/cancelled', { requestId: 'other', reason: 'not in flight' });
    await flush(client);
    gate.resolve();

    expect(await reply).toEqual({ jsonrpc: '2.0', id: 'keep', result: { content: [{ type: 'text', text: 'released' }] } });
    expect(abortedSecond).toBe(false);
  });

  it('does not let one session cancel a request in flight on another session with the same id', async () => {
    const gate = deferred();
    const started = deferred();
    let aborted = false;
    const { url } = await startWebSocket(cleanups, (server) =>
      server.registerTool('gated', {}, async (_args, ctx) => {
        ctx.signal.addEventListener('abort', () => (aborted = true));
        started.resolve();
        await gate.promise;
        return 'released';
      }),
    );
    const owner = await h.ready(url);
    const stranger = await h.ready(url);

    const reply = owner.request('tools/call', { name: 'gated' }, 'shared-id');
    await started.promise;
    stranger.notify('notifications/cancelled', { requestId: 'shared-id', reason: 'not yours' });
    await flush(stranger);
    gate.resolve();

    expect(await reply).toEqual({ jsonrpc: '2.0', id: 'shared-id', result: { content: [{ type: 'text', text: 'released' }] } });
    expect(aborted).toBe(false);
  });

  it('ignores a cancellation for an unknown id: no reply, and the session keeps working', async () => {
    const { url, server } = await startWebSocket(cleanups, (s) => s.registerTool('t', {}, () => 'ok'));
    const client = await h.ready(url);
    const log = recordMessages(client);
    const errors: Error[] = [];
    server.on('error', (err) => errors.push(err));

    client.notify('notifications/cancelled', { requestId: 'never-sent', reason: 'oops' });
    client.notify('notifications/cancelled', { requestId: 99 });

    expect(await client.request('tools/call', { name: 't' }, 'next')).toEqual({
      jsonrpc: '2.0',
      id: 'next',
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect(log).toEqual([{ jsonrpc: '2.0', id: 'next', result: { content: [{ type: 'text', text: 'ok' }] } }]);
    expect(errors).toEqual([]);
    expect([...server.sessions.values()][0].state).toBe('ready');
  });

  it('ignores a cancellation that arrives after the response was sent', async () => {
    const { url } = await startWebSocket(cleanups, (s) => s.registerTool('t', {}, () => 'ok'));
    const client = await h.ready(url);

    expect((await client.request('tools/call', { name: 't' }, 'done')).result).toEqual({ content: [{ type: 'text', text: 'ok' }] });
    const log = recordMessages(client);
    client.notify('notifications/cancelled', { requestId: 'done', reason: 'too late' });

    expect(await client.request('tools/call', { name: 't' }, 'done-2')).toEqual({
      jsonrpc: '2.0',
      id: 'done-2',
      result: { content: [{ type: 'text', text: 'ok' }] },
    });
    expect(log).toHaveLength(1);
  });
});
