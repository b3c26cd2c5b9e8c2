/**
 * Bad replies to elicitation/create: unknown ids, duplicates, late replies, results of the wrong
 * shape. Each is counted in server.stats, none crashes the session, nothing settles twice, and a
 * reply on another session's socket never settles this session's request.
 */
import { describe, expect, it } from 'vitest';
import { UnexpectedElicitActionError, type ElicitParams, type McpSession } from '../../src/index.js';
import { CAPS, errorOf, expectMcpError, responseLog, succeeded } from '../helpers/client-requests.js';
import { nextEvent, recordEvents } from '../helpers/server-events.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { tick } from '../helpers/deferred.js';
import { startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

const ASK: ElicitParams = { message: 'Your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } };
const NO_COUNTS = { unknownResponses: 0, duplicateResponses: 0, lateResponses: 0, invalidResults: 0, invalidMessages: 0 };

async function formSession() {
  const running = await startWebSocket(cleanups);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const errors: Error[] = [];
  running.server.on('error', (error) => errors.push(error));
  const { client, session } = await h.open(running, { capabilities: CAPS.form });
  return { running, server: running.server, log, errors, client, session };
}

describe('replies that match no pending request', () => {
  it('counts a result with an unknown id, reports it on the error event, and leaves the pending request alone', async () => {
    const { server, log, errors, client, session } = await formSession();
    const p = capture(session.elicit(ASK));
    await client.nextMessage('elicitation/create');
    const errored = nextEvent<[Error, McpSession]>(server, 'error');
    client.respond(99, { action: 'accept', content: { name: 'x' } });
    const [error, errorSession] = await errored;
    expect(error.message).toBe('Ignored an unknown reply from the client for request id 99');
    expect(errorSession).toBe(session);
    expect(server.stats).toMatchObject({ ...NO_COUNTS, unknownResponses: 1 });
    expect(p.settled()).toBe(false);
    expect(log.all).toHaveLength(0);
    client.respond(0, { action: 'accept', content: { name: 'Ada' } });
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'Ada' } } });
    expect(errors).toHaveLength(1);
    await expectQuietAndAlive(client);
  });

  it('counts an error reply with an unknown id', async () => {
    const { server, log, client } = await formSession();
    client.respondError(7, -32603, 'whatever');
    await pingOk(client);
    expect(server.stats).toMatchObject({ ...NO_COUNTS, unknownResponses: 1 });
    expect(log.all).toHaveLength(0);
  });

  it('treats a string id "0" as unknown when the pending request has the integer id 0', async () => {
    const { server, log, client, session } = await formSession();
    const p = capture(session.elicit(ASK));
    await client.nextMessage('elicitation/create');
    client.respond('0', { action: 'decline' });
    await pingOk(client);
    expect(server.stats.unknownResponses).toBe(1);
    expect(p.settled()).toBe(false);
    client.respond(0, { action: 'cancel' });
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'cancel' } });
    expect(log.all).toHaveLength(1);
  });

  it("never settles this session's request with a reply on another session's socket", async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const a = await h.open(running, { capabilities: CAPS.form, clientInfo: { name: 'a', version: '1' } });
    const b = await h.open(running, { capabilities: CAPS.form, clientInfo: { name: 'b', version: '1' } });
    const pa = capture(a.session.elicit(ASK));
    expect((await a.client.nextMessage('elicitation/create')).id).toBe(0);
    b.client.respond(0, { action: 'accept', content: { name: 'from b' } });
    await pingOk(b.client);
    await tick();
    expect(pa.settled()).toBe(false);
    expect(running.server.stats.unknownResponses).toBe(1);
    expect(log.all).toHaveLength(0);

    // Now b has its own request 0: each reply settles only its own session's request.
    const pb = capture(b.session.elicit(ASK));
    expect((await b.client.nextMessage('elicitation/create')).id).toBe(0);
    b.client.respond(0, { action: 'decline' });
    expect(await pb.outcome).toEqual({ ok: true, value: { action: 'decline' } });
    await tick();
    expect(pa.settled()).toBe(false);
    a.client.respond(0, { action: 'accept', content: { name: 'from a' } });
    expect(await pa.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'from a' } } });
    expect(log.all.map(([s, request, response]) => [s === a.session ? 'a' : 'b', request.id, response])).toEqual([
      ['b', 0, { isError: false, action: 'decline' }],
      ['a', 0, { isError: false, action: 'accept', content: { name: 'from a' } }],
    ]);
  });
});

describe('replies to requests that have already ended', () => {
  it('counts a second result as a duplicate, notes it on the debug event (not error); the first one stands and there is one event', async () => {
    const { server, log, errors, client, session } = await formSession();
    const debug = recordEvents(server, 'debug');
    const p = capture(session.elicit(ASK));
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: { name: 'first' } });
    client.respond(0, { action: 'accept', content: { name: 'second' } });
    client.respond(0, { action: 'decline' });
    await pingOk(client);
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'first' } } });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][2]).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { name: 'first' } }));
    expect(server.stats).toMatchObject({ ...NO_COUNTS, duplicateResponses: 2 });
    expect(errors).toEqual([]);
    expect(debug).toEqual([
      ['Ignored a duplicate reply from the client for request id 0', session],
      ['Ignored a duplicate reply from the client for request id 0', session],
    ]);
    await expectQuietAndAlive(client);
  });

  it('counts a result after an error reply as a duplicate', async () => {
    const { server, log, client, session } = await formSession();
    const p = capture(session.elicit(ASK));
    await client.nextMessage('elicitation/create');
    client.respondError(0, -32603, 'oops');
    client.respond(0, { action: 'accept', content: { name: 'x' } });
    await pingOk(client);
    expect(errorOf(await p.outcome)).toMatchObject({ code: -32603, message: 'oops' });
    expect(log.all).toHaveLength(1);
    expect(server.stats.duplicateResponses).toBe(1);
  });

  it('counts a reply after its timeout as late; the timeout stands and there is one event', async () => {
    const { server, log, client, session } = await formSession();
    const p = capture(session.elicit(ASK, { timeoutMs: 50 }));
    await client.nextMessage('elicitation/create');
    expect(errorOf(await p.outcome)).toMatchObject({ code: -32001 });
    expect(await client.nextMessage('notifications/cancelled')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 0, reason: 'timed out after 50 ms' },
    });
    client.respond(0, { action: 'accept', content: { name: 'too late' } });
    await pingOk(client);
    expect(server.stats).toMatchObject({ ...NO_COUNTS, lateResponses: 1 });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][2]).toMatchObject({ isError: true, errorCode: -32001 });
    await expectQuietAndAlive(client);
  });

  it('counts a reply after the server cancelled the request as late', async () => {
    const { server, log, client, session } = await formSession();
    const controller = new AbortController();
    server.requestElicitationCreate(session, ASK, { signal: controller.signal });
    await client.nextMessage('elicitation/create');
    controller.abort('stop');
    await client.nextMessage('notifications/cancelled');
    client.respond(0, { action: 'accept', content: { name: 'x' } });
    client.respondError(0, -32800, 'Request cancelled');
    await pingOk(client);
    expect(server.stats).toMatchObject({ ...NO_COUNTS, lateResponses: 2 });
    expect(log.all.map((args) => args[2].errorCode)).toEqual([-32800]);
  });
});

describe('results of the wrong shape', () => {
  it.each([
    ['a number', 5],
    ['an array', [{ action: 'accept' }]],
    ['a string', 'accept'],
    ['null', null],
  ])('reports a result that is %s as isError -32602 and counts it in invalidResults', async (_name, result) => {
    const { server, log, client, session } = await formSession();
    server.requestElicitationCreate(session, ASK);
    await client.nextMessage('elicitation/create');
    client.sendRaw({ jsonrpc: '2.0', id: 0, result });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request.id).toBe(0);
    expect(response).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: 'The client replied with a result that is not an object',
      errorData: { result },
    });
    expect(server.stats).toMatchObject({ ...NO_COUNTS, invalidResults: 1 });
    await expectQuietAndAlive(client);
  });

  it.each([
    ['"ok"', { action: 'ok' }, 'ok'],
    ['"ACCEPT"', { action: 'ACCEPT' }, 'ACCEPT'],
    ['a number', { action: 1 }, 1],
    ['null', { action: null }, null],
    ['missing', { content: { name: 'x' } }, undefined],
  ])('reports an action that is %s as isError -32602 and counts it', async (_name, result, action) => {
    const { server, log, client, session } = await formSession();
    server.requestElicitationCreate(session, ASK);
    await client.nextMessage('elicitation/create');
    client.respond(0, result);
    const [, , response] = await log.next();
    expect(response).toEqual({
      isError: true,
      errorCode: -32602,
      errorMessage: `The client answered elicitation/create with action ${JSON.stringify(action)}; expected accept, decline or cancel`,
      errorData: { action },
    });
    expect(server.stats).toMatchObject({ ...NO_COUNTS, invalidResults: 1 });
    await expectQuietAndAlive(client);
  });

  it('rejects session.elicit with UnexpectedElicitActionError for a bad action', async () => {
    const { client, session } = await formSession();
    const p = capture(session.elicit(ASK));
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'sure' });
    expectMcpError(errorOf(await p.outcome), UnexpectedElicitActionError, {
      code: -32602,
      message: 'The client answered elicitation/create with action "sure"; expected accept, decline or cancel',
      data: { action: 'sure' },
    });
  });

  it('counts accepted content that is not an object in invalidResults', async () => {
    const { server, log, client, session } = await formSession();
    server.requestElicitationCreate(session, ASK);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: ['Ada'] });
    expect((await log.next())[2]).toMatchObject({ isError: true, errorCode: -32602 });
    expect(server.stats).toMatchObject({ ...NO_COUNTS, invalidResults: 1 });
  });

  it('counts content that fails validation in invalidResults', async () => {
    const { server, log, client, session } = await formSession();
    server.requestElicitationCreate(session, ASK);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: { name: 5 } });
    expect((await log.next())[2]).toMatchObject({
      isError: true,
      errorCode: -32602,
      errorData: { violations: [{ property: 'name', rule: 'type', message: 'must be string' }] },
    });
    expect(server.stats).toMatchObject({ ...NO_COUNTS, invalidResults: 1 });
  });
});

describe('the session survives a burst of bad replies', () => {
  it('keeps answering and elicits normally afterwards, with every kind counted once per reply', async () => {
    const { server, log, client, session } = await formSession();
    server.requestElicitationCreate(session, ASK); // 0: answered with a bad action
    server.requestElicitationCreate(session, ASK, { timeoutMs: 40 }); // 1: times out
    server.requestElicitationCreate(session, ASK); // 2: not an object
    server.requestElicitationCreate(session, ASK); // 3: accepted, then answered again
    for (let i = 0; i < 4; i++) await client.nextMessage('elicitation/create');
    await client.nextMessage('notifications/cancelled');
    client.respond(0, { action: 'nope' });
    client.sendRaw({ jsonrpc: '2.0', id: 2, result: 'x' });
    client.respond(3, { action: 'accept', content: { name: 'Ada' } });
    client.respond(3, { action: 'accept', content: { name: 'Bo' } });
    client.respond(1, { action: 'decline' });
    client.respond(1234, { action: 'decline' });
    await pingOk(client);
    expect(server.stats).toMatchObject({ ...NO_COUNTS, unknownResponses: 1, duplicateResponses: 1, lateResponses: 1, invalidResults: 2 });
    expect(log.all.map((args) => args[1].id).sort()).toEqual([0, 1, 2, 3]);

    const p = capture(session.elicit(ASK));
    expect(await client.nextMessage('elicitation/create')).toEqual({ jsonrpc: '2.0', id: 4, method: 'elicitation/create', params: ASK });
    client.respond(4, { action: 'accept', content: { name: 'Cy' } });
    expect(await p.outcome).toEqual({ ok: true, value: { action: 'accept', content: { name: 'Cy' } } });
    expect(session.state).toBe('ready');
    expect(session.pendingRequests).toBe(0);
    await expectQuietAndAlive(client);
  });
});
