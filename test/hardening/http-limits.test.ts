/**
 * What a hostile Streamable HTTP client could do before the limits held by default: batches that make
 * the server build an answer of any size, requests in flight without end, a request target that killed
 * the demo, silent and half-sent connections kept forever by listen() servers, an SSE event store that
 * grew without bound, and a newcomer at the session limit evicting somebody else's sessions.
 * Real sockets on loopback; every wait is bounded, so a regression fails instead of hanging.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import {
  InMemoryEventStore,
  McpServer,
  type McpServerOptions,
  type StoredEvent,
  StreamableHttpTransport,
  type StreamableHttpTransportOptions,
  WebSocketTransport,
} from '../../src/index.js';
import { textResult } from '../helpers/client-requests.js';
import { ACCEPT_BOTH, HttpTestClient, type OpenResponse, type SseEvent, send } from '../helpers/http-client.js';
import { nextEvent } from '../helpers/server-events.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { type RunningHttp, startHttp } from '../helpers/servers.js';
import { within } from '../helpers/waits.js';
import { type Json, WsTestClient } from '../helpers/ws-client.js';

const cleanups = useCleanups();

const MiB = 1024 * 1024;
/** How long a test waits for what the fixed server does at once (or after a timeout of a few hundred ms). */
const BOUND_MS = 3000;

// ---------------------------------------------------------------------------------------------------------
// Fixtures

function errorBody(code: number, message: string): Json {
  return { jsonrpc: '2.0', error: { code, message }, id: null };
}

/** Status and JSON body of a whole response. */
async function reply(res: OpenResponse | Promise<OpenResponse>): Promise<{ status: number; body: Json }> {
  const r = await res;
  return { status: r.status, body: await r.json() };
}

const PONG = (id: string | number) => ({ status: 200, body: { jsonrpc: '2.0', id, result: {} } });

async function ping(client: HttpTestClient, id: string | number, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  return reply(client.request('ping', undefined, id, headers));
}

/** A client at `url` that completed initialize (at `protocolVersion`), sending `headers` with it. */
async function initialized(url: string, protocolVersion = '2025-11-25', headers: Record<string, string> = {}): Promise<HttpTestClient> {
  const client = new HttpTestClient(url);
  await client.initialize({ protocolVersion }, headers);
  return client;
}

function initializeMessage(): Json {
  return {
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1.0.0' } },
  };
}

const POST_HEADERS = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };

const AT_LIMIT = (n: number) => errorBody(-32030, `Service Unavailable: the server is at its limit of ${n} sessions; try again later`);
const EVICTED = 'evicted: the server reached its session limit';

/** Every sessionEnd from now on, as [session id, reason]. */
function recordEnds(server: McpServer): [string, string][] {
  const ends: [string, string][] = [];
  server.on('sessionEnd', (session, reason) => void ends.push([session.id, reason]));
  return ends;
}

/** A raw TCP connection: what it received, and when the server closed it. */
interface RawConnection {
  readonly socket: Socket;
  /** Resolves with what arrives from now on, once it ends with `tail`. */
  receive(tail: string): Promise<string>;
  /** Resolves with everything received once the server closed the connection. */
  readonly closed: Promise<string>;
}

/** A bare TCP connection to 127.0.0.1:`port`, from the loopback address `from`. */
function rawConnect(port: number, from = '127.0.0.1'): Promise<RawConnection> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: from });
    cleanups.push(() => socket.destroy());
    socket.setEncoding('utf8');
    let text = '';
    let waiters: { from: number; tail: string; resolve: (received: string) => void }[] = [];
    socket.on('data', (chunk: string) => {
      text += chunk;
      const done = waiters.filter((w) => text.slice(w.from).endsWith(w.tail));
      waiters = waiters.filter((w) => !done.includes(w));
      for (const w of done) w.resolve(text.slice(w.from));
    });
    // A reset after the server's close is a close too: the test asserts what arrived before it.
    socket.on('error', () => {});
    const closed = new Promise<string>((done) => socket.on('close', () => done(text)));
    socket.once('connect', () =>
      resolve({
        socket,
        receive: (tail) => new Promise((r) => void waiters.push({ from: text.length, tail, resolve: r })),
        closed,
      }),
    );
    socket.once('error', reject);
  });
}

/** The status line, the headers (lower-cased names) and the body of one raw HTTP/1.1 answer. */
function parseAnswer(raw: string): { statusLine: string; headers: Record<string, string>; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { statusLine, headers, body: raw.slice(end + 4) };
}

const NOT_FOUND_BODY = JSON.stringify(errorBody(-32030, 'Not Found: the MCP endpoint is /mcp'));

// ---------------------------------------------------------------------------------------------------------
// 1. Batches

describe('batches on a 2025-03-26 session', () => {
  const batchOf = (n: number) =>
    Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'count', arguments: {} } }));

  it('refuse a batch over maxBatchSize (default 100) whole with 400 and -32600, running none of it; a batch of 100 gets 100 answers', async () => {
    let calls = 0;
    const { url } = await startHttp(cleanups, (server) => server.registerTool('count', {}, () => (calls++, 'counted')));
    const client = await initialized(url, '2025-03-26');

    expect(await reply(client.post(batchOf(101)))).toEqual({
      status: 400,
      body: errorBody(-32600, 'Invalid Request: a batch of 101 messages is over the limit of 100; send smaller batches'),
    });
    expect(calls).toBe(0);

    expect(await reply(client.post(batchOf(100)))).toEqual({ status: 200, body: batchOf(100).map(({ id }) => textResult(id, 'counted')) });
    expect(calls).toBe(100);
  });

  it('take their limit from the McpServer option maxBatchSize', async () => {
    let calls = 0;
    const { url } = await startHttp(cleanups, (server) => server.registerTool('count', {}, () => (calls++, 'counted')), { server: { maxBatchSize: 3 } });
    const client = await initialized(url, '2025-03-26');

    expect(await reply(client.post(batchOf(4)))).toEqual({
      status: 400,
      body: errorBody(-32600, 'Invalid Request: a batch of 4 messages is over the limit of 3; send smaller batches'),
    });
    expect(calls).toBe(0);
    expect(await reply(client.post(batchOf(3)))).toEqual({ status: 200, body: batchOf(3).map(({ id }) => textResult(id, 'counted')) });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 2. Requests in flight

describe('requests in flight on one session', () => {
  const TOO_MANY = (max: number) => errorBody(-32011, `Too many requests in flight: this session has ${max} unanswered; wait for answers before sending more`);

  /** A server whose `block` tool waits for `release()`; `started()` counts the calls that began. */
  async function blocking(server: McpServerOptions = {}) {
    const release = deferred();
    let started = 0;
    const running = await startHttp(
      cleanups,
      (s) =>
        s.registerTool('block', {}, async () => {
          started++;
          await release.promise;
          return 'released';
        }),
      { server },
    );
    cleanups.push(() => release.resolve());
    const startedAll = (n: number) => vi.waitFor(() => expect(started).toBe(n), { timeout: BOUND_MS, interval: 5 });
    return { ...running, release: () => release.resolve(), started: () => started, startedAll };
  }

  const block = (client: HttpTestClient, id: number) => client.request('tools/call', { name: 'block', arguments: {} }, id);

  it('answer the 101st with HTTP 429 and -32011 without running it, and answer again once the others end', async () => {
    const { url, release, started, startedAll } = await blocking();
    const client = await initialized(url);
    const calls = Array.from({ length: 100 }, (_, i) => block(client, i + 1));
    await startedAll(100);

    expect(await within(reply(block(client, 101)), BOUND_MS, 'an answer to the 101st request')).toEqual({ status: 429, body: TOO_MANY(100) });
    expect(started()).toBe(100);

    release();
    expect(await Promise.all(calls.map((c) => reply(c)))).toEqual(
      Array.from({ length: 100 }, (_, i) => ({ status: 200, body: textResult(i + 1, 'released') })),
    );
    expect(await ping(client, 'after')).toEqual(PONG('after'));
  });

  it('take their limit from the McpServer option maxRequestsInFlight, counting every request and a batch as its members', async () => {
    const { url, release, started, startedAll } = await blocking({ maxRequestsInFlight: 2 });
    const client = await initialized(url, '2025-03-26');
    const batch = [1, 2, 3].map((id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'block', arguments: {} } }));
    expect(await within(reply(client.post(batch)), BOUND_MS, 'an answer to a batch of 3')).toEqual({ status: 429, body: TOO_MANY(2) });
    expect(started()).toBe(0);

    const calls = [block(client, 4), block(client, 5)];
    await startedAll(2);
    expect(await within(ping(client, 'over'), BOUND_MS, 'an answer to the ping')).toEqual({ status: 429, body: TOO_MANY(2) });

    release();
    expect(await Promise.all(calls.map((c) => reply(c)))).toEqual([
      { status: 200, body: textResult(4, 'released') },
      { status: 200, body: textResult(5, 'released') },
    ]);
    expect(await ping(client, 'after')).toEqual(PONG('after'));
  });
});

// ---------------------------------------------------------------------------------------------------------
// 3. The demo

describe('the demo server (npm start)', () => {
  const root = fileURLToPath(new URL('../..', import.meta.url));

  /** `demo/server.ts` in a child process on a free port, stopped after the test. */
  async function startDemo(): Promise<{ demo: ChildProcess; port: number }> {
    const demo = spawn(fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url)), ['demo/server.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolve) => demo.once('exit', resolve));
    cleanups.push(async () => {
      if (demo.exitCode !== null || demo.signalCode !== null) return;
      demo.kill('SIGTERM');
      await exited;
    });
    const port = await within(
      new Promise<number>((resolve, reject) => {
        let out = '';
        demo.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /Switchboard console: http:\/\/127\.0\.0\.1:(\d+)\//.exec(out);
          if (match) resolve(Number(match[1]));
        });
        demo.once('exit', (code) => reject(new Error(`the demo exited with ${code}: ${out}`)));
      }),
      10_000,
      'the demo to listen',
    );
    return { demo, port };
  }

  it("answers the request target '//[' with 404, stays up, and serves an initialize afterwards", async () => {
    const { demo, port } = await startDemo();
    const raw = await rawConnect(port);
    raw.socket.write(`GET //[ HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`);
    const answer = parseAnswer(await within(raw.closed, BOUND_MS, 'the answer to GET //['));
    expect({ statusLine: answer.statusLine, contentType: answer.headers['content-type'], body: answer.body }).toEqual({
      statusLine: 'HTTP/1.1 404 Not Found',
      contentType: 'application/json',
      body: NOT_FOUND_BODY,
    });
    expect({ exitCode: demo.exitCode, signal: demo.signalCode }).toEqual({ exitCode: null, signal: null });

    const client = new HttpTestClient(`http://127.0.0.1:${port}/mcp`);
    expect((await within(client.initialize(), BOUND_MS, 'initialize after GET //[')).serverInfo).toEqual({
      name: 'switchboard-demo',
      version: '0.1.0',
      title: 'Switchboard demo',
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 4. Connections to servers from listen()

describe('servers from StreamableHttpTransport.listen()', () => {
  const absentRequest = (port: number) => `GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`;

  it("hold limits without options: headers in 10 s, a request in 30 s, keep-alive 5 s, and no cap of Node's own on connections", async () => {
    const { transport } = await startHttp(cleanups);
    const http = transport.httpServer!;
    expect({
      maxConnections: http.maxConnections,
      headersTimeout: http.headersTimeout,
      requestTimeout: http.requestTimeout,
      keepAliveTimeout: http.keepAliveTimeout,
    }).toEqual({ maxConnections: undefined, headersTimeout: 10_000, requestTimeout: 30_000, keepAliveTimeout: 5_000 });
  });

  it('refuse an option they do not take with a TypeError, naming what a removed one is now', async () => {
    const server = new McpServer({ name: 'limits', version: '1.0.0' });
    const transport = new StreamableHttpTransport(server);
    const takes =
      'it takes host, port, maxConnections, maxConnectionsPerClient, firstByteTimeoutMs, httpHeadersTimeoutMs, httpRequestTimeoutMs, httpKeepAliveTimeoutMs, health';
    for (const [old, now] of [
      ['requestTimeoutMs', 'httpRequestTimeoutMs'],
      ['headersTimeoutMs', 'httpHeadersTimeoutMs'],
      ['keepAliveTimeoutMs', 'httpKeepAliveTimeoutMs'],
      ['idleTimeoutMs', 'firstByteTimeoutMs (a connection that sends nothing is closed after it)'],
    ]) {
      await expect(transport.listen({ [old]: 1000 } as never)).rejects.toThrow(new TypeError(`listen() has no option ${old} (it is ${now}); ${takes}`));
    }
    await expect(transport.listen({ requestTimeout: 1000 } as never)).rejects.toThrow(new TypeError(`listen() has no option requestTimeout; ${takes}`));
    await expect(new WebSocketTransport(server).listen({ keepAliveTimeoutMs: 1000 } as never)).rejects.toThrow(
      new TypeError(`listen() has no option keepAliveTimeoutMs (it is httpKeepAliveTimeoutMs); ${takes}`),
    );
    await expect(transport.listen({ httpHeadersTimeoutMs: 2000, httpRequestTimeoutMs: 1000 })).rejects.toThrow(
      new TypeError('Option httpHeadersTimeoutMs (2000) must not exceed httpRequestTimeoutMs (1000)'),
    );
    await server.close();
  });

  it('close a connection that sends no byte within firstByteTimeoutMs, but not one that has begun its request or whose request is under way', async () => {
    const { server, url, port } = await startHttp(cleanups, undefined, { listen: { firstByteTimeoutMs: 100, httpHeadersTimeoutMs: 2000 } });
    const client = await initialized(url);
    const stream = await client.get();
    expect(stream.status).toBe(200);

    const begun = await rawConnect(port);
    begun.socket.write('GET /elsewhere HTTP/1.1\r\n');
    const silent = await rawConnect(port);
    expect(await within(silent.closed, BOUND_MS, 'the server to close the silent connection')).toBe('');
    // The one that began its request is left to the header timeout: it can still finish it.
    const answer = begun.receive(NOT_FOUND_BODY);
    begun.socket.write(`Host: 127.0.0.1:${port}\r\n\r\n`);
    expect(parseAnswer(await within(answer, BOUND_MS, 'an answer to the finished request')).statusLine).toBe('HTTP/1.1 404 Not Found');

    // The GET stream has been open longer than firstByteTimeoutMs by now: it still carries what the server sends.
    server.registerTool('late', {}, () => 'late');
    expect((await stream.nextEvent()).message).toEqual({ jsonrpc: '2.0', method: 'notifications/tools/list_changed' });
    stream.abort();
  });

  it('answer a connection whose headers stop coming with 408 once httpHeadersTimeoutMs has passed, and close it', async () => {
    const { port } = await startHttp(cleanups, undefined, { listen: { httpHeadersTimeoutMs: 200, httpRequestTimeoutMs: 400 } });
    const raw = await rawConnect(port);
    raw.socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\n`);
    expect(await within(raw.closed, BOUND_MS, 'the server to give up on the headers')).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  });

  it('answer a request whose body stops coming with 408 once httpRequestTimeoutMs has passed, and close it', async () => {
    const { port } = await startHttp(cleanups, undefined, { listen: { httpHeadersTimeoutMs: 200, httpRequestTimeoutMs: 400 } });
    const raw = await rawConnect(port);
    raw.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
    );
    expect(await within(raw.closed, BOUND_MS, 'the server to give up on the body')).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  });

  it('fire no error event for a client that goes away in the middle of its body', async () => {
    const { server, transport, port } = await startHttp(cleanups);
    const errors: unknown[] = [];
    server.on('error', (err) => void errors.push(err));
    const done = new Promise<void>((resolve) => transport.once('httpResponse', () => setTimeout(resolve, 10)));
    const raw = await rawConnect(port);
    raw.socket.write(
      `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: application/json, text/event-stream\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"jsonrpc":`,
    );
    raw.socket.destroy();
    await within(done, BOUND_MS, 'the request to end');
    expect(errors).toEqual([]);
  });

  it("close a kept-alive connection that sends no next request once httpKeepAliveTimeoutMs (and Node's 1 s grace) has passed", async () => {
    const { port } = await startHttp(cleanups, undefined, { listen: { httpKeepAliveTimeoutMs: 100 } });
    const raw = await rawConnect(port);
    raw.socket.write(absentRequest(port));
    const answer = parseAnswer(await within(raw.closed, BOUND_MS, 'the server to close the kept-alive connection'));
    expect({ statusLine: answer.statusLine, connection: answer.headers.connection, keepAlive: answer.headers['keep-alive'], body: answer.body }).toEqual({
      statusLine: 'HTTP/1.1 404 Not Found',
      connection: 'keep-alive',
      keepAlive: 'timeout=0',
      body: NOT_FOUND_BODY,
    });
  });

  /** What a connection refused at arrival receives before the server closes it. */
  const refusal = (message: string) =>
    `HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${message.length + 1}\r\n\r\n${message}\n`;

  /** Connections that have each had an answer: the server has counted them, and they are not silent. */
  async function answered(port: number, count: number, from = '127.0.0.1'): Promise<RawConnection[]> {
    const open: RawConnection[] = [];
    for (let n = 0; n < count; n++) {
      const raw = await rawConnect(port, from);
      const answer = raw.receive(NOT_FOUND_BODY);
      raw.socket.write(absentRequest(port));
      await within(answer, BOUND_MS, 'an answer on an open connection');
      open.push(raw);
    }
    return open;
  }

  it("at a client's share answer its next connection 503 and close it when every one it holds has sent something, while those keep being served", async () => {
    const { port } = await startHttp(cleanups, undefined, { listen: { maxConnectionsPerClient: 2 } });
    const open = await answered(port, 2);

    const third = await rawConnect(port);
    expect(await within(third.closed, BOUND_MS, 'the server to refuse the connection over the share')).toBe(
      refusal('Too many connections from your address (limit 2); close some and try again'),
    );
    // Another address has a share of its own.
    expect((await answered(port, 1, '127.0.0.2')).length).toBe(1);

    for (const raw of open) {
      const answer = raw.receive(NOT_FOUND_BODY);
      raw.socket.write(absentRequest(port));
      expect(parseAnswer(await within(answer, BOUND_MS, 'a second answer on an open connection')).statusLine).toBe('HTTP/1.1 404 Not Found');
    }
  });

  it('at maxConnections answer a newcomer 503 and close it when every open connection has sent something', async () => {
    const { port } = await startHttp(cleanups, undefined, { listen: { maxConnections: 2, maxConnectionsPerClient: 2 } });
    await answered(port, 2, '127.0.0.2');
    const refused = await rawConnect(port);
    expect(await within(refused.closed, BOUND_MS, 'the server to refuse the connection over the limit')).toBe(
      refusal('The server is at its limit of 2 connections; try again later'),
    );
  });

  it("let a newcomer at a limit displace the connection unused longest, one that sent nothing first: its client's own at its share, anyone's at maxConnections", async () => {
    const listen = { maxConnections: 4, maxConnectionsPerClient: 2, firstByteTimeoutMs: 2000, httpHeadersTimeoutMs: 4000 };
    const { url, port } = await startHttp(cleanups, undefined, { listen });
    // Only Date is faked: the budget reads how long a connection has been unused from it, sockets run as ever.
    vi.useFakeTimers({ toFake: ['Date'] });
    cleanups.push(() => vi.useRealTimers());
    const later = (ms: number) => vi.setSystemTime(Date.now() + ms);
    const [oldest, younger] = [await rawConnect(port, '127.0.0.2'), await rawConnect(port, '127.0.0.2')];
    younger.socket.write('G');
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Still fresh: a newcomer is refused rather than displacing a connection that may be about to speak.
    const early = await rawConnect(port, '127.0.0.2');
    expect(await within(early.closed, BOUND_MS, 'the server to refuse the early newcomer')).toBe(
      refusal('Too many connections from your address (limit 2); close some and try again'),
    );
    later(600);
    const third = await rawConnect(port, '127.0.0.2');
    // Both have been unused 600 ms (over a fifth of firstByteTimeoutMs): the silent one goes first, unanswered.
    expect(await within(oldest.closed, BOUND_MS, 'the oldest silent connection to be displaced')).toBe('');
    expect({ younger: younger.socket.destroyed, third: third.socket.destroyed }).toEqual({ younger: false, third: false });

    // The server is full now (two from 127.0.0.2, two from 127.0.0.3); a client with nothing open still gets in.
    const others = [await rawConnect(port, '127.0.0.3'), await rawConnect(port, '127.0.0.3')];
    later(600);
    const client = await initialized(url);
    expect(client.sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(await within(third.closed, BOUND_MS, 'the oldest silent connection of all to be displaced')).toBe('');
    expect({ younger: younger.socket.destroyed, others: others.map((raw) => raw.socket.destroyed) }).toEqual({ younger: false, others: [false, false] });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 5. The SSE event store

/** What an InMemoryEventStore charges `event` toward its limits. */
function costOf(event: StoredEvent): number {
  const store = new InMemoryEventStore();
  store.append('s', '1', event);
  return store.keptSize;
}

describe('InMemoryEventStore, bounded by size', () => {
  /** What the store charges an event beyond the bytes of its id and data (test/transports/event-store.test.ts pins it). */
  const OVERHEAD = costOf({ eventId: '', data: '' });

  /** An event that costs the store `cost` bytes: its id, its data and the overhead. */
  function event(eventId: string, cost: number): StoredEvent {
    return { eventId, data: 'x'.repeat(cost - OVERHEAD - eventId.length) };
  }

  const ids = (events: StoredEvent[]) => events.map((e) => e.eventId);

  it('counts bytes of UTF-8, not characters: 40 euro signs are 120 bytes, beside the 3 of their id and the overhead', () => {
    const euros = (eventId: string): StoredEvent => ({ eventId, data: '€'.repeat(40) });
    const cost = 120 + 3 + OVERHEAD;
    expect(costOf(euros('1_1'))).toBe(cost);
    const store = new InMemoryEventStore({ maxBytesPerSession: 2 * cost - 1 });
    store.append('s', '1', euros('1_1'));
    store.append('s', '1', euros('1_2'));
    expect({ kept: store.keptSize, replay: ids(store.replayAfter('s', '1', '1_0')) }).toEqual({ kept: cost, replay: ['1_2'] });
  });

  it('drops the oldest events of a session first, across its streams, once it is over maxBytesPerSession', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 1000 });
    const sizes: number[] = [];
    store.append('s', '1', event('1_1', 400));
    store.append('s', '2', event('2_1', 400));
    sizes.push(store.keptSize);
    store.append('s', '1', event('1_2', 400));
    sizes.push(store.keptSize);
    store.append('s', '2', event('2_2', 300));
    sizes.push(store.keptSize);
    expect(sizes).toEqual([800, 800, 700]);
    expect({ one: ids(store.replayAfter('s', '1', '1_0')), two: ids(store.replayAfter('s', '2', '2_0')) }).toEqual({ one: ['1_2'], two: ['2_2'] });
  });

  it("drops only the session's own events for its budget: another session keeps all of its", () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 1000 });
    store.append('quiet', '1', event('1_1', 600));
    for (let n = 1; n <= 10; n++) store.append('loud', '1', event(`1_${n}`, 450));
    expect(store.keptSize).toBe(600 + 900);
    expect({ quiet: ids(store.replayAfter('quiet', '1', '1_0')), loud: ids(store.replayAfter('loud', '1', '1_0')) }).toEqual({
      quiet: ['1_1'],
      loud: ['1_9', '1_10'],
    });
  });

  it('drops the oldest events of any session once the store is over maxBytes', () => {
    const store = new InMemoryEventStore({ maxBytes: 1000, maxBytesPerSession: 10_000 });
    store.append('a', '1', event('1_1', 400));
    store.append('b', '1', event('1_1', 400));
    store.append('c', '1', event('1_1', 400));
    expect(store.keptSize).toBe(800);
    expect(['a', 'b', 'c'].map((s) => ids(store.replayAfter(s, '1', '1_0')))).toEqual([[], ['1_1'], ['1_1']]);
  });

  it('keeps no event larger than the budget and drops nothing for it; one of exactly the budget is kept', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 1000 });
    store.append('s', '1', event('1_1', 500));
    store.append('s', '1', event('1_2', 1001));
    expect({ kept: store.keptSize, replay: ids(store.replayAfter('s', '1', '1_0')) }).toEqual({ kept: 500, replay: ['1_1'] });
    store.append('s', '1', event('1_3', 1000));
    expect({ kept: store.keptSize, replay: ids(store.replayAfter('s', '1', '1_0')) }).toEqual({ kept: 1000, replay: ['1_3'] });
  });

  it('keeps exactly the newest events that fit, over thousands of appends to several streams and sessions', () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: 2000, maxBytes: 5000 });
    const appended: { session: string; stream: string; id: string }[] = [];
    for (let n = 1; n <= 3000; n++) {
      const session = `s${n % 3}`;
      const stream = String(n % 2);
      const id = `${stream}_${n}`;
      store.append(session, stream, event(id, 200));
      appended.push({ session, stream, id });
      if (store.keptSize > 5000) throw new Error(`keptSize ${store.keptSize} after ${n} appends`);
    }
    // 25 events fit the store (each session's 10 would, but the store's 5000 bind first): the newest 25.
    const newest = appended.slice(-25);
    expect(store.keptSize).toBe(5000);
    for (const session of ['s0', 's1', 's2']) {
      for (const stream of ['0', '1']) {
        const expected = newest.filter((e) => e.session === session && e.stream === stream).map((e) => e.id);
        expect(ids(store.replayAfter(session, stream, `${stream}_0`))).toEqual(expected);
      }
    }
  });

  it('frees what a session kept when it is dropped', () => {
    const store = new InMemoryEventStore({ maxBytes: 1000 });
    store.append('a', '1', event('1_1', 600));
    store.append('b', '1', event('1_1', 300));
    store.dropSession('a');
    expect({ kept: store.keptSize, a: store.replayAfter('a', '1', '1_0') }).toEqual({ kept: 300, a: [] });
    // The freed room is usable: 700 more fit beside b's 300 without dropping b's event.
    store.append('c', '1', event('1_1', 700));
    expect({ kept: store.keptSize, b: ids(store.replayAfter('b', '1', '1_0')) }).toEqual({ kept: 1000, b: ['1_1'] });
  });

  it('defaults to 4 MiB per session and 64 MiB in all', () => {
    const store = new InMemoryEventStore();
    for (let n = 1; n <= 5; n++) store.append('one', '1', event(`1_${n}`, MiB));
    expect({ kept: store.keptSize, replay: ids(store.replayAfter('one', '1', '1_0')) }).toEqual({ kept: 4 * MiB, replay: ['1_2', '1_3', '1_4', '1_5'] });
    store.dropSession('one');
    for (let n = 1; n <= 65; n++) store.append(`s${n}`, '1', event('1_1', MiB));
    expect(store.keptSize).toBe(64 * MiB);
    expect([ids(store.replayAfter('s1', '1', '1_0')), ids(store.replayAfter('s2', '1', '1_0'))]).toEqual([[], ['1_1']]);
  });
});

describe('the SSE event store behind a transport', () => {
  const TEXT = 'y'.repeat(256 * 1024);
  const answerCost = (answer: SseEvent) => costOf({ eventId: answer.id!, data: answer.data });

  async function echoServer(transport: StreamableHttpTransportOptions): Promise<RunningHttp> {
    return startHttp(
      cleanups,
      (server) =>
        server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) =>
          String(text),
        ),
      { transport: { responseMode: 'sse', ...transport } },
    );
  }

  /** initialize and notifications/initialized where every POST is answered with an event stream. */
  async function initializedOverSse(url: string): Promise<HttpTestClient> {
    const client = new HttpTestClient(url);
    const res = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'sse', version: '1.0.0' } }, 0);
    const answer = await res.nextMessage({ id: 0 });
    client.sessionId = res.headers['mcp-session-id'] as string;
    client.protocolVersion = answer.result.protocolVersion;
    await (await client.notify('notifications/initialized')).ended;
    return client;
  }

  /** Call echo with `text` (TEXT by default); resolves with the response's event (id and data as sent). */
  async function echo(client: HttpTestClient, id: number, text = TEXT): Promise<SseEvent> {
    const res = await client.request('tools/call', { name: 'echo', arguments: { text } }, id);
    await within(res.ended, BOUND_MS, `the answer to call ${id}`);
    const events = res.events.filter((e) => e.message !== undefined);
    if (events.length !== 1 || events[0].message?.id !== id) throw new Error(`call ${id} answered ${res.body.slice(0, 200)}`);
    return events[0];
  }

  /** How many of the newest events fit `budget`: what a store that drops the oldest first keeps. */
  function newestThatFit(sizes: number[], budget: number): { count: number; size: number } {
    let size = 0;
    let count = 0;
    while (count < sizes.length && size + sizes[sizes.length - 1 - count] <= budget) size += sizes[sizes.length - 1 - count++];
    return { count, size };
  }

  it('keeps at most maxBytesPerSession of 40 answers of 256 KiB, and a resumption replays only what is kept', async () => {
    const store = new InMemoryEventStore({ maxBytesPerSession: MiB });
    const { url } = await echoServer({ eventStore: store });
    const client = await initializedOverSse(url);
    const answers: SseEvent[] = [];
    const keptSizes: number[] = [];
    for (let id = 1; id <= 40; id++) {
      answers.push(await echo(client, id));
      keptSizes.push(store.keptSize);
    }
    // Written so that a store without keptSize fails too.
    expect(keptSizes.filter((size) => !(size <= MiB))).toEqual([]);
    const kept = newestThatFit(answers.map(answerCost), MiB);
    expect({ count: kept.count, keptSize: store.keptSize }).toEqual({ count: 3, keptSize: kept.size });

    // Resume every call's stream from its start: only the newest answers come back, within the budget.
    const replays: string[] = [];
    for (const answer of answers) {
      const stream = answer.id!.slice(0, answer.id!.lastIndexOf('_'));
      const res = await client.get({ 'last-event-id': `${stream}_0` });
      await within(res.ended, BOUND_MS, `the resumption of stream ${stream}`);
      expect({ status: res.status, contentType: res.headers['content-type'] }).toEqual({ status: 200, contentType: 'text/event-stream' });
      replays.push(res.body);
    }
    expect(replays).toEqual(answers.map((a, i) => (i >= answers.length - kept.count ? `event: message\nid: ${a.id}\ndata: ${a.data}\n\n` : '')));
  });

  it('is an InMemoryEventStore of 4 MiB per session by default', async () => {
    const { transport, url } = await echoServer({});
    expect(transport.eventStore).toBeInstanceOf(InMemoryEventStore);
    const store = transport.eventStore as InMemoryEventStore;
    const client = await initializedOverSse(url);
    // Answers of 640 KiB: fewer of them fit 4 MiB than the 8 answered streams a session keeps.
    const sizes: number[] = [];
    for (let id = 1; id <= 10; id++) sizes.push(answerCost(await echo(client, id, 'z'.repeat(640 * 1024))));
    expect({ count: newestThatFit(sizes, 4 * MiB).count, keptSize: store.keptSize }).toEqual({ count: 6, keptSize: newestThatFit(sizes, 4 * MiB).size });
  });

  it('keeps the 8 streams of a session answered last by default, and replays none of the older ones', async () => {
    const { transport, url } = await echoServer({});
    const store = transport.eventStore as InMemoryEventStore;
    const client = await initializedOverSse(url);
    const answers: SseEvent[] = [];
    for (let id = 1; id <= 20; id++) answers.push(await echo(client, id));
    const sizes = answers.map(answerCost);
    // An answer's event id names its stream: `<stream>_<n>`.
    const kept = (answer: SseEvent) => {
      const stream = answer.id!.slice(0, answer.id!.lastIndexOf('_'));
      return store.replayAfter(client.sessionId!, stream, `${stream}_0`).length;
    };
    expect({ keptSize: store.keptSize, kept: answers.map(kept) }).toEqual({
      keptSize: sizes.slice(12).reduce((sum, size) => sum + size, 0),
      kept: [...Array(12).fill(0), ...Array(8).fill(1)],
    });
  });
});

// ---------------------------------------------------------------------------------------------------------
// 6. Eviction at the session limit

describe("eviction at the session limit takes only the newcomer's own idle sessions", () => {
  /** A server on `::` (dual stack): 127.0.0.1 and ::1 reach it from two remote addresses. */
  async function dualStack(options: StreamableHttpTransportOptions) {
    const running = await startHttp(cleanups, undefined, { transport: options, listen: { host: '::' } });
    return { ...running, v4: `http://127.0.0.1:${running.port}/mcp`, v6: `http://[::1]:${running.port}/mcp` };
  }

  async function refusedInitialize(url: string, headers: Record<string, string> = {}): Promise<{ status: number; retryAfter: unknown; body: Json }> {
    const res = await send(url, 'POST', { ...POST_HEADERS, ...headers }, initializeMessage());
    return { status: res.status, retryAfter: res.headers['retry-after'], body: await res.json() };
  }

  it('without auth: a newcomer from another address is refused 503, and the sessions of the address that filled the limit survive', async () => {
    const { server, v4, v6 } = await dualStack({ maxSessions: 2 });
    const ends = recordEnds(server);
    const a1 = await initialized(v4);
    const a2 = await initialized(v4);

    expect(await refusedInitialize(v6)).toEqual({ status: 503, retryAfter: '5', body: AT_LIMIT(2) });
    expect(ends).toEqual([]);
    expect([await ping(a1, 1), await ping(a2, 2)]).toEqual([PONG(1), PONG(2)]);

    // The address's own newcomer evicts its longest-idle session.
    const a3 = await initialized(v4);
    expect(ends).toEqual([[a1.sessionId, EVICTED]]);
    expect([...server.sessions.keys()].sort()).toEqual([a2.sessionId, a3.sessionId].sort());
  });

  it("without auth: a newcomer evicts its own address's idle session, not an older one of another address", async () => {
    const { server, v4, v6 } = await dualStack({ maxSessions: 2 });
    const ends = recordEnds(server);
    const b1 = await initialized(v6);
    const a1 = await initialized(v4);
    const a2 = await initialized(v4);
    expect(ends).toEqual([[a1.sessionId, EVICTED]]);
    expect([await ping(b1, 'b'), await ping(a2, 'a')]).toEqual([PONG('b'), PONG('a')]);
  });

  /** A server whose auth hook takes the principal from the x-user header. */
  async function withAuth() {
    const running = await startHttp(cleanups, undefined, { transport: { auth: (req: IncomingMessage) => req.headers['x-user'], maxSessions: 2 } });
    return { ...running, ends: recordEnds(running.server) };
  }

  const as = (name: string) => ({ 'x-user': name });

  it("with auth: principal y is refused 503 and cannot evict x's idle sessions; x's newcomer evicts x's oldest", async () => {
    const { url, ends } = await withAuth();
    const x1 = await initialized(url, '2025-11-25', as('x'));
    const x2 = await initialized(url, '2025-11-25', as('x'));

    expect(await refusedInitialize(url, as('y'))).toEqual({ status: 503, retryAfter: '5', body: AT_LIMIT(2) });
    expect(ends).toEqual([]);
    expect([await ping(x1, 1, as('x')), await ping(x2, 2, as('x'))]).toEqual([PONG(1), PONG(2)]);

    const x3 = await initialized(url, '2025-11-25', as('x'));
    expect(ends).toEqual([[x1.sessionId, EVICTED]]);
    expect([await ping(x2, 3, as('x')), await ping(x3, 4, as('x'))]).toEqual([PONG(3), PONG(4)]);
  });

  it('with auth and samePrincipal: the same comparison decides eviction as decides access', async () => {
    // One user id in two tenants: different principals by this server's rule, the same by the default one.
    const byTenant = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
    const running = await startHttp(cleanups, undefined, {
      transport: { auth: (req: IncomingMessage) => ({ id: 'u1', tenant: req.headers['x-tenant'] }), samePrincipal: byTenant, maxSessions: 1 },
    });
    const ends = recordEnds(running.server);
    const a = await initialized(running.url, '2025-11-25', { 'x-tenant': 'a' });
    expect(await refusedInitialize(running.url, { 'x-tenant': 'b' })).toEqual({ status: 503, retryAfter: '5', body: AT_LIMIT(1) });
    expect(ends).toEqual([]);
    expect(await ping(a, 1, { 'x-tenant': 'a' })).toEqual(PONG(1));
    await initialized(running.url, '2025-11-25', { 'x-tenant': 'a' });
    expect(ends).toEqual([[a.sessionId, EVICTED]]);
  });

  it("with auth: x's newcomer evicts x's idle session, not an older one of y", async () => {
    const { url, ends } = await withAuth();
    const y1 = await initialized(url, '2025-11-25', as('y'));
    const x1 = await initialized(url, '2025-11-25', as('x'));
    const x2 = await initialized(url, '2025-11-25', as('x'));
    expect(ends).toEqual([[x1.sessionId, EVICTED]]);
    expect([await ping(y1, 'y', as('y')), await ping(x2, 'x', as('x'))]).toEqual([PONG('y'), PONG('x')]);
  });
});

// ---------------------------------------------------------------------------------------------------------
// 7. The server-wide session limit

describe('the McpServer option maxSessions over Streamable HTTP', () => {
  it("refuses an initialize past it with 503 (onSessionLimit 'reject')", async () => {
    const { url } = await startHttp(cleanups, undefined, { server: { maxSessions: 2 }, transport: { onSessionLimit: 'reject' } });
    const first = await initialized(url);
    await initialized(url);
    expect(await reply(send(url, 'POST', POST_HEADERS, initializeMessage()))).toEqual({ status: 503, body: AT_LIMIT(2) });
    expect(await ping(first, 'still')).toEqual(PONG('still'));
  });

  it('evicts an idle HTTP session of the same address at it (the default)', async () => {
    const { server, url } = await startHttp(cleanups, undefined, { server: { maxSessions: 1 } });
    const ends = recordEnds(server);
    const first = await initialized(url);
    const second = await initialized(url);
    expect(ends).toEqual([[first.sessionId, EVICTED]]);
    expect([...server.sessions.keys()]).toEqual([second.sessionId]);
  });

  it('counts WebSocket sessions too: with the limit held by one, an HTTP initialize gets 503 until it ends', async () => {
    const { server, transport, url, port } = await startHttp(cleanups, undefined, { server: { maxSessions: 1 } });
    new WebSocketTransport(server).attach(transport.httpServer!);
    const { client: ws } = await WsTestClient.initialized(`ws://127.0.0.1:${port}/mcp`);
    cleanups.push(() => ws.socket.terminate());

    expect(await reply(send(url, 'POST', POST_HEADERS, initializeMessage()))).toEqual({ status: 503, body: AT_LIMIT(1) });
    expect((await ws.request('ping', undefined, 'ws')).result).toEqual({});

    const ended = nextEvent(server, 'sessionEnd');
    ws.socket.close();
    await ended;
    const client = await initialized(url);
    expect(await ping(client, 'http')).toEqual(PONG('http'));
  });
});
