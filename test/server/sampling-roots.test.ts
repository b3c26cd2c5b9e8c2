/**
 * sampling/createMessage and roots/list over a real WebSocket: the request forms and their one
 * response event, the promise forms, capability gating, result checks, and roots/list_changed.
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
  type McpSession,
} from '../../src/index.js';
import { CAPS, callTool, errorOf, expectMcpError, responseLog, thrownBy, succeeded } from '../helpers/client-requests.js';
import { nextEvent } from '../helpers/servers.js';
import { expectQuietAndAlive, pingOk, useHarness } from '../helpers/session-harness.js';
import { capture, expectAtDeadline, useFakeClock } from '../helpers/util.js';
import type { Json } from '../helpers/ws-client.js';

const h = useHarness();
const fakeClock = useFakeClock();

const ASK: CreateMessageParams = { messages: [{ role: 'user', content: { type: 'text', text: 'What is 2+2?' } }], maxTokens: 50 };
const ANSWER = { role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model-1', stopReason: 'endTurn' };

async function open(capabilities: Json, serverOptions: Parameters<typeof h.start>[1] = {}) {
  const running = await h.start(undefined, serverOptions);
  const sampling = responseLog(running.server, 'responseSamplingCreateMessage');
  const roots = responseLog(running.server, 'responseRootsList');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, sampling, roots, client, session };
}

describe('sampling/createMessage', () => {
  it('sends the params exactly, returns the id, and emits (session, request, response) with role, content, model and stopReason', async () => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
    const id = server.requestSamplingCreateMessage(session, ASK);
    expect(id).toBe(0);
    const sent = await client.nextMessage('sampling/createMessage');
    expect(sent).toEqual({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: ASK });
    client.respond(0, ANSWER);
    const [eventSession, request, response] = await sampling.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(sent);
    expect(response).toStrictEqual(succeeded('sampling', { ...ANSWER }));
    await expectQuietAndAlive(client);
    expect(sampling.all).toHaveLength(1);
  });

  it('sends every optional field as given and accepts content as an array of blocks', async () => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
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
    expect(await client.nextMessage('sampling/createMessage')).toEqual({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params });
    const result = {
      role: 'assistant',
      content: [
        { type: 'text', text: 'a' },
        { type: 'text', text: 'b' },
      ],
      model: 'm',
    };
    client.respond(0, result);
    expect((await sampling.next())[2]).toStrictEqual(succeeded('sampling', { ...result }));
  });

  it('session.createMessage resolves with the result and fires the event', async () => {
    const { sampling, client, session } = await open(CAPS.sampling);
    const p = capture(session.createMessage(ASK));
    await client.nextMessage('sampling/createMessage');
    client.respond(0, ANSWER);
    expect(await p.outcome).toEqual({ ok: true, value: ANSWER });
    expect(sampling.all).toHaveLength(1);
    expect(sampling.all[0][2]).toStrictEqual(succeeded('sampling', { ...ANSWER }));
  });

  it('ctx.createMessage asks the client from inside a tool', async () => {
    const running = await h.start((server) =>
      server.registerTool('ask-model', {}, async (_args, ctx) => {
        const result = await ctx.createMessage(ASK);
        return `${result.model}: ${String((result.content as { text?: string }).text)}`;
      }),
    );
    const sampling = responseLog(running.server, 'responseSamplingCreateMessage');
    const { client, session } = await h.open(running, { capabilities: CAPS.sampling });
    const call = callTool(client, 'ask-model');
    expect(await client.nextMessage('sampling/createMessage')).toEqual({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: ASK });
    client.respond(0, ANSWER);
    expect(await call).toEqual({ jsonrpc: '2.0', id: 'call-ask-model', result: { content: [{ type: 'text', text: 'test-model-1: 4' }] } });
    expect(sampling.all).toHaveLength(1);
    expect(sampling.all[0][0]).toBe(session);
  });

  it("reports the client's error reply as isError with its code, message and data", async () => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
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
    const { server, sampling, client, session } = await open({ roots: {}, elicitation: {} });
    const error = thrownBy(() => server.requestSamplingCreateMessage(session, ASK));
    expectMcpError(error, SamplingNotSupportedError, SAMPLING_NOT_DECLARED);
    expect(error).toBeInstanceOf(ClientCapabilityError);
    await expectQuietAndAlive(client);
    expect(sampling.all).toHaveLength(0);
  });

  it('rejects session.createMessage with SamplingNotSupportedError for a client without sampling', async () => {
    const { client, session } = await open(CAPS.none);
    expectMcpError(errorOf(await capture(session.createMessage(ASK)).outcome), SamplingNotSupportedError, SAMPLING_NOT_DECLARED);
    await expectQuietAndAlive(client);
  });

  it('treats a sampling capability that is not an object as undeclared', async () => {
    const { server, client, session } = await open({ sampling: true });
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
    const { server, sampling, client, session } = await open(CAPS.sampling);
    expectMcpError(
      thrownBy(() => server.requestSamplingCreateMessage(session, { ...ASK, ...extra })),
      SamplingNotSupportedError,
      TOOLS_NOT_DECLARED,
    );
    expectMcpError(errorOf(await capture(session.createMessage({ ...ASK, ...extra })).outcome), SamplingNotSupportedError, TOOLS_NOT_DECLARED);
    await expectQuietAndAlive(client);
    expect(sampling.all).toHaveLength(0);
  });

  it('sends tools and toolChoice to a client that declared sampling.tools', async () => {
    const { server, sampling, client, session } = await open(CAPS.samplingTools);
    const params = { ...ASK, tools: [TOOL], toolChoice: { mode: 'required' as const } };
    server.requestSamplingCreateMessage(session, params);
    expect(await client.nextMessage('sampling/createMessage')).toEqual({ jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params });
    const result = {
      role: 'assistant',
      content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: { city: 'Oslo' } }],
      model: 'm',
      stopReason: 'toolUse',
    };
    client.respond(0, result);
    expect((await sampling.next())[2]).toStrictEqual(succeeded('sampling', { ...result }));
  });

  it.each([
    ['no messages', { maxTokens: 5 }, 'sampling/createMessage needs params.messages, an array of {role, content}'],
    ['messages that are not an array', { messages: {}, maxTokens: 5 }, 'sampling/createMessage needs params.messages, an array of {role, content}'],
    ['no maxTokens', { messages: [] }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
    ['maxTokens 0', { messages: [], maxTokens: 0 }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
    ['a fractional maxTokens', { messages: [], maxTokens: 1.5 }, 'sampling/createMessage needs params.maxTokens, a positive integer'],
  ])('throws a TypeError for %s and sends nothing', async (_name, params, message) => {
    const { server, client, session } = await open(CAPS.sampling);
    const error = thrownBy(() => server.requestSamplingCreateMessage(session, params as unknown as CreateMessageParams));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(message);
    await expectQuietAndAlive(client);
  });

  it.each([
    ['no model', { role: 'assistant', content: { type: 'text', text: 'x' } }],
    ['a numeric model', { role: 'assistant', content: { type: 'text', text: 'x' }, model: 5 }],
    ['the role "system"', { role: 'system', content: { type: 'text', text: 'x' }, model: 'm' }],
    ['no role', { content: { type: 'text', text: 'x' }, model: 'm' }],
    ['content that is a string', { role: 'assistant', content: 'x', model: 'm' }],
    ['no content', { role: 'assistant', model: 'm' }],
  ])('reports a result with %s as isError -32602 and counts it', async (_name, result) => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
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
    const { client, session } = await open(CAPS.sampling);
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
    const { server, sampling, client, session } = await open(CAPS.sampling, { server: { requestTimeoutMs: 30, samplingTimeoutMs: 110 } });
    fakeClock();
    server.requestSamplingCreateMessage(session, ASK);
    await client.nextMessage('sampling/createMessage');
    expectAtDeadline(110, () => sampling.all.length, { before: 0, at: 1 });
    expect((await sampling.next())[2]).toEqual({
      isError: true,
      errorCode: -32001,
      errorMessage: 'sampling/createMessage timed out after 110 ms without a reply; raise timeoutMs if a person has to answer it',
      errorData: { timeoutMs: 110 },
    });
    expect(await client.nextMessage('notifications/cancelled')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'timed out after 110 ms' },
    });
  });

  it('waits 10 minutes by default', async () => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
    fakeClock();
    server.requestSamplingCreateMessage(session, ASK);
    await client.nextMessage('sampling/createMessage');
    expectAtDeadline(600_000, () => sampling.all.length, { before: 0, at: 1 });
    expect(sampling.all[0][2]).toMatchObject({ isError: true, errorCode: -32001, errorData: { timeoutMs: 600_000 } });
  });

  it('rejects session.createMessage with RequestTimeoutError after a per-call timeoutMs', async () => {
    const { client, session } = await open(CAPS.sampling);
    const p = capture(session.createMessage(ASK, { timeoutMs: 60 }));
    await client.nextMessage('sampling/createMessage');
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'sampling/createMessage timed out after 60 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 60 },
    });
  });

  it('ends a pending request with -32000 when the socket drops', async () => {
    const { server, sampling, client, session } = await open(CAPS.sampling);
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

  it('sends exactly {jsonrpc, id, method: "roots/list", params: {}}, returns the id, and emits the roots', async () => {
    const { server, roots, client, session } = await open(CAPS.roots);
    const id = server.requestRootsList(session);
    expect(id).toBe(0);
    const sent = await client.nextMessage('roots/list');
    expect(sent).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} });
    client.respond(0, { roots: ROOTS });
    const [eventSession, request, response] = await roots.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(sent);
    expect(response).toStrictEqual(succeeded('roots', { roots: ROOTS }));
    await expectQuietAndAlive(client);
    expect(roots.all).toHaveLength(1);
  });

  it('accepts a session id, and an empty roots array', async () => {
    const { server, roots, client, session } = await open({ roots: {} });
    expect(server.requestRootsList(session.id)).toBe(0);
    await client.nextMessage('roots/list');
    client.respond(0, { roots: [] });
    expect((await roots.next())[2]).toStrictEqual(succeeded('roots', { roots: [] }));
  });

  it('session.listRoots resolves with {roots} and fires the event', async () => {
    const { roots, client, session } = await open(CAPS.roots);
    const p = capture(session.listRoots());
    await client.nextMessage('roots/list');
    client.respond(0, { roots: ROOTS });
    expect(await p.outcome).toEqual({ ok: true, value: { roots: ROOTS } });
    expect(roots.all).toHaveLength(1);
  });

  it('ctx.listRoots asks the client from inside a tool', async () => {
    const running = await h.start((server) =>
      server.registerTool('where', {}, async (_args, ctx) => {
        const { roots } = await ctx.listRoots();
        return roots.map((r) => r.uri).join(',');
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.roots });
    const call = callTool(client, 'where');
    expect(await client.nextMessage('roots/list')).toEqual({ jsonrpc: '2.0', id: 0, method: 'roots/list', params: {} });
    client.respond(0, { roots: ROOTS });
    expect(await call).toEqual({ jsonrpc: '2.0', id: 'call-where', result: { content: [{ type: 'text', text: 'file:///home/ada/project,file:///tmp' }] } });
  });

  const ROOTS_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare the roots capability; it cannot be asked for roots/list',
    data: { requiredCapabilities: { roots: {} } },
  };

  it.each([
    ['no roots capability', { sampling: {} }],
    ['roots: true', { roots: true }],
  ])('throws RootsNotSupportedError (-32021) for a client with %s and sends nothing', async (_name, capabilities) => {
    const { server, roots, client, session } = await open(capabilities);
    const error = thrownBy(() => server.requestRootsList(session));
    expectMcpError(error, RootsNotSupportedError, ROOTS_NOT_DECLARED);
    expect(error).toBeInstanceOf(ClientCapabilityError);
    expectMcpError(errorOf(await capture(session.listRoots()).outcome), RootsNotSupportedError, ROOTS_NOT_DECLARED);
    await expectQuietAndAlive(client);
    expect(roots.all).toHaveLength(0);
  });

  it('reports a client -32601 reply as isError', async () => {
    const { server, roots, client, session } = await open(CAPS.roots);
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
    const { server, roots, client, session } = await open(CAPS.roots);
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
    const { server, roots, client, session } = await open(CAPS.roots, { server: { requestTimeoutMs: 70, elicitationTimeoutMs: 5000 } });
    fakeClock();
    server.requestRootsList(session);
    await client.nextMessage('roots/list');
    expectAtDeadline(70, () => roots.all.length, { before: 0, at: 1 });
    expect((await roots.next())[2]).toEqual({
      isError: true,
      errorCode: -32001,
      errorMessage: 'roots/list timed out after 70 ms without a reply; raise timeoutMs if a person has to answer it',
      errorData: { timeoutMs: 70 },
    });
  });

  it('ends a pending request with -32000 when the server closes', async () => {
    const { server, roots, client, session } = await open(CAPS.roots);
    const p = capture(session.listRoots());
    await client.nextMessage('roots/list');
    await server.close();
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'roots/list could not complete: server closed',
      data: { reason: 'server closed' },
    });
    expect(roots.all).toHaveLength(1);
  });

  it('emits rootsListChanged with the session for notifications/roots/list_changed, and nothing else', async () => {
    const { server, client, session } = await open(CAPS.roots);
    const notifications: string[] = [];
    server.on('notification', (_s, method) => notifications.push(method));
    const changed = nextEvent<[McpSession]>(server, 'rootsListChanged');
    client.notify('notifications/roots/list_changed');
    const [eventSession] = await changed;
    expect(eventSession).toBe(session);
    await pingOk(client);
    expect(notifications).toEqual([]);
    await expectQuietAndAlive(client);
  });

  it('emits rootsListChanged for the session that sent it', async () => {
    const { running, server } = await open(CAPS.roots);
    const other = await h.open(running, { capabilities: CAPS.roots });
    const seen: McpSession[] = [];
    server.on('rootsListChanged', (s) => seen.push(s));
    other.client.notify('notifications/roots/list_changed');
    other.client.notify('notifications/roots/list_changed');
    await pingOk(other.client);
    expect(seen).toEqual([other.session, other.session]);
  });
});
