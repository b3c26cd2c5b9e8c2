import { describe, expect, it } from 'vitest';
import { ErrorCode, McpError, type CancelledParams, type McpServer, type McpSession } from '../../src/index.js';
import { nextEvent } from '../helpers/servers.js';
import { flush, recordMessages, useHarness } from '../helpers/session-harness.js';
import { deferred } from '../helpers/util.js';
import type { WsTestClient } from '../helpers/ws-client.js';

const h = useHarness();

function progress(progressToken: string | number, value: number, total?: number, message?: string) {
  const params: Record<string, unknown> = { progressToken, progress: value };
  if (total !== undefined) params.total = total;
  if (message !== undefined) params.message = message;
  return { jsonrpc: '2.0', method: 'notifications/progress', params };
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
    const { url } = await h.start(counter);
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
    const { url } = await h.start((server) =>
      server.registerTool('frac', {}, (_args, ctx) => {
        ctx.progress(0.25);
        ctx.progress(0.5, undefined, 'half');
        return 'ok';
      }),
    );
    const client = await h.ready(url);
    const log = recordMessages(client);

    await client.request('tools/call', { name: 'frac', _meta: { progressToken: 't' } }, 'f');

    expect(log).toEqual([
      progress('t', 0.25),
      progress('t', 0.5, undefined, 'half'),
      { jsonrpc: '2.0', id: 'f', result: { content: [{ type: 'text', text: 'ok' }] } },
    ]);
  });

  it('sends no progress when the request has no progressToken', async () => {
    const { url } = await h.start(counter);
    const client = await h.ready(url);
    const log = recordMessages(client);

    await client.request('tools/call', { name: 'count' }, 'n');

    expect(log).toEqual([{ jsonrpc: '2.0', id: 'n', result: { content: [{ type: 'text', text: 'counted' }] } }]);
  });

  it.each([
    ['repeated', 2, 'progress must increase with each notification: got 2 after 2'],
    ['decreasing', 1, 'progress must increase with each notification: got 1 after 2'],
  ])('throws a RangeError in the handler for %s progress, which becomes an isError result', async (_what, next, message) => {
    const thrown: unknown[] = [];
    const { url } = await h.start((server) =>
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
    const client = await h.ready(url);
    const log = recordMessages(client);

    await client.request('tools/call', { name: 'bad', _meta: { progressToken: 'b' } }, 'b');

    expect(log).toEqual([progress('b', 2, 10), { jsonrpc: '2.0', id: 'b', result: { content: [{ type: 'text', text: message }], isError: true } }]);
    expect(thrown).toHaveLength(1);
    expect(thrown[0]).toBeInstanceOf(RangeError);
  });

  it('keeps the progress of concurrent requests apart, each with its own token', async () => {
    const { url } = await h.start(counter);
    const client = await h.ready(url);

    const [a, b] = await Promise.all([
      client.request('tools/call', { name: 'count', _meta: { progressToken: 'a' } }),
      client.request('tools/call', { name: 'count', _meta: { progressToken: 'b' } }),
    ]);

    expect(a.result).toEqual({ content: [{ type: 'text', text: 'counted' }] });
    expect(b.result).toEqual({ content: [{ type: 'text', text: 'counted' }] });
    const notes = client.messages('notifications/progress');
    expect(notes.filter((m) => m.params.progressToken === 'a')).toEqual([progress('a', 1, 3, 'one'), progress('a', 2, 3, 'two'), progress('a', 3, 3, 'three')]);
    expect(notes.filter((m) => m.params.progressToken === 'b')).toEqual([progress('b', 1, 3, 'one'), progress('b', 2, 3, 'two'), progress('b', 3, 3, 'three')]);
  });
});

describe('cancellation', () => {
  /**
   * Wait until the server has ended every request of the client (the cancelled one included), then
   * round-trip a ping: whatever the server sent for those requests arrived before its reply.
   */
  async function endedAndFlushed(client: WsTestClient, server: McpServer): Promise<void> {
    await flush(client);
    expect(server.stats.requestsInFlight).toBe(0);
    await flush(client);
  }

  interface Observed {
    aborted: boolean;
    reason: unknown;
  }

  /** A tool that waits until its request is aborted, then reports what it saw and returns (or throws). */
  function startCancellable(after: 'return' | 'throw' = 'return') {
    const started = deferred();
    const finished = deferred<Observed>();
    const promise = h.start((server) =>
      server.registerTool('wait', {}, async (_args, ctx) => {
        const aborted = new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        started.resolve();
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
    const { url, server } = await tool.promise;
    const client = await h.ready(url);
    const session = [...server.sessions.values()][0];
    const log = recordMessages(client);

    client.sendRaw({ jsonrpc: '2.0', id: 'job-1', method: 'tools/call', params: { name: 'wait', _meta: { progressToken: 'pt' } } });
    await tool.started;
    const cancelled = nextEvent<[McpSession, CancelledParams]>(server, 'cancelled');
    client.notify('notifications/cancelled', { requestId: 'job-1', reason: 'user pressed stop' });

    const observed = await tool.finished;
    expect(observed.aborted).toBe(true);
    expect(observed.reason).toBeInstanceOf(McpError);
    expect((observed.reason as McpError).code).toBe(ErrorCode.RequestCancelled);
    expect((observed.reason as McpError).message).toBe('cancelled by the client: user pressed stop');

    const [eventSession, params] = await cancelled;
    expect(eventSession).toBe(session);
    expect(params).toEqual({ requestId: 'job-1', reason: 'user pressed stop' });

    await endedAndFlushed(client, server);
    expect(log.filter((m) => m.id === 'job-1')).toEqual([]);
    expect(log.filter((m) => m.method === 'notifications/progress')).toEqual([]);
    expect(log.filter((m) => m.method === 'notifications/message' || m.method === 'notifications/custom')).toEqual([]);

    expect(await client.request('tools/call', { name: 'nothing-here' }, 'after')).toEqual({
      jsonrpc: '2.0',
      id: 'after',
      error: { code: -32602, message: 'Unknown tool: nothing-here' },
    });
    expect(session.state).toBe('ready');
  });

  it('sends no response when the cancelled handler throws its abort reason', async () => {
    const tool = startCancellable('throw');
    const { url, server } = await tool.promise;
    const client = await h.ready(url);
    const log = recordMessages(client);

    client.sendRaw({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'wait' } });
    await tool.started;
    client.notify('notifications/cancelled', { requestId: 7 });
    expect((await tool.finished).aborted).toBe(true);

    await endedAndFlushed(client, server);
    expect(log.filter((m) => m.id === 7)).toEqual([]);
  });

  it('cancels only the named request, leaving another in flight to answer', async () => {
    const gate = deferred();
    const started = deferred();
    let abortedSecond = false;
    const { url } = await h.start((server) =>
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
    const { url } = await h.start((server) =>
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
    const { url, server } = await h.start((s) => s.registerTool('t', {}, () => 'ok'));
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
    const { url } = await h.start((s) => s.registerTool('t', {}, () => 'ok'));
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
