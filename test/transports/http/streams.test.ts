/**
 * Streamable HTTP streams over real HTTP: which stream each server message travels on (the standalone
 * GET stream or the call's own POST stream), event ids and priming by protocol version, resumption with
 * Last-Event-ID, SSE polling with ctx.closeStream(), response modes, and DELETE in the middle of a call.
 */
import { describe, expect, it } from 'vitest';
import {
  InMemoryEventStore,
  type ElicitParams,
  type EventStore,
  type McpServer,
  type McpSession,
  type OutgoingRequest,
  type StoredEvent,
} from '../../../src/index.js';
import { textResult, toolText } from '../../helpers/client-requests.js';
import { within } from '../../helpers/waits.js';
import { HttpTestClient, type OpenResponse } from '../../helpers/http-client.js';
import {
  dropNoticed,
  nextSse,
  priming,
  readSse,
  RecordingEventStore,
  SlowEventStore,
  sentByServer,
  sseMessage,
  stored,
  wire,
  useHttpSessions,
} from '../../helpers/http-streams.js';
import { nextEvent, recordEvents } from '../../helpers/server-events.js';
import { deferred, type Deferred } from '../../helpers/deferred.js';
import { WsTestClient, type Json } from '../../helpers/ws-client.js';
import { startWebSocket, startHttp } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useHttpSessions(cleanups);

const ASK: ElicitParams = { message: 'What is your name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } };
const ELICIT = { elicitation: { form: {}, url: {} } };
const SAMPLE = { messages: [{ role: 'user' as const, content: { type: 'text', text: 'Name a colour' } }], maxTokens: 10 };

function log(data: string, level = 'info'): Json {
  return { jsonrpc: '2.0', method: 'notifications/message', params: { level, data } };
}

function elicitRequest(id: string | number, params: ElicitParams = ASK): Json {
  return { jsonrpc: '2.0', id, method: 'elicitation/create', params };
}

function httpError(code: number, message: string): Json {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** A tool that says it started, then answers 'waited' once released: it sends nothing before, so its call answers as JSON. */
function waitingTool(server: McpServer, started: Deferred<void>, release: Deferred<void>): void {
  server.registerTool('wait', {}, async () => {
    started.resolve();
    await release.promise;
    return 'waited';
  });
}

/** A tool that elicits ASK and answers with the action. */
function askTool(server: McpServer): void {
  server.registerTool('ask', {}, async (_args, ctx) => (await ctx.elicit(ASK)).action);
}

/** Gates a test opens by name, so tools wait until the test lets them go on. */
function gates(): { gate(name: string): Deferred<void>; open(name: string): void } {
  const all = new Map<string, Deferred<void>>();
  const gate = (name: string) => {
    let g = all.get(name);
    if (!g) all.set(name, (g = deferred()));
    return g;
  };
  return { gate, open: (name) => gate(name).resolve() };
}

/** A tool `chatty` that logs `<label> 1`, waits for gate `<label>`, logs `<label> 2` and answers `<label>`. */
function chattyTool(server: McpServer, g: ReturnType<typeof gates>): void {
  server.registerTool('chatty', { inputSchema: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] } }, async (args, ctx) => {
    const label = String(args.label);
    ctx.log('info', `${label} 1`);
    await g.gate(label).promise;
    ctx.log('info', `${label} 2`);
    return label;
  });
}

/** A text of 1 MiB that starts with `n`. */
function bigText(n: number): string {
  return `${n} `.padEnd(1024 * 1024, '.');
}

/** POST initialize and read its (streamed) answer; then notifications/initialized. */
async function initializeStreamed(client: HttpTestClient, protocolVersion: string): Promise<OpenResponse> {
  const res = await client.post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'http-test', version: '1.0.0' } },
  });
  await res.ended;
  client.sessionId = res.headers['mcp-session-id'] as string;
  client.protocolVersion = protocolVersion;
  await (await client.notify('notifications/initialized')).ended;
  return res;
}

describe('the standalone GET stream', () => {
  it('opens with a priming event and allows one per session: a second concurrent GET gets 409', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running);

    const get = await client.get();
    expect(get.status).toBe(200);
    expect(get.headers['content-type']).toBe('text/event-stream');
    expect(get.headers['mcp-session-id']).toBe(client.sessionId);
    expect(await nextSse(get)).toEqual(priming('0_0'));

    const second = await client.get();
    expect(second.status).toBe(409);
    expect(await second.json()).toEqual(httpError(-32030, 'Conflict: only one standalone SSE stream is allowed per session'));
    // The first stream is unaffected.
    expect(session.notify('notifications/test/ping', { n: 1 })).toBe(true);
    expect(await nextSse(get)).toEqual(sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/ping', params: { n: 1 } }));
  });

  it('can be opened again once the client closed the first GET connection', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running);
    const dropped = dropNoticed(running.transport, 'GET');
    const first = await client.get();
    await nextSse(first);
    first.abort();
    await dropped;
    expect(session.notify('notifications/test/unheard')).toBe(false);

    const again = await client.get();
    expect(again.status).toBe(200);
    expect(again.headers['content-type']).toBe('text/event-stream');
    expect(session.notify('notifications/test/ping')).toBe(true);
    expect(await nextSse(again)).toMatchObject({ data: '' });
    expect(await nextSse(again)).toMatchObject({ message: { jsonrpc: '2.0', method: 'notifications/test/ping' } });
  });

  it('a re-opened GET stream primes with an event id no earlier event of the session carried (ids are unique per session)', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running);
    const dropped = dropNoticed(running.transport, 'GET');
    const first = await client.get();
    session.notify('notifications/test/ping', { n: 1 });
    const seen = await readSse(first, 2);
    expect(seen).toEqual([priming('0_0'), sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/ping', params: { n: 1 } })]);
    first.abort();
    await dropped;

    const again = await client.get();
    const primed = await nextSse(again);
    expect(primed).toMatchObject({ retry: 1000, data: '' });
    expect(primed.id).toMatch(/^0_\d+$/);
    expect(['0_0', '0_1']).not.toContain(primed.id);
  });

  it('carries server requests and notifications unrelated to any call, never the stream of a call in flight', async () => {
    const g = gates();
    const running = await startHttp(cleanups, (server) => {
      server.registerResource('test://watched', { name: 'watched' }, () => 'content');
      server.registerTool('hold', {}, async (_args, ctx) => {
        ctx.log('info', 'holding');
        await g.gate('hold').promise;
        return 'held';
      });
    });
    const { server } = running;
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    expect(await client.call('resources/subscribe', { uri: 'test://watched' }, 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const get = await client.get();
    const call = await client.request('tools/call', { name: 'hold' }, 3);
    expect(await readSse(call, 2)).toEqual([priming('3_0'), sseMessage('3_1', log('holding'))]);

    expect(server.requestElicitationCreate(session, ASK)).toBe(0);
    expect(session.notify('notifications/test/custom', { n: 1 })).toBe(true);
    expect(server.sendLogMessage('warning', 'disk almost full')).toBe(1);
    server.registerTool('late', {}, () => 'late');
    await readSse(get, 5); // priming and four events; the list_changed goes out in a microtask
    expect(server.sendResourceUpdated('test://watched')).toBe(1);
    expect(server.sendElicitationComplete(session, 'connect-1')).toBe(true);
    await readSse(get, 2);
    expect(get.body).toBe(
      wire(
        priming('0_0'),
        sseMessage('0_1', elicitRequest(0)),
        sseMessage('0_2', { jsonrpc: '2.0', method: 'notifications/test/custom', params: { n: 1 } }),
        sseMessage('0_3', log('disk almost full', 'warning')),
        sseMessage('0_4', { jsonrpc: '2.0', method: 'notifications/tools/list_changed' }),
        sseMessage('0_5', { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'test://watched' } }),
        sseMessage('0_6', { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'connect-1' } }),
      ),
    );

    g.open('hold');
    await call.ended;
    expect(call.body).toBe(wire(priming('3_0'), sseMessage('3_1', log('holding')), sseMessage('3_2', textResult(3, 'held'))));
  });

  it('the answer to a GET-stream elicitation is a POST answered 204 that resolves it and fires responseElicitationCreate', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const get = await client.get();
    const id = running.server.requestElicitationCreate(session, ASK);
    expect(await readSse(get, 2)).toEqual([priming('0_0'), sseMessage('0_1', elicitRequest(id))]);
    expect(session.pendingRequests).toBe(1);

    const reply = await client.reply(id, { action: 'accept', content: { name: 'Ada' } });
    expect(reply.status).toBe(204);
    await reply.ended;
    expect(reply.body).toBe('');
    expect(events).toEqual([[session, elicitRequest(0), { isError: false, action: 'accept', content: { name: 'Ada' } }]]);
    expect(session.pendingRequests).toBe(0);
  });

  it("a reply POSTed under another session's id never resolves this session's request", async () => {
    const running = await startHttp(cleanups);
    const a = await h.client(running, { capabilities: ELICIT });
    const b = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const get = await a.client.get();
    const id = running.server.requestElicitationCreate(a.session, ASK);
    expect(await readSse(get, 2)).toEqual([priming('0_0'), sseMessage('0_1', elicitRequest(id))]);

    const forged = await b.client.reply(id, { action: 'accept', content: { name: 'Mallory' } });
    expect(forged.status).toBe(204);
    await forged.ended;
    expect(events).toEqual([]);
    expect(a.session.pendingRequests).toBe(1);
    expect(running.server.stats.unknownResponses).toBe(1);
    expect(running.errors.map(([error, session]) => [error.message, session])).toEqual([
      ['Ignored an unknown reply from the client for request id 0', b.session],
    ]);

    await (await a.client.reply(id, { action: 'accept', content: { name: 'Ada' } })).ended;
    expect(events).toEqual([[a.session, elicitRequest(0), { isError: false, action: 'accept', content: { name: 'Ada' } }]]);
  });

  it('without a GET stream, requestElicitationCreate waits, and goes out when the client opens one (backChannelOpen)', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const opened = recordEvents(running.server, 'backChannelOpen');

    const id = running.server.requestElicitationCreate(session, ASK);
    expect(id).toBe(0);
    expect(session.pendingRequests).toBe(1);
    // Notifications do not wait: with nowhere to go they are not delivered.
    expect(running.server.sendElicitationComplete(session, 'connect-1')).toBe(false);
    expect(running.server.sendLogMessage('info', 'nobody listens')).toBe(0);
    expect(opened).toEqual([]);

    const get = await client.get();
    expect(await readSse(get, 2)).toEqual([priming('0_0'), sseMessage('0_1', elicitRequest(0))]);
    expect(opened).toEqual([[session]]);
    await (await client.reply(0, { action: 'accept', content: { name: 'Ada' } })).ended;
    expect(events).toEqual([[session, elicitRequest(0), { isError: false, action: 'accept', content: { name: 'Ada' } }]]);
    expect(session.pendingRequests).toBe(0);
  });

  it('a request sent in sessionNew reaches the client once it opens its GET stream', async () => {
    const running = await startHttp(cleanups, (server) => server.on('sessionNew', (session) => void server.requestElicitationCreate(session, ASK)));
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    expect(session.pendingRequests).toBe(1);
    const get = await client.get();
    expect(await readSse(get, 2)).toEqual([priming('0_0'), sseMessage('0_1', elicitRequest(0))]);
    await (await client.reply(0, { action: 'decline' })).ended;
    expect(events).toEqual([[session, elicitRequest(0), { isError: false, action: 'decline' }]]);
  });

  it('a request that waits longer than its timeout ends with RequestTimeoutError, and is never sent', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const ended = nextEvent<[McpSession, Json, Json]>(running.server, 'responseElicitationCreate');
    running.server.requestElicitationCreate(session, ASK, { timeoutMs: 50 });
    const [, request, response] = await ended;
    expect([request, response]).toEqual([
      elicitRequest(0),
      {
        isError: true,
        errorCode: -32001,
        errorMessage: 'elicitation/create timed out after 50 ms without a reply; raise timeoutMs if a person has to answer it',
        errorData: { timeoutMs: 50 },
      },
    ]);
    // Nothing went out for it: no request, and no notifications/cancelled either.
    const get = await client.get();
    expect(await nextSse(get)).toEqual(priming('0_0'));
    expect(session.notify('notifications/test/after')).toBe(true);
    expect(await nextSse(get)).toEqual(sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/after' }));
  });

  it('once the client closes its GET stream, requests wait again until it reopens one', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const dropped = dropNoticed(running.transport, 'GET');
    const first = await client.get();
    await nextSse(first);
    first.abort();
    await dropped;
    running.server.requestElicitationCreate(session, ASK);
    const again = await client.get();
    expect(await readSse(again, 2)).toEqual([priming('0_1'), sseMessage('0_2', elicitRequest(0))]);
  });
});

describe("server requests tied to a call travel on the call's POST stream", () => {
  it('ctx.progress, ctx.log, ctx.elicit, ctx.createMessage and ctx.listRoots go on the call stream, which turns into text/event-stream', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('everything', {}, async (_args, ctx) => {
        ctx.progress(1, 2, 'starting');
        ctx.log('info', 'asking the user');
        const answer = await ctx.elicit(ASK);
        const sample = await ctx.createMessage(SAMPLE);
        const roots = await ctx.listRoots();
        ctx.progress(2, 2);
        return `${answer.action} ${(sample.content as { text: string }).text} ${roots.roots.map((r) => r.uri).join(',')}`;
      }),
    );
    const { client, session } = await h.client(running, { capabilities: { ...ELICIT, sampling: {}, roots: {} } });
    const elicitations = recordEvents(running.server, 'responseElicitationCreate');
    const samplings = recordEvents(running.server, 'responseSamplingCreateMessage');
    const rootLists = recordEvents(running.server, 'responseRootsList');
    const get = await client.get();
    expect(await nextSse(get)).toEqual(priming('0_0'));

    const call = await client.request('tools/call', { name: 'everything', _meta: { progressToken: 'p1' } }, 7);
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toBe('text/event-stream');
    expect(call.headers['mcp-session-id']).toBe(client.sessionId);
    const samplingRequest = { jsonrpc: '2.0', id: 1, method: 'sampling/createMessage', params: SAMPLE };
    const rootsRequest = { jsonrpc: '2.0', id: 2, method: 'roots/list', params: {} };
    expect(await readSse(call, 4)).toEqual([
      priming('2_0'),
      sseMessage('2_1', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'starting' } }),
      sseMessage('2_2', log('asking the user')),
      sseMessage('2_3', elicitRequest(0)),
    ]);
    expect((await client.reply(0, { action: 'accept', content: { name: 'Ada' } })).status).toBe(204);
    expect(await nextSse(call)).toEqual(sseMessage('2_4', samplingRequest));
    const answer = { role: 'assistant', content: { type: 'text', text: 'Teal' }, model: 'test-model' };
    expect((await client.reply(1, answer)).status).toBe(204);
    expect(await nextSse(call)).toEqual(sseMessage('2_5', rootsRequest));
    expect((await client.reply(2, { roots: [{ uri: 'file:///home/ada' }] })).status).toBe(204);
    await call.ended;
    expect(call.body).toBe(
      wire(
        priming('2_0'),
        sseMessage('2_1', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2, message: 'starting' } }),
        sseMessage('2_2', log('asking the user')),
        sseMessage('2_3', elicitRequest(0)),
        sseMessage('2_4', samplingRequest),
        sseMessage('2_5', rootsRequest),
        sseMessage('2_6', { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 2, total: 2 } }),
        sseMessage('2_7', textResult(7, 'accept Teal file:///home/ada')),
      ),
    );
    expect(elicitations).toEqual([[session, elicitRequest(0), { isError: false, action: 'accept', content: { name: 'Ada' } }]]);
    expect(samplings).toEqual([[session, samplingRequest, { isError: false, ...answer }]]);
    expect(rootLists).toEqual([[session, rootsRequest, { isError: false, roots: [{ uri: 'file:///home/ada' }] }]]);

    // Nothing of the call went on the GET stream: the next thing there is what is sent there now.
    session.notify('notifications/test/marker');
    await nextSse(get);
    expect(get.body).toBe(wire(priming('0_0'), sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/marker' })));
  });
});

describe('event ids and priming by protocol version', () => {
  function loggingTool(server: McpServer): void {
    server.registerTool('logs', {}, (_args, ctx) => {
      ctx.log('info', 'working');
      return 'done';
    });
  }

  it('2025-11-25: every stream starts with a priming event whose retry is the retryMs option', async () => {
    const running = await startHttp(cleanups, loggingTool, { transport: { retryMs: 2500 } });
    const { client, session } = await h.client(running);
    const get = await client.get();
    session.notify('notifications/test/ping');
    await readSse(get, 2);
    expect(get.body).toBe(wire(priming('0_0', 2500), sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/ping' })));

    const call = await client.request('tools/call', { name: 'logs' }, 2);
    await call.ended;
    expect(call.body).toBe(wire(priming('2_0', 2500), sseMessage('2_1', log('working')), sseMessage('2_2', textResult(2, 'done'))));
  });

  it.each(['2025-06-18', '2025-03-26'])('%s: events carry ids, but no stream starts with a priming event or a retry field', async (protocolVersion) => {
    const running = await startHttp(cleanups, loggingTool);
    const { client, session } = await h.client(running, { protocolVersion });
    expect(client.protocolVersion).toBe(protocolVersion);
    const get = await client.get();
    expect(get.status).toBe(200);
    session.notify('notifications/test/ping');
    await nextSse(get);
    expect(get.body).toBe(wire(sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/ping' })));

    const call = await client.request('tools/call', { name: 'logs' }, 2);
    expect(call.headers['content-type']).toBe('text/event-stream');
    await call.ended;
    expect(call.body).toBe(wire(sseMessage('2_1', log('working')), sseMessage('2_2', textResult(2, 'done'))));
  });

  it('2024-11-05: events carry no ids, no priming event and no retry field', async () => {
    const running = await startHttp(cleanups, loggingTool);
    const { client, session } = await h.client(running, { protocolVersion: '2024-11-05' });
    expect(client.protocolVersion).toBe('2024-11-05');
    const get = await client.get();
    expect(get.status).toBe(200);
    session.notify('notifications/test/ping');
    await nextSse(get);
    expect(get.body).toBe(wire(sseMessage(undefined, { jsonrpc: '2.0', method: 'notifications/test/ping' })));

    const call = await client.request('tools/call', { name: 'logs' }, 2);
    await call.ended;
    expect(call.body).toBe(wire(sseMessage(undefined, log('working')), sseMessage(undefined, textResult(2, 'done'))));
  });

  it('event ids are unique across all streams of a session and name the stream they belong to', async () => {
    const g = gates();
    const running = await startHttp(cleanups, (server) => chattyTool(server, g));
    const { client, session } = await h.client(running);
    const get = await client.get();
    const a = await client.request('tools/call', { name: 'chatty', arguments: { label: 'a' } }, 'a');
    const b = await client.request('tools/call', { name: 'chatty', arguments: { label: 'b' } }, 'b');
    await readSse(a, 2);
    await readSse(b, 2);
    session.notify('notifications/test/ping');
    await readSse(get, 2);
    g.open('b');
    g.open('a');
    await Promise.all([a.ended, b.ended]);

    expect(a.body).toBe(wire(priming('2_0'), sseMessage('2_1', log('a 1')), sseMessage('2_2', log('a 2')), sseMessage('2_3', textResult('a', 'a'))));
    expect(b.body).toBe(wire(priming('3_0'), sseMessage('3_1', log('b 1')), sseMessage('3_2', log('b 2')), sseMessage('3_3', textResult('b', 'b'))));
    expect(get.body).toBe(wire(priming('0_0'), sseMessage('0_1', { jsonrpc: '2.0', method: 'notifications/test/ping' })));
    const ids = [a, b, get].flatMap((res) => [...res.body.matchAll(/^id: (.*)$/gm)].map((m) => m[1]));
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe('resumability', () => {
  it("a client that drops a call's stream does not cancel the call: it completes, and GET with the last event id gets the rest, response included", async () => {
    const release = deferred();
    const seen: { aborted?: boolean } = {};
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('long', {}, async (_args, ctx) => {
        ctx.log('info', 'started');
        await release.promise;
        seen.aborted = ctx.signal.aborted;
        ctx.log('info', 'finishing');
        return 'finished';
      }),
    );
    const { client } = await h.client(running);
    const cancelled = recordEvents(running.server, 'cancelled');
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'long' }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', log('started'))]);
    call.abort();
    await dropped;

    const answered = sentByServer(running.server, (m) => m.id === 2 && 'result' in m);
    release.resolve();
    expect(await answered).toEqual(textResult(2, 'finished'));
    expect(seen.aborted).toBe(false);
    expect(cancelled).toEqual([]);

    const resumed = await client.get({ 'last-event-id': '2_1' });
    expect(resumed.status).toBe(200);
    expect(resumed.headers['content-type']).toBe('text/event-stream');
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_2', log('finishing')), sseMessage('2_3', textResult(2, 'finished'))));
  });

  it("a GET resuming a call's stream before the call ends replays what was missed, carries the rest live, and ends with the response", async () => {
    const g = gates();
    const running = await startHttp(cleanups, (server) => chattyTool(server, g));
    const { client } = await h.client(running);
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'chatty', arguments: { label: 'x' } }, 2);
    expect(await nextSse(call)).toEqual(priming('2_0'));
    call.abort();
    await dropped;

    const resumed = await client.get({ 'last-event-id': '2_0' });
    expect(resumed.status).toBe(200);
    expect(await nextSse(resumed)).toEqual(sseMessage('2_1', log('x 1')));
    g.open('x');
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_1', log('x 1')), sseMessage('2_2', log('x 2')), sseMessage('2_3', textResult(2, 'x'))));
  });

  it("an elicitation answered after the call's stream dropped still completes the call, and resuming returns the result", async () => {
    const running = await startHttp(cleanups, askTool);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'ask' }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', elicitRequest(0))]);
    call.abort();
    await dropped;

    const answered = sentByServer(running.server, (m) => m.id === 2 && 'result' in m);
    expect((await client.reply(0, { action: 'accept', content: { name: 'Ada' } })).status).toBe(204);
    await answered;
    expect(events).toEqual([[session, elicitRequest(0), { isError: false, action: 'accept', content: { name: 'Ada' } }]]);

    const resumed = await client.get({ 'last-event-id': '2_1' });
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_2', textResult(2, 'accept'))));
  });

  it("Last-Event-ID replays only its own stream, never another call's or the GET stream's events", async () => {
    const g = gates();
    const running = await startHttp(cleanups, (server) => chattyTool(server, g));
    const { client, session } = await h.client(running);
    const get = await client.get();
    const dropped = dropNoticed(running.transport, 'POST');
    const a = await client.request('tools/call', { name: 'chatty', arguments: { label: 'a' } }, 'a');
    const b = await client.request('tools/call', { name: 'chatty', arguments: { label: 'b' } }, 'b');
    await readSse(a, 1);
    a.abort();
    await dropped;
    await readSse(b, 2);
    session.notify('notifications/test/ping', { n: 1 });
    g.open('b');
    await b.ended;
    const answered = sentByServer(running.server, (m) => m.id === 'a' && 'result' in m);
    g.open('a');
    await answered;
    session.notify('notifications/test/ping', { n: 2 });
    await readSse(get, 3);

    const resumed = await client.get({ 'last-event-id': '2_0' });
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_1', log('a 1')), sseMessage('2_2', log('a 2')), sseMessage('2_3', textResult('a', 'a'))));
  });

  it('GET with a Last-Event-ID of the standalone stream replays its later events, and that connection becomes the standalone stream', async () => {
    const running = await startHttp(cleanups);
    const { client, session } = await h.client(running);
    const ping = (n: number) => ({ jsonrpc: '2.0', method: 'notifications/test/ping', params: { n } });
    const dropped = dropNoticed(running.transport, 'GET');
    const first = await client.get();
    for (const n of [1, 2, 3]) session.notify('notifications/test/ping', { n });
    expect(await readSse(first, 4)).toEqual([priming('0_0'), sseMessage('0_1', ping(1)), sseMessage('0_2', ping(2)), sseMessage('0_3', ping(3))]);
    first.abort();
    await dropped;

    const resumed = await client.get({ 'last-event-id': '0_1' });
    expect(resumed.status).toBe(200);
    await readSse(resumed, 2);
    const another = await client.get();
    expect(another.status).toBe(409);
    expect(session.notify('notifications/test/ping', { n: 4 })).toBe(true);
    await nextSse(resumed);
    expect(resumed.body).toBe(wire(sseMessage('0_2', ping(2)), sseMessage('0_3', ping(3)), sseMessage('0_4', ping(4))));
  });

  it('resuming the standalone stream while it is open gets 409', async () => {
    const running = await startHttp(cleanups);
    const { client } = await h.client(running);
    const get = await client.get();
    await nextSse(get);
    const resumed = await client.get({ 'last-event-id': '0_0' });
    expect(resumed.status).toBe(409);
    expect(await resumed.json()).toEqual(httpError(-32030, 'Conflict: the standalone SSE stream of this session is already open'));
  });

  it.each(['9_1', 'abc_1', '_1', 'nonsense'])('a Last-Event-ID naming no stream of the session (%s) gets 400', async (lastEventId) => {
    const running = await startHttp(cleanups);
    const { client } = await h.client(running);
    const res = await client.get({ 'last-event-id': lastEventId });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(httpError(-32030, `Bad Request: Last-Event-ID ${lastEventId} names no stream of this session`));
  });

  it('a Last-Event-ID naming a POST stream still answering as JSON gets 400, and the call still answers', async () => {
    const started = deferred();
    const release = deferred();
    const running = await startHttp(cleanups, (server) => waitingTool(server, started, release));
    const { client } = await h.client(running);
    // A JSON answer's headers come with it: the POST resolves once the call is released.
    const answer = client.request('tools/call', { name: 'wait' }, 2);
    await started.promise;
    const res = await client.get({ 'last-event-id': '2_0' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(httpError(-32030, 'Bad Request: Last-Event-ID 2_0 names no stream of this session'));
    release.resolve();
    const call = await answer;
    expect(call.status).toBe(200);
    expect(await call.json()).toEqual(textResult(2, 'waited'));
  });

  it("a Last-Event-ID of another session's stream gets 400 and none of that session's events", async () => {
    const g = gates();
    const running = await startHttp(cleanups, (server) => chattyTool(server, g));
    const a = await h.client(running);
    const b = await h.client(running);
    const call = await a.client.request('tools/call', { name: 'chatty', arguments: { label: 'a' } }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', log('a 1'))]);

    const res = await b.client.get({ 'last-event-id': '2_0' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(httpError(-32030, 'Bad Request: Last-Event-ID 2_0 names no stream of this session'));
    g.open('a');
    await call.ended;
  });

  it('ctx.closeStream() on a 2025-11-25 session ends the POST connection after the priming event; GET with Last-Event-ID gets the rest and the result', async () => {
    const release = deferred();
    const seen: { closed?: boolean; aborted?: boolean } = {};
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('poll', {}, async (_args, ctx) => {
        seen.closed = ctx.closeStream();
        ctx.log('info', 'still working');
        await release.promise;
        seen.aborted = ctx.signal.aborted;
        return 'polled';
      }),
    );
    const { client } = await h.client(running);
    const call = await client.request('tools/call', { name: 'poll' }, 2);
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toBe('text/event-stream');
    await call.ended;
    expect(call.body).toBe(wire(priming('2_0')));
    expect(seen.closed).toBe(true);

    const resumed = await client.get({ 'last-event-id': '2_0' });
    expect(resumed.status).toBe(200);
    expect(await nextSse(resumed)).toEqual(sseMessage('2_1', log('still working')));
    release.resolve();
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_1', log('still working')), sseMessage('2_2', textResult(2, 'polled'))));
    expect(seen.aborted).toBe(false);
  });

  it('each ctx.closeStream() ends the connection the stream is on at that moment, a resumed GET included', async () => {
    const g = gates();
    const closed: boolean[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('poll_twice', {}, async (_args, ctx) => {
        closed.push(ctx.closeStream());
        await g.gate('first').promise;
        ctx.log('info', 'halfway');
        closed.push(ctx.closeStream());
        await g.gate('second').promise;
        return 'polled twice';
      }),
    );
    const { client } = await h.client(running);
    const call = await client.request('tools/call', { name: 'poll_twice' }, 2);
    await call.ended;
    expect(call.body).toBe(wire(priming('2_0')));

    const first = await client.get({ 'last-event-id': '2_0' });
    g.open('first');
    await first.ended;
    expect(first.body).toBe(wire(sseMessage('2_1', log('halfway'))));

    const second = await client.get({ 'last-event-id': '2_1' });
    g.open('second');
    await second.ended;
    expect(second.body).toBe(wire(sseMessage('2_2', textResult(2, 'polled twice'))));
    expect(closed).toEqual([true, true]);
  });

  it.each(['2025-06-18', '2025-03-26', '2024-11-05'])(
    'ctx.closeStream() returns false on a %s session, and the call is answered as JSON',
    async (protocolVersion) => {
      const running = await startHttp(cleanups, (server) => server.registerTool('poll', {}, (_args, ctx) => String(ctx.closeStream())));
      const { client } = await h.client(running, { protocolVersion });
      const call = await client.request('tools/call', { name: 'poll' }, 2);
      expect(call.headers['content-type']).toBe('application/json');
      expect(await call.json()).toEqual(textResult(2, 'false'));
    },
  );

  it('ctx.closeStream() returns false over WebSocket', async () => {
    const ws = await startWebSocket(cleanups, (server) => server.registerTool('poll', {}, (_args, ctx) => String(ctx.closeStream())));
    const { client } = await WsTestClient.initialized(ws.url);
    cleanups.push(() => client.close());
    expect(await client.request('tools/call', { name: 'poll' }, 2)).toEqual(textResult(2, 'false'));
  });

  it('a custom eventStore stores each event under its session and stream, is asked for the replay, is told which event ends its stream and when the session ends', async () => {
    const store = new RecordingEventStore();
    const running = await startHttp(cleanups, askTool, { transport: { eventStore: store } });
    expect(running.transport.eventStore).toBe(store);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'ask' }, 2);
    await readSse(call, 2);
    call.abort();
    await dropped;
    const answered = sentByServer(running.server, (m) => m.id === 2 && 'result' in m);
    await (await client.reply(0, { action: 'decline' })).ended;
    await answered;

    const resumed = await client.get({ 'last-event-id': '2_1' });
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_2', textResult(2, 'decline'))));
    expect(store.appended).toEqual([
      { sessionId: session.id, streamId: '2', event: stored('2_1', elicitRequest(0)) },
      { sessionId: session.id, streamId: '2', event: stored('2_2', textResult(2, 'decline')) },
    ]);
    // Only the response ends its stream; the elicitation before it does not.
    expect(store.ended).toEqual([[session.id, '2', '2_2']]);
    expect(store.replays).toEqual([[session.id, '2', '2_1']]);
    expect(store.dropped).toEqual([]);

    expect((await client.delete()).status).toBe(200);
    expect(store.dropped).toEqual([session.id]);
  });

  it('with an asynchronous eventStore, what the call sends while the replay is being read still reaches the resuming client', async () => {
    const g = gates();
    const store = new SlowEventStore();
    const running = await startHttp(cleanups, (server) => chattyTool(server, g), { transport: { eventStore: store } });
    const { client } = await h.client(running);
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'chatty', arguments: { label: 'x' } }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', log('x 1'))]);
    call.abort();
    await dropped;

    const resuming = client.get({ 'last-event-id': '2_1' });
    await store.asked;
    const answered = sentByServer(running.server, (m) => m.id === 2 && 'result' in m);
    g.open('x');
    await answered;
    store.answer();
    const resumed = await resuming;
    expect(resumed.status).toBe(200);
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_2', log('x 2')), sseMessage('2_3', textResult(2, 'x'))));
  });

  it('with an asynchronous eventStore, a call that sends over 4 MiB while the replay is read gets the replay and what fit, then the connection ends with retry; resuming again gets the rest', async () => {
    const g = gates();
    const store = new SlowEventStore();
    const running = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('flood', {}, async (_args, ctx) => {
          ctx.log('info', 'start');
          await g.gate('flood').promise;
          for (let n = 1; n <= 5; n++) ctx.log('info', bigText(n));
          await g.gate('finish').promise;
          return 'flooded';
        }),
      { transport: { eventStore: store } },
    );
    const { client } = await h.client(running);
    const cancelled = recordEvents(running.server, 'cancelled');
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'flood' }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', log('start'))]);
    call.abort();
    await dropped;

    const resuming = client.get({ 'last-event-id': '2_0' });
    await store.asked;
    const flooded = sentByServer(running.server, (m) => m.method === 'notifications/message' && m.params.data === bigText(5));
    g.open('flood');
    await flooded;
    store.answer();
    const first = await resuming;
    await within(first.ended, 5000, 'the first resumed connection to end');
    // Three events of 1 MiB fit in 4 MiB with their ids and overhead; a fourth would not.
    const firstEvents = [sseMessage('2_1', log('start')), ...[1, 2, 3].map((n) => sseMessage(`2_${n + 1}`, log(bigText(n))))];
    expect({ status: first.status, ids: first.events.map((e) => e.id), exact: first.body === `${wire(...firstEvents)}retry: 1000\n\n` }).toEqual({
      status: 200,
      ids: ['2_1', '2_2', '2_3', '2_4', undefined],
      exact: true,
    });

    const second = await client.get({ 'last-event-id': '2_4' });
    const replayed = await nextSse(second);
    g.open('finish');
    await within(second.ended, 5000, 'the second resumed connection to end with the response');
    const rest = [sseMessage('2_5', log(bigText(4))), sseMessage('2_6', log(bigText(5))), sseMessage('2_7', textResult(2, 'flooded'))];
    expect({ ids: [replayed, ...second.events].map((e) => e.id), exact: second.body === wire(...rest) }).toEqual({ ids: ['2_5', '2_6', '2_7'], exact: true });
    expect({ cancelled, errors: running.errors }).toEqual({ cancelled: [], errors: [] });
  });

  it('with an asynchronous eventStore, a 2025-06-18 standalone stream resumed while 5 MiB of notifications go out ends after the 4 MiB that fit; the next resumption gets the rest and new ids', async () => {
    const store = new SlowEventStore();
    const running = await startHttp(cleanups, () => {}, { transport: { eventStore: store } });
    const { client, session } = await h.client(running, { protocolVersion: '2025-06-18' });
    const big = (n: number): Json => ({ jsonrpc: '2.0', method: 'notifications/test/big', params: { text: bigText(n) } });
    const dropped = dropNoticed(running.transport, 'GET');
    const first = await client.get();
    session.notify('notifications/test/big', { text: bigText(0) });
    expect(await nextSse(first)).toEqual(sseMessage('0_1', big(0)));
    first.abort();
    await dropped;

    const resuming = client.get({ 'last-event-id': '0_1' });
    await store.asked;
    const sent = [1, 2, 3, 4, 5].map((n) => session.notify('notifications/test/big', { text: bigText(n) }));
    store.answer();
    const resumed = await resuming;
    await within(resumed.ended, 5000, 'the resumed connection to end');
    expect({ sent, ids: resumed.events.map((e) => e.id), exact: resumed.body === wire(...[1, 2, 3].map((n) => sseMessage(`0_${n + 1}`, big(n)))) }).toEqual({
      sent: [true, true, true, true, true],
      ids: ['0_2', '0_3', '0_4'],
      exact: true,
    });

    const again = await client.get({ 'last-event-id': '0_4' });
    expect(await readSse(again, 2)).toEqual([sseMessage('0_5', big(4)), sseMessage('0_6', big(5))]);
    expect(session.notify('notifications/test/big', { text: 'after' })).toBe(true);
    expect(await nextSse(again)).toEqual(sseMessage('0_7', { jsonrpc: '2.0', method: 'notifications/test/big', params: { text: 'after' } }));
    again.abort();
  });

  it('an eventStore whose replay holds an event without data gets the resumption a 500 and an error event, and the session goes on', async () => {
    const store: EventStore = {
      append: () => {},
      replayAfter: () => [{ eventId: '0_1' } as StoredEvent],
      dropSession: () => {},
    };
    const running = await startHttp(cleanups, () => {}, { transport: { eventStore: store } });
    const { client, session } = await h.client(running);

    const resumed = await client.get({ 'last-event-id': '0_0' });
    expect({ status: resumed.status, contentType: resumed.headers['content-type'] }).toEqual({ status: 500, contentType: 'application/json' });
    expect(await resumed.json()).toEqual(httpError(-32603, 'Internal error'));
    expect(running.errors.map(([error, at]) => [error.constructor, error.message, at])).toEqual([
      [TypeError, "eventStore.replayAfter must return events as { eventId, data }, both strings (data is the message's JSON, as appended)", undefined],
    ]);
    const standalone = await client.get();
    expect({ status: standalone.status, state: session.state }).toEqual({ status: 200, state: 'ready' });
    standalone.abort();
  });

  it('the InMemoryEventStore keeps maxEventsPerStream events: a Last-Event-ID older than those replays what is kept', async () => {
    const release = deferred();
    const running = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('three', {}, async (_args, ctx) => {
          for (const word of ['one', 'two', 'three']) ctx.log('info', word);
          await release.promise;
          return 'done';
        }),
      { transport: { eventStore: new InMemoryEventStore({ maxEventsPerStream: 2 }) } },
    );
    const { client } = await h.client(running);
    const dropped = dropNoticed(running.transport, 'POST');
    const call = await client.request('tools/call', { name: 'three' }, 2);
    expect(await readSse(call, 4)).toEqual([priming('2_0'), sseMessage('2_1', log('one')), sseMessage('2_2', log('two')), sseMessage('2_3', log('three'))]);
    call.abort();
    await dropped;
    const answered = sentByServer(running.server, (m) => m.id === 2 && 'result' in m);
    release.resolve();
    await answered;

    const resumed = await client.get({ 'last-event-id': '2_1' });
    await resumed.ended;
    expect(resumed.body).toBe(wire(sseMessage('2_3', log('three')), sseMessage('2_4', textResult(2, 'done'))));
  });
});

describe('responseMode', () => {
  it("'json' answers as application/json; the call's log and elicitation fall back to the GET stream", async () => {
    const seen: { closed?: boolean } = {};
    const running = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('ask', {}, async (_args, ctx) => {
          seen.closed = ctx.closeStream();
          ctx.log('info', 'about to ask');
          return (await ctx.elicit(ASK)).action;
        }),
      { transport: { responseMode: 'json' } },
    );
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const get = await client.get();
    const pending = client.request('tools/call', { name: 'ask' }, 2);
    expect(await readSse(get, 3)).toEqual([priming('0_0'), sseMessage('0_1', log('about to ask')), sseMessage('0_2', elicitRequest(0))]);
    expect((await client.reply(0, { action: 'cancel' })).status).toBe(204);

    const call = await pending;
    expect(call.status).toBe(200);
    expect(call.headers['content-type']).toBe('application/json');
    expect(await call.json()).toEqual(textResult(2, 'cancel'));
    expect(seen.closed).toBe(false);
    expect(events).toEqual([[session, elicitRequest(0), { isError: false, action: 'cancel' }]]);
  });

  it("'json': ctx.elicit has no stream of its call to travel on, so it waits for the GET stream; the call then answers as JSON", async () => {
    const running = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('ask', {}, async (_args, ctx) => {
          ctx.log('info', 'about to ask');
          return (await ctx.elicit(ASK)).action;
        }),
      { transport: { responseMode: 'json' } },
    );
    const { client } = await h.client(running, { capabilities: ELICIT });
    const call = client.request('tools/call', { name: 'ask' }, 2);
    await expect.poll(() => running.server.stats.pendingRequests).toBe(1);
    const get = await client.get();
    expect(await readSse(get, 2)).toEqual([priming('0_0'), sseMessage('0_1', elicitRequest(0))]);
    await (await client.reply(0, { action: 'accept', content: { name: 'Ada' } })).ended;
    const answered = await call;
    expect(answered.headers['content-type']).toBe('application/json');
    expect(await answered.json()).toEqual({ jsonrpc: '2.0', id: 2, result: toolText('accept') });
  });

  it("'sse' streams even a call with nothing related: the priming event, then the response", async () => {
    const running = await startHttp(cleanups, (server) => server.registerTool('plain', {}, () => 'plain'), { transport: { responseMode: 'sse' } });
    const client = new HttpTestClient(running.url);
    await initializeStreamed(client, '2025-11-25');
    const call = await client.request('tools/call', { name: 'plain' }, 2);
    expect(call.headers['content-type']).toBe('text/event-stream');
    await call.ended;
    expect(call.body).toBe(wire(priming('2_0'), sseMessage('2_1', textResult(2, 'plain'))));
  });

  it.each([
    ['2025-11-25', true],
    ['2025-06-18', false],
  ] as const)("'sse' streams initialize too: a %s client gets the result with an event id (primed: %s)", async (protocolVersion, primed) => {
    const running = await startHttp(cleanups, undefined, { transport: { responseMode: 'sse' } });
    const client = new HttpTestClient(running.url);
    const init = await initializeStreamed(client, protocolVersion);
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/event-stream');
    const initResult = {
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion,
        capabilities: {
          logging: {},
          completions: {},
          prompts: { listChanged: true },
          resources: { subscribe: true, listChanged: true },
          tools: { listChanged: true },
        },
        serverInfo: { name: 'test-server', version: '1.0.0' },
      },
    };
    expect(init.body).toBe(primed ? wire(priming('1_0'), sseMessage('1_1', initResult)) : wire(sseMessage('1_1', initResult)));
  });
});

describe('DELETE in the middle of a call', () => {
  it('ends pending elicitations with an isError event (-32000), ends the call stream without a response and the GET stream, and ends the session', async () => {
    const running = await startHttp(cleanups, askTool);
    const { client, session } = await h.client(running, { capabilities: ELICIT });
    const events = recordEvents(running.server, 'responseElicitationCreate');
    const ended = recordEvents(running.server, 'sessionEnd');
    const get = await client.get();
    await nextSse(get);
    const call = await client.request('tools/call', { name: 'ask' }, 2);
    expect(await readSse(call, 2)).toEqual([priming('2_0'), sseMessage('2_1', elicitRequest(0))]);

    const del = await client.delete();
    expect(del.status).toBe(200);
    await Promise.all([call.ended, get.ended]);
    expect(call.body).toBe(wire(priming('2_0'), sseMessage('2_1', elicitRequest(0))));
    expect(get.body).toBe(wire(priming('0_0')));
    expect(events).toEqual([
      [
        session,
        elicitRequest(0) as OutgoingRequest,
        {
          isError: true,
          errorCode: -32000,
          errorMessage: 'elicitation/create could not complete: deleted by the client',
          errorData: { reason: 'deleted by the client' },
        },
      ],
    ]);
    expect(ended).toEqual([[session, 'deleted by the client']]);
    expect(session.state).toBe('closed');
    expect(running.server.sessions.has(session.id)).toBe(false);

    const after = await client.request('ping', undefined, 3);
    expect(after.status).toBe(404);
    expect((await after.json()).error.code).toBe(-32031);
  });

  it('ends the connection of a call still answering as JSON, with nothing written, and ends the session', async () => {
    const started = deferred();
    const release = deferred();
    const running = await startHttp(cleanups, (server) => waitingTool(server, started, release));
    const { client, session } = await h.client(running);
    const answer = client.request('tools/call', { name: 'wait' }, 2);
    await started.promise;
    const del = await client.delete();
    expect(del.status).toBe(200);
    const call = await answer;
    await call.ended;
    expect(call.status).toBe(200);
    expect(call.isSse).toBe(false);
    expect(call.body).toBe('');
    expect(session.state).toBe('closed');
    release.resolve();
  });
});
