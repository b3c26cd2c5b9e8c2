/**
 * Form-mode elicitation over a real WebSocket: requestElicitationCreate and its one
 * responseElicitationCreate event, session.elicit and ctx.elicit with their typed errors, timeouts,
 * cancellation, closing, and validation of the accepted content.
 *
 * The client is McpClient, answering through onElicitation. The raw WebSocket peer stays where the wire
 * is the subject: the exact frame, replies McpClient never sends (late, duplicate, an unknown action,
 * content on decline or that is no object, numbers as spelled in the JSON text), a bare `elicitation: {}`
 * declaration, and a session before initialize.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  ClientCapabilityError,
  ConnectionClosedError,
  ElicitationNotSupportedError,
  ElicitationValidationError,
  McpError,
  NoBackChannelError,
  RequestCancelledError,
  RequestTimeoutError,
  UnexpectedElicitActionError,
  type ElicitationHandler,
  type ElicitParams,
  type ElicitRequestedSchema,
  type ElicitResult,
  type JsonRpcNotification,
} from '../../src/index.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';
import { CAPS, errorOf, expectMcpError, responseLog, thrownBy, succeeded } from '../helpers/client-requests.js';
import { type Ask, type ElicitationPeerOptions, elicitationPeer, useMcpClients, expectPeerQuietAndAlive } from '../helpers/mcp-clients.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { expectAtDeadline, useFakeClock } from '../helpers/fake-clock.js';
import { gate } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { WsTestClient } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);
const fakeClock = useFakeClock();

afterEach(() => {
  vi.restoreAllMocks();
});

const NAME_SCHEMA: ElicitRequestedSchema = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
const ASK_NAME: ElicitParams = { message: 'What is your name?', requestedSchema: NAME_SCHEMA };

const SENT_ASK_NAME = (id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'elicitation/create',
  params: { message: 'What is your name?', requestedSchema: NAME_SCHEMA },
});

const TIMEOUT = (ms: number) => ({
  isError: true,
  errorCode: -32001,
  errorMessage: `elicitation/create timed out after ${ms} ms without a reply; raise timeoutMs if a person has to answer it`,
  errorData: { timeoutMs: ms },
});

const CLOSED = (reason: string) => ({
  isError: true,
  errorCode: -32000,
  errorMessage: `elicitation/create could not complete: ${reason}`,
  errorData: { reason },
});

const CANCELLED = (requestId: number, reason: string): JsonRpcNotification => ({
  jsonrpc: '2.0',
  method: 'notifications/cancelled',
  params: { requestId, reason },
});

/** A handler that accepts with `content` as given (shapes the schema rejects too, with `validateElicitation: false`). */
function accepting(content: unknown): ElicitationHandler {
  return () => ({ action: 'accept', content }) as ElicitResult;
}

/** The request id the server gave an elicitation, and its params as sent. */
function sent(ask: Ask): { id: unknown; params: ElicitParams } {
  return { id: ask.ctx.requestId, params: ask.params };
}

async function formSession(serverOptions: Parameters<typeof startWebSocket>[2] = {}, peerOptions: ElicitationPeerOptions = {}) {
  const running = await startWebSocket(cleanups, undefined, serverOptions);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const peer = await elicitationPeer(clients, running, peerOptions);
  return { running, server: running.server, log, peer, session: peer.session };
}

/** formSession with the raw WebSocket peer: for the exact frame, and for replies McpClient never sends. */
async function rawFormSession(serverOptions: Parameters<typeof startWebSocket>[2] = {}) {
  const running = await startWebSocket(cleanups, undefined, serverOptions);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities: CAPS.form });
  return { running, server: running.server, log, client, session };
}

describe('requestElicitationCreate and the responseElicitationCreate event', () => {
  it('sends exactly {jsonrpc, id, method, params}, returns that id, and emits (session, request, response) on accept', async () => {
    const { server, log, client, session } = await rawFormSession();
    const id = server.requestElicitationCreate(session, ASK_NAME);
    expect(id).toBe(0);
    const sent = await client.nextMessage('elicitation/create');
    expect(sent).toEqual(SENT_ASK_NAME(0));
    client.respond(0, { action: 'accept', content: { name: 'Ada' } });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(sent);
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Ada' } }));
    await expectQuietAndAlive(client);
    expect(log.all).toHaveLength(1);
  });

  it('accepts the session id instead of the session and numbers its requests from 0 upwards', async () => {
    const { server, log, peer, session } = await formSession();
    expect(server.requestElicitationCreate(session.id, ASK_NAME)).toBe(0);
    expect(server.requestElicitationCreate(session.id, { ...ASK_NAME, message: 'Again?' })).toBe(1);
    const ask0 = await peer.asks.next();
    const ask1 = await peer.asks.next();
    expect(sent(ask0)).toEqual({ id: 0, params: ASK_NAME });
    expect(sent(ask1)).toEqual({ id: 1, params: { message: 'Again?', requestedSchema: NAME_SCHEMA } });
    // The client answers the second first.
    ask1.answer({ action: 'decline' });
    ask0.answer({ action: 'accept', content: { name: 'Bo' } });
    const first = await log.next();
    const second = await log.next();
    expect([first[1].id, first[2]]).toEqual([1, { isError: false, action: 'decline' }]);
    expect([second[1].id, second[2]]).toEqual([0, { isError: false, action: 'accept', content: { name: 'Bo' } }]);
    expect(first[0]).toBe(session);
    expect(second[0]).toBe(session);
  });

  it('sends an explicit mode "form" as given', async () => {
    const { server, log, peer, session } = await formSession();
    server.requestElicitationCreate(session, { mode: 'form', ...ASK_NAME });
    const ask = await peer.asks.next();
    expect(sent(ask)).toEqual({ id: 0, params: { mode: 'form', message: 'What is your name?', requestedSchema: NAME_SCHEMA } });
    ask.answer({ action: 'accept', content: { name: 'Cy' } });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Cy' } }));
  });

  it.each(['decline', 'cancel'] as const)('reports %s without content, even when the client sent some', async (action) => {
    const { server, log, client, session } = await rawFormSession();
    server.requestElicitationCreate(session, ASK_NAME);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action, content: { name: 42, extra: true } });
    const [, request, response] = await log.next();
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toStrictEqual(succeeded('elicitation', { action }));
    expect(server.stats.invalidResults).toBe(0);
  });

  it('reports a client -32601 error reply (a client without a handler) as isError with its code and message', async () => {
    // The client declares form mode but has no elicitation handler.
    const { server, log, peer, session } = await formSession({}, { capabilities: CAPS.form, answer: null });
    server.requestElicitationCreate(session, ASK_NAME);
    expect(sent(await peer.asks.next())).toEqual({ id: 0, params: ASK_NAME });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual({ isError: true, errorCode: -32601, errorMessage: 'Method not found: this client has no elicitation handler' });
    expect(response.errorData).toBeUndefined();
    expect(response.action).toBeUndefined();
  });

  it('reports a client -32602 error reply with its data', async () => {
    // The client checks the answer against requestedSchema before sending it, and sends -32602 with the violations instead.
    const { server, log, peer, session } = await formSession({}, { answer: accepting({ name: 7 }) });
    server.requestElicitationCreate(session, ASK_NAME);
    const violations = [{ property: 'name', rule: 'type', message: 'must be string' }];
    expect((await log.next())[2]).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: 'The elicitation answer does not match requestedSchema: name must be string',
      errorData: { violations },
    });
    // The client's error reply, not the server's own validation of an answer.
    expect(server.stats.invalidResults).toBe(0);
    expect(peer.errors).toHaveLength(1);
    expect((peer.errors[0] as ElicitationValidationError).violations).toEqual(violations);
  });

  it('times out with -32001 and sends the client notifications/cancelled for the elicitation', async () => {
    const { server, log, peer, session } = await formSession();
    server.requestElicitationCreate(session, ASK_NAME, { timeoutMs: 100 });
    expect(sent(await peer.asks.next())).toEqual({ id: 0, params: ASK_NAME });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual(TIMEOUT(100));
    expect(await peer.notifications.next()).toEqual(CANCELLED(0, 'timed out after 100 ms'));
    await expectPeerQuietAndAlive(peer, { asked: [ASK_NAME], notifications: [CANCELLED(0, 'timed out after 100 ms')] });
    expect(session.pendingRequests).toBe(0);
  });

  it('reports cancellation through the signal as -32800 and tells the client with notifications/cancelled', async () => {
    const { server, log, peer, session } = await formSession();
    const controller = new AbortController();
    server.requestElicitationCreate(session, ASK_NAME, { signal: controller.signal });
    await peer.asks.next();
    controller.abort('the user left');
    const [, request, response] = await log.next();
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual({
      isError: true,
      errorCode: -32800,
      errorMessage: 'elicitation/create was cancelled: the user left',
      errorData: { reason: 'the user left' },
    });
    expect(await peer.notifications.next()).toEqual(CANCELLED(0, 'the user left'));
    await expectPeerQuietAndAlive(peer, { asked: [ASK_NAME], notifications: [CANCELLED(0, 'the user left')] });
  });

  it('ends a request whose signal was already aborted with one -32800 event and sends nothing', async () => {
    const { server, log, peer, session } = await formSession();
    const id = server.requestElicitationCreate(session, ASK_NAME, { signal: AbortSignal.abort('too late') });
    expect(id).toBe(0);
    const [, request, response] = await log.next();
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual({
      isError: true,
      errorCode: -32800,
      errorMessage: 'elicitation/create was cancelled: too late',
      errorData: { reason: 'too late' },
    });
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(1);
  });

  it('ends a pending elicitation with -32000 when the session is closed', async () => {
    const { server, log, peer, session } = await formSession();
    const closed = new Promise<string>((resolve) => peer.client.once('close', resolve));
    server.requestElicitationCreate(session, ASK_NAME);
    await peer.asks.next();
    session.close();
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual(CLOSED('closed by the server'));
    await closed;
    expect(log.all).toHaveLength(1);
  });

  it('ends a pending elicitation with -32000 when the client drops the socket', async () => {
    const { server, log, peer, session } = await formSession();
    server.requestElicitationCreate(session, ASK_NAME);
    await peer.asks.next();
    await peer.client.close();
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(SENT_ASK_NAME(0));
    expect(response).toEqual(CLOSED('websocket closed (1000: client closed)'));
  });

  it('ends every pending elicitation of every session with -32000 when the server closes', async () => {
    const { running, server, log, peer, session } = await formSession();
    const other = await elicitationPeer(clients, running);
    server.requestElicitationCreate(session, ASK_NAME);
    server.requestElicitationCreate(session, ASK_NAME);
    server.requestElicitationCreate(other.session, ASK_NAME);
    await peer.asks.next();
    await peer.asks.next();
    await other.asks.next();
    await server.close();
    expect(log.all).toHaveLength(3);
    expect(log.all.map(([s, request, response]) => [s === session ? 'a' : s === other.session ? 'b' : '?', request.id, response])).toEqual(
      expect.arrayContaining([
        ['a', 0, CLOSED('server closed')],
        ['a', 1, CLOSED('server closed')],
        ['b', 0, CLOSED('server closed')],
      ]),
    );
  });

  it('ends each of several concurrent requests in exactly one event, whatever arrives afterwards', async () => {
    const { server, log, client, session } = await rawFormSession();
    const controller = new AbortController();
    const accepted = server.requestElicitationCreate(session, ASK_NAME);
    const timedOut = server.requestElicitationCreate(session, ASK_NAME, { timeoutMs: 50 });
    const cancelled = server.requestElicitationCreate(session, ASK_NAME, { signal: controller.signal });
    const failed = server.requestElicitationCreate(session, ASK_NAME);
    for (let i = 0; i < 4; i++) await client.nextMessage('elicitation/create');
    const timeoutEvent = await log.next();
    expect([timeoutEvent[1].id, timeoutEvent[2]]).toEqual([timedOut, TIMEOUT(50)]);
    controller.abort();
    client.respond(accepted, { action: 'accept', content: { name: 'Ada' } });
    client.respondError(failed, -32603, 'boom');
    // Replies to requests that have already ended: none of them may produce a second event.
    client.respond(timedOut, { action: 'accept', content: { name: 'late' } });
    client.respond(cancelled, { action: 'accept', content: { name: 'late' } });
    client.respond(accepted, { action: 'decline' });
    client.respondError(failed, -32603, 'boom again');
    await expectQuietAndAlive(await dropCancellations(client));
    const byId = new Map(log.all.map(([, request, response]) => [request.id, response]));
    expect(log.all).toHaveLength(4);
    expect(byId.get(accepted)).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Ada' } }));
    expect(byId.get(timedOut)).toEqual(TIMEOUT(50));
    expect(byId.get(cancelled)).toEqual({
      isError: true,
      errorCode: -32800,
      errorMessage: 'elicitation/create was cancelled: This operation was aborted',
      errorData: { reason: 'This operation was aborted' },
    });
    expect(byId.get(failed)).toEqual({ isError: true, errorCode: -32603, errorMessage: 'boom' });
    expect(server.stats).toMatchObject({ lateResponses: 2, duplicateResponses: 2, unknownResponses: 0 });
  });
});

/** Consume the notifications/cancelled the server sent so far (for timeouts and cancellations). */
async function dropCancellations(client: WsTestClient): Promise<WsTestClient> {
  await pingOk(client);
  for (const m of client.messages('notifications/cancelled')) client.received.splice(client.received.indexOf(m), 1);
  return client;
}

describe('programmer errors throw synchronously and send nothing', () => {
  const badSchemas: [string, unknown, RegExp][] = [
    [
      'a nested object',
      { type: 'object', properties: { address: { type: 'object', properties: {} } } },
      /^requestedSchema\.properties\.address: type must be one of/,
    ],
    [
      'an unknown keyword',
      { type: 'object', properties: { code: { type: 'string', const: 'x' } } },
      /^requestedSchema\.properties\.code: 'const' is not allowed/,
    ],
    ['a bad format', { type: 'object', properties: { ip: { type: 'string', format: 'ipv4' } } }, /^requestedSchema\.properties\.ip: format must be one of/],
    [
      'a default contradicting its type',
      { type: 'object', properties: { age: { type: 'integer', default: 'ten' } } },
      /^requestedSchema\.properties\.age: default "ten" does not fit/,
    ],
    [
      'a default outside its enum',
      { type: 'object', properties: { size: { type: 'string', enum: ['s'], default: 'm' } } },
      /^requestedSchema\.properties\.size: default "m" does not fit/,
    ],
    [
      'enumNames of another length',
      { type: 'object', properties: { plan: { type: 'string', enum: ['a', 'b'], enumNames: ['A'] } } },
      /^requestedSchema\.properties\.plan: enumNames needs/,
    ],
    ['required naming a missing property', { type: 'object', properties: { a: { type: 'string' } }, required: ['b'] }, /^requestedSchema\.required: names 'b'/],
    ['a missing requestedSchema', undefined, /^requestedSchema: must be an object/],
  ];

  it.each(badSchemas)('throws a TypeError naming the property for %s', async (_name, requestedSchema, message) => {
    const { server, log, peer, session } = await formSession();
    const error = thrownBy(() => server.requestElicitationCreate(session, { message: 'Hi', requestedSchema } as unknown as ElicitParams));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(message);
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
    expect(session.pendingRequests).toBe(0);
  });

  it('throws a TypeError for a missing message and for an unknown mode', async () => {
    const { server, log, peer, session } = await formSession();
    const noMessage = thrownBy(() => server.requestElicitationCreate(session, { requestedSchema: NAME_SCHEMA } as unknown as ElicitParams));
    expect(noMessage).toBeInstanceOf(TypeError);
    expect((noMessage as Error).message).toBe('elicitation/create needs params.message, the text shown to the user');
    const badMode = thrownBy(() => server.requestElicitationCreate(session, { ...ASK_NAME, mode: 'voice' } as unknown as ElicitParams));
    expect(badMode).toBeInstanceOf(TypeError);
    expect((badMode as Error).message).toBe('elicitation mode must be "form" or "url"; got "voice"');
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
  });

  it('throws ElicitationNotSupportedError (-32021) for a client that declared no elicitation capability', async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const peer = await elicitationPeer(clients, running, { capabilities: CAPS.sampling });
    const error = thrownBy(() => running.server.requestElicitationCreate(peer.session, ASK_NAME));
    expectMcpError(error, ElicitationNotSupportedError, {
      code: -32021,
      message: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(error).toBeInstanceOf(ClientCapabilityError);
    expect((error as ElicitationNotSupportedError).mode).toBe('form');
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
  });

  it('treats elicitation: {} as form mode: form is sent', async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client, session } = await h.open(running, { capabilities: CAPS.legacyElicitation });
    expect(running.server.requestElicitationCreate(session, ASK_NAME)).toBe(0);
    expect(await client.nextMessage('elicitation/create')).toEqual(SENT_ASK_NAME(0));
    client.respond(0, { action: 'accept', content: { name: 'Ada' } });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Ada' } }));
  });

  it('throws ElicitationNotSupportedError for form mode when the client declared only url', async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running, { capabilities: CAPS.url });
    const error = thrownBy(() => running.server.requestElicitationCreate(peer.session, ASK_NAME));
    expectMcpError(error, ElicitationNotSupportedError, {
      code: -32021,
      message: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    await expectPeerQuietAndAlive(peer);
  });

  it('throws for an unknown session id', async () => {
    const { server, peer } = await formSession();
    expect(() => server.requestElicitationCreate('no-such-session', ASK_NAME)).toThrow(
      'No session with id no-such-session; it may have ended (see the sessionEnd event)',
    );
    await expectPeerQuietAndAlive(peer);
  });

  it('throws for the id of a session that has ended', async () => {
    const { server, log, peer, session } = await formSession();
    const id = session.id;
    await peer.client.close();
    await vi.waitFor(() => expect(server.sessions.has(id)).toBe(false));
    expect(() => server.requestElicitationCreate(id, ASK_NAME)).toThrow(`No session with id ${id}`);
    expect(log.all).toHaveLength(0);
  });

  it('throws ConnectionClosedError (-32000) for an ended session object, as session.elicit and session.request reject', async () => {
    const { server, log, session } = await formSession();
    session.close();
    const error = thrownBy(() => server.requestElicitationCreate(session, ASK_NAME));
    expectMcpError(error, ConnectionClosedError, {
      code: -32000,
      message: 'elicitation/create could not complete: closed by the server',
      data: { reason: 'closed by the server' },
    });
    expect(log.all).toHaveLength(0);
  });
});

describe('session.elicit', () => {
  it('resolves with {action, content} on accept and also emits responseElicitationCreate', async () => {
    const { log, peer, session } = await formSession();
    const p = capture(session.elicit(ASK_NAME));
    const ask = await peer.asks.next();
    expect(sent(ask)).toEqual({ id: 0, params: ASK_NAME });
    ask.answer({ action: 'accept', content: { name: 'Ada' } });
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'Ada' } } });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][0]).toBe(session);
    expect(log.all[0][1]).toEqual(SENT_ASK_NAME(0));
    expect(log.all[0][2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Ada' } }));
  });

  it.each(['decline', 'cancel'] as const)('resolves with exactly {action: %s}', async (action) => {
    const { session } = await formSession({}, { answer: () => ({ action }) });
    const p = capture(session.elicit(ASK_NAME));
    const outcome = await p.outcome;
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.value).toStrictEqual({ action });
  });

  it('rejects with ElicitationNotSupportedError when the client declared no elicitation', async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const peer = await elicitationPeer(clients, running, { answer: null });
    const error = errorOf(await capture(peer.session.elicit(ASK_NAME)).outcome);
    expect(error).toBeInstanceOf(ElicitationNotSupportedError);
    expect((error as McpError).code).toBe(-32021);
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
  });

  it('rejects with NoBackChannelError (-32010) on a session that has not completed initialize, as requestElicitationCreate and session.request do', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const expected = {
      code: -32010,
      message: 'Cannot send elicitation/create: the session has not completed initialize; send requests from the sessionNew event on',
    };
    expectMcpError(errorOf(await capture(session.elicit(ASK_NAME)).outcome), NoBackChannelError, expected);
    expectMcpError(
      thrownBy(() => running.server.requestElicitationCreate(session, ASK_NAME)),
      NoBackChannelError,
      expected,
    );
    expectMcpError(errorOf(await capture(session.request('elicitation/create', { ...ASK_NAME })).outcome), NoBackChannelError, expected);
    expect(client.received).toEqual([]);
  });

  it('rejects with ConnectionClosedError on a session that has ended', async () => {
    const { session } = await formSession();
    session.close('bye');
    const error = errorOf(await capture(session.elicit(ASK_NAME)).outcome);
    expectMcpError(error, ConnectionClosedError, { code: -32000, message: 'elicitation/create could not complete: bye', data: { reason: 'bye' } });
  });

  it('rejects with RequestTimeoutError after timeoutMs', async () => {
    const { peer, session } = await formSession();
    const p = capture(session.elicit(ASK_NAME, { timeoutMs: 80 }));
    await peer.asks.next();
    expectMcpError(errorOf(await p.outcome), RequestTimeoutError, {
      code: -32001,
      message: 'elicitation/create timed out after 80 ms without a reply; raise timeoutMs if a person has to answer it',
      data: { timeoutMs: 80 },
    });
  });

  it('rejects with RequestCancelledError when its signal aborts', async () => {
    const { log, peer, session } = await formSession();
    const controller = new AbortController();
    const p = capture(session.elicit(ASK_NAME, { signal: controller.signal }));
    await peer.asks.next();
    controller.abort(new Error('no longer needed'));
    expectMcpError(errorOf(await p.outcome), RequestCancelledError, {
      code: -32800,
      message: 'elicitation/create was cancelled: no longer needed',
      data: { reason: 'no longer needed' },
    });
    expect(await peer.notifications.next()).toEqual(CANCELLED(0, 'no longer needed'));
    expect(log.all.map((args) => args[2].errorCode)).toEqual([-32800]);
  });

  it('rejects with ConnectionClosedError when the socket drops', async () => {
    const { peer, session } = await formSession();
    const p = capture(session.elicit(ASK_NAME));
    await peer.asks.next();
    await peer.client.close();
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'elicitation/create could not complete: websocket closed (1000: client closed)',
      data: { reason: 'websocket closed (1000: client closed)' },
    });
  });

  it('rejects with ConnectionClosedError when the server closes', async () => {
    const { server, peer, session } = await formSession();
    const p = capture(session.elicit(ASK_NAME));
    await peer.asks.next();
    await server.close();
    expectMcpError(errorOf(await p.outcome), ConnectionClosedError, {
      code: -32000,
      message: 'elicitation/create could not complete: server closed',
      data: { reason: 'server closed' },
    });
  });

  it('rejects with ElicitationValidationError carrying the violations when the content does not fit', async () => {
    // The client sends what the handler returned without checking it, so the server's own validation answers.
    const { session } = await formSession({}, { validateElicitation: false, answer: accepting({ name: 7 }) });
    const p = capture(session.elicit(ASK_NAME));
    const error = errorOf(await p.outcome);
    expectMcpError(error, ElicitationValidationError, {
      code: -32602,
      message: 'The elicitation answer does not match requestedSchema: name must be string',
      data: { violations: [{ property: 'name', rule: 'type', message: 'must be string' }] },
    });
    expect((error as ElicitationValidationError).violations).toEqual([{ property: 'name', rule: 'type', message: 'must be string' }]);
  });

  it('rejects with UnexpectedElicitActionError for an action outside accept, decline and cancel', async () => {
    const { client, session } = await rawFormSession();
    const p = capture(session.elicit(ASK_NAME));
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'maybe' });
    const error = errorOf(await p.outcome);
    expectMcpError(error, UnexpectedElicitActionError, {
      code: -32602,
      message: 'The client answered elicitation/create with action "maybe"; expected accept, decline or cancel',
      data: { action: 'maybe' },
    });
    expect((error as UnexpectedElicitActionError).action).toBe('maybe');
  });

  it("rejects with a plain McpError carrying the client's error reply", async () => {
    // The client declares form mode but has no elicitation handler: it answers -32601.
    const { peer, session } = await formSession({}, { capabilities: CAPS.form, answer: null });
    const p = capture(session.elicit(ASK_NAME));
    await peer.asks.next();
    const error = errorOf(await p.outcome);
    expectMcpError(error, McpError, { code: -32601, message: 'Method not found: this client has no elicitation handler' });
    for (const cls of [RequestTimeoutError, RequestCancelledError, ConnectionClosedError, ElicitationValidationError, UnexpectedElicitActionError]) {
      expect(error).not.toBeInstanceOf(cls);
    }
  });
});

describe('ctx.elicit inside a tool handler', () => {
  it('asks the client during the call, resolves with its answer and emits responseElicitationCreate', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('greet', {}, async (_args, ctx) => {
        const answer = await ctx.elicit(ASK_NAME);
        return answer.action === 'accept' ? `Hello, ${String(answer.content?.name)}!` : `No name (${answer.action})`;
      }),
    );
    const log = responseLog(running.server, 'responseElicitationCreate');
    const peer = await elicitationPeer(clients, running);
    const call = peer.client.callTool('greet');
    const ask = await peer.asks.next();
    expect(sent(ask)).toEqual({ id: 0, params: ASK_NAME });
    ask.answer({ action: 'accept', content: { name: 'Ada' } });
    expect(await call).toEqual({ content: [{ type: 'text', text: 'Hello, Ada!' }] });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][0]).toBe(peer.session);
    expect(log.all[0][2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'Ada' } }));
    await expectPeerQuietAndAlive(peer, { asked: [ASK_NAME] });
  });

  it('is cancelled when the client cancels the tool call: the client gets notifications/cancelled for the elicitation id', async () => {
    const finished = gate();
    let caught: unknown;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx) => {
        try {
          await ctx.elicit(ASK_NAME);
        } catch (err) {
          caught = err;
        }
        finished.open();
        return 'done';
      }),
    );
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client } = await h.open(running, { capabilities: CAPS.form });
    client.sendRaw({ jsonrpc: '2.0', id: 'call-1', method: 'tools/call', params: { name: 'ask', arguments: {} } });
    expect(await client.nextMessage('elicitation/create')).toEqual(SENT_ASK_NAME(0));
    client.notify('notifications/cancelled', { requestId: 'call-1', reason: 'changed my mind' });
    expect(await client.nextMessage('notifications/cancelled')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'cancelled by the client: changed my mind' },
    });
    await finished.opened;
    expectMcpError(caught, RequestCancelledError, {
      code: -32800,
      message: 'elicitation/create was cancelled: cancelled by the client: changed my mind',
      data: { reason: 'cancelled by the client: changed my mind' },
    });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][2]).toEqual({
      isError: true,
      errorCode: -32800,
      errorMessage: 'elicitation/create was cancelled: cancelled by the client: changed my mind',
      errorData: { reason: 'cancelled by the client: changed my mind' },
    });
    // A cancelled tools/call gets no response, and a late answer to the elicitation changes nothing.
    client.respond(0, { action: 'accept', content: { name: 'late' } });
    await expectQuietAndAlive(client);
    expect(log.all).toHaveLength(1);
    expect(running.server.stats.lateResponses).toBe(1);
  });

  it('rejects with the same typed errors, e.g. ElicitationNotSupportedError, which the tool can report', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx) => {
        const answer: ElicitResult = await ctx.elicit(ASK_NAME);
        return answer.action;
      }),
    );
    const peer = await elicitationPeer(clients, running, { answer: null });
    expect(await peer.client.callTool('ask')).toEqual({
      content: [
        {
          type: 'text',
          text: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
        },
      ],
      isError: true,
    });
    await expectPeerQuietAndAlive(peer);
  });
});

describe('timeouts', () => {
  it('waits 10 minutes by default (elicitationTimeoutMs), then times out and cancels on the client', async () => {
    const { server, log, peer, session } = await formSession();
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME);
    await peer.asks.next();
    expectAtDeadline(600_000, () => log.all.length, { before: 0, at: 1 });
    expect(log.all[0][2]).toEqual(TIMEOUT(600_000));
    expect(await peer.notifications.next()).toEqual(CANCELLED(0, 'timed out after 600000 ms'));
  });

  it('uses the elicitationTimeoutMs option rather than requestTimeoutMs', async () => {
    const { server, log, peer, session } = await formSession({ server: { requestTimeoutMs: 30, elicitationTimeoutMs: 120 } });
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME);
    await peer.asks.next();
    expectAtDeadline(120, () => log.all.length, { before: 0, at: 1 });
    expect(log.all[0][2]).toEqual(TIMEOUT(120));
  });

  it('lets a per-call timeoutMs override the default', async () => {
    const { server, log, peer, session } = await formSession({ server: { elicitationTimeoutMs: 60_000 } });
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME, { timeoutMs: 70 });
    await peer.asks.next();
    expectAtDeadline(70, () => log.all.length, { before: 0, at: 1 });
    expect(log.all[0][2]).toEqual(TIMEOUT(70));
  });

  it('caps a per-call timeoutMs at maxRequestTimeoutMs', async () => {
    const { server, log, peer, session } = await formSession({ server: { maxRequestTimeoutMs: 90 } });
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME, { timeoutMs: 3_000_000 });
    await peer.asks.next();
    expectAtDeadline(90, () => log.all.length, { before: 0, at: 1 });
    expect(log.all[0][2]).toEqual(TIMEOUT(90));
  });

  it('caps the default elicitation timeout at maxRequestTimeoutMs', async () => {
    const { server, log, peer, session } = await formSession({ server: { maxRequestTimeoutMs: 60 } });
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME);
    await peer.asks.next();
    expectAtDeadline(60, () => log.all.length, { before: 0, at: 1 });
    expect(log.all[0][2]).toEqual(TIMEOUT(60));
  });

  it('does not time out an elicitation answered in time', async () => {
    const { server, log, peer, session } = await formSession();
    fakeClock();
    server.requestElicitationCreate(session, ASK_NAME, { timeoutMs: 1000 });
    const ask = await peer.asks.next();
    vi.advanceTimersByTime(999);
    ask.answer({ action: 'decline' });
    const [, , response] = await log.next();
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'decline' }));
    vi.advanceTimersByTime(10_000);
    await expectPeerQuietAndAlive(peer, { asked: [ASK_NAME] });
    expect(log.all).toHaveLength(1);
  });
});

describe('validation of accepted content', () => {
  const FORM: ElicitRequestedSchema = {
    type: 'object',
    properties: {
      name: { type: 'string', minLength: 2, maxLength: 10, pattern: '^[A-Za-z]+$' },
      email: { type: 'string', format: 'email' },
      site: { type: 'string', format: 'uri' },
      birthday: { type: 'string', format: 'date' },
      meeting: { type: 'string', format: 'date-time' },
      age: { type: 'integer', minimum: 18, maximum: 130 },
      score: { type: 'number', minimum: 0, maximum: 1 },
      subscribe: { type: 'boolean' },
      size: { type: 'string', enum: ['s', 'm', 'l'] },
      color: {
        type: 'string',
        oneOf: [
          { const: 'red', title: 'Red' },
          { const: 'green', title: 'Green' },
        ],
      },
      plan: { type: 'string', enum: ['free', 'pro'], enumNames: ['Free', 'Pro'] },
      tags: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', enum: ['a', 'b', 'c'] } },
      toppings: {
        type: 'array',
        items: {
          anyOf: [
            { const: 'ham', title: 'Ham' },
            { const: 'egg', title: 'Egg' },
          ],
        },
      },
    },
    required: ['name', 'email'],
  };
  const VALID = {
    name: 'Ada',
    email: 'ada@example.com',
    site: 'https://example.com/a?b=c',
    birthday: '1815-12-10',
    meeting: '2025-11-25T10:00:00Z',
    age: 36,
    score: 0.5,
    subscribe: true,
    size: 'm',
    color: 'green',
    plan: 'pro',
    tags: ['a', 'c'],
    toppings: ['egg', 'ham'],
  };
  const ASK = { message: 'Tell me about you', requestedSchema: FORM };

  it('accepts content that fits every kind of property and reports it unchanged', async () => {
    const { server, log, peer, session } = await formSession({}, { answer: accepting(VALID) });
    server.requestElicitationCreate(session, ASK);
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: VALID }));
    expect(sent(peer.asks.all[0])).toEqual({ id: 0, params: ASK });
    expect(server.stats.invalidResults).toBe(0);
  });

  it('accepts content with only the required properties', async () => {
    const { session } = await formSession({}, { answer: accepting({ name: 'Bo', email: 'bo@example.org' }) });
    const p = capture(session.elicit(ASK));
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'Bo', email: 'bo@example.org' } } });
  });

  const BASE = { name: 'Ada', email: 'ada@example.com' };
  const invalid: [string, Record<string, unknown>, { property: string; rule: string; message: string }[]][] = [
    ['a missing required property', { name: 'Ada' }, [{ property: 'email', rule: 'required', message: "must have required property 'email'" }]],
    [
      'no content at all for a form with required properties',
      {},
      [
        { property: 'name', rule: 'required', message: "must have required property 'name'" },
        { property: 'email', rule: 'required', message: "must have required property 'email'" },
      ],
    ],
    ['a bad email', { ...BASE, email: 'ada-at-example' }, [{ property: 'email', rule: 'format', message: 'must match format "email"' }]],
    ['a bad uri', { ...BASE, site: 'not a uri' }, [{ property: 'site', rule: 'format', message: 'must match format "uri"' }]],
    ['a bad date', { ...BASE, birthday: '2025-13-01' }, [{ property: 'birthday', rule: 'format', message: 'must match format "date"' }]],
    [
      'a date where a date-time is asked',
      { ...BASE, meeting: '2025-11-25' },
      [{ property: 'meeting', rule: 'format', message: 'must match format "date-time"' }],
    ],
    ['an integer below minimum', { ...BASE, age: 17 }, [{ property: 'age', rule: 'minimum', message: 'must be >= 18' }]],
    ['an integer above maximum', { ...BASE, age: 131 }, [{ property: 'age', rule: 'maximum', message: 'must be <= 130' }]],
    ['a fraction for an integer', { ...BASE, age: 30.5 }, [{ property: 'age', rule: 'type', message: 'must be integer' }]],
    ['a number above maximum', { ...BASE, score: 1.5 }, [{ property: 'score', rule: 'maximum', message: 'must be <= 1' }]],
    ['a string for a number', { ...BASE, score: '0.5' }, [{ property: 'score', rule: 'type', message: 'must be number' }]],
    ['a string below minLength', { ...BASE, name: 'A' }, [{ property: 'name', rule: 'minLength', message: 'must NOT have fewer than 2 characters' }]],
    ['a string above maxLength', { ...BASE, name: 'Abcdefghijk' }, [{ property: 'name', rule: 'maxLength', message: 'must NOT have more than 10 characters' }]],
    ['a string not matching the pattern', { ...BASE, name: 'Ada1' }, [{ property: 'name', rule: 'pattern', message: 'must match pattern "^[A-Za-z]+$"' }]],
    ['a string for a boolean', { ...BASE, subscribe: 'yes' }, [{ property: 'subscribe', rule: 'type', message: 'must be boolean' }]],
    ['a value outside an enum', { ...BASE, size: 'xl' }, [{ property: 'size', rule: 'enum', message: 'must be equal to one of the allowed values' }]],
    [
      'a value outside a legacy titled enum',
      { ...BASE, plan: 'enterprise' },
      [{ property: 'plan', rule: 'enum', message: 'must be equal to one of the allowed values' }],
    ],
    [
      'a value outside a oneOf',
      { ...BASE, color: 'blue' },
      [
        { property: 'color', rule: 'const', message: 'must be equal to constant' },
        { property: 'color', rule: 'const', message: 'must be equal to constant' },
        { property: 'color', rule: 'oneOf', message: 'must match exactly one schema in oneOf' },
      ],
    ],
    ['a multi-select below minItems', { ...BASE, tags: [] }, [{ property: 'tags', rule: 'minItems', message: 'must NOT have fewer than 1 items' }]],
    ['a multi-select above maxItems', { ...BASE, tags: ['a', 'b', 'c'] }, [{ property: 'tags', rule: 'maxItems', message: 'must NOT have more than 2 items' }]],
    [
      'a multi-select value outside the enum',
      { ...BASE, tags: ['a', 'z'] },
      [{ property: 'tags', rule: 'enum', message: 'must be equal to one of the allowed values' }],
    ],
    [
      'a titled multi-select value outside the options',
      { ...BASE, toppings: ['bacon'] },
      [
        { property: 'toppings', rule: 'const', message: 'must be equal to constant' },
        { property: 'toppings', rule: 'const', message: 'must be equal to constant' },
        { property: 'toppings', rule: 'anyOf', message: 'must match a schema in anyOf' },
      ],
    ],
    ['a string for a multi-select', { ...BASE, tags: 'a' }, [{ property: 'tags', rule: 'type', message: 'must be array' }]],
    [
      'several problems at once',
      { name: 'Ada', age: 17, size: 'xl' },
      [
        { property: 'email', rule: 'required', message: "must have required property 'email'" },
        { property: 'age', rule: 'minimum', message: 'must be >= 18' },
        { property: 'size', rule: 'enum', message: 'must be equal to one of the allowed values' },
      ],
    ],
  ];

  it.each(invalid)('reports %s as isError -32602 with the violations, and counts it', async (_name, content, violations) => {
    // The client sends the content without checking it: the server's own validation is under test.
    const { server, log, peer, session } = await formSession({}, { validateElicitation: false, answer: accepting(content) });
    server.requestElicitationCreate(session, ASK);
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request.id).toBe(0);
    expect(response).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: expect.stringMatching(/^The elicitation answer does not match requestedSchema: /),
      errorData: { violations },
    });
    expect(response.content).toBeUndefined();
    expect(server.stats.invalidResults).toBe(1);
    await expectPeerQuietAndAlive(peer, { asked: [ASK] });
  });

  it('names every violation in the error message', async () => {
    const { server, log, session } = await formSession({}, { validateElicitation: false, answer: accepting({ name: 'Ada', age: 17 }) });
    server.requestElicitationCreate(session, ASK);
    expect((await log.next())[2].errorMessage).toBe(
      "The elicitation answer does not match requestedSchema: email must have required property 'email'; age must be >= 18",
    );
  });

  it('names a property whose name holds a slash or a tilde as it is spelled, not as a JSON pointer', async () => {
    const { session } = await formSession({}, { validateElicitation: false, answer: accepting({ 'c~d': 'x' }) });
    const schema: ElicitRequestedSchema = { type: 'object', properties: { 'a/b': { type: 'string' }, 'c~d': { type: 'integer' } }, required: ['a/b'] };
    const p = capture(session.elicit({ message: 'Odd names', requestedSchema: schema }));
    const error = errorOf(await p.outcome) as ElicitationValidationError;
    expect(error).toBeInstanceOf(ElicitationValidationError);
    expect(error.violations).toEqual([
      { property: 'a/b', rule: 'required', message: "must have required property 'a/b'" },
      { property: 'c~d', rule: 'type', message: 'must be integer' },
    ]);
  });

  it.each([
    ['30', 30],
    ['30.0', 30],
    ['1e2', 100],
    ['100.00', 100],
  ])('accepts the integer written as %s in the raw JSON text', async (text, value) => {
    const { client, session } = await rawFormSession();
    const p = capture(session.elicit({ message: 'Age?', requestedSchema: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] } }));
    await client.nextMessage('elicitation/create');
    client.sendRaw(`{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"age":${text}}}}`);
    const outcome = await p.outcome;
    expect(outcome).toEqual({ ok: true, value: { action: 'accept', content: { age: value } } });
  });

  it('rejects 30.5 written in the raw JSON text for an integer', async () => {
    const { client, session } = await rawFormSession();
    const p = capture(session.elicit({ message: 'Age?', requestedSchema: { type: 'object', properties: { age: { type: 'integer' } } } }));
    await client.nextMessage('elicitation/create');
    client.sendRaw('{"jsonrpc":"2.0","id":0,"result":{"action":"accept","content":{"age":30.5}}}');
    const error = errorOf(await p.outcome);
    expect(error).toBeInstanceOf(ElicitationValidationError);
    expect((error as ElicitationValidationError).violations).toEqual([{ property: 'age', rule: 'type', message: 'must be integer' }]);
  });

  it.each(['decline', 'cancel'] as const)('ignores content that would not validate on %s', async (action) => {
    const { server, log, client, session } = await rawFormSession();
    server.requestElicitationCreate(session, ASK);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action, content: { age: 'old', tags: 'x' } });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action }));
    expect(server.stats.invalidResults).toBe(0);
  });

  it.each([
    ['a string', 'Ada'],
    ['an array', [{ name: 'Ada' }]],
    ['a number', 5],
    ['true', true],
    ['null', null],
  ])('reports accept with content that is %s as isError -32602', async (_name, content) => {
    const { server, log, client, session } = await rawFormSession();
    server.requestElicitationCreate(session, { message: 'Anything?', requestedSchema: { type: 'object', properties: { note: { type: 'string' } } } });
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content });
    expect((await log.next())[2]).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: 'The client accepted elicitation/create with content that is not an object',
      errorData: { result: { action: 'accept', content } },
    });
    expect(server.stats.invalidResults).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('passes content through unchecked when validateElicitation is false', async () => {
    const content = { name: 1, email: 'nope', tags: ['z', 'y', 'x'], extra: 'kept' };
    const { server, log, session } = await formSession({ server: { validateElicitation: false } }, { validateElicitation: false, answer: accepting(content) });
    server.requestElicitationCreate(session, ASK);
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content }));
    expect(server.stats.invalidResults).toBe(0);
  });

  it('checks a schema object again after the caller changed it: a change that leaves the subset is refused', async () => {
    const { server, peer, session } = await formSession();
    const schema = structuredClone(FORM);
    server.requestElicitationCreate(session, { message: 'One', requestedSchema: schema });
    await peer.asks.next();
    (schema.properties as Record<string, object>).name = { type: 'object' };
    expect(() => server.requestElicitationCreate(session, { message: 'Two', requestedSchema: schema })).toThrow(
      new TypeError(
        'requestedSchema.properties.name: type must be one of string, number, integer, boolean, array (got "object"). Elicitation forms take a flat object of string, number, integer, boolean and enum properties',
      ),
    );
  });

  it('compiles a requestedSchema once: an equal but distinct schema object reuses the compiled validator', async () => {
    const ajvCompile = vi.spyOn(Ajv2020.prototype, 'compile');
    // The client does not validate (nor compile) the answers: only the server's compiler is counted.
    const { peer, session } = await formSession({}, { validateElicitation: false });
    const compile = vi.spyOn(SchemaCompiler.prototype, 'compile');
    const first = capture(session.elicit({ message: 'One', requestedSchema: structuredClone(FORM) }));
    (await peer.asks.next()).answer({ action: 'accept', content: VALID });
    expect(await first.outcome).toEqual({ ok: true, value: { action: 'accept', content: VALID } });
    expect(ajvCompile).toHaveBeenCalledTimes(1);

    const second = capture(session.elicit({ message: 'Two', requestedSchema: structuredClone(FORM) }));
    (await peer.asks.next()).answer({ action: 'accept', content: { name: 'Ada' } });
    // The cached validator still validates.
    const error = errorOf(await second.outcome);
    expect((error as ElicitationValidationError).violations).toEqual([{ property: 'email', rule: 'required', message: "must have required property 'email'" }]);
    expect(ajvCompile).toHaveBeenCalledTimes(1);
    expect(compile).toHaveBeenCalledTimes(2);
    expect(compile.mock.calls[0][0]).not.toBe(compile.mock.calls[1][0]);
    expect(compile.mock.results[1].value).toBe(compile.mock.results[0].value);
    expect((compile.mock.contexts[0] as SchemaCompiler).size).toBe(1);
  });
});
