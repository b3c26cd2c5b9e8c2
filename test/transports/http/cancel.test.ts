/**
 * notifications/cancelled on Streamable HTTP (legacy era): the cancelled request gets no response, so
 * its POST must end without one (204 when nothing went out on it yet, the end of its event stream when
 * something did), its handler's signal aborts, and the session no longer counts the request's stream as
 * open: it can go idle (swept, or evicted at maxSessions), and the event store counts its stream among the
 * ended ones. A batch answers with the other responses only.
 */
import { describe, expect, it } from 'vitest';
import type { McpServer, McpSession } from '../../../src/index.js';
import { textResult } from '../../helpers/client-requests.js';
import type { HttpTestClient } from '../../helpers/http-client.js';
import { priming, RecordingEventStore, sseMessage, stored, wire, useHttpSessions } from '../../helpers/http-streams.js';
import { nextEvent, recordEvents } from '../../helpers/server-events.js';
import { deferred, type Deferred } from '../../helpers/deferred.js';
import { startHttp, type RunningHttp } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useHttpSessions(cleanups);

interface Probe {
  /** Resolves when the `wait` (or `progress-then-wait`) handler has started. */
  started: Deferred<void>;
  /** The abort reasons the handlers' signals saw, as messages. */
  aborts: string[];
  /** Lets the `hold` tool answer. */
  release: Deferred<void>;
}

/** Tools: `wait` waits for its signal; `progress-then-wait` reports progress first; `quick` answers at once; `hold` waits for `release`. */
function tools(probe: Probe) {
  const untilAborted = (signal: AbortSignal) =>
    new Promise<never>((_resolve, reject) => {
      signal.addEventListener(
        'abort',
        () => {
          probe.aborts.push(signal.reason instanceof Error ? signal.reason.message : String(signal.reason));
          reject(signal.reason);
        },
        { once: true },
      );
    });
  return (server: McpServer) => {
    server.registerTool('wait', {}, async (_args, ctx) => {
      const aborted = untilAborted(ctx.signal);
      probe.started.resolve();
      return aborted;
    });
    server.registerTool('progress-then-wait', {}, async (_args, ctx) => {
      const aborted = untilAborted(ctx.signal);
      ctx.progress(1, 2, 'half way');
      probe.started.resolve();
      return aborted;
    });
    server.registerTool('quick', {}, () => 'quick');
    server.registerTool('hold', {}, async () => {
      await probe.release.promise;
      return 'held';
    });
  };
}

function newProbe(): Probe {
  return { started: deferred(), aborts: [], release: deferred() };
}

async function cancel(client: HttpTestClient, requestId: number | string, reason = 'changed my mind'): Promise<number> {
  const res = await client.notify('notifications/cancelled', { requestId, reason });
  await res.ended;
  return res.status;
}

async function startWith(probe: Probe, transport: Parameters<typeof startHttp>[2] = {}): Promise<RunningHttp> {
  return startHttp(cleanups, tools(probe), transport);
}

describe('a cancelled request ends its POST', () => {
  it('answers the POST of a cancelled tools/call with 204 and no body when nothing was streamed yet, and aborts the handler signal', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const cancelled = recordEvents(running.server, 'cancelled');
    const { client, session } = await h.client(running);
    const call = client.request('tools/call', { name: 'wait' }, 1);
    await probe.started.promise;
    expect(await cancel(client, 1)).toBe(202);
    const res = await call;
    await res.ended;
    expect({ status: res.status, body: res.body, contentType: res.headers['content-type'], sessionId: res.headers['mcp-session-id'] }).toEqual({
      status: 204,
      body: '',
      contentType: undefined,
      sessionId: session.id,
    });
    expect(probe.aborts).toEqual(['cancelled by the client: changed my mind']);
    expect(cancelled).toEqual([[session, { requestId: 1, reason: 'changed my mind' }]]);
    expect(running.server.stats.requestsInFlight).toBe(0);
    expect(running.errors).toEqual([]);
  });

  it('ends the event stream of a cancelled call that had sent progress first, with no response on it', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const { client } = await h.client(running);
    const res = await client.request('tools/call', { name: 'progress-then-wait', _meta: { progressToken: 'p1' } }, 1);
    expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
    await probe.started.promise;
    const progress = { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'half way' } };
    expect(await res.nextMessage({ method: 'notifications/progress' })).toEqual(progress);
    expect(await cancel(client, 1)).toBe(202);
    await res.ended;
    expect(res.res.complete).toBe(true);
    expect(res.body).toBe(wire(priming('2_0'), sseMessage('2_1', progress)));
    expect(probe.aborts).toEqual(['cancelled by the client: changed my mind']);
  });

  it('keeps the session serving after a cancellation: the next call on it is answered', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const { client } = await h.client(running);
    const call = client.request('tools/call', { name: 'wait' }, 1);
    await probe.started.promise;
    await cancel(client, 1);
    expect((await call).status).toBe(204);
    const next = await client.request('tools/call', { name: 'quick' }, 2);
    expect({ status: next.status, body: await next.json() }).toEqual({ status: 200, body: textResult(2, 'quick') });
  });
});

describe("a cancelled request's stream, in the event store", () => {
  it('is told to the store as ended when events of it were kept, so the store keeps it only among the streams that ended', async () => {
    const probe = newProbe();
    const store = new RecordingEventStore({ maxEndedStreamsPerSession: 1 });
    const running = await startWith(probe, { transport: { eventStore: store } });
    const { client, session } = await h.client(running);
    const progress = (token: string) => ({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: 1, total: 2, message: 'half way' },
    });
    const streamed: string[] = [];
    for (const [id, token] of [
      [2, 'p2'],
      [3, 'p3'],
    ] as const) {
      probe.started = deferred();
      const res = await client.request('tools/call', { name: 'progress-then-wait', _meta: { progressToken: token } }, id);
      await probe.started.promise;
      await res.nextMessage({ method: 'notifications/progress' });
      expect(await cancel(client, id)).toBe(202);
      await res.ended;
      streamed.push(store.streamOf((m) => (m.params as { progressToken?: string } | undefined)?.progressToken === token)!);
    }
    // A call cancelled before it streamed anything kept no event: the store is told nothing of it.
    probe.started = deferred();
    const quiet = client.request('tools/call', { name: 'wait' }, 4);
    await probe.started.promise;
    await cancel(client, 4);
    expect((await quiet).status).toBe(204);

    const [first, second] = streamed as [string, string];
    expect({ ended: store.ended, endedUnmarked: store.endedUnmarked }).toEqual({
      ended: [],
      endedUnmarked: [
        [session.id, first],
        [session.id, second],
      ],
    });
    // One ended stream is kept: the second call's end dropped the first's events.
    expect({ first: store.replayAfter(session.id, first, `${first}_0`), second: store.replayAfter(session.id, second, `${second}_0`) }).toEqual({
      first: [],
      second: [stored(`${second}_1`, progress('p3'))],
    });
    expect(running.errors).toEqual([]);
  });
});

describe('a cancelled request leaves its session idle', () => {
  it('lets the idle sweep end the session after its only request was cancelled (sessionEnd: idle timeout)', async () => {
    const probe = newProbe();
    const running = await startWith(probe, { transport: { sessionIdleTimeoutMs: 200 } });
    const ends = recordEvents(running.server, 'sessionEnd');
    const { client, session } = await h.client(running);
    const call = client.request('tools/call', { name: 'wait' }, 1);
    await probe.started.promise;
    const ended = nextEvent<[McpSession, string]>(running.server, 'sessionEnd');
    await cancel(client, 1);
    expect((await call).status).toBe(204);
    expect(await ended).toEqual([session, 'idle timeout']);
    expect(ends).toEqual([[session, 'idle timeout']]);
    expect(running.server.sessions.has(session.id)).toBe(false);
  });

  it("with maxSessions 1 and onSessionLimit 'evict-idle', admits a new session by evicting the one whose request was cancelled", async () => {
    const probe = newProbe();
    const running = await startWith(probe, { transport: { maxSessions: 1, onSessionLimit: 'evict-idle' } });
    const ends = recordEvents(running.server, 'sessionEnd');
    const { client, session } = await h.client(running);
    const call = client.request('tools/call', { name: 'wait' }, 1);
    await probe.started.promise;
    await cancel(client, 1);
    expect((await call).status).toBe(204);
    const { session: second } = await h.client(running);
    expect(ends).toEqual([[session, 'evicted: the server reached its session limit']]);
    expect([...running.server.sessions.keys()]).toEqual([second.id]);
  });

  it('also after a cancelled call that had streamed progress: a new session evicts it at maxSessions 1', async () => {
    const probe = newProbe();
    const running = await startWith(probe, { transport: { maxSessions: 1 } });
    const ends = recordEvents(running.server, 'sessionEnd');
    const { client, session } = await h.client(running);
    const res = await client.request('tools/call', { name: 'progress-then-wait', _meta: { progressToken: 'p1' } }, 1);
    await probe.started.promise;
    await cancel(client, 1);
    await res.ended;
    const { session: second } = await h.client(running);
    expect(ends).toEqual([[session, 'evicted: the server reached its session limit']]);
    expect([...running.server.sessions.keys()]).toEqual([second.id]);
  });
});

describe('2025-03-26 batches with a cancelled request', () => {
  it('answers a batch whose other request finished first with a JSON array holding only that response', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const { client } = await h.client(running, { protocolVersion: '2025-03-26' });
    const batch = client.post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'quick' } },
    ]);
    await probe.started.promise;
    expect(await cancel(client, 1)).toBe(202);
    const res = await batch;
    expect({ status: res.status, contentType: res.headers['content-type'], body: await res.json() }).toEqual({
      status: 200,
      contentType: 'application/json',
      body: [textResult(2, 'quick')],
    });
    expect(probe.aborts).toEqual(['cancelled by the client: changed my mind']);
  });

  it('answers a batch whose other request finishes after the cancellation with a JSON array holding only that response', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const { client } = await h.client(running, { protocolVersion: '2025-03-26' });
    const batch = client.post([
      { jsonrpc: '2.0', id: 'a', method: 'tools/call', params: { name: 'wait' } },
      { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'hold' } },
    ]);
    await probe.started.promise;
    expect(await cancel(client, 'a')).toBe(202);
    // The cancelled handler has finished (its signal aborted); only `b` is left.
    await expect.poll(() => running.server.stats.requestsInFlight).toBe(1);
    probe.release.resolve();
    const res = await batch;
    expect({ status: res.status, contentType: res.headers['content-type'], body: await res.json() }).toEqual({
      status: 200,
      contentType: 'application/json',
      body: [textResult('b', 'held')],
    });
  });

  it('answers a batch whose every request was cancelled with 204 and no body', async () => {
    const probe = newProbe();
    const running = await startWith(probe);
    const { client } = await h.client(running, { protocolVersion: '2025-03-26' });
    const batch = client.post([
      { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'wait' } },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'wait' } },
    ]);
    await probe.started.promise;
    await expect.poll(() => running.server.stats.requestsInFlight).toBe(2);
    await cancel(client, 1);
    await cancel(client, 2);
    const res = await batch;
    await res.ended;
    expect({ status: res.status, body: res.body }).toEqual({ status: 204, body: '' });
    expect(probe.aborts).toEqual(['cancelled by the client: changed my mind', 'cancelled by the client: changed my mind']);
  });
});
