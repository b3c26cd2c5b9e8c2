/**
 * sampling/createMessage and roots/list over a real WebSocket: the request forms and their one
 * response event, the promise forms, capability gating, result checks, and roots/list_changed.
 * An McpClient answers through its handlers; the raw peer stays where the test is about what the server
 * does with a reply no well-behaved client gives (wrong shapes, an error object built by hand, a capability
 * that is not an object), or the exact frame it sends or the socket's close frame.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  ClientCapabilityError,
  ConnectionClosedError,
  McpError,
  RequestTimeoutError,
  RootsNotSupportedError,
  SamplingNotSupportedError,
  type CreateMessageParams,
  type CreateMessageResult,
  type HandlerContext,
  type ListRootsResult,
  type McpClient,
  type McpClientOptions,
  type McpServer,
  type McpSession,
} from '../../src/index.js';
import { CAPS, errorOf, expectMcpError, responseLog, thrownBy, succeeded, type ResponseLog } from '../helpers/client-requests.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { nextEvent, recordOutgoing } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { expectQuietAndAlive, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { expectAtDeadline, useFakeClock } from '../helpers/fake-clock.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);
const fakeClock = useFakeClock();

const ASK: CreateMessageParams = { messages: [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }], maxTokens: 50 };
const ANSWER: CreateMessageResult = { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model-1', stopReason: 'endTurn' };
/** What a session sends for `requestSamplingCreateMessage(session, params)` as its first request. */
const samplingFrame = (params: CreateMessageParams) => ({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params });
/** The server's reply to a ping of the McpClient (whose ids the client picks). */
const PING_REPLY = { jsonrpc: '2.0', id: expect.any(Number), result: {} };

/** A raw peer that declared `capabilities`, on a fresh server whose response events are recorded. */
async function openRaw(capabilities: Json, serverOptions: Parameters<typeof startWebSocket>[2] = {}) {
  const running = await startWebSocket(cleanups, undefined, serverOptions);
  const sampling = responseLog(running.server, 'responseSamplingCreateMessage');
  const roots = responseLog(running.server, 'responseRootsList');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, sampling, roots, client, session };
}

interface Connected {
  running: RunningServer;
  server: McpServer;
  sampling: ResponseLog;
  roots: ResponseLog;
  client: McpClient;
  session: McpSession;
  /** Every message the server sent the session since the client connected. */
  sent: Record<string, unknown>[];
}

/**
 * An McpClient (handlers registered by `setup`, capabilities declared from them unless `options` give
 * some) on a fresh server (`serverSetup`, `serverOptions`) whose response events, and every message it
 * sends the client's session, are recorded.
 */
async function connect(
  setup: (client: McpClient) => void = () => {},
  options: McpClientOptions = {},
  serverOptions: Parameters<typeof startWebSocket>[2] = {},
  serverSetup?: (server: McpServer) => void,
): Promise<Connected> {
  const running = await startWebSocket(cleanups, serverSetup, serverOptions);
  const sampling = responseLog(running.server, 'responseSamplingCreateMessage');
  const roots = responseLog(running.server, 'responseRootsList');
  const { client, session } = await clients.connect(running, options, setup);
  const sent = recordOutgoing(running.server, session);
  return { running, server: running.server, sampling, roots, client, session, sent };
}

/** A handler that records the arguments of each call and answers with `answer`. */
function recording<A extends unknown[], R>(answer: (...args: A) => R): ((...args: A) => R) & { calls: A[] } {
  const calls: A[] = [];
  return Object.assign((...args: A) => (calls.push(args), answer(...args)), { calls });
}

/** An answer that never comes: the client holds its reply back. */
const never = <T>() => new Promise<T>(() => {});

/** The reason `signal` is aborted with, once it is. */
function abortReason(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

/** Every notification the client receives from now on, whole. */
function notificationsOf(client: McpClient): unknown[] {
  const log: unknown[] = [];
  client.on('notification', (notification) => void log.push(notification));
  return log;
}

/**
 * The session still answers a ping, and since the client connected the server sent it nothing but
 * `expected` and the ping's reply.
 */
async function expectSentOnly(client: McpClient, sent: Record<string, unknown>[], expected: unknown[] = []): Promise<void> {
  await client.ping();
  expect(sent).toEqual([...expected, PING_REPLY]);
}

describe('sampling/createMessage', () => {
  it('sends the params exactly, returns the id, and emits (session, request, response) with role, content, model and stopReason', async () => {
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => ANSWER);
    const { server, sampling, client, session, sent } = await connect((c) => c.onSampling(model));
    const id = server.requestSamplingCreateMessage(session, ASK);
    expect(id).toBe(0);
    const [eventSession, request, response] = await sampling.next();
    expect(model.calls.map(([params, ctx]) => [params, ctx.requestId])).toEqual([[ASK, 0]]);
    expect(eventSession).toBe(session);
    expect(request).toEqual(samplingFrame(ASK));
    expect(response).toStrictEqual(succeeded('sampling', { ...ANSWER }));
    await expectSentOnly(client, sent, [samplingFrame(ASK)]);
    expect(sampling.all).toHaveLength(1);
  });

  it('sends every optional field as given and accepts content as an array of blocks', async () => {
    const result: CreateMessageResult = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      model: 'm',
    };
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => result);
    const { server, sampling, session, sent } = await connect((c) => c.onSampling(model));
    const params: CreateMessageParams = {
      messages: [
        { role: 'user', content: { type: 'text', text: 'Hi' } },
        { role: 'assistant', content: [{ type: 'text', text: 'Hello' }] },
      ],
      maxTokens: 10,
      systemPrompt: 'Be brief',
      temperature: 0.2,
      stopSequences: ['\n'],
      includeContext: 'none',
      modelPreferences: { hints: [{ name: 'claude' }], intelligencePriority: 0.8 },
      metadata: { trace: 'x' },
    };
    server.requestSamplingCreateMessage(session.id, params);
    expect((await sampling.next())[2]).toStrictEqual(succeeded('sampling', { ...result }));
    expect(model.calls.map(([asked, ctx]) => [asked, ctx.requestId])).toEqual([[params, 0]]);
    expect(sent).toEqual([samplingFrame(params)]);
  });

  it('session.createMessage resolves with the result and fires the event', async () => {
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => ANSWER);
    const { sampling, session } = await connect((c) => c.onSampling(model));
    const p = capture(session.createMessage(ASK));
    expect(await p.outcome).toEqual({ ok: true, value: ANSWER });
    expect(model.calls).toHaveLength(1);
    expect(sampling.all).toHaveLength(1);
    expect(sampling.all[0][2]).toStrictEqual(succeeded('sampling', { ...ANSWER }));
  });

  it('ctx.createMessage asks the client from inside a tool', async () => {
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => ANSWER);
    const { sampling, client, session, sent } = await connect(
      (c) => c.onSampling(model),
      {},
      {},
      (server) =>
        server.registerTool('ask-model', {}, async (_args, ctx) => {
          const result = await ctx.createMessage(ASK);
          return `${result.model}: ${String((result.content as { text?: string }).text)}`;
        }),
    );
    expect(await client.callTool('ask-model')).toEqual({ content: [{ type: 'text', text: 'test-model-1: 4' }] });
    expect(model.calls.map(([params, ctx]) => [params, ctx.requestId])).toEqual([[ASK, 0]]);
    expect(sent).toEqual([samplingFrame(ASK), { jsonrpc: '2.0', id: expect.any(Number), result: { content: [{ type: 'text', text: 'test-model-1: 4' }] } }]);
    expect(sampling.all).toHaveLength(1);
    expect(sampling.all[0][0]).toBe(session);
  });

  it("reports the client's error reply as isError with its code, message and data", async () => {
    const { server, sampling, client, session } = await openRaw(CAPS.sampling);
    server.requestSamplingCreateMessage(session, ASK);
    await client.nextMessage('sampling/createMessage');
    client.respondError(0, -1, 'User rejected sampling request', { why: 'no' });
    expect((await sampling.next())[2]).toEqual({ isError: true, errorCode: -1, errorMessage: 'User rejected sampling request', errorData: { why: 'no' } });
  });

  const SAMPLING_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage',
    data: { requiredCapabilities: { sampling: {} } },
  };

  it('throws SamplingNotSupportedError (-32021) for a client without the sampling capability and sends nothing', async () => {
    const { server, sampling, client, session, sent } = await connect((c) => c.onRoots(() => ({ roots: [] })).onElicitation(() => ({ action: 'decline' })));
    expect(client.capabilities).toEqual({ roots: { listChanged: true }, elicitation: { form: {} } });
    const error = thrownBy(() => server.requestSamplingCreateMessage(session, ASK));
    expectMcpError(error, SamplingNotSupportedError, SAMPLING_NOT_DECLARED);
    expect(error).toBeInstanceOf(ClientCapabilityError);
    await expectSentOnly(client, sent);
    expect(sampling.all).toHaveLength(0);
  });

  it('rejects session.createMessage with SamplingNotSupportedError for a client without sampling', async () => {
    const { client, session, sent } = await connect();
    expectMcpError(errorOf(await capture(session.createMessage(ASK)).outcome), SamplingNotSupportedError, SAMPLING_NOT_DECLARED);
    await expectSentOnly(client, sent);
  });

  it('treats a sampling capability that is not an object as undeclared', async () => {
    const { server, client, session } = await openRaw({ sampling: true });
    expectMcpError(
      thrownBy(() => server.requestSamplingCreateMessage(session, ASK)),
      SamplingNotSupportedError,
      SAMPLING_NOT_DECLARED,
    );
    await expectQuietAndAlive(client);
  });

  const TOOLS_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare sampling.tools; send the request without tools and toolChoice',
    data: { requiredCapabilities: { sampling: { tools: {} } } },
  };
  const TOOL = { name: 'get_weather', description: 'Weather', inputSchema: { type: 'object', properties: { city: { type: 'string' } } } };

  it.each([
    ['tools', { tools: [TOOL] }],
    ['toolChoice', { toolChoice: { mode: 'auto' as const } }],
  ])('throws SamplingNotSupportedError for %s when the client lacks sampling.tools', async (_name, extra) => {
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => ANSWER);
    const { server, sampling, client, session, sent } = await connect((c) => c.onSampling(model));
    expect(client.capabilities).toEqual({ sampling: {} });
    expectMcpError(
      thrownBy(() => server.requestSamplingCreateMessage(session, { ...ASK, ...extra })),
      SamplingNotSupportedError,
      TOOLS_NOT_DECLARED,
    );
    expectMcpError(errorOf(await capture(session.createMessage({ ...ASK, ...extra })).outcome), SamplingNotSupportedError, TOOLS_NOT_DECLARED);
    await expectSentOnly(client, sent);
    expect(model.calls).toEqual([]);
    expect(sampling.all).toHaveLength(0);
  });

  it('sends tools and toolChoice to a client that declared sampling.tools', async () => {
    const result: CreateMessageResult = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Oslo' } }],
      model: 'm',
      stopReason: 'toolUse',
    };
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => result);
    const { server, sampling, session, sent } = await connect((c) => c.onSampling(model), { capabilities: { sampling: { tools: {} } } });
    const params = { ...ASK, tools: [TOOL], toolChoice: { mode: 'required' as const } };
    server.requestSamplingCreateMessage(session, params);
    expect((await sampling.next())[2]).toStrictEqual(succeeded('sampling', { ...result }));
    expect(model.calls.map(([asked, ctx]) => [asked, ctx.requestId])).toEqual([[params, 0]]);
    expect(sent).toEqual([samplingFrame(params)]);
  });

  it.each([
    ['no messages', { maxTokens: 5 }, 'sampling/createMessage needs params.messages, an array of {role, content}'],
    ['messages that are not an array', { messages: {}, maxTokens: 5 }, 'sampling/createMessage needs params.messages, an array of {role, content}'],
    ['no maxTokens', { messages: [] }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
    ['maxTokens 0', { messages: [], maxTokens: 0 }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
    ['a fractional maxTokens', { messages: [], maxTokens: 1.5 }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
  ])('throws a TypeError for %s and sends nothing', async (_name, params, message) => {
    const model = recording((_params: CreateMessageParams, _ctx: HandlerContext) => ANSWER);
    const { server, client, session, sent } = await connect((c) => c.onSampling(model));
    const error = thrownBy(() => server.requestSamplingCreateMessage(session, params as unknown as CreateMessageParams));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(message);
    await expectSentOnly(client, sent);
    expect(model.calls).toEqual([]);
  });

  it.each([
    ['no model', { role: 'assistant', content: { type: 'text', text: 'x' } }],
    ['a numeric model', { role: 'assistant', content: { type: 'text', text: 'x' }, model: 5 }],
    ['the role "system"', { role: 'system', content: { type: 'text', text: 'x' }, model: 'm' }],
    ['no role', { content: { type: 'text', text: 'x' }, model: 'm' }],
    ['content that is a string', { role: 'assistant', content: 'x', model: 'm' }],
    ['no content', { role: 'assistant', model: 'm' }],
  ])('reports a result with %s as isError -32602 and counts it', async (_name, result) => {
    const { server, sampling, client, session } = await openRaw(CAPS.sampling);
    server.requestSamplingCreateMessage(session, ASK);
    await client.nextMessage('sampling/createMessage');
    client.respond(0, result);
    const [eventSession, request, response] = await sampling.next();
    expect(eventSession).toBe(session);
    expect(request.id).toBe(0);
    expect(response).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: 'The client answered sampling/createMessage without a valid role, content and model',
      errorData: { result },
    });
    expect(server.stats.invalidResults).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('rejects session.createMessage with an McpError -32602 for an invalid result', async () => {
    const { client, session } = await openRaw(CAPS.sampling);
    const p = capture(session.createMessage(ASK));
    await client.nextMessage('sampling/createMessage');
    client.respond(0, { role: 'assistant', content: { type: 'text', text: 'x' } });
    expectMcpError(errorOf(await p.outcome), McpError, {
      code: -32602,
      message: 'The client answered sampling/createMessage without a valid role, content and model',
      data: { result: { role: 'assistant', content: { type: 'text', text: 'x' } } },
    });
  });

  it('times out after the samplingTimeoutMs option and cancels on the client', async () => {
    const { server, sampling, client, session } = await connect((c) => c.onSampling(never), {}, { server: { requestTimeoutMs: 30, samplingTimeoutMs: 110 } });
    const notifications = notificationsOf(client);
    fakeClock();
    const asked = nextEvent<[CreateMessageParams, HandlerContext]>(client, 'samplingCreateMessage');
    server.requestSamplingCreateMessage(session, ASK);
    const [, ctx] = await asked;
    const cancelled = abortReason(ctx.signal);
    expectAtDeadline(110, () => sampling.all.length, { before: 0, at: 1 });
    expect((await sampling.next())[2]).toEqual({
      isError: true,
      errorCode: -32001,
      errorMessage: 'sampling/createMessage timed out after 110 ms without a reply; raise timeoutMs if a person has to answer it',
      errorData: { timeoutMs: 110 },
    });
    expect(await cancelled).toBe('timed out after 110 ms');
    expect(notifications).toEqual([
      {
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 0, reason: 'timed out after 110 ms' },
      },
    ]);
  });

  it('waits 10 minutes by default', async () => {
    const { server, sampling, client, session } = await connect((c) => c.onSampling(never));
    fakeClock();
    const asked = nextEvent<[CreateMessageParams, HandlerContext]>(client, 'samplingCreateMessage');
    server.requestSamplingCreateMessage(session, ASK);
    await asked;
    expectAtDeadline(600_000, () => sampling.all.length, { before: 0, at: 1 });
    expect(sampling.all[0][2]).toMatchObject({ isError: true, errorCode: -32001, errorData: { timeoutMs: 600_000 } });
  });

  it('rejects session.createMessage with RequestTimeoutError after a per-call timeoutMs', async () => {
    const { client, session } = await connect((c) => c.onSampling(never));
    const asked = nextEvent<[CreateMessageParams, HandlerContext]>(client, 'samplingCreateMessage');
    const p = capture(session.createMessage(ASK, { timeoutMs: 60 }));
    await asked;
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'sampling/createMessage timed out after 60 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 60 },
    });
  });

  it('ends a pending request with -32000 when the socket drops', async () => {
    const { server, sampling, client, session } = await openRaw(CAPS.sampling);
    const p = capture(session.createMessage(ASK));
    server.requestSamplingCreateMessage(session, ASK);
    await client.nextMessage('sampling/createMessage');
    await client.nextMessage('sampling/createMessage');
    client.socket.close(4000, 'gone');
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'sampling/createMessage could not complete: websocket closed (4000: gone)',
      data: { reason: 'websocket closed (4000: gone)' },
    });
    await vi.waitFor(() => expect(sampling.all).toHaveLength(2));
    expect(sampling.all.map((args) => [args[1].id, args[2].errorCode])).toEqual([
      [0, -32000],
      [1, -32000],
    ]);
  });
});

describe('roots/list', () => {
  const ROOTS = [{ uri: 'file:///home/ada/project', name: 'project' }, { uri: 'file:///tmp' }];
  const ROOTS_FRAME = { jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} };
  /** A roots handler that records its calls and answers `roots`. */
  const rootsOf = (roots: ListRootsResult['roots']) => recording((_ctx: HandlerContext): ListRootsResult => ({ roots }));

  it('sends exactly {jsonrpc, id, method: "roots/list", params: {}}, returns the id, and emits the roots', async () => {
    const { server, roots, client, session } = await openRaw(CAPS.roots);
    const id = server.requestRootsList(session);
    expect(id).toBe(0);
    const sent = await client.nextMessage('roots/list');
    expect(sent).toEqual(ROOTS_FRAME);
    client.respond(0, { roots: ROOTS });
    const [eventSession, request, response] = await roots.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(sent);
    expect(response).toStrictEqual(succeeded('roots', { roots: ROOTS }));
    await expectQuietAndAlive(client);
    expect(roots.all).toHaveLength(1);
  });

  it('accepts a session id, and an empty roots array', async () => {
    const handler = rootsOf([]);
    const { server, roots, session, sent } = await connect((c) => c.onRoots(handler));
    expect(server.requestRootsList(session.id)).toBe(0);
    expect((await roots.next())[2]).toStrictEqual(succeeded('roots', { roots: [] }));
    expect(handler.calls.map(([ctx]) => ctx.requestId)).toEqual([0]);
    expect(sent).toEqual([ROOTS_FRAME]);
  });

  it('session.listRoots resolves with {roots} and fires the event', async () => {
    const handler = rootsOf(ROOTS);
    const { roots, session } = await connect((c) => c.onRoots(handler));
    const p = capture(session.listRoots());
    expect(await p.outcome).toEqual({ ok: true, value: { roots: ROOTS } });
    expect(handler.calls).toHaveLength(1);
    expect(roots.all).toHaveLength(1);
  });

  it('ctx.listRoots asks the client from inside a tool', async () => {
    const handler = rootsOf(ROOTS);
    const { client, sent } = await connect(
      (c) => c.onRoots(handler),
      {},
      {},
      (server) =>
        server.registerTool('where', {}, async (_args, ctx) => {
          const { roots } = await ctx.listRoots();
          return roots.map((r) => r.uri).join(',');
        }),
    );
    expect(await client.callTool('where')).toEqual({ content: [{ type: 'text', text: 'file:///home/ada/project,file:///tmp' }] });
    expect(handler.calls.map(([ctx]) => ctx.requestId)).toEqual([0]);
    expect(sent).toEqual([
      ROOTS_FRAME,
      { jsonrpc: '2.0', id: expect.any(Number), result: { content: [{ type: 'text', text: 'file:///home/ada/project,file:///tmp' }] } },
    ]);
  });

  const ROOTS_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare the roots capability; it cannot be asked for roots/list',
    data: { requiredCapabilities: { roots: {} } },
  };

  /** Both forms refuse at once with RootsNotSupportedError. */
  async function expectRootsRefused(server: McpServer, session: McpSession): Promise<void> {
    const error = thrownBy(() => server.requestRootsList(session));
    expectMcpError(error, RootsNotSupportedError, ROOTS_NOT_DECLARED);
    expect(error).toBeInstanceOf(ClientCapabilityError);
    expectMcpError(errorOf(await capture(session.listRoots()).outcome), RootsNotSupportedError, ROOTS_NOT_DECLARED);
  }

  it('throws RootsNotSupportedError (-32021) for a client with no roots capability and sends nothing', async () => {
    const { server, roots, client, session, sent } = await connect((c) => c.onSampling(() => ANSWER));
    expect(client.capabilities).toEqual({ sampling: {} });
    await expectRootsRefused(server, session);
    await expectSentOnly(client, sent);
    expect(roots.all).toHaveLength(0);
  });

  it('throws RootsNotSupportedError (-32021) for a client with roots: true and sends nothing', async () => {
    const { server, roots, client, session } = await openRaw({ roots: true });
    await expectRootsRefused(server, session);
    await expectQuietAndAlive(client);
    expect(roots.all).toHaveLength(0);
  });

  it('reports a client -32601 reply as isError', async () => {
    const { server, roots, client, session } = await openRaw(CAPS.roots);
    server.requestRootsList(session);
    await client.nextMessage('roots/list');
    client.respondError(0, -32601, 'Method not found');
    expect((await roots.next())[2]).toEqual({ isError: true, errorCode: -32601, errorMessage: 'Method not found' });
  });

  it.each([
    ['no roots', {}],
    ['roots that are not an array', { roots: 'file:///x' }],
    ['a root without a uri', { roots: [{ name: 'x' }] }],
    ['a root that is a string', { roots: ['file:///x'] }],
    ['a root with a numeric uri', { roots: [{ uri: 5 }] }],
  ])('reports a result with %s as isError -32602 and counts it', async (_name, result) => {
    const { server, roots, client, session } = await openRaw(CAPS.roots);
    server.requestRootsList(session);
    await client.nextMessage('roots/list');
    client.respond(0, result);
    expect((await roots.next())[2]).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: 'The client answered roots/list without a roots array of {uri, name?}',
      errorData: { result },
    });
    expect(server.stats.invalidResults).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('times out after requestTimeoutMs by default', async () => {
    const { server, roots, client, session } = await connect((c) => c.onRoots(never), {}, { server: { requestTimeoutMs: 70, elicitationTimeoutMs: 5000 } });
    fakeClock();
    const asked = nextEvent<[HandlerContext]>(client, 'rootsList');
    server.requestRootsList(session);
    await asked;
    expectAtDeadline(70, () => roots.all.length, { before: 0, at: 1 });
    expect((await roots.next())[2]).toEqual({
      isError: true,
      errorCode: -32001,
      errorMessage: 'roots/list timed out after 70 ms without a reply; raise timeoutMs if a person has to answer it',
      errorData: { timeoutMs: 70 },
    });
  });

  it('ends a pending request with -32000 when the server closes', async () => {
    const { server, roots, client, session } = await connect((c) => c.onRoots(never));
    const asked = nextEvent<[HandlerContext]>(client, 'rootsList');
    const p = capture(session.listRoots());
    await asked;
    await server.close();
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'roots/list could not complete: server closed',
      data: { reason: 'server closed' },
    });
    expect(roots.all).toHaveLength(1);
  });

  it('emits rootsListChanged with the session for notifications/roots/list_changed, and nothing else', async () => {
    const { server, client, session, sent } = await connect((c) => c.onRoots(() => ({ roots: ROOTS })));
    const notifications: string[] = [];
    server.on('notification', (_s, method) => notifications.push(method));
    const changed = nextEvent<[McpSession]>(server, 'rootsListChanged');
    await client.sendRootsListChanged();
    const [eventSession] = await changed;
    expect(eventSession).toBe(session);
    await client.ping();
    expect(notifications).toEqual([]);
    await expectSentOnly(client, sent, [PING_REPLY]);
  });

  it('emits rootsListChanged for the session that sent it', async () => {
    const { running, server } = await connect((c) => c.onRoots(() => ({ roots: ROOTS })));
    const other = await clients.connect(running, {}, (c) => c.onRoots(() => ({ roots: ROOTS })));
    const seen: McpSession[] = [];
    server.on('rootsListChanged', (s) => seen.push(s));
    await other.client.sendRootsListChanged();
    await other.client.sendRootsListChanged();
    await other.client.ping();
    expect(seen).toEqual([other.session, other.session]);
  });
});
