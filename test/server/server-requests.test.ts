/**
 * Server-to-client requests: session.request, the per-session pending table, timeouts, cancellation, progress.
 * An McpClient is the peer where it answers (or holds its answer back) as a well-behaved client would;
 * the raw peer stays for exact frames and ids, replies built by hand (errors, wrong shapes, unknown, late
 * or duplicate ids, answers out of order), progress the client reports, and a session that never initializes.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  ConnectionClosedError,
  McpError,
  NoBackChannelError,
  RequestCancelledError,
  RequestTimeoutError,
  type ElicitParams,
  type HandlerContext,
  type McpClient,
  type McpSession,
  type ProgressParams,
  type RequestContext,
} from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { nextEvent, recordEvents, recordOutgoing } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { expectQuietAndAlive, flush, useWsSessions } from '../helpers/ws-sessions.js';
import { capture, type Outcome } from '../helpers/outcome.js';
import { expectAtDeadline, useFakeClock } from '../helpers/fake-clock.js';
import { gate, tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { WsTestClient } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const harness = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);
const fakeClock = useFakeClock();
/** Sessions here declare every client capability, so each request method they are sent is one they support. */
const ALL_CLIENT_CAPABILITIES = { roots: { listChanged: true }, sampling: {}, elicitation: { form: {}, url: {} } };
const h = {
  connect: harness.connect,
  open: (running: Parameters<typeof harness.open>[0], init: Parameters<typeof harness.open>[1] = {}) =>
    harness.open(running, { capabilities: ALL_CLIENT_CAPABILITIES, ...init }),
};

/** The error of an outcome that must have failed. */
function errorOf(outcome: Outcome<unknown>): unknown {
  expect(outcome.ok).toBe(false);
  return outcome.ok ? undefined : outcome.error;
}

function expectMcpError(error: unknown, cls: new (...args: never[]) => McpError, fields: { code: number; message: string; data?: unknown }) {
  expect(error).toBeInstanceOf(cls);
  expect(error).toBeInstanceOf(McpError);
  const e = error as McpError;
  expect({ code: e.code, message: e.message, data: e.data }).toEqual({ code: fields.code, message: fields.message, data: fields.data });
}

/** An answer that never comes: the client holds its reply back. */
const never = <T>() => new Promise<T>(() => {});

/**
 * An McpClient on `running` that declares roots, sampling and elicitation and holds every answer back
 * (until the server cancels the request), with every message the server sends its session from now on
 * and every notification the client receives.
 */
async function holdingBack(running: RunningServer) {
  const { client, session } = await clients.connect(running, {}, (c) => c.onRoots(never).onSampling(never).onElicitation(never));
  const sent = recordOutgoing(running.server, session);
  const notifications: unknown[] = [];
  client.on('notification', (notification) => void notifications.push(notification));
  return { client, session, sent, notifications };
}

/** The context of the next request the server asks the client, by the client event that reports it. */
async function nextAsked(client: McpClient, event: 'rootsList' | 'samplingCreateMessage' | 'elicitationCreate'): Promise<HandlerContext> {
  const args = await nextEvent<unknown[]>(client, event);
  return args.at(-1) as HandlerContext;
}

/** The reason `signal` is aborted with, once it is. */
function abortReason(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

/** The server's reply to a ping of the McpClient (whose ids the client picks). */
const PING_REPLY = { jsonrpc: '2.0', id: expect.any(Number), result: {} };
const cancelledFrame = (requestId: number, reason: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });

/** The session still answers a ping, and the server sent it nothing since `sent` began but `expected` and the ping's reply. */
async function expectSentOnly(client: McpClient, sent: Record<string, unknown>[], expected: unknown[] = []): Promise<void> {
  await client.ping();
  expect(sent).toEqual([...expected, PING_REPLY]);
}

/** A form elicitation an McpClient accepts as well-formed. */
const NAME_FORM = { message: 'name?', requestedSchema: { type: 'object', properties: {} } };

/** Send progress for the request with id 0, and wait until the server has handled it. */
async function progressOnRequestZero(client: WsTestClient, progress: number): Promise<void> {
  client.notify('notifications/progress', { progressToken: 0, progress });
  await flush(client);
}

describe('request and reply', () => {
  it('sends exactly {jsonrpc, id, method, params} with integer ids from 0 and resolves with the result', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const first = capture(session.request('roots/list', {}));
    const second = capture(session.request('sampling/createMessage', { maxTokens: 10, messages: [] }));
    const third = capture(session.request('elicitation/create'));
    expect(await client.nextMessage('roots/list')).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} });
    expect(await client.nextMessage('sampling/createMessage')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'sampling/createMessage',
      params: { maxTokens: 10, messages: [] },
    });
    expect(await client.nextMessage('elicitation/create')).toEqual({ jsonrpc: '2.0', id: 2, method: 'elicitation/create', params: {} });
    expect(session.pendingRequests).toBe(3);

    client.respond(1, { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
    client.respond(0, { roots: [{ uri: 'file:///tmp', name: 'tmp' }] });
    client.respond(2, { action: 'decline' });
    expect(await first.outcome).toEqual({ ok: true, value: { roots: [{ uri: 'file:///tmp', name: 'tmp' }] } });
    expect(await second.outcome).toEqual({ ok: true, value: { role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' } });
    expect(await third.outcome).toEqual({ ok: true, value: { action: 'decline' } });
    expect(session.pendingRequests).toBe(0);
    expect(running.server.stats).toMatchObject({ unknownResponses: 0, lateResponses: 0, duplicateResponses: 0, invalidMessages: 0 });
    await expectQuietAndAlive(client);
  });

  it('rejects with an McpError carrying the code, message and data of a JSON-RPC error reply', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const p = capture(session.request('sampling/createMessage', { maxTokens: 1, messages: [] }));
    const request = await client.nextMessage('sampling/createMessage');
    client.respondError(request.id, -1, 'User rejected sampling request', { why: 'no' });
    const error = errorOf(await p.outcome);
    expectMcpError(error, McpError, { code: -1, message: 'User rejected sampling request', data: { why: 'no' } });
    expect(error).toMatchObject({ name: 'McpError' });
    expect(error).not.toBeInstanceOf(RequestTimeoutError);
    expect(error).not.toBeInstanceOf(RequestCancelledError);
    expect(error).not.toBeInstanceOf(ConnectionClosedError);
    expect(session.pendingRequests).toBe(0);
  });

  it('rejects an error reply without data with data undefined', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const p = capture(session.request('roots/list'));
    await client.nextMessage('roots/list');
    client.respondError(0, -32601, 'Method not found');
    expectMcpError(errorOf(await p.outcome), McpError, { code: -32601, message: 'Method not found', data: undefined });
  });

  it.each([
    ['a number', 5],
    ['an array', [1]],
    ['a string', 'ok'],
    ['null', null],
  ])('rejects with -32602 when the client replies with %s as the result', async (_name, result) => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const p = capture(session.request('roots/list'));
    await client.nextMessage('roots/list');
    client.sendRaw({ jsonrpc: '2.0', id: 0, result });
    expectMcpError(errorOf(await p.outcome), McpError, { code: -32602, message: 'The client replied with a result that is not an object', data: { result } });
    expect(session.pendingRequests).toBe(0);
    await expectQuietAndAlive(client);
  });
});

describe('replies that match nothing', () => {
  it('counts a reply with an unknown id in stats.unknownResponses and emits error', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const errored = nextEvent<[Error, McpSession]>(running.server, 'error');
    client.respond(42, { x: 1 });
    const [error, errorSession] = await errored;
    expect(error.message).toBe('Ignored an unknown reply from the client for request id 42');
    expect(errorSession).toBe(session);
    expect(running.server.stats.unknownResponses).toBe(1);
    expect(running.server.stats.lateResponses).toBe(0);
    expect(running.server.stats.duplicateResponses).toBe(0);
    await expectQuietAndAlive(client);
  });

  it('counts a second reply to an answered request in stats.duplicateResponses and notes it on debug, not error', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const errors = recordEvents(running.server, 'error');
    const p = capture(session.request('roots/list'));
    await client.nextMessage('roots/list');
    client.respond(0, { roots: [] });
    expect(await p.outcome).toEqual({ ok: true, value: { roots: [] } });
    const noted = nextEvent<[string, McpSession]>(running.server, 'debug');
    client.respond(0, { roots: [{ uri: 'file:///other' }] });
    expect(await noted).toEqual(['Ignored a duplicate reply from the client for request id 0', session]);
    expect(errors).toEqual([]);
    expect(running.server.stats).toMatchObject({ unknownResponses: 0, lateResponses: 0, duplicateResponses: 1, invalidMessages: 0 });
    await expectQuietAndAlive(client);
  });

  it("never lets a reply on another session's socket settle this session's request", async () => {
    const running = await startWebSocket(cleanups);
    const a = await h.open(running, { clientInfo: { name: 'a', version: '1' } });
    const b = await h.open(running, { clientInfo: { name: 'b', version: '1' } });
    const pa = capture(a.session.request('roots/list'));
    expect(await a.client.nextMessage('roots/list')).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} });

    const errored = nextEvent<[Error, McpSession]>(running.server, 'error');
    b.client.respond(0, { roots: [{ uri: 'file:///from-b' }] });
    const [, errorSession] = await errored;
    expect(errorSession).toBe(b.session);
    expect(running.server.stats.unknownResponses).toBe(1);
    await tick();
    expect(pa.settled()).toBe(false);
    expect(a.session.pendingRequests).toBe(1);

    // Both sessions now have a request with id 0; each reply settles only its own.
    const pb = capture(b.session.request('roots/list'));
    expect(await b.client.nextMessage('roots/list')).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} });
    b.client.respond(0, { roots: [{ uri: 'file:///b' }] });
    expect(await pb.outcome).toEqual({ ok: true, value: { roots: [{ uri: 'file:///b' }] } });
    await tick();
    expect(pa.settled()).toBe(false);
    a.client.respond(0, { roots: [{ uri: 'file:///a' }] });
    expect(await pa.outcome).toEqual({ ok: true, value: { roots: [{ uri: 'file:///a' }] } });
  });
});

describe('timeouts', () => {
  it('rejects with RequestTimeoutError (-32001) and sends notifications/cancelled for the request', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session, sent, notifications } = await holdingBack(running);
    const asked = nextAsked(client, 'rootsList');
    const p = capture(session.request('roots/list', {}, { timeoutMs: 150 }));
    const cancelled = abortReason((await asked).signal);
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'roots/list timed out after 150 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 150 },
    });
    expect(session.pendingRequests).toBe(0);
    expect(await cancelled).toBe('timed out after 150 ms');
    expect(notifications).toEqual([cancelledFrame(0, 'timed out after 150 ms')]);
    await expectSentOnly(client, sent, [{ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} }, cancelledFrame(0, 'timed out after 150 ms')]);
  });

  it('uses the server option requestTimeoutMs by default', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { requestTimeoutMs: 120 } });
    const { client, session, notifications } = await holdingBack(running);
    fakeClock();
    const asked = nextAsked(client, 'rootsList');
    const p = capture(session.request('roots/list'));
    const cancelled = abortReason((await asked).signal);
    expectAtDeadline(120, () => session.pendingRequests, { before: 1, at: 0 });
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'roots/list timed out after 120 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 120 },
    });
    expect(await cancelled).toBe('timed out after 120 ms');
    expect(notifications).toEqual([cancelledFrame(0, 'timed out after 120 ms')]);
  });

  it('counts a reply after the timeout in stats.lateResponses, emits error, and settles nothing', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const timedOut = capture(session.request('roots/list', {}, { timeoutMs: 100 }));
    await client.nextMessage('roots/list');
    expect(errorOf(await timedOut.outcome)).toBeInstanceOf(RequestTimeoutError);
    await client.nextMessage('notifications/cancelled');

    const next = capture(session.request('roots/list', {}, { timeoutMs: 10_000 }));
    expect((await client.nextMessage('roots/list')).id).toBe(1);
    const errored = nextEvent<[Error, McpSession]>(running.server, 'error');
    client.respond(0, { roots: [] });
    const [error, errorSession] = await errored;
    expect(error.message).toBe('Ignored a late reply from the client for request id 0');
    expect(errorSession).toBe(session);
    expect(running.server.stats).toMatchObject({ unknownResponses: 0, lateResponses: 1, duplicateResponses: 0, invalidMessages: 0 });
    await tick();
    expect(next.settled()).toBe(false);
    expect(session.pendingRequests).toBe(1);
    client.respond(1, { roots: [] });
    expect(await next.outcome).toEqual({ ok: true, value: { roots: [] } });
  });
});

describe('cancellation with an AbortSignal', () => {
  it('rejects with RequestCancelledError (-32800) and sends notifications/cancelled with the reason', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session, sent, notifications } = await holdingBack(running);
    const controller = new AbortController();
    const asked = nextAsked(client, 'elicitationCreate');
    const p = capture(session.request('elicitation/create', NAME_FORM, { signal: controller.signal }));
    const cancelled = abortReason((await asked).signal);
    controller.abort('user closed the dialog');
    expectMcpError(errorOf(await p.outcome), RequestCancelledError, {
      code: -32800,
      message: 'elicitation/create was cancelled: user closed the dialog',
      data: { reason: 'user closed the dialog' },
    });
    expect(session.pendingRequests).toBe(0);
    expect(await cancelled).toBe('user closed the dialog');
    expect(notifications).toEqual([cancelledFrame(0, 'user closed the dialog')]);
    await expectSentOnly(client, sent, [
      { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: NAME_FORM },
      cancelledFrame(0, 'user closed the dialog'),
    ]);
  });

  it('counts a reply after cancellation as late', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const controller = new AbortController();
    const p = capture(session.request('roots/list', {}, { signal: controller.signal }));
    await client.nextMessage('roots/list');
    controller.abort();
    const error = errorOf(await p.outcome);
    expect(error).toBeInstanceOf(RequestCancelledError);
    expect((error as McpError).code).toBe(-32800);
    expect((await client.nextMessage('notifications/cancelled')).params.requestId).toBe(0);
    client.respond(0, { roots: [] });
    await expectQuietAndAlive(client);
    expect(running.server.stats.lateResponses).toBe(1);
  });

  it('rejects at once with RequestCancelledError and sends nothing when the signal is already aborted', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session, sent } = await holdingBack(running);
    const p = capture(session.request('roots/list', {}, { signal: AbortSignal.abort('too late') }));
    expectMcpError(errorOf(await p.outcome), RequestCancelledError, {
      code: -32800,
      message: 'roots/list was cancelled: too late',
      data: { reason: 'too late' },
    });
    expect(session.pendingRequests).toBe(0);
    await expectSentOnly(client, sent);
  });

  it('session.cancelRequest(id) cancels by id and tells the client', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session, notifications } = await holdingBack(running);
    const asked = nextAsked(client, 'rootsList');
    const p = capture(session.request('roots/list'));
    const cancelled = abortReason((await asked).signal);
    expect(session.cancelRequest(0, 'changed my mind')).toBe(true);
    expect(session.cancelRequest(0)).toBe(false);
    expectMcpError(errorOf(await p.outcome), RequestCancelledError, {
      code: -32800,
      message: 'roots/list was cancelled: changed my mind',
      data: { reason: 'changed my mind' },
    });
    expect(await cancelled).toBe('changed my mind');
    expect(notifications).toEqual([cancelledFrame(0, 'changed my mind')]);
  });
});

describe('the end of a session', () => {
  /** One request of each kind, pending while the client (see holdingBack) holds its answers back. */
  async function threePending(session: McpSession, client: McpClient) {
    const asked = Promise.all([nextAsked(client, 'rootsList'), nextAsked(client, 'samplingCreateMessage'), nextAsked(client, 'elicitationCreate')]);
    const ps = [
      capture(session.request('roots/list')),
      capture(session.request('sampling/createMessage', { maxTokens: 1, messages: [] })),
      capture(session.request('elicitation/create', { message: 'x', requestedSchema: { type: 'object', properties: {} } })),
    ];
    await asked;
    expect(session.pendingRequests).toBe(3);
    return ps;
  }

  const methods = ['roots/list', 'sampling/createMessage', 'elicitation/create'];

  it('session.close() rejects every pending request with ConnectionClosedError (-32000) and empties the table', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session, notifications } = await holdingBack(running);
    const ps = await threePending(session, client);
    const closed = nextEvent<[string]>(client, 'close');
    session.close('done here');
    for (const [i, p] of ps.entries()) {
      expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
        code: -32000,
        message: `${methods[i]} could not complete: done here`,
        data: { reason: 'done here' },
      });
    }
    expect(session.pendingRequests).toBe(0);
    expect(session.state).toBe('closed');
    expect(await closed).toEqual(['websocket closed (1000: done here)']);
    expect(notifications).toEqual([]);
  });

  it('the client closing its socket rejects every pending request with ConnectionClosedError', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await holdingBack(running);
    const ps = await threePending(session, client);
    await client.close();
    for (const [i, p] of ps.entries()) {
      expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
        code: -32000,
        message: `${methods[i]} could not complete: websocket closed (1000: client closed)`,
        data: { reason: 'websocket closed (1000: client closed)' },
      });
    }
    expect(session.pendingRequests).toBe(0);
    expect(session.state).toBe('closed');
  });

  it('server.close() rejects every pending request of every session with ConnectionClosedError', async () => {
    const running = await startWebSocket(cleanups);
    const a = await holdingBack(running);
    const b = await holdingBack(running);
    const pa = await threePending(a.session, a.client);
    const askedB = nextAsked(b.client, 'rootsList');
    const pb = capture(b.session.request('roots/list'));
    await askedB;
    await running.server.close();
    for (const [i, p] of pa.entries()) {
      expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
        code: -32000,
        message: `${methods[i]} could not complete: server closed`,
        data: { reason: 'server closed' },
      });
    }
    expectMcpError(errorOf(await pb.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'roots/list could not complete: server closed',
      data: { reason: 'server closed' },
    });
    expect(a.session.pendingRequests).toBe(0);
    expect(b.session.pendingRequests).toBe(0);
    expect(running.server.sessions.size).toBe(0);
  });

  it('a request on a closed session rejects with ConnectionClosedError and is never sent', async () => {
    const running = await startWebSocket(cleanups);
    const { session, sent } = await holdingBack(running);
    session.close('bye');
    const p = capture(session.request('roots/list'));
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'roots/list could not complete: bye',
      data: { reason: 'bye' },
    });
    expect(session.pendingRequests).toBe(0);
    expect(sent).toEqual([]);
  });

  it('a request on a session that has not initialized rejects with NoBackChannelError (as session.elicit does) and is never sent', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    expect(session.state).toBe('new');
    const p = capture(session.request('roots/list'));
    const ping = capture(session.ping());
    expectMcpError(errorOf(await p.outcome), NoBackChannelError, {
      code: -32010,
      message: 'Cannot send roots/list: the session has not completed initialize; send requests from the sessionNew event on',
    });
    expectMcpError(errorOf(await ping.outcome), NoBackChannelError, {
      code: -32010,
      message: 'Cannot send ping: the session has not completed initialize; send requests from the sessionNew event on',
    });
    expect(session.pendingRequests).toBe(0);
    await expectQuietAndAlive(client);
  });
});

describe('progress', () => {
  it('asks for progress with params._meta.progressToken equal to the id and passes progress to onProgress and the progress event', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const events: [McpSession, ProgressParams][] = [];
    running.server.on('progress', (s, params) => events.push([s, params]));
    const seen: ProgressParams[] = [];
    // Use a request first, so the progress token is not 0.
    const warmup = capture(session.request('roots/list'));
    await client.nextMessage('roots/list');
    client.respond(0, { roots: [] });
    await warmup.outcome;

    const p = capture(session.request('sampling/createMessage', { maxTokens: 3, _meta: { 'example.com/trace': 't1' } }, { onProgress: (pr) => seen.push(pr) }));
    expect(await client.nextMessage('sampling/createMessage')).toEqual({
      jsonrpc: '2.0',
      id: 1,
      method: 'sampling/createMessage',
      params: { maxTokens: 3, _meta: { 'example.com/trace': 't1', progressToken: 1 } },
    });
    client.notify('notifications/progress', { progressToken: 1, progress: 1, total: 3, message: 'thinking' });
    client.notify('notifications/progress', { progressToken: 1, progress: 2.5 });
    await expectQuietAndAlive(client);
    expect(seen).toEqual([
      { progressToken: 1, progress: 1, total: 3, message: 'thinking' },
      { progressToken: 1, progress: 2.5 },
    ]);
    expect(events).toEqual([
      [session, { progressToken: 1, progress: 1, total: 3, message: 'thinking' }],
      [session, { progressToken: 1, progress: 2.5 }],
    ]);
    client.respond(1, { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' });
    expect(await p.outcome).toEqual({ ok: true, value: { role: 'assistant', content: { type: 'text', text: 'x' }, model: 'm' } });

    // After the request settled, progress for its token reaches no handler.
    client.notify('notifications/progress', { progressToken: 1, progress: 3 });
    await expectQuietAndAlive(client);
    expect(seen).toHaveLength(2);
  });

  it('does not add a progress token when onProgress is not given', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const p = capture(session.request('roots/list', { _meta: { a: 1 } }));
    expect(await client.nextMessage('roots/list')).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: { _meta: { a: 1 } } });
    client.respond(0, { roots: [] });
    expect((await p.outcome).ok).toBe(true);
  });

  it('progress does not extend the timeout unless resetTimeoutOnProgress is set', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const seen: ProgressParams[] = [];
    fakeClock();
    const p = capture(session.request('sampling/createMessage', {}, { timeoutMs: 300, onProgress: (pr) => seen.push(pr) }));
    await client.nextMessage('sampling/createMessage');
    vi.advanceTimersByTime(100);
    await progressOnRequestZero(client, 1);
    vi.advanceTimersByTime(100);
    await progressOnRequestZero(client, 2);
    expectAtDeadline(100, () => session.pendingRequests, { before: 1, at: 0 });
    expect(errorOf(await p.outcome)).toBeInstanceOf(RequestTimeoutError);
    expect(seen).toEqual([
      { progressToken: 0, progress: 1 },
      { progressToken: 0, progress: 2 },
    ]);
  });

  it('resetTimeoutOnProgress restarts the timeout on each progress notification', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    fakeClock();
    const p = capture(session.request('sampling/createMessage', {}, { timeoutMs: 300, onProgress: () => {}, resetTimeoutOnProgress: true }));
    await client.nextMessage('sampling/createMessage');
    // Each progress comes 299 ms after the one before: 1196 ms in all, well past the 300 ms timeout.
    for (let i = 1; i <= 4; i++) {
      vi.advanceTimersByTime(299);
      await tick();
      expect(p.settled()).toBe(false);
      expect(session.pendingRequests).toBe(1);
      await progressOnRequestZero(client, i);
    }
    client.respond(0, { role: 'assistant', content: { type: 'text', text: 'done' }, model: 'm' });
    expect(await p.outcome).toEqual({ ok: true, value: { role: 'assistant', content: { type: 'text', text: 'done' }, model: 'm' } });
    expect(client.messages('notifications/cancelled')).toEqual([]);
  });

  it('resetTimeoutOnProgress is capped by maxTotalTimeoutMs even while progress keeps coming', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    fakeClock();
    const p = capture(
      session.request('sampling/createMessage', {}, { timeoutMs: 300, onProgress: () => {}, resetTimeoutOnProgress: true, maxTotalTimeoutMs: 500 }),
    );
    await client.nextMessage('sampling/createMessage');
    // Progress every 100 ms: each one would extend the wait to 300 ms after it, but not past 500 ms in all.
    for (let i = 1; i <= 4; i++) {
      vi.advanceTimersByTime(100);
      await progressOnRequestZero(client, i);
    }
    expectAtDeadline(100, () => session.pendingRequests, { before: 1, at: 0 });
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'sampling/createMessage timed out after 500 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 500 },
    });
    expect((await client.nextMessage('notifications/cancelled')).params).toEqual({ requestId: 0, reason: 'timed out after 500 ms' });
    expect(session.pendingRequests).toBe(0);
  });
});

describe('ctx.request from a tool handler', () => {
  it('is cancelled, with notifications/cancelled to the client, when the client cancels the tool call', async () => {
    const handlerError = gate();
    let caught: unknown;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx: RequestContext) => {
        try {
          await ctx.request('elicitation/create', { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } });
          return 'answered';
        } catch (err) {
          caught = err;
          handlerError.open();
          throw err;
        }
      }),
    );
    const { client, session, sent, notifications } = await holdingBack(running);
    const asked = nextEvent<[ElicitParams, HandlerContext]>(client, 'elicitationCreate');
    const controller = new AbortController();
    const call = client.callTool('ask', {}, { signal: controller.signal });
    const [params, ctx] = await asked;
    const elicitation = { message: 'Your name?', requestedSchema: { type: 'object', properties: {} } };
    expect([params, ctx.requestId]).toEqual([elicitation, 0]);
    expect(session.pendingRequests).toBe(1);

    const cancelled = abortReason(ctx.signal);
    controller.abort('user pressed stop');
    expect(await rpcError(call)).toEqual({ code: -32800, message: 'tools/call was cancelled: user pressed stop', data: { reason: 'user pressed stop' } });
    expect(await cancelled).toBe('cancelled by the client: user pressed stop');
    expect(notifications).toEqual([cancelledFrame(0, 'cancelled by the client: user pressed stop')]);
    await handlerError.opened;
    expectMcpError(caught, RequestCancelledError, {
      code: -32800,
      message: 'elicitation/create was cancelled: cancelled by the client: user pressed stop',
      data: { reason: 'cancelled by the client: user pressed stop' },
    });
    expect(session.pendingRequests).toBe(0);
    // The cancelled tool call gets no response at all.
    await client.ping();
    await expectSentOnly(client, sent, [
      { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: elicitation },
      cancelledFrame(0, 'cancelled by the client: user pressed stop'),
      PING_REPLY,
    ]);
  });

  it('resolves with the client result and the tool call then completes', async () => {
    const form = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx) => {
        const answer = await ctx.request('elicitation/create', form);
        return `hello ${(answer.content as { name: string }).name}`;
      }),
    );
    const asked: unknown[] = [];
    const { client } = await clients.connect(running, {}, (c) =>
      c.onElicitation((params) => {
        asked.push(params);
        return { action: 'accept', content: { name: 'Ada' } };
      }),
    );
    expect(await client.callTool('ask')).toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    expect(asked).toEqual([form]);
  });
});
