/**
 * StreamableHttpClientTransport over real sockets: against Switchboard's own server for whole flows
 * (initialize and the session id, SSE answers, the GET stream and replies, polling with resumption,
 * DELETE, a 2026-07-28 request with encoded headers), and against raw node:http servers for the edges
 * (priming and retry, resumption that fails, 404 sessions, HTTP errors, refused connections, modern
 * headers and cancellation by closing the stream, 405 on GET, close).
 */
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { StreamableHttpClientTransport, type StreamableHttpClientTransportOptions } from '../../../src/client/transports/streamable-http.js';
import type { SendContext } from '../../../src/client/transport.js';
import { ErrorCode, type JsonRpcMessage } from '../../../src/index.js';
import { textResult } from '../../helpers/client-requests.js';
import { RecordingSink } from '../../helpers/recording-sink.js';
import { freePort } from '../../helpers/ports.js';
import { standaloneOpen } from '../../helpers/http-streams.js';
import { MODERN_VERSION, modernRequest } from '../../helpers/modern.js';
import { capture } from '../../helpers/outcome.js';
import { deferred, tick } from '../../helpers/deferred.js';
import { until } from '../../helpers/waits.js';
import type { Json } from '../../helpers/ws-client.js';
import { startHttp } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const VERSION = '2025-11-25';
const SESSION = 'session-1';

/** A started transport and its sink, closed after the test. */
async function connect(
  url: string,
  options?: StreamableHttpClientTransportOptions,
): Promise<{ transport: StreamableHttpClientTransport; sink: RecordingSink }> {
  const transport = new StreamableHttpClientTransport(url, viaFetch ? { fetch: globalThis.fetch, ...options } : options);
  const sink = new RecordingSink();
  cleanups.push(() => transport.close());
  await transport.start(sink);
  return { transport, sink };
}

function request(id: number, method: string, params?: Record<string, unknown>): JsonRpcMessage {
  return params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params };
}

const INITIALIZE = request(1, 'initialize', { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 'http-transport-test', version: '1.0.0' } });
const INITIALIZED: JsonRpcMessage = { jsonrpc: '2.0', method: 'notifications/initialized' };

/** The transport's own answer to a request: the connection failed or broke off first (-32000). */
function closedError(id: number, message: string, httpStatus?: number): Json {
  return transportAnswer(ErrorCode.ConnectionClosed, id, message, httpStatus);
}

/** The transport's own answer to a request: HTTP answered without a JSON-RPC response, or one too large (-32030). */
function refusedError(id: number, message: string, httpStatus?: number): Json {
  return transportAnswer(ErrorCode.TransportRefused, id, message, httpStatus);
}

function transportAnswer(code: number, id: number, message: string, httpStatus: number | undefined): Json {
  return { jsonrpc: '2.0', id, error: { code, message, ...(httpStatus === undefined ? {} : { data: { httpStatus } }) } };
}

function progress(progressToken: string, value: number): Json {
  return { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken, progress: value } };
}

/** One SSE message event, as servers write it. */
function event(message: Json, id?: string): string {
  return `event: message\n${id === undefined ? '' : `id: ${id}\n`}data: ${JSON.stringify(message)}\n\n`;
}

// ---------------------------------------------------------------------------------------------------
// Raw servers: each request is recorded and handed to the test's handler with its body read.

interface Seen {
  method: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** performance.now() when the request arrived. */
  at: number;
  req: IncomingMessage;
  res: ServerResponse;
}

interface RawServer {
  url: string;
  seen: Seen[];
  /** Resolves with the `n`th request (1-based) once it has arrived. */
  nth(n: number): Promise<Seen>;
}

/** The JSON-RPC method of a POST body ('' for a reply or no body). */
function methodOf(seen: Seen): string {
  return seen.body === '' ? '' : ((JSON.parse(seen.body) as { method?: string }).method ?? '');
}

/**
 * A raw server at 127.0.0.1:0. `initialize` is answered as JSON with the session id SESSION and
 * `notifications/initialized` with 202, unless `handle` answers them; everything else goes to `handle`.
 */
async function rawServer(handle: (seen: Seen) => void): Promise<RawServer> {
  const seen: Seen[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      const entry: Seen = { method: req.method ?? '', headers: req.headers, body, at: performance.now(), req, res };
      seen.push(entry);
      const method = methodOf(entry);
      if (method === 'initialize') {
        res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': SESSION });
        res.end(JSON.stringify({ jsonrpc: '2.0', id: 1, result: { protocolVersion: VERSION, capabilities: {}, serverInfo: { name: 'raw', version: '1' } } }));
      } else if (method === 'notifications/initialized') res.writeHead(202).end();
      else handle(entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
  return {
    url,
    seen,
    async nth(n) {
      await until(() => seen.length >= n, `request #${n} to the raw server`);
      return seen[n - 1];
    },
  };
}

/** initialize + notifications/initialized through `transport`: the session id SESSION is known after it. */
async function initialize(transport: StreamableHttpClientTransport, sink: RecordingSink): Promise<void> {
  const before = sink.messages.length;
  await transport.send(INITIALIZE);
  await sink.messageCount(before + 1);
  await transport.send(INITIALIZED, { protocolVersion: VERSION });
}

function sse(res: ServerResponse, headers: Record<string, string> = {}): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...headers });
  res.flushHeaders();
}

/** A handler that answers each POST with a stream it ends after a priming event (id 2_0), and each GET with `onGet`. */
function primesThen(onGet: (get: Seen) => void): (seen: Seen) => void {
  return (seen) => {
    if (seen.method !== 'POST') return onGet(seen);
    sse(seen.res);
    seen.res.end('id: 2_0\ndata: \n\n');
  };
}

/** initialize, then tools/call (id 2) on a server whose answer stream must be resumed; resolves once id 2 is answered. */
async function callThatMustResume(server: RawServer, reconnect: StreamableHttpClientTransportOptions['reconnect']): Promise<RecordingSink> {
  const { transport, sink } = await connect(server.url, { reconnect });
  await initialize(transport, sink);
  await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
  await sink.messageCount(2);
  return sink;
}

// Each test runs twice: HTTP through node:http (the default under Node) and through fetch (what a browser has).
let viaFetch = false;

describe.each(['node:http', 'fetch'] as const)('over %s', (via) => {
  beforeEach(() => {
    viaFetch = via === 'fetch';
  });

  describe('StreamableHttpClientTransport against Switchboard', () => {
    it('initializes, keeps the session id from the initialize answer, sends it with the version on later POSTs, and DELETEs the session on close', async () => {
      const running = await startHttp(cleanups, (server) => server.registerTool('echo', {}, () => 'echoed'));
      const requests: { method: string; headers: IncomingHttpHeaders }[] = [];
      running.transport.on('httpRequest', (req) => void requests.push({ method: req.method!, headers: req.headers }));
      const { transport, sink } = await connect(running.url);

      await transport.send(INITIALIZE);
      await sink.messageCount(1);
      const [init] = sink.messages;
      expect(init).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: VERSION, serverInfo: { name: 'test-server', version: '1.0.0' } } });
      const sessionId = [...running.server.sessions.keys()][0];
      await transport.send(INITIALIZED, { protocolVersion: VERSION });
      await transport.send(request(2, 'tools/list'), { protocolVersion: VERSION });
      await sink.messageCount(2);
      expect(sink.messages[1]).toEqual({
        jsonrpc: '2.0',
        id: 2,
        result: { tools: [{ name: 'echo', inputSchema: { type: 'object', additionalProperties: false } }] },
      });
      expect(requests.map((r) => r.method)).toEqual(['POST', 'POST', 'POST']);
      expect(requests[0].headers).toMatchObject({ accept: 'application/json, text/event-stream', 'content-type': 'application/json' });
      expect(requests[0].headers['mcp-session-id']).toBeUndefined();
      expect(requests[0].headers['mcp-protocol-version']).toBeUndefined();
      for (const later of requests.slice(1)) {
        expect(later.headers).toMatchObject({
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'mcp-session-id': sessionId,
          'mcp-protocol-version': VERSION,
        });
      }

      await transport.close();
      expect(requests[3]).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': sessionId, 'mcp-protocol-version': VERSION } });
      expect(running.server.sessions.get(sessionId)).toBeUndefined();
      expect(sink.closedReasons).toEqual(['closed by the client']);
      expect(sink.errors).toEqual([]);
    });

    it('delivers the progress notifications of an SSE answer before its result, in order', async () => {
      const running = await startHttp(
        cleanups,
        (server) =>
          server.registerTool('slow', {}, (_args, ctx) => {
            ctx.progress(1, 3);
            ctx.progress(2, 3);
            return 'done';
          }),
        { transport: { responseMode: 'sse' } },
      );
      const { transport, sink } = await connect(running.url);
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'slow', _meta: { progressToken: 'p' } }), { protocolVersion: VERSION });
      await sink.messageCount(3);
      expect(sink.messages.slice(1)).toEqual([
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1, total: 3 } },
        { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 2, total: 3 } },
        textResult(2, 'done'),
      ]);
      expect(sink.errors).toEqual([]);
    });

    it('opens the GET stream on sessionReady; a server request arrives on it and the reply POST is accepted', async () => {
      const running = await startHttp(cleanups);
      const { transport, sink } = await connect(running.url);
      await initialize(transport, sink);
      const session = running.server.sessions.get([...running.server.sessions.keys()][0])!;
      transport.sessionReady(VERSION);
      await standaloneOpen(running, session);

      const pinged = session.request('ping');
      await sink.messageCount(2);
      expect(sink.messages[1]).toEqual({ jsonrpc: '2.0', id: 0, method: 'ping', params: {} });
      await transport.send({ jsonrpc: '2.0', id: 0, result: {} }, { protocolVersion: VERSION });
      expect(await pinged).toEqual({});
      expect(sink.errors).toEqual([]);
    });

    it('resumes a stream the server closes to poll (ctx.closeStream) with GET + Last-Event-ID after its retry, and gets the result', async () => {
      const release = deferred();
      const running = await startHttp(
        cleanups,
        (server) =>
          server.registerTool('poll', {}, async (_args, ctx) => {
            ctx.closeStream();
            ctx.log('info', 'still working');
            await release.promise;
            return 'polled';
          }),
        { transport: { retryMs: 50 } },
      );
      const gets: IncomingHttpHeaders[] = [];
      running.transport.on('httpRequest', (req) => void (req.method === 'GET' && gets.push(req.headers)));
      const { transport, sink } = await connect(running.url);
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'poll' }), { protocolVersion: VERSION });
      await until(() => gets.length === 1, 'the resuming GET');
      expect(gets[0]).toMatchObject({ accept: 'text/event-stream', 'last-event-id': '2_0', 'mcp-protocol-version': VERSION });
      release.resolve();
      await sink.messageCount(3);
      expect(sink.messages.slice(1)).toEqual([
        { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'still working' } },
        textResult(2, 'polled'),
      ]);
      expect(sink.errors).toEqual([]);
    });

    it('sends a 2026-07-28 request with no session and SEP-2243 headers the server decodes, base64 included', async () => {
      const running = await startHttp(cleanups, (server) =>
        server.registerTool(
          'greet',
          { inputSchema: { type: 'object', properties: { who: { type: 'string', 'x-mcp-header': 'Who' } }, required: ['who'] } },
          (args) => `hello ${String(args.who)}`,
        ),
      );
      const headers: IncomingHttpHeaders[] = [];
      running.transport.on('httpRequest', (req) => void headers.push(req.headers));
      const { transport, sink } = await connect(running.url);
      const call = modernRequest(7, 'tools/call', { name: 'greet', arguments: { who: 'Zoë' } }) as JsonRpcMessage;
      await transport.send(call, { protocolVersion: MODERN_VERSION, modern: { method: 'tools/call', name: 'greet', params: { Who: 'Zoë' } } });
      await sink.messageCount(1);
      expect(sink.messages[0]).toMatchObject(textResult(7, 'hello Zoë'));
      expect(headers[0]).toMatchObject({
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': 'greet',
        'mcp-param-who': '=?base64?Wm/Dqw==?=',
      });
      expect(headers[0]['mcp-session-id']).toBeUndefined();
    });
  });

  describe('StreamableHttpClientTransport: legacy resumption', () => {
    it('after a priming event with retry: 50 and the stream closed, GETs with Last-Event-ID after the delay and delivers the rest (sse-retry)', async () => {
      const server = await rawServer((seen) => {
        if (seen.method === 'POST') {
          sse(seen.res);
          seen.res.end('id: 2_0\nretry: 50\ndata: \n\n');
        } else {
          sse(seen.res);
          seen.res.end(event({ jsonrpc: '2.0', id: 2, result: { ok: true } }, '2_1'));
        }
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 5000 } });
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
      const post = await server.nth(3);
      const get = await server.nth(4);
      expect(get.method).toBe('GET');
      expect(get.headers).toMatchObject({
        accept: 'text/event-stream',
        'last-event-id': '2_0',
        'mcp-session-id': SESSION,
        'mcp-protocol-version': VERSION,
      });
      expect(get.at - post.at).toBeGreaterThanOrEqual(45);
      await sink.messageCount(2);
      expect(sink.messages[1]).toEqual({ jsonrpc: '2.0', id: 2, result: { ok: true } });
      expect(sink.errors).toEqual([]);
    });

    it('keeps resuming while events arrive: the attempts in a row restart with each event', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        const lastId = seen.headers['last-event-id'];
        if (seen.method === 'POST') seen.res.end('id: 2_0\ndata: \n\n');
        else if (lastId === '2_0') seen.res.end(event(progress('p', 1), '2_1'));
        else if (lastId === '2_1') seen.res.end(event(progress('p', 2), '2_2'));
        else seen.res.end(event({ jsonrpc: '2.0', id: 2, result: {} }, '2_3'));
      });
      const { transport, sink } = await connect(server.url, { reconnect: { maxRetries: 1, delayMs: 10 } });
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
      await sink.messageCount(4);
      expect(sink.messages.slice(1)).toEqual([progress('p', 1), progress('p', 2), { jsonrpc: '2.0', id: 2, result: {} }]);
      expect(server.seen.slice(3).map((s) => s.headers['last-event-id'])).toEqual(['2_0', '2_1', '2_2']);
    });

    it('answers the request itself when the stream breaks before any event id', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.write(event(progress('p', 1)));
        setTimeout(() => seen.res.destroy(), 20);
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
      await sink.messageCount(3);
      expect(sink.messages.slice(1)).toEqual([
        progress('p', 1),
        closedError(2, 'the response stream broke off before the response, and could not be resumed: the server sent no event id'),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
    });

    it('answers the request itself with the status when the resuming GET gets a 4xx', async () => {
      const server = await rawServer(
        primesThen((get) => {
          get.res.writeHead(400, { 'content-type': 'application/json' });
          get.res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: unknown stream"},"id":null}');
        }),
      );
      const sink = await callThatMustResume(server, { delayMs: 10 });
      expect(sink.messages[1]).toEqual(
        closedError(
          2,
          'the response stream ended before the response, and could not be resumed: HTTP 400 Bad Request: {"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: unknown stream"},"id":null}',
          400,
        ),
      );
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'GET']);
    });

    it('gives up after maxRetries failed reconnections in a row and says what the last one met', async () => {
      const server = await rawServer(primesThen((get) => get.res.writeHead(503, { 'content-type': 'text/plain' }).end('busy')));
      const sink = await callThatMustResume(server, { maxRetries: 2, delayMs: 10 });
      expect(sink.messages[1]).toEqual(
        closedError(
          2,
          'the response stream ended before the response, and could not be resumed: 2 reconnection attempts failed (the last: HTTP 503 Service Unavailable: busy)',
        ),
      );
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'GET', 'GET']);
    });

    it('neither resumes nor answers a legacy request the client gave up on (it sends notifications/cancelled itself)', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.write('id: 2_0\ndata: \n\n');
        setTimeout(() => seen.res.end(), 30);
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await initialize(transport, sink);
      const abort = new AbortController();
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION, signal: abort.signal });
      abort.abort();
      await until(() => server.seen[2].res.writableFinished, 'the POST stream to end');
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(sink.messages).toHaveLength(1);
      expect(server.seen).toHaveLength(3);
    });
  });

  describe('StreamableHttpClientTransport: every request ends once', () => {
    it('resolves send() of a request once the POST is written, before the server answers', async () => {
      const server = await rawServer(() => {});
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      const post = await server.nth(1);
      expect(sink.messages).toEqual([]);
      post.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} }));
      await sink.messageCount(1);
      expect(sink.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
    });

    it('takes an answer that came on another stream (the GET stream) as the answer: the POST stream ending short is then no loss', async () => {
      let post: Seen | undefined;
      const server = await rawServer((seen) => {
        sse(seen.res);
        if (seen.method === 'POST') {
          post = seen;
          return void seen.res.write('id: 2_0\ndata: \n\n');
        }
        seen.res.write(event({ jsonrpc: '2.0', id: 2, result: { via: 'get' } }, 'g1'));
        setTimeout(() => post?.res.end(), 20);
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
      await server.nth(3);
      transport.sessionReady(VERSION);
      await until(() => post?.res.writableFinished === true, 'the POST stream to end');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(sink.messages.slice(1)).toEqual([{ jsonrpc: '2.0', id: 2, result: { via: 'get' } }]);
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST', 'GET']);
    });
  });

  describe('StreamableHttpClientTransport: answers that are not a response', () => {
    it('delivers each member of a JSON array answer', async () => {
      const server = await rawServer((seen) => {
        seen.res.writeHead(200, { 'content-type': 'application/json' });
        seen.res.end(JSON.stringify([progress('p', 1), { jsonrpc: '2.0', id: 2, result: { n: 1 } }]));
      });
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(2);
      expect(sink.messages).toEqual([progress('p', 1), { jsonrpc: '2.0', id: 2, result: { n: 1 } }]);
    });

    it('delivers a JSON-RPC error body with id null as the answer to the request (HTTP 400)', async () => {
      const server = await rawServer((seen) => {
        seen.res.writeHead(400, { 'content-type': 'application/json' });
        seen.res.end('{"jsonrpc":"2.0","error":{"code":-32000,"message":"Bad Request: Mcp-Session-Id header is required"},"id":null}');
      });
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(1);
      expect(sink.messages).toEqual([{ jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: Mcp-Session-Id header is required' }, id: 2 }]);
      expect(sink.closedReasons).toEqual([]);
    });

    it('answers a request whose POST got a non-JSON 500 with TransportRefused, the status and the start of the body', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(500, { 'content-type': 'text/plain' }).end(`oops\n${'x'.repeat(300)}`));
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(1);
      expect(sink.messages).toEqual([refusedError(2, `the server answered HTTP 500 Internal Server Error: oops ${'x'.repeat(195)}…`, 500)]);
    });

    it('answers a request whose POST got 202 and no body', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(202).end());
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(1);
      expect(sink.messages).toEqual([refusedError(2, 'the server answered without a response to the request: HTTP 202 Accepted', 202)]);
    });

    it('on 404 to a request with the session id: answers the request, then closes with "the server ended the session"', async () => {
      const server = await rawServer((seen) => {
        seen.res.writeHead(404, { 'content-type': 'application/json' });
        seen.res.end('{"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"},"id":null}');
      });
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/list'), { protocolVersion: VERSION });
      await sink.until(() => sink.closedReasons.length === 1);
      expect(sink.messages[1]).toEqual({ jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: 2 });
      expect(sink.closedReasons).toEqual(['the server ended the session (HTTP 404)']);
      await expect(transport.send(request(3, 'tools/list'))).rejects.toThrow('Cannot send: the StreamableHttpClientTransport is closed');
      await transport.close();
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
      expect(sink.closedReasons).toHaveLength(1);
    });

    it('on 404 without a JSON-RPC body to a request with the session id: answers with the status, then closes', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(404).end());
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/list'), { protocolVersion: VERSION });
      await sink.until(() => sink.closedReasons.length === 1);
      expect(sink.messages[1]).toEqual(refusedError(2, 'the server answered HTTP 404 Not Found', 404));
      expect(sink.closedReasons).toEqual(['the server ended the session (HTTP 404)']);
    });

    it('answers a request it could not deliver (connection refused) with ConnectionClosed and no status; a notification rejects', async () => {
      const port = await freePort();
      const url = `http://127.0.0.1:${port}/mcp`;
      const { transport, sink } = await connect(url);
      await transport.send(request(1, 'tools/list'));
      await sink.messageCount(1);
      const refused = `${viaFetch ? 'fetch failed (' : ''}connect ECONNREFUSED 127.0.0.1:${port}${viaFetch ? ')' : ''}`;
      expect(sink.messages).toEqual([closedError(1, `could not reach the server at ${url}: ${refused}`)]);
      await expect(transport.send(INITIALIZED)).rejects.toThrow(`Could not POST to ${url}: ${refused}`);
    });

    it('takes 202 and 204 for a notification or reply, and reports any other status on error', async () => {
      let status = 202;
      const server = await rawServer((seen) => {
        if (status === 400)
          seen.res.writeHead(400, { 'content-type': 'application/json' }).end('{"jsonrpc":"2.0","error":{"code":-32600,"message":"nope"},"id":null}');
        else seen.res.writeHead(status).end();
      });
      const { transport, sink } = await connect(server.url);
      await transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' });
      status = 204;
      await transport.send({ jsonrpc: '2.0', id: 0, result: {} });
      expect(sink.errors).toEqual([]);
      status = 400;
      await transport.send({ jsonrpc: '2.0', id: 'srv-1', result: {} });
      expect(sink.errors.map((e) => e.message)).toEqual([
        'The server refused the POST of the reply to request "srv-1": HTTP 400 Bad Request: {"jsonrpc":"2.0","error":{"code":-32600,"message":"nope"},"id":null}',
      ]);
      expect(sink.messages).toEqual([]);
    });

    it('sends a reply refused with 503 again after its Retry-After (at most 4 times in all), then reports it', async () => {
      let refusals = 2;
      const server = await rawServer((seen) => {
        if (refusals-- > 0)
          seen.res
            .writeHead(503, { 'retry-after': '0', 'content-type': 'application/json' })
            .end('{"jsonrpc":"2.0","error":{"code":-32013,"message":"draining"},"id":null}');
        else seen.res.writeHead(204).end();
      });
      const { transport, sink } = await connect(server.url);
      await transport.send({ jsonrpc: '2.0', id: 7, result: {} });
      expect(server.seen.map((s) => s.body)).toEqual(Array(3).fill('{"jsonrpc":"2.0","id":7,"result":{}}'));
      expect(sink.errors).toEqual([]);

      refusals = 10;
      await transport.send({ jsonrpc: '2.0', id: 8, result: {} });
      expect(server.seen).toHaveLength(3 + 4);
      expect(sink.errors.map((e) => e.message)).toEqual([
        'The server refused the POST of the reply to request 8: HTTP 503 Service Unavailable: {"jsonrpc":"2.0","error":{"code":-32013,"message":"draining"},"id":null}',
      ]);
    });

    it('reports an SSE event whose data is not JSON, skips other event types, and goes on reading', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.end(`data: {oops\n\nevent: endpoint\ndata: /elsewhere\n\n${event({ jsonrpc: '2.0', id: 2, result: {} })}`);
      });
      const { transport, sink } = await connect(server.url);
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(1);
      expect(sink.messages).toEqual([{ jsonrpc: '2.0', id: 2, result: {} }]);
      expect(sink.errors).toHaveLength(1);
      expect(sink.errors[0].message).toMatch(/^The server sent an SSE event that is not JSON \(Parse error: .*\): "\{oops"$/);
    });
  });

  describe('StreamableHttpClientTransport: 2026-07-28 requests', () => {
    it('sends MCP-Protocol-Version, Mcp-Method, Mcp-Name and each Mcp-Param-*, base64 where a value is not plain ASCII, and no session id', async () => {
      const server = await rawServer((seen) => {
        seen.res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }));
      });
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      const context: SendContext = {
        protocolVersion: MODERN_VERSION,
        modern: {
          method: 'tools/call',
          name: 'météo',
          params: { Region: 'us-west1', Greeting: 'Hello, 世界', Text: ' padded ', Line: 'line1\nline2', Val: '=?base64?literal?=', Tab: 'a\tb', Empty: '' },
        },
      };
      await transport.send(request(5, 'tools/call', { name: 'météo' }), context);
      await sink.messageCount(2);
      const { headers } = server.seen[2];
      expect(headers).toMatchObject({
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
        'mcp-protocol-version': MODERN_VERSION,
        'mcp-method': 'tools/call',
        'mcp-name': '=?base64?bcOpdMOpbw==?=',
        'mcp-param-region': 'us-west1',
        'mcp-param-greeting': '=?base64?SGVsbG8sIOS4lueVjA==?=',
        'mcp-param-text': '=?base64?IHBhZGRlZCA=?=',
        'mcp-param-line': '=?base64?bGluZTEKbGluZTI=?=',
        'mcp-param-val': '=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=',
        'mcp-param-tab': '=?base64?YQli?=',
        'mcp-param-empty': '',
      });
      expect(headers['mcp-session-id']).toBeUndefined();
      expect(sink.messages[1]).toEqual({ jsonrpc: '2.0', id: 5, result: {} });
    });

    it('closes the request stream when the signal aborts, and delivers nothing more for it', async () => {
      const closed = deferred();
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.write(event(progress('p', 1)));
        seen.req.socket.once('close', () => closed.resolve());
      });
      const { transport, sink } = await connect(server.url);
      const abort = new AbortController();
      await transport.send(request(5, 'tools/call', { name: 'x' }), {
        protocolVersion: MODERN_VERSION,
        modern: { method: 'tools/call', name: 'x' },
        signal: abort.signal,
      });
      await sink.messageCount(1);
      abort.abort();
      await closed.promise;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(sink.messages).toEqual([progress('p', 1)]);
      expect(sink.errors).toEqual([]);
    });

    it('answers a 2026-07-28 request whose stream ends before its response (no resumption: re-issue it)', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.end(`id: 9\ndata: \n\n${event(progress('p', 1), '10')}`);
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await transport.send(request(5, 'tools/call', { name: 'x' }), { protocolVersion: MODERN_VERSION, modern: { method: 'tools/call', name: 'x' } });
      await sink.messageCount(2);
      expect(sink.messages).toEqual([
        progress('p', 1),
        closedError(5, 'the response stream ended before the response; 2026-07-28 streams cannot be resumed, so re-issue the request'),
      ]);
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(server.seen).toHaveLength(1);
    });

    it('sends nothing for a request whose signal is already aborted', async () => {
      const server = await rawServer(() => {});
      const { transport, sink } = await connect(server.url);
      await transport.send(request(5, 'tools/call', { name: 'x' }), { modern: { method: 'tools/call' }, signal: AbortSignal.abort() });
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.seen).toEqual([]);
      expect(sink.messages).toEqual([]);
    });
  });

  describe('StreamableHttpClientTransport: the standalone GET stream', () => {
    it('takes 405 as "no stream offered": no error, no retry', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(405, { allow: 'POST' }).end());
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await initialize(transport, sink);
      transport.sessionReady(VERSION);
      const get = await server.nth(3);
      expect(get.method).toBe('GET');
      expect(get.headers).toMatchObject({ accept: 'text/event-stream', 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION });
      expect(get.headers['last-event-id']).toBeUndefined();
      await new Promise((resolve) => setTimeout(resolve, 60));
      expect(server.seen).toHaveLength(3);
      expect(sink.errors).toEqual([]);
    });

    it('reopens a dropped GET stream with Last-Event-ID and goes on delivering', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        if (seen.headers['last-event-id'] === undefined) {
          seen.res.write(event({ jsonrpc: '2.0', id: 0, method: 'ping' }, 'g1'));
          setTimeout(() => seen.res.destroy(), 20);
        } else seen.res.write(event({ jsonrpc: '2.0', id: 1, method: 'ping' }, 'g2'));
      });
      const { transport, sink } = await connect(server.url, { reconnect: { delayMs: 10 } });
      await initialize(transport, sink);
      transport.sessionReady(VERSION);
      await sink.messageCount(3);
      expect(sink.messages.slice(1)).toEqual([
        { jsonrpc: '2.0', id: 0, method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
      ]);
      expect(server.seen[3].headers).toMatchObject({ 'last-event-id': 'g1', 'mcp-session-id': SESSION });
    });

    it('reports on error when the GET stream cannot be had', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(409, { 'content-type': 'text/plain' }).end('already open'));
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      transport.sessionReady(VERSION);
      await sink.until(() => sink.errors.length === 1);
      expect(sink.errors[0].message).toBe('The standalone GET stream for server messages is unavailable: HTTP 409 Conflict: already open');
    });
  });

  describe('StreamableHttpClientTransport: maxMessageBytes', () => {
    const LIMIT = 1024;
    /** A tools/list answer of exactly `bytes` bytes of JSON. */
    const answerOf = (bytes: number) => {
      const empty = JSON.stringify({ jsonrpc: '2.0', id: 2, result: { pad: '' } });
      return JSON.stringify({ jsonrpc: '2.0', id: 2, result: { pad: 'x'.repeat(bytes - empty.length) } });
    };

    it('reads a JSON answer of maxMessageBytes bytes, and answers a request whose JSON body is one byte longer itself, unread', async () => {
      const bodies = [answerOf(LIMIT), answerOf(LIMIT + 1)];
      const server = await rawServer((seen) => seen.res.writeHead(200, { 'content-type': 'application/json' }).end(bodies.shift()));
      const { transport, sink } = await connect(server.url, { maxMessageBytes: LIMIT });
      await transport.send(request(2, 'tools/list'));
      await sink.messageCount(1);
      expect(Buffer.byteLength(JSON.stringify(sink.messages[0]))).toBe(LIMIT);
      await transport.send(request(3, 'tools/list'));
      await sink.messageCount(2);
      expect(sink.messages[1]).toEqual(refusedError(3, `the server's answer is larger than maxMessageBytes (${LIMIT} bytes); it was not read`, 200));
    });

    it('closes a POST stream whose event grows past maxMessageBytes, answers its request, and does not resume it', async () => {
      const serverSawClose = deferred();
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.on('close', () => serverSawClose.resolve());
        seen.res.write(event(progress('p', 1), '2_1'));
        // One event that never ends: data lines without the blank line that would dispatch it.
        const line = `data: ${'y'.repeat(200)}\n`;
        for (let i = 0; i < 10; i++) seen.res.write(line);
      });
      const { transport, sink } = await connect(server.url, { maxMessageBytes: LIMIT, reconnect: { delayMs: 0 } });
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call'), { protocolVersion: VERSION });
      await sink.messageCount(3);
      expect(sink.messages.slice(1)).toEqual([
        progress('p', 1),
        refusedError(2, `the server sent an SSE event larger than maxMessageBytes (${LIMIT} bytes); it was not read`),
      ]);
      await serverSawClose.promise;
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'POST']);
      expect(sink.errors).toEqual([]);
    });

    it('counts an SSE event in UTF-8 bytes as they arrive: one of exactly maxMessageBytes is read, one byte more is not', async () => {
      /** A `data:` event of `bytes` bytes on the wire (its line ends included), padded with two-byte characters. */
      const eventOf = (bytes: number): Buffer => {
        const frame = (pad: string) => `data: ${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/message', params: { pad } })}\n\n`;
        const room = bytes - Buffer.byteLength(frame(''));
        const text = frame(`${'é'.repeat(Math.floor(room / 2))}${room % 2 === 1 ? 'x' : ''}`);
        expect(Buffer.byteLength(text)).toBe(bytes);
        return Buffer.from(text);
      };
      const atLimit = eventOf(LIMIT);
      const over = eventOf(LIMIT + 1);
      // Counted as characters, the larger one would pass: it is about half as many.
      expect(over.toString('utf8').length).toBeLessThan(LIMIT);
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.write(atLimit);
        // Cut inside a two-byte character: it is decoded whole all the same.
        const cut = over.indexOf(0xc3) + 1;
        seen.res.write(over.subarray(0, cut));
        setTimeout(() => seen.res.write(over.subarray(cut)), 10);
      });
      const { transport, sink } = await connect(server.url, { maxMessageBytes: LIMIT });
      await transport.send(request(2, 'tools/call'));
      await sink.messageCount(2);
      expect(sink.messages).toEqual([
        JSON.parse(atLimit.toString('utf8').slice('data: '.length)),
        refusedError(2, `the server sent an SSE event larger than maxMessageBytes (${LIMIT} bytes); it was not read`),
      ]);
    });

    it('gives up the standalone GET stream when an event there grows past maxMessageBytes: reported once, not reopened', async () => {
      const server = await rawServer((seen) => {
        sse(seen.res);
        seen.res.write(`id: g1\ndata: ${'z'.repeat(LIMIT + 1)}`);
      });
      const { transport, sink } = await connect(server.url, { maxMessageBytes: LIMIT, reconnect: { delayMs: 0 } });
      await initialize(transport, sink);
      transport.sessionReady(VERSION);
      await sink.until(() => sink.errors.length === 1);
      expect(sink.errors[0].message).toBe(
        `The standalone GET stream for server messages was closed: the server sent an SSE event larger than maxMessageBytes (${LIMIT} bytes)`,
      );
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'GET']);
      expect(sink.errors).toHaveLength(1);
    });
  });

  describe('StreamableHttpClientTransport: options, start and close', () => {
    it('sends the headers option on every request', async () => {
      const server = await rawServer((seen) => {
        if (seen.method === 'GET') return void seen.res.writeHead(405).end();
        seen.res.writeHead(200).end();
      });
      const { transport, sink } = await connect(server.url, { headers: { Authorization: 'Bearer t0ken', 'X-Trace': 'abc' } });
      await initialize(transport, sink);
      transport.sessionReady(VERSION);
      await server.nth(3);
      await transport.close();
      expect(server.seen.map((s) => s.method)).toEqual(['POST', 'POST', 'GET', 'DELETE']);
      for (const seen of server.seen) expect(seen.headers).toMatchObject({ authorization: 'Bearer t0ken', 'x-trace': 'abc' });
    });

    it('checks its options at construction', () => {
      expect(() => new StreamableHttpClientTransport('ws://127.0.0.1/mcp')).toThrow(TypeError);
      expect(() => new StreamableHttpClientTransport('not a url')).toThrow(TypeError);
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { headers: { Accept: 'text/html' } })).toThrow(
        'Option headers cannot set Accept: the transport sets it itself',
      );
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { headers: { 'Mcp-Param-Region': 'x' } })).toThrow(TypeError);
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { reconnect: { maxRetries: -1 } })).toThrow(
        'Option reconnect.maxRetries must be a non-negative integer; got -1',
      );
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { reconnect: { delayMs: 1.5 } })).toThrow(TypeError);
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { headers: { 'X-Trace': 'a\r\nInjected: 1' } })).toThrow(
        new TypeError('Option headers: Invalid character in header content ["X-Trace"]'),
      );
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { fetch: 'fetch' as never })).toThrow(
        new TypeError('Option fetch must be a function'),
      );
      expect(() => new StreamableHttpClientTransport('http://127.0.0.1/mcp', { maxMessageBytes: 0 })).toThrow(
        new TypeError('Option maxMessageBytes must be a positive integer; got 0'),
      );
      expect(new StreamableHttpClientTransport('https://example.com/mcp', { reconnect: { maxRetries: 0, delayMs: 0 } }).kind).toBe('http');
    });

    it('close() with an open stream: DELETE (405 is fine), the stream aborted, nothing synthesized, closed once; send() then rejects', async () => {
      const streamClosed = deferred();
      const server = await rawServer((seen) => {
        if (seen.method === 'DELETE') return void seen.res.writeHead(405).end();
        sse(seen.res);
        seen.res.write('id: 2_0\ndata: \n\n');
        seen.req.socket.once('close', () => streamClosed.resolve());
      });
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      await transport.send(request(2, 'tools/call', { name: 'x' }), { protocolVersion: VERSION });
      await server.nth(3);
      await Promise.all([transport.close(), transport.close()]);
      await streamClosed.promise;
      expect(server.seen[3]).toMatchObject({ method: 'DELETE', headers: { 'mcp-session-id': SESSION, 'mcp-protocol-version': VERSION } });
      expect(sink.closedReasons).toEqual(['closed by the client']);
      expect(sink.errors).toEqual([]);
      expect(sink.messages).toHaveLength(1);
      await expect(transport.send(request(3, 'tools/list'))).rejects.toThrow('Cannot send: the StreamableHttpClientTransport is closed');
      await expect(transport.start(new RecordingSink())).rejects.toThrow('closed');
    });

    it('close() waits for the DELETE at most 2 s', async () => {
      const deleting = deferred();
      const server = await rawServer((seen) => seen.method === 'DELETE' && deleting.resolve());
      const { transport, sink } = await connect(server.url);
      await initialize(transport, sink);
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      cleanups.push(() => vi.useRealTimers());
      const closing = capture(transport.close());
      await deleting.promise;
      vi.advanceTimersByTime(1999);
      await tick();
      expect(closing.settled()).toBe(false);
      vi.advanceTimersByTime(1);
      expect(await closing.outcome).toEqual({ ok: true, value: undefined });
      expect(sink.closedReasons).toEqual(['closed by the client']);
    });

    it('close() without a session sends no DELETE', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(500).end());
      const { transport, sink } = await connect(server.url);
      await transport.close();
      expect(server.seen).toEqual([]);
      expect(sink.closedReasons).toEqual(['closed by the client']);
    });

    it('send() before start() rejects', async () => {
      const transport = new StreamableHttpClientTransport('http://127.0.0.1:1/mcp');
      await expect(transport.send(INITIALIZE)).rejects.toThrow('start()');
    });
  });

  describe('servers that bend the rules', () => {
    it('takes a 200 to a notification as accepted: nothing is reported', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
      const { transport, sink } = await connect(server.url);
      await transport.send({ jsonrpc: '2.0', method: 'notifications/roots/list_changed' }, { protocolVersion: VERSION });
      expect(server.seen.map(methodOf)).toEqual(['notifications/roots/list_changed']);
      expect(sink.errors).toEqual([]);
    });

    it('ignores an Mcp-Session-Id on a 2026-07-28 answer: no session, so no DELETE on close', async () => {
      const server = await rawServer((seen) => {
        seen.res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 'stray' });
        seen.res.end(JSON.stringify({ jsonrpc: '2.0', id: 7, result: { resultType: 'complete', tools: [] } }));
      });
      const { transport, sink } = await connect(server.url);
      const context: SendContext = { protocolVersion: MODERN_VERSION, modern: { method: 'tools/list' } };
      await transport.send(request(7, 'tools/list', modernRequest(7, 'tools/list').params as Record<string, unknown>), context);
      await sink.until(() => sink.messages.length === 1);
      await transport.close();
      expect(server.seen.map((s) => s.method)).toEqual(['POST']);
    });

    it('takes a 404 to the standalone GET sent without a session id as "no stream offered", like 405', async () => {
      const server = await rawServer((seen) => seen.res.writeHead(404).end('not here'));
      const { transport, sink } = await connect(server.url);
      transport.sessionReady(VERSION);
      await server.nth(1);
      await tick();
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(server.seen.map((s) => [s.method, s.headers['mcp-session-id']])).toEqual([['GET', undefined]]);
      expect(sink.errors).toEqual([]);
      expect(sink.closedReasons).toEqual([]);
    });
  });
});
