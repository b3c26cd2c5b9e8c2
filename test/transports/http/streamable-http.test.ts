/**
 * StreamableHttpTransport over real HTTP on 127.0.0.1: POST answers (JSON, SSE, 202/204), sessions and their
 * limits, request checks, error bodies, Origin/Host/CORS/auth, the httpRequest/httpResponse events, the ways
 * to run it (listen, a mounted handler, WebSocket on the same port) and option validation.
 */
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import { McpServer, StreamableHttpTransport, WebSocketTransport, type McpSession, type StreamableHttpTransportOptions } from '../../../src/index.js';
import { textResult } from '../../helpers/client-requests.js';
import { ACCEPT_BOTH, HttpTestClient, OpenResponse, send } from '../../helpers/http-client.js';
import { deferred, type Deferred } from '../../helpers/deferred.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { startHttp, TEST_SERVER_INFO } from '../../helpers/servers.js';
import { WsTestClient, type Json } from '../../helpers/ws-client.js';
import { listenOnLoopback } from '../../helpers/ports.js';

const cleanups = useCleanups();

// ---------------------------------------------------------------------------------------------------------
// Fixtures

const POST_HEADERS = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };
const ELICITATION_SCHEMA = { type: 'object', properties: { a: { type: 'string' } } } as const;

const MISSING_SESSION_ON_POST = 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one';
const MISSING_SESSION = 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one';
const SESSION_NOT_FOUND = 'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one';
const UNSUPPORTED_VERSION = (v: string) => `Bad Request: unsupported MCP-Protocol-Version ${v}; supported: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25`;

function initializeMessage(id: number | string = 1, protocolVersion = '2025-11-25'): Json {
  return { jsonrpc: '2.0', id, method: 'initialize', params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } } };
}

function errorBody(code: number, message: unknown): Json {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** An HTTP error: exact status, JSON content type, and the whole JSON-RPC error body. */
async function expectError(res: OpenResponse, status: number, code: number, message: unknown): Promise<void> {
  const body = await res.json();
  expect({ status: res.status, contentType: res.headers['content-type'], body }).toEqual({
    status,
    contentType: 'application/json',
    body: errorBody(code, message),
  });
}

interface Gate {
  started: Deferred<void>;
  release: Deferred<void>;
}

interface Tools {
  /** The `wait` tool's handler waits for `release` after resolving `started`. */
  gate: Gate;
}

/** Tools every test server has: plain, progress, log, ask (elicits), wait (waits for the gate). */
function registerTools(server: McpServer): Tools {
  const gate: Gate = { started: deferred(), release: deferred() };
  server.registerTool('plain', {}, () => 'plain');
  server.registerTool('progress', {}, (_args, ctx) => {
    ctx.progress(1, 2);
    return 'progressed';
  });
  server.registerTool('log', {}, (_args, ctx) => {
    ctx.log('info', 'hello');
    return 'logged';
  });
  server.registerTool('ask', {}, async (_args, ctx) => (await ctx.elicit({ message: 'q', requestedSchema: ELICITATION_SCHEMA })).action);
  server.registerTool('wait', {}, async () => {
    gate.started.resolve();
    await gate.release.promise;
    return 'waited';
  });
  return { gate };
}

interface Running {
  server: McpServer;
  transport: StreamableHttpTransport;
  url: string;
  port: number;
  tools: Tools;
  base: string;
}

function newServer(): { server: McpServer; tools: Tools } {
  const server = new McpServer({ name: 'http-test', version: '1.0.0' });
  server.on('error', () => {});
  const tools = registerTools(server);
  cleanups.push(() => server.close());
  return { server, tools };
}

/** A server with the test tools and a StreamableHttpTransport listening on 127.0.0.1, closed after the test. */
async function start(options?: StreamableHttpTransportOptions, setup?: (server: McpServer, transport: StreamableHttpTransport) => void): Promise<Running> {
  let tools!: Tools;
  const running = await startHttp(cleanups, (server) => void (tools = registerTools(server)), { transport: options });
  setup?.(running.server, running.transport);
  return { server: running.server, transport: running.transport, url: running.url, port: running.port, tools, base: `http://127.0.0.1:${running.port}` };
}

/** An initialized client (initialize answered, notifications/initialized accepted). */
async function ready(url: string, init?: Parameters<HttpTestClient['initialize']>[0], headers?: Record<string, string>): Promise<HttpTestClient> {
  const client = new HttpTestClient(url);
  await client.initialize(init, headers);
  return client;
}

async function ping(client: HttpTestClient, id: number | string = 'ping'): Promise<{ status: number; body: unknown }> {
  const res = await client.request('ping', undefined, id);
  return { status: res.status, body: await res.json() };
}

/** Record every sessionEnd as [id, reason]. */
function recordEnds(server: McpServer): [string, string][] {
  const ends: [string, string][] = [];
  server.on('sessionEnd', (session, reason) => void ends.push([session.id, reason]));
  return ends;
}

/** POST with a chunked body (no Content-Length). */
function postChunked(url: string, headers: Record<string, string>, chunks: string[]): Promise<OpenResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', headers }, (res) => resolve(new OpenResponse(res)));
    req.on('error', reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

// ---------------------------------------------------------------------------------------------------------
// 1. POST

describe('POST', () => {
  it('answers a request whose handler sends nothing before the result as application/json', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await client.request('tools/call', { name: 'plain' }, 1);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers['mcp-session-id']).toBe(client.sessionId);
    expect(await res.json()).toEqual(textResult(1, 'plain'));
  });

  it('answers as text/event-stream, related progress first, when the handler reports progress before the result', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await client.request('tools/call', { name: 'progress', _meta: { progressToken: 'p1' } }, 2);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(res.headers['mcp-session-id']).toBe(client.sessionId);
    await res.ended;
    const messages = res.events.filter((e) => e.message !== undefined).map((e) => e.message);
    expect(messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p1', progress: 1, total: 2 } },
      textResult(2, 'progressed'),
    ]);
  });

  it('answers as text/event-stream when the handler logs before the result', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await client.request('tools/call', { name: 'log' }, 3);
    expect(res.headers['content-type']).toBe('text/event-stream');
    await res.ended;
    expect(res.events.filter((e) => e.message !== undefined).map((e) => e.message)).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hello' } },
      textResult(3, 'logged'),
    ]);
  });

  it("with responseMode 'json' answers as application/json even when the handler reports progress", async () => {
    const { url } = await start({ responseMode: 'json' });
    const client = await ready(url);
    const res = await client.request('tools/call', { name: 'progress', _meta: { progressToken: 'p1' } }, 4);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    expect(await res.json()).toEqual(textResult(4, 'progressed'));
  });

  it("with responseMode 'sse' answers even a plain request, initialize included, as text/event-stream", async () => {
    const { url } = await start({ responseMode: 'sse' });
    const init = await send(url, 'POST', POST_HEADERS, initializeMessage(1));
    expect({ status: init.status, contentType: init.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
    expect((await init.nextMessage({ id: 1 })).result.protocolVersion).toBe('2025-11-25');
    const client = new HttpTestClient(url);
    client.sessionId = init.headers['mcp-session-id'] as string;
    client.protocolVersion = '2025-11-25';
    const initialized = await client.notify('notifications/initialized');
    expect(initialized.status).toBe(202);
    const res = await client.request('tools/call', { name: 'plain' }, 5);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(await res.nextMessage({ id: 5 })).toEqual(textResult(5, 'plain'));
    await res.ended;
  });

  it('answers a client notification with 202 Accepted and no body', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await client.notify('notifications/roots/list_changed');
    await res.ended;
    expect({ status: res.status, body: res.body, contentType: res.headers['content-type'] }).toEqual({ status: 202, body: '', contentType: undefined });
  });

  it("answers the client's reply to a server request with 204 No Content and no body", async () => {
    const { url } = await start();
    const client = await ready(url, { capabilities: { elicitation: {} } });
    const ask = await client.request('tools/call', { name: 'ask' }, 6);
    const elicit = await ask.nextMessage({ method: 'elicitation/create' });
    const reply = await client.reply(elicit.id, { action: 'decline' });
    await reply.ended;
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 204, body: '' });
    expect(await ask.nextMessage({ id: 6 })).toEqual(textResult(6, 'decline'));
  });

  it('with replyStatus 202 answers the reply to a server request with 202 and no body', async () => {
    const { url } = await start({ replyStatus: 202 });
    const client = await ready(url, { capabilities: { elicitation: {} } });
    const ask = await client.request('tools/call', { name: 'ask' }, 7);
    const elicit = await ask.nextMessage({ method: 'elicitation/create' });
    const reply = await client.reply(elicit.id, { action: 'cancel' });
    await reply.ended;
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 202, body: '' });
    expect(await ask.nextMessage({ id: 7 })).toEqual(textResult(7, 'cancel'));
  });

  it('accepts a JSON-RPC batch on a session negotiated at 2025-03-26 and answers with an array', async () => {
    const { url } = await start();
    const client = await ready(url, { protocolVersion: '2025-03-26' });
    expect(client.protocolVersion).toBe('2025-03-26');
    const res = await client.post([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'plain' } },
    ]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const body = (await res.json()) as Json[];
    expect([...body].sort((a, b) => a.id - b.id)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }, textResult(2, 'plain')]);
  });

  it('answers a batch of notifications on a 2025-03-26 session with 202', async () => {
    const { url } = await start();
    const client = await ready(url, { protocolVersion: '2025-03-26' });
    const res = await client.post([
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
    ]);
    await res.ended;
    expect({ status: res.status, body: res.body }).toEqual({ status: 202, body: '' });
  });

  it.each(['2025-06-18', '2025-11-25'])('refuses a batch with 400 -32600 on a session negotiated at %s', async (version) => {
    const { url } = await start();
    const client = await ready(url, { protocolVersion: version });
    const res = await client.post([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    await expectError(
      res,
      400,
      -32600,
      `Invalid Request: JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: ${version}); send one message at a time`,
    );
  });

  it('refuses initialize inside a batch with 400 -32600 and opens no session', async () => {
    const { server, url } = await start();
    const res = await send(url, 'POST', POST_HEADERS, [initializeMessage(1, '2025-03-26')]);
    await expectError(res, 400, -32600, 'Invalid Request: initialize must not be part of a batch');
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect(server.sessions.size).toBe(0);
  });

  it('refuses an empty batch with 400 -32600', async () => {
    const { url } = await start();
    const client = await ready(url, { protocolVersion: '2025-03-26' });
    await expectError(await client.post([]), 400, -32600, 'Invalid Request: an empty batch');
  });
});

// ---------------------------------------------------------------------------------------------------------
// 2. Sessions

describe('sessions', () => {
  it('issues a random visible-ASCII Mcp-Session-Id on the initialize response, the id of the new http session', async () => {
    const opened: McpSession[] = [];
    const { url } = await start({}, (server) => server.on('sessionNew', (s) => void opened.push(s)));
    const first = await send(url, 'POST', POST_HEADERS, initializeMessage());
    const second = await send(url, 'POST', POST_HEADERS, initializeMessage());
    const ids = [first.headers['mcp-session-id'], second.headers['mcp-session-id']];
    expect(first.status).toBe(200);
    expect((await first.json()).result.protocolVersion).toBe('2025-11-25');
    await second.ended;
    for (const id of ids) expect(id).toMatch(/^[\x21-\x7e]{16,}$/);
    expect(ids[0]).not.toBe(ids[1]);
    expect(opened.map((s) => [s.id, s.transport])).toEqual([
      [ids[0], 'http'],
      [ids[1], 'http'],
    ]);
  });

  it('answers a non-initialize POST without Mcp-Session-Id with 400', async () => {
    const { url } = await start();
    await ready(url);
    await expectError(await send(url, 'POST', POST_HEADERS, { jsonrpc: '2.0', id: 1, method: 'ping' }), 400, -32030, MISSING_SESSION_ON_POST);
    await expectError(await send(url, 'POST', POST_HEADERS, { jsonrpc: '2.0', method: 'notifications/initialized' }), 400, -32030, MISSING_SESSION_ON_POST);
  });

  it('answers GET and DELETE without Mcp-Session-Id with 400', async () => {
    const { url } = await start();
    await expectError(await send(url, 'GET', { accept: 'text/event-stream' }), 400, -32030, MISSING_SESSION);
    await expectError(await send(url, 'DELETE', {}), 400, -32030, MISSING_SESSION);
  });

  it('answers POST, GET and DELETE naming an unknown session with 404 -32031', async () => {
    const { url } = await start();
    const unknown = '00000000-0000-4000-8000-000000000000';
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, 'mcp-session-id': unknown }, { jsonrpc: '2.0', id: 1, method: 'ping' }),
      404,
      -32031,
      SESSION_NOT_FOUND,
    );
    await expectError(await send(url, 'GET', { accept: 'text/event-stream', 'mcp-session-id': unknown }), 404, -32031, SESSION_NOT_FOUND);
    await expectError(await send(url, 'DELETE', { 'mcp-session-id': unknown }), 404, -32031, SESSION_NOT_FOUND);
  });

  it("DELETE ends the session: sessionEnd fires with 'deleted by the client' and later requests get 404", async () => {
    const { server, url } = await start();
    const ends = recordEnds(server);
    const endedTransports: string[] = [];
    server.on('sessionEnd', (session) => void endedTransports.push(session.transport));
    const client = await ready(url);
    const other = await ready(url);
    const res = await client.delete();
    await res.ended;
    expect([200, 204]).toContain(res.status);
    expect(ends).toEqual([[client.sessionId, 'deleted by the client']]);
    expect(endedTransports).toEqual(['http']);
    expect(server.sessions.has(client.sessionId!)).toBe(false);
    await expectError(await client.request('ping', undefined, 9), 404, -32031, SESSION_NOT_FOUND);
    await expectError(await client.get(), 404, -32031, SESSION_NOT_FOUND);
    await expectError(await client.delete(), 404, -32031, SESSION_NOT_FOUND);
    expect(await ping(other)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
  });

  it('DELETE ends pending server requests with isError response events and closes their streams', async () => {
    const responses: Json[] = [];
    const { url } = await start({}, (server) =>
      server.on('responseElicitationCreate', (_s, request, response) => void responses.push({ id: request.id, ...response })),
    );
    const client = await ready(url, { capabilities: { elicitation: {} } });
    const ask = await client.request('tools/call', { name: 'ask' }, 1);
    const elicit = await ask.nextMessage({ method: 'elicitation/create' });
    expect(responses).toEqual([]);
    await (await client.delete()).ended;
    expect(responses).toEqual([{ id: elicit.id, isError: true, errorCode: -32000, errorMessage: expect.any(String), errorData: expect.anything() }]);
    await ask.ended;
    expect(ask.events.some((e) => e.message?.id === 1 && !('method' in e.message))).toBe(false);
  });

  it('ends a session that stays idle past sessionIdleTimeoutMs; later requests get 404', async () => {
    const { server, url } = await start({ sessionIdleTimeoutMs: 50 });
    const ends = recordEnds(server);
    const client = await ready(url);
    await expect.poll(() => ends, { timeout: 5000 }).toEqual([[client.sessionId, expect.stringMatching(/idle/)]]);
    await expectError(await client.request('ping', undefined, 1), 404, -32031, SESSION_NOT_FOUND);
  });

  it('does not end for idleness a session whose standalone GET stream is open', async () => {
    const { server, url } = await start({ sessionIdleTimeoutMs: 200 });
    const ends = recordEnds(server);
    const streaming = await ready(url);
    const stream = await streaming.get();
    expect(stream.status).toBe(200);
    // Created after the stream opened, so last active later: the sweep that ends it would end `streaming` too if idle.
    const idle = await ready(url);
    await expect.poll(() => ends.map(([id]) => id), { timeout: 5000 }).toContain(idle.sessionId);
    expect(ends.map(([id]) => id)).not.toContain(streaming.sessionId);
    expect(server.sessions.has(streaming.sessionId!)).toBe(true);
    expect(stream.res.complete).toBe(false);
  });

  it('does not end for idleness a session with a request in flight', async () => {
    const { server, url, tools } = await start({ sessionIdleTimeoutMs: 200 });
    const ends = recordEnds(server);
    const busy = await ready(url);
    const call = busy.request('tools/call', { name: 'wait' }, 1);
    await tools.gate.started.promise;
    const idle = await ready(url);
    await expect.poll(() => ends.map(([id]) => id), { timeout: 5000 }).toContain(idle.sessionId);
    expect(ends.map(([id]) => id)).not.toContain(busy.sessionId);
    tools.gate.release.resolve();
    const res = await call;
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: textResult(1, 'waited') });
  });

  /**
   * Only Date is faked (sockets and the sweep's interval stay real), so the test sets how long a session has
   * been idle. A canary session last active an hour ago shows that a sweep ran; it must not take along a
   * session that became idle only now.
   */
  async function sweepWithCanary(url: string, ends: [string, string][], now: number, longAgo: number): Promise<void> {
    vi.setSystemTime(longAgo);
    const canary = await ready(url);
    vi.setSystemTime(now);
    await expect.poll(() => ends.map(([id]) => id), { timeout: 5000 }).toContain(canary.sessionId);
  }

  it('counts the idle timeout from when the standalone stream closed, not from when it opened', async () => {
    const BASE = Date.UTC(2030, 0, 1);
    vi.useFakeTimers({ toFake: ['Date'] });
    cleanups.push(() => vi.useRealTimers());
    vi.setSystemTime(BASE);
    const closedGets: number[] = [];
    const { server, url } = await start({ sessionIdleTimeoutMs: 50 }, (_server, transport) =>
      transport.on('httpResponse', (req, res) => void (req.method === 'GET' && closedGets.push(res.statusCode))),
    );
    const ends = recordEnds(server);
    const client = await ready(url);
    const stream = await client.get();
    expect(stream.status).toBe(200);
    // An hour passes with the stream open: not idle. Then the client drops the stream (e.g. to reconnect).
    vi.setSystemTime(BASE + 3_600_000);
    stream.abort();
    await expect.poll(() => closedGets, { timeout: 5000 }).toEqual([200]);
    await sweepWithCanary(url, ends, BASE + 3_600_000, BASE);
    expect(ends.map(([id]) => id)).not.toContain(client.sessionId);
    expect(await ping(client)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
  });

  it('counts the idle timeout from when the last request finished, not from when it arrived', async () => {
    const BASE = Date.UTC(2030, 0, 1);
    vi.useFakeTimers({ toFake: ['Date'] });
    cleanups.push(() => vi.useRealTimers());
    vi.setSystemTime(BASE);
    const { server, url, tools } = await start({ sessionIdleTimeoutMs: 50 });
    const ends = recordEnds(server);
    const client = await ready(url);
    const call = client.request('tools/call', { name: 'wait' }, 1);
    await tools.gate.started.promise;
    // The tool works for an hour, then answers.
    vi.setSystemTime(BASE + 3_600_000);
    tools.gate.release.resolve();
    const res = await call;
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: textResult(1, 'waited') });
    await sweepWithCanary(url, ends, BASE + 3_600_000, BASE);
    expect(ends.map(([id]) => id)).not.toContain(client.sessionId);
    expect(await ping(client)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
  });

  it("at maxSessions evicts an idle session (sessionEnd reason starting 'evicted') to admit a new one", async () => {
    const { server, url } = await start({ maxSessions: 1 });
    const ends = recordEnds(server);
    const first = await ready(url);
    const second = await ready(url);
    expect(ends).toEqual([[first.sessionId, expect.stringMatching(/^evicted/)]]);
    await expectError(await first.request('ping', undefined, 1), 404, -32031, SESSION_NOT_FOUND);
    expect(await ping(second)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
  });

  it('at maxSessions evicts the oldest idle session, never one with an open stream', async () => {
    const { server, url } = await start({ maxSessions: 3 });
    const ends = recordEnds(server);
    const streaming = await ready(url);
    const stream = await streaming.get();
    expect(stream.status).toBe(200);
    const older = await ready(url);
    const newer = await ready(url);
    const fourth = await ready(url);
    expect(ends).toEqual([[older.sessionId, expect.stringMatching(/^evicted/)]]);
    expect([...server.sessions.keys()].sort()).toEqual([streaming.sessionId, newer.sessionId, fourth.sessionId].sort());
  });

  it('at maxSessions with no idle session to evict refuses a new one with 503', async () => {
    const { server, url } = await start({ maxSessions: 1 });
    const streaming = await ready(url);
    const stream = await streaming.get();
    expect(stream.status).toBe(200);
    const res = await send(url, 'POST', POST_HEADERS, initializeMessage());
    await expectError(res, 503, -32030, 'Service Unavailable: the server is at its limit of 1 sessions; try again later');
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect([...server.sessions.keys()]).toEqual([streaming.sessionId]);
  });

  it("with onSessionLimit 'reject' answers initialize past maxSessions with 503 and a JSON-RPC error body, keeping the old session", async () => {
    const { server, url } = await start({ maxSessions: 1, onSessionLimit: 'reject' });
    const ends = recordEnds(server);
    const first = await ready(url);
    const res = await send(url, 'POST', POST_HEADERS, initializeMessage());
    await expectError(res, 503, -32030, 'Service Unavailable: the server is at its limit of 1 sessions; try again later');
    expect(ends).toEqual([]);
    expect(await ping(first)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
    await (await first.delete()).ended;
    const again = await send(url, 'POST', POST_HEADERS, initializeMessage());
    expect(again.status).toBe(200);
    await again.ended;
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3. Request checks

describe('request checks', () => {
  it('accepts requests without MCP-Protocol-Version after initialize', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await send(url, 'POST', { ...POST_HEADERS, 'mcp-session-id': client.sessionId! }, { jsonrpc: '2.0', id: 1, method: 'ping' });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });

  it('answers a POST with MCP-Protocol-Version garbage with 400', async () => {
    const { url } = await start();
    const client = await ready(url);
    await expectError(await client.request('ping', undefined, 1, { 'mcp-protocol-version': 'garbage' }), 400, -32030, UNSUPPORTED_VERSION('garbage'));
  });

  it('treats a POST with MCP-Protocol-Version 2026-07-28 as a stateless request, which without its _meta envelope gets 400 -32602', async () => {
    const { url } = await start();
    const client = await ready(url);
    const res = await client.request('ping', undefined, 1, { 'mcp-protocol-version': '2026-07-28' });
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: {
          code: -32602,
          message:
            'Invalid params: a 2026-07-28 request needs _meta["io.modelcontextprotocol/protocolVersion"] and _meta["io.modelcontextprotocol/clientCapabilities"]',
        },
      },
    });
  });

  it('on a legacy-only server answers MCP-Protocol-Version 2026-07-28 with a plain 400, so dual-era clients fall back to initialize', async () => {
    const server = new McpServer({ name: 'legacy-only', version: '1.0.0' }, { eras: 'legacy' });
    const { url } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
    try {
      const client = await ready(url);
      await expectError(await client.request('ping', undefined, 1, { 'mcp-protocol-version': '2026-07-28' }), 400, -32030, UNSUPPORTED_VERSION('2026-07-28'));
    } finally {
      await server.close();
    }
  });

  it('answers GET and DELETE with an unsupported MCP-Protocol-Version with 400, leaving the session alive', async () => {
    const { server, url } = await start();
    const client = await ready(url);
    await expectError(await client.get({ 'mcp-protocol-version': '2026-07-28' }), 400, -32030, UNSUPPORTED_VERSION('2026-07-28'));
    await expectError(await client.delete({ 'mcp-protocol-version': 'garbage' }), 400, -32030, UNSUPPORTED_VERSION('garbage'));
    expect(server.sessions.has(client.sessionId!)).toBe(true);
  });

  it('does not check MCP-Protocol-Version on initialize', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', { ...POST_HEADERS, 'mcp-protocol-version': 'garbage' }, initializeMessage());
    expect(res.status).toBe(200);
    expect((await res.json()).result.protocolVersion).toBe('2025-11-25');
  });

  it.each([
    ['application/json only', 'application/json'],
    ['text/event-stream only', 'text/event-stream'],
    ['text/html', 'text/html'],
  ])('answers a POST whose Accept lists %s with 406', async (_name, accept) => {
    const { url } = await start();
    const res = await send(url, 'POST', { accept, 'content-type': 'application/json' }, initializeMessage());
    await expectError(res, 406, -32030, 'Not Acceptable: Accept must list both application/json and text/event-stream');
  });

  it('answers a POST without Accept with 406', async () => {
    const { url } = await start();
    await expectError(
      await send(url, 'POST', { 'content-type': 'application/json' }, initializeMessage()),
      406,
      -32030,
      'Not Acceptable: Accept must list both application/json and text/event-stream',
    );
  });

  it('accepts a POST with Accept */*', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', { accept: '*/*', 'content-type': 'application/json' }, initializeMessage());
    expect(res.status).toBe(200);
    expect((await res.json()).result.serverInfo).toEqual(TEST_SERVER_INFO);
  });

  it('answers a GET whose Accept lacks text/event-stream with 406, and opens the stream for Accept */*', async () => {
    const { url } = await start();
    const client = await ready(url);
    await expectError(await client.get({ accept: 'application/json' }), 406, -32030, 'Not Acceptable: Accept must list text/event-stream');
    const stream = await client.get({ accept: '*/*' });
    expect({ status: stream.status, contentType: stream.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
  });

  it('answers a POST whose Content-Type is not application/json with 415', async () => {
    const { url } = await start();
    const message = 'Unsupported Media Type: Content-Type must be application/json';
    await expectError(await send(url, 'POST', { accept: ACCEPT_BOTH, 'content-type': 'text/plain' }, initializeMessage()), 415, -32030, message);
    await expectError(await send(url, 'POST', { accept: ACCEPT_BOTH }, initializeMessage()), 415, -32030, message);
  });

  it('accepts Content-Type application/json with a charset parameter', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', { accept: ACCEPT_BOTH, 'content-type': 'application/json; charset=utf-8' }, initializeMessage());
    expect(res.status).toBe(200);
    await res.ended;
  });

  it('answers a body larger than maxMessageBytes with 413 and accepts one within it', async () => {
    const { url } = await start({ maxMessageBytes: 400 });
    const big = { ...initializeMessage(), padding: 'x'.repeat(400) };
    await expectError(await send(url, 'POST', POST_HEADERS, big), 413, -32030, 'Payload Too Large: the body exceeds 400 bytes');
    const small = await send(url, 'POST', POST_HEADERS, initializeMessage());
    expect(small.status).toBe(200);
    await small.ended;
  });

  it('answers a chunked body that grows past maxMessageBytes with 413', async () => {
    const { url } = await start({ maxMessageBytes: 400 });
    const text = JSON.stringify({ ...initializeMessage(), padding: 'x'.repeat(600) });
    const res = await postChunked(url, POST_HEADERS, [text.slice(0, 300), text.slice(300)]);
    await expectError(res, 413, -32030, 'Payload Too Large: the body exceeds 400 bytes');
  });

  it('answers malformed JSON with 400 -32700', async () => {
    const { url } = await start();
    await expectError(await send(url, 'POST', POST_HEADERS, '{"jsonrpc": "2.0", "id": 1,'), 400, -32700, expect.stringMatching(/^Parse error: /));
    const client = await ready(url);
    await expectError(await client.post('not json'), 400, -32700, expect.stringMatching(/^Parse error: /));
  });

  it('answers an invalid JSON-RPC message with 400 -32600', async () => {
    const { url } = await start();
    const client = await ready(url);
    await expectError(await client.post({ jsonrpc: '1.0', id: 1, method: 'ping' }), 400, -32600, 'Invalid Request: jsonrpc must be "2.0"');
    await expectError(await client.post('42'), 400, -32600, 'Invalid Request: a JSON-RPC message must be an object');
  });

  it('answers a request whose id is already in flight in the session with 400 -32600, and still answers the first', async () => {
    const { url, tools } = await start();
    const client = await ready(url);
    const first = client.request('tools/call', { name: 'wait' }, 7);
    await tools.gate.started.promise;
    await expectError(
      await client.request('ping', undefined, 7),
      400,
      -32600,
      'Invalid Request: request id 7 is already in flight in this session; use a new id',
    );
    tools.gate.release.resolve();
    const res = await first;
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: textResult(7, 'waited') });
  });

  it.each(['PUT', 'PATCH'])('answers %s with 405, a JSON-RPC error body and an Allow header', async (method) => {
    const { url } = await start();
    const res = await send(url, method, POST_HEADERS, initializeMessage());
    await expectError(res, 405, -32030, expect.stringMatching(/^Method Not Allowed/));
    expect(res.headers.allow?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
  });

  it('lists OPTIONS in the Allow header of a 405 only when CORS is on to answer it', async () => {
    const plain = await start();
    const withCors = await start({ cors: { origins: ['https://app.example.com'] } });
    const options405 = await send(plain.url, 'OPTIONS', {});
    expect(options405.status).toBe(405);
    const put = await send(plain.url, 'PUT', {});
    const corsPut = await send(withCors.url, 'PUT', {});
    await Promise.all([options405.ended, put.ended, corsPut.ended]);
    expect({ put: put.headers.allow, options: options405.headers.allow, corsPut: corsPut.headers.allow }).toEqual({
      put: 'GET, POST, DELETE',
      options: 'GET, POST, DELETE',
      corsPut: 'GET, POST, DELETE, OPTIONS',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 5. Security

describe('Origin and Host', () => {
  it('answers a request with a non-loopback Origin with 403 by default', async () => {
    const { server, url } = await start();
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, origin: 'https://evil.example.com' }, initializeMessage()),
      403,
      -32030,
      'Forbidden: Origin https://evil.example.com is not allowed',
    );
    expect(server.sessions.size).toBe(0);
  });

  it('accepts a loopback Origin, and no Origin at all, by default', async () => {
    const { url, port } = await start();
    const loopback = await send(url, 'POST', { ...POST_HEADERS, origin: `http://localhost:${port}` }, initializeMessage());
    const none = await send(url, 'POST', POST_HEADERS, initializeMessage());
    expect([loopback.status, none.status]).toEqual([200, 200]);
    await Promise.all([loopback.ended, none.ended]);
  });

  it('with allowedOrigins accepts exactly the listed origins', async () => {
    const { url, port } = await start({ allowedOrigins: ['https://app.example.com'] });
    const listed = await send(url, 'POST', { ...POST_HEADERS, origin: 'https://app.example.com' }, initializeMessage());
    expect(listed.status).toBe(200);
    await listed.ended;
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, origin: 'https://other.example.com' }, initializeMessage()),
      403,
      -32030,
      'Forbidden: Origin https://other.example.com is not allowed',
    );
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, origin: `http://localhost:${port}` }, initializeMessage()),
      403,
      -32030,
      `Forbidden: Origin http://localhost:${port} is not allowed`,
    );
  });

  it("with allowedOrigins '*' accepts any origin", async () => {
    const { url } = await start({ allowedOrigins: '*' });
    const res = await send(url, 'POST', { ...POST_HEADERS, origin: 'https://anything.example.net' }, initializeMessage());
    expect(res.status).toBe(200);
    await res.ended;
  });

  it('answers a request on a loopback address whose Host is not loopback with 403 (DNS rebinding)', async () => {
    const { server, url } = await start();
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, host: 'evil.example.com' }, initializeMessage()),
      403,
      -32030,
      'Forbidden: Host evil.example.com is not allowed',
    );
    expect(server.sessions.size).toBe(0);
  });

  it('accepts Host localhost:port, 127.0.0.1:port and [::1]:port on a loopback address', async () => {
    const { url, port } = await start();
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      const res = await send(url, 'POST', { ...POST_HEADERS, host }, initializeMessage());
      expect({ host, status: res.status }).toEqual({ host, status: 200 });
      await res.ended;
    }
  });

  it('with allowedHosts accepts exactly the listed host names', async () => {
    const { url, port } = await start({ allowedHosts: ['mcp.example.com'] });
    const listed = await send(url, 'POST', { ...POST_HEADERS, host: `mcp.example.com:${port}` }, initializeMessage());
    expect(listed.status).toBe(200);
    await listed.ended;
    await expectError(
      await send(url, 'POST', { ...POST_HEADERS, host: `localhost:${port}` }, initializeMessage()),
      403,
      -32030,
      `Forbidden: Host localhost:${port} is not allowed`,
    );
  });
});

describe('CORS', () => {
  const APP = 'https://app.example.com';

  it('answers an OPTIONS preflight with 204 and the access-control headers', async () => {
    const { url } = await start({ cors: { origins: [APP] } });
    const res = await send(url, 'OPTIONS', {
      origin: APP,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type, mcp-session-id',
    });
    await res.ended;
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(res.headers['access-control-allow-origin']).toBe(APP);
    expect(res.headers['access-control-allow-methods']?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'POST', 'DELETE']));
    expect(res.headers['access-control-allow-headers']?.split(/,\s*/)).toEqual(
      expect.arrayContaining(['content-type', 'accept', 'authorization', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id']),
    );
    expect(res.headers['access-control-max-age']).toBe('600');
  });

  it('sends cors.maxAgeSeconds as access-control-max-age', async () => {
    const { url } = await start({ cors: { origins: [APP], maxAgeSeconds: 60 } });
    const res = await send(url, 'OPTIONS', { origin: APP, 'access-control-request-method': 'POST' });
    await res.ended;
    expect({ status: res.status, maxAge: res.headers['access-control-max-age'] }).toEqual({ status: 204, maxAge: '60' });
  });

  it('puts access-control-allow-origin and expose-headers with mcp-session-id on actual responses, errors included', async () => {
    const { url } = await start({ cors: { origins: [APP] } });
    const init = await send(url, 'POST', { ...POST_HEADERS, origin: APP }, initializeMessage());
    expect(init.status).toBe(200);
    expect(init.headers['access-control-allow-origin']).toBe(APP);
    expect(init.headers['access-control-expose-headers']?.split(/,\s*/)).toContain('mcp-session-id');
    expect(init.headers['mcp-session-id']).toEqual(expect.any(String));
    await init.ended;
    const missing = await send(url, 'POST', { ...POST_HEADERS, origin: APP, 'mcp-session-id': 'nope' }, { jsonrpc: '2.0', id: 1, method: 'ping' });
    await expectError(missing, 404, -32031, SESSION_NOT_FOUND);
    expect(missing.headers['access-control-allow-origin']).toBe(APP);
    expect(missing.headers['access-control-expose-headers']?.split(/,\s*/)).toContain('mcp-session-id');
  });

  it("with origins '*' allows any origin", async () => {
    const { url } = await start({ cors: { origins: '*' } });
    const preflight = await send(url, 'OPTIONS', { origin: 'https://anywhere.example.org', 'access-control-request-method': 'POST' });
    const init = await send(url, 'POST', { ...POST_HEADERS, origin: 'https://anywhere.example.org' }, initializeMessage());
    await Promise.all([preflight.ended, init.ended]);
    expect([preflight.status, preflight.headers['access-control-allow-origin']]).toEqual([204, '*']);
    expect([init.status, init.headers['access-control-allow-origin']]).toEqual([200, '*']);
  });

  it('answers a preflight from an origin CORS does not allow with 403', async () => {
    const { url } = await start({ cors: { origins: [APP] } });
    const res = await send(url, 'OPTIONS', { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' });
    await expectError(res, 403, -32030, 'Forbidden: Origin https://evil.example.com is not allowed');
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers OPTIONS with 405 and an Allow header when CORS is off', async () => {
    const { url } = await start();
    const res = await send(url, 'OPTIONS', { 'access-control-request-method': 'POST' });
    await expectError(res, 405, -32030, 'Method Not Allowed: CORS is not enabled on this endpoint');
    expect(res.headers.allow).toEqual(expect.any(String));
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers a preflight without credentials when auth is on', async () => {
    const { url } = await start({ cors: { origins: [APP] }, auth: () => undefined });
    const res = await send(url, 'OPTIONS', { origin: APP, 'access-control-request-method': 'POST' });
    await res.ended;
    expect({ status: res.status, origin: res.headers['access-control-allow-origin'] }).toEqual({ status: 204, origin: APP });
  });
});

describe('auth', () => {
  const TOKENS: Record<string, { id: string; name: string }> = {
    'Bearer alice-token': { id: 'alice', name: 'Alice' },
    'Bearer bob-token': { id: 'bob', name: 'Bob' },
  };
  const auth = (req: IncomingMessage) => TOKENS[req.headers.authorization ?? ''];

  it('answers a request the auth hook rejects with 401 and WWW-Authenticate: Bearer realm="mcp"', async () => {
    const { server, url } = await start({ auth });
    for (const headers of [POST_HEADERS, { ...POST_HEADERS, authorization: 'Bearer wrong' }]) {
      const res = await send(url, 'POST', headers, initializeMessage());
      await expectError(res, 401, -32030, 'Unauthorized: send valid credentials');
      expect(res.headers['www-authenticate']).toBe('Bearer realm="mcp"');
    }
    expect(server.sessions.size).toBe(0);
  });

  it('sends the authChallenge option as WWW-Authenticate', async () => {
    const challenge = 'Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource"';
    const { url } = await start({ auth, authChallenge: challenge });
    const res = await send(url, 'GET', { accept: 'text/event-stream' });
    await expectError(res, 401, -32030, 'Unauthorized: send valid credentials');
    expect(res.headers['www-authenticate']).toBe(challenge);
  });

  it('keeps the principal on session.principal, also from an async hook', async () => {
    const opened: McpSession[] = [];
    const { url } = await start({ auth: async (req) => auth(req) }, (server) => server.on('sessionNew', (s) => void opened.push(s)));
    const client = await ready(url, {}, { authorization: 'Bearer alice-token' });
    expect(opened.map((s) => [s.id, s.principal])).toEqual([[client.sessionId, { id: 'alice', name: 'Alice' }]]);
    const res = await client.request('ping', undefined, 1, { authorization: 'Bearer alice-token' });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, result: {} } });
  });

  it("answers another principal's POST, GET and DELETE on a session with 404, leaving the session to its owner", async () => {
    const { server, url } = await start({ auth });
    const alice = await ready(url, {}, { authorization: 'Bearer alice-token' });
    const bob = { authorization: 'Bearer bob-token' };
    await expectError(await alice.request('ping', undefined, 1, bob), 404, -32031, SESSION_NOT_FOUND);
    await expectError(await alice.get(bob), 404, -32031, SESSION_NOT_FOUND);
    await expectError(await alice.delete(bob), 404, -32031, SESSION_NOT_FOUND);
    expect(server.sessions.has(alice.sessionId!)).toBe(true);
    const res = await alice.request('ping', undefined, 2, { authorization: 'Bearer alice-token' });
    expect({ status: res.status, body: await res.json() }).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 2, result: {} } });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 6. Events

describe('events', () => {
  it('stops dispatch when an httpRequest listener answers res, before any check', async () => {
    const seen: string[] = [];
    const { url, server } = await start({}, (_server, transport) =>
      transport.on('httpRequest', (req, res) => {
        seen.push(`${req.method} ${req.url}`);
        if (req.headers['x-probe']) res.writeHead(200, { 'content-type': 'text/plain' }).end('alive');
      }),
    );
    // No Accept and a foreign Origin: Switchboard would answer 403; the listener answers first.
    const res = await send(url, 'GET', { 'x-probe': '1', origin: 'https://evil.example.com' });
    await res.ended;
    expect({ status: res.status, body: res.body, contentType: res.headers['content-type'] }).toEqual({ status: 200, body: 'alive', contentType: 'text/plain' });
    expect(seen).toEqual(['GET /mcp']);
    expect(server.sessions.size).toBe(0);
  });

  it('stops dispatch when an httpRequest listener sets control.handled and answers later', async () => {
    const { url, server } = await start({}, (_server, transport) =>
      transport.on('httpRequest', (req, res, control) => {
        if (!req.headers['x-custom']) return;
        control.handled = true;
        setTimeout(() => res.writeHead(418, { 'content-type': 'text/plain' }).end('custom'), 5);
      }),
    );
    const res = await send(url, 'POST', { ...POST_HEADERS, 'x-custom': '1' }, initializeMessage());
    await res.ended;
    expect({ status: res.status, body: res.body }).toEqual({ status: 418, body: 'custom' });
    expect(server.sessions.size).toBe(0);
  });

  it('dispatches as usual when httpRequest listeners leave the request alone', async () => {
    const seen: [string | undefined, string | undefined, boolean][] = [];
    const { url } = await start({}, (_server, transport) =>
      transport.on('httpRequest', (req, _res, control) => void seen.push([req.method, req.url, control.handled])),
    );
    const client = await ready(url);
    expect(client.sessionId).toEqual(expect.any(String));
    expect(seen).toEqual([
      ['POST', '/mcp', false],
      ['POST', '/mcp', false],
    ]);
  });

  it('fires httpResponse after each response, with its status, after httpRequest', async () => {
    const log: string[] = [];
    const { url } = await start({}, (_server, transport) => {
      transport.on('httpRequest', (req) => void log.push(`request ${req.method}`));
      transport.on('httpResponse', (req, res) => void log.push(`response ${req.method} ${res.statusCode}`));
    });
    const init = await send(url, 'POST', POST_HEADERS, initializeMessage());
    await init.ended;
    await expect.poll(() => log, { timeout: 5000 }).toEqual(['request POST', 'response POST 200']);
    const missing = await send(url, 'DELETE', { 'mcp-session-id': 'nope' });
    await missing.ended;
    await expect.poll(() => log, { timeout: 5000 }).toEqual(['request POST', 'response POST 200', 'request DELETE', 'response DELETE 404']);
    // Refusals before any MCP handling too: a Host the server does not answer to, a path that is not the endpoint.
    const rebound = await send(url, 'POST', { ...POST_HEADERS, host: 'evil.example' }, initializeMessage());
    await rebound.ended;
    const elsewhere = await send(url.replace('/mcp', '/other'), 'GET', {});
    await elsewhere.ended;
    await expect.poll(() => log.slice(4), { timeout: 5000 }).toEqual(['request POST', 'response POST 403', 'request GET', 'response GET 404']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// 7. Use

describe('use', () => {
  it('listen() serves the endpoint at /mcp on 127.0.0.1 and answers other paths with 404', async () => {
    const { url, port, base } = await start();
    expect(url).toBe(`http://127.0.0.1:${port}/mcp`);
    await expectError(await send(`${base}/other`, 'POST', POST_HEADERS, initializeMessage()), 404, -32030, 'Not Found: the MCP endpoint is /mcp');
    await expectError(await send(`${base}/`, 'GET', { accept: 'text/event-stream' }), 404, -32030, 'Not Found: the MCP endpoint is /mcp');
    const ok = await send(`${base}/mcp?x=1`, 'POST', POST_HEADERS, initializeMessage());
    expect(ok.status).toBe(200);
    await ok.ended;
  });

  it('listen() serves a request whose target is in absolute form (RFC 9112 3.2.2)', async () => {
    const { url, port } = await start();
    const res = await new Promise<OpenResponse>((resolve, reject) => {
      const payload = JSON.stringify(initializeMessage());
      const req = httpRequest(
        { host: '127.0.0.1', port, method: 'POST', path: url, headers: { ...POST_HEADERS, 'content-length': String(Buffer.byteLength(payload)) } },
        (response) => resolve(new OpenResponse(response)),
      );
      req.on('error', reject);
      req.end(payload);
    });
    expect({ status: res.status, protocolVersion: (await res.json()).result?.protocolVersion }).toEqual({ status: 200, protocolVersion: '2025-11-25' });
  });

  it('listen() serves the path option and nothing else', async () => {
    const { url, port, base } = await start({ path: '/rpc' });
    expect(url).toBe(`http://127.0.0.1:${port}/rpc`);
    await expectError(await send(`${base}/mcp`, 'POST', POST_HEADERS, initializeMessage()), 404, -32030, 'Not Found: the MCP endpoint is /rpc');
    const client = await ready(url);
    expect(await ping(client)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
  });

  it('the handler serves MCP mounted in a node:http server of your own, next to a /health route', async () => {
    const { server } = newServer();
    const transport = new StreamableHttpTransport(server);
    const http = createServer((req: IncomingMessage, res: ServerResponse) => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname;
      if (path === '/health') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      if (path === '/mcp') return transport.handler(req, res);
      res.writeHead(404, { 'content-type': 'text/plain' }).end('nothing here');
    });
    const port = await listenOnLoopback(cleanups, http);
    expect(transport.httpServer).toBeUndefined();

    const health = await send(`http://127.0.0.1:${port}/health`, 'GET');
    await health.ended;
    expect({ status: health.status, body: health.body }).toEqual({ status: 200, body: 'ok' });

    const client = await ready(`http://127.0.0.1:${port}/mcp`);
    expect(client.sessionId).toMatch(/^[\x21-\x7e]+$/);
    const call = await client.request('tools/call', { name: 'plain' }, 1);
    expect({ status: call.status, contentType: call.headers['content-type'], body: await call.json() }).toEqual({
      status: 200,
      contentType: 'application/json',
      body: textResult(1, 'plain'),
    });
    // The security checks apply to the mounted handler too.
    await expectError(
      await send(`http://127.0.0.1:${port}/mcp`, 'POST', { ...POST_HEADERS, host: 'evil.example.com' }, initializeMessage()),
      403,
      -32030,
      'Forbidden: Host evil.example.com is not allowed',
    );
  });

  it("a failure in the transport, thrown at once or after auth's wait, is answered 500 and reported; the next request is served", async () => {
    const errors: string[] = [];
    const broken = (auth: StreamableHttpTransportOptions['auth']) => {
      const { server } = newServer();
      server.on('error', (err) => void errors.push((err as Error).message));
      return new StreamableHttpTransport(server, auth ? { auth } : {});
    };
    // At once: reading the request's headers throws before anything waits (nothing makes a promise on this
    // path); node itself reads them no more once it has emitted the request.
    const plain = broken(undefined);
    // After a wait: the authenticator fails with something that is not a refusal.
    const authed = broken(async (req) => {
      if (req.headers['x-fail'] !== undefined) throw new Error('authenticator broke');
      return { subject: 'alice' };
    });
    const http = createServer((req: IncomingMessage, res: ServerResponse) => {
      const transport = req.url === '/authed' ? authed : plain;
      if (req.headers['x-broken-headers'] !== undefined) {
        Object.defineProperty(req, 'headers', {
          get() {
            throw new Error('headers unreadable');
          },
        });
      }
      return transport.handler(req, res);
    });
    const port = await listenOnLoopback(cleanups, http);
    const internal = { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null };
    for (const [path, headers, message] of [
      ['/mcp', { 'x-broken-headers': '1' }, 'headers unreadable'],
      ['/authed', { 'x-fail': '1' }, 'authenticator broke'],
    ] as const) {
      const res = await send(`http://127.0.0.1:${port}${path}`, 'POST', { ...POST_HEADERS, ...headers }, initializeMessage());
      expect({ status: res.status, body: await res.json() }).toEqual({ status: 500, body: internal });
      expect(errors.pop()).toBe(message);
    }
    const client = await ready(`http://127.0.0.1:${port}/mcp`);
    expect(await ping(client)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
    expect(errors).toEqual([]);
  });

  it('a WebSocketTransport attached to transport.httpServer serves WebSocket on the same port and path', async () => {
    const opened: string[] = [];
    const { server, transport, url, port } = await start({}, (server) => server.on('sessionNew', (s) => void opened.push(s.transport)));
    expect(transport.httpServer).toBeDefined();
    new WebSocketTransport(server).attach(transport.httpServer!);
    const ws = await WsTestClient.connect(`ws://127.0.0.1:${port}/mcp`);
    cleanups.push(() => ws.close());
    const result = await ws.initialize();
    expect(result.serverInfo).toEqual(TEST_SERVER_INFO);
    expect(await ws.request('tools/call', { name: 'plain' }, 'w1')).toEqual(textResult('w1', 'plain'));

    const client = await ready(url);
    expect(await ping(client)).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 'ping', result: {} } });
    expect(opened.sort()).toEqual(['http', 'websocket']);
  });
});

// ---------------------------------------------------------------------------------------------------------
// 8. Options

describe('options', () => {
  const invalid: [string, unknown][] = [
    ['path without a leading slash', { path: 'mcp' }],
    ["responseMode 'xml'", { responseMode: 'xml' }],
    ['replyStatus 200', { replyStatus: 200 }],
    ['maxMessageBytes 0', { maxMessageBytes: 0 }],
    ['maxMessageBytes 1.5', { maxMessageBytes: 1.5 }],
    ['sessionIdleTimeoutMs -1', { sessionIdleTimeoutMs: -1 }],
    ['sessionIdleTimeoutMs NaN', { sessionIdleTimeoutMs: Number.NaN }],
    ['maxSessions 0', { maxSessions: 0 }],
    ["onSessionLimit 'drop'", { onSessionLimit: 'drop' }],
    ['retryMs 0', { retryMs: 0 }],
    ['maxBufferedBytes 0', { maxBufferedBytes: 0 }],
    ['maxBufferedBytes 1.5', { maxBufferedBytes: 1.5 }],
    ['keepAliveIntervalMs -5', { keepAliveIntervalMs: -5 }],
    ['auth that is not a function', { auth: 'secret' }],
    ['allowedOrigins a string other than *', { allowedOrigins: 'https://app.example.com' }],
    ['allowedHosts a string', { allowedHosts: 'mcp.example.com' }],
    ['cors without origins', { cors: {} }],
    ['cors.maxAgeSeconds -1', { cors: { origins: '*', maxAgeSeconds: -1 } }],
  ];

  it.each(invalid)('throws TypeError at construction for %s', (_name, options) => {
    const { server } = newServer();
    expect(() => new StreamableHttpTransport(server, options as StreamableHttpTransportOptions)).toThrow(TypeError);
  });

  it('names maxBufferedBytes when it is not a positive integer', () => {
    const { server } = newServer();
    expect(() => new StreamableHttpTransport(server, { maxBufferedBytes: 0 })).toThrow(
      new TypeError('Option maxBufferedBytes must be a positive integer; got 0'),
    );
  });

  it('constructs with valid non-default options', () => {
    const { server } = newServer();
    const transport = new StreamableHttpTransport(server, {
      path: '/rpc',
      responseMode: 'sse',
      replyStatus: 202,
      maxMessageBytes: 1024,
      sessionIdleTimeoutMs: 1000,
      maxSessions: 5,
      onSessionLimit: 'reject',
      allowedOrigins: ['https://a.example'],
      allowedHosts: ['a.example'],
      cors: { origins: '*', maxAgeSeconds: 10 },
      auth: () => ({ id: 'x' }),
      keepAliveIntervalMs: 0,
    });
    expect(transport.path).toBe('/rpc');
  });
});
