/**
 * 2026-07-28 over Streamable HTTP, on real sockets: the per-request `_meta` envelope, server/discover,
 * resultType and caching hints, removed methods, error codes and statuses, no sessions, logging and
 * progress on a request-scoped stream, and cancellation by closing that stream.
 */
import { request as httpRequest } from 'node:http';
import { describe, expect, it } from 'vitest';
import { McpError, type McpServer, type McpServerOptions, type RequestContext, type ServerInfo } from '../../src/index.js';
import { send, type OpenResponse } from '../helpers/http-client.js';
import { META_KEYS, MODERN_VERSION, modernHeaders, modernPost, modernRequest } from '../helpers/modern.js';
import { DEFAULT_CAPABILITIES } from '../helpers/servers.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttp } from '../helpers/servers.js';
import type { Json } from '../helpers/ws-client.js';

const cleanups = useCleanups();

const SERVER_INFO: ServerInfo = { name: 'modern-http', version: '2.1.0', title: 'Modern HTTP fixture', instructions: 'Use the echo tool.' };

const ECHO_TOOL = {
  name: 'echo',
  description: 'Echo the text',
  inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } }, required: ['text'] },
};

interface Fixture {
  server: McpServer;
  url: string;
}

/** A server with an echo tool, a prompt and resources with and without caching hints, and whatever `setup` adds. */
async function start(options: McpServerOptions = {}, setup: (server: McpServer) => void = () => {}, info: ServerInfo = SERVER_INFO): Promise<Fixture> {
  return startHttp(
    cleanups,
    (server) => {
      server.registerTool('echo', { description: 'Echo the text', inputSchema: ECHO_TOOL.inputSchema }, ({ text }) => String(text));
      server.registerPrompt('greet', { description: 'A greeting' }, () => ({ messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }] }));
      server.registerResource('test://plain', { name: 'plain', mimeType: 'text/plain' }, () => 'plain text');
      server.registerResource('test://own-cache', { name: 'own-cache', mimeType: 'text/plain', cache: { ttlMs: 5000, scope: 'public' } }, () => 'cached text');
      server.registerResourceTemplate(
        'test://items/{id}',
        { name: 'item', mimeType: 'text/plain', cache: { ttlMs: 7000, scope: 'public' } },
        (_uri, { id }) => `item ${id}`,
      );
      server.registerResourceTemplate('test://plain-items/{id}', { name: 'plain-item', mimeType: 'text/plain' }, (_uri, { id }) => `plain item ${id}`);
      setup(server);
    },
    { info, server: options },
  );
}

/** Status, content type, session header and the whole JSON body of a JSON answer. */
async function answer(res: OpenResponse): Promise<{ status: number; contentType: unknown; sessionId: unknown; body: Json }> {
  return { status: res.status, contentType: res.headers['content-type'], sessionId: res.headers['mcp-session-id'], body: await res.json() };
}

function ok(id: string | number, result: Json) {
  return { status: 200, contentType: 'application/json', sessionId: undefined, body: { jsonrpc: '2.0', id, result } };
}

function failed(status: number, id: string | number | null, error: Json) {
  return { status, contentType: 'application/json', sessionId: undefined, body: { jsonrpc: '2.0', id, error } };
}

const NO_CACHE = { ttlMs: 0, cacheScope: 'private' };

// ---------------------------------------------------------------------------------------------------------

describe('server/discover', () => {
  it('answers with resultType, supportedVersions, capabilities, serverInfo in _meta, instructions and the default caching hint', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'server/discover', {}, { id: 'discover-1' }))).toEqual(
      ok('discover-1', {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: DEFAULT_CAPABILITIES,
        _meta: { [META_KEYS.serverInfo]: { name: 'modern-http', version: '2.1.0', title: 'Modern HTTP fixture' } },
        instructions: 'Use the echo tool.',
        ttlMs: 0,
        cacheScope: 'private',
      }),
    );
  });

  it('leaves instructions out when the server has none, and carries the server option capabilities', async () => {
    const { url } = await start({ capabilities: { experimental: { x: {} } } }, () => {}, { name: 'bare', version: '0.0.1' });
    const { body } = await answer(await modernPost(url, 'server/discover'));
    expect(body).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        resultType: 'complete',
        supportedVersions: ['2026-07-28'],
        capabilities: { ...DEFAULT_CAPABILITIES, experimental: { x: {} } },
        _meta: { [META_KEYS.serverInfo]: { name: 'bare', version: '0.0.1' } },
        ttlMs: 0,
        cacheScope: 'private',
      },
    });
  });

  it('uses the server cache option for its caching hint', async () => {
    const { url } = await start({ cache: { ttlMs: 3_600_000, scope: 'public' } });
    const { body } = await answer(await modernPost(url, 'server/discover'));
    expect({ ttlMs: body.result.ttlMs, cacheScope: body.result.cacheScope }).toEqual({ ttlMs: 3_600_000, cacheScope: 'public' });
  });
});

describe('results: resultType and caching hints', () => {
  it('answers tools/list with resultType complete and the default hint ttlMs 0, cacheScope private', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'tools/list'))).toEqual(ok(1, { resultType: 'complete', tools: [ECHO_TOOL], ...NO_CACHE }));
  });

  it('answers prompts/list, resources/list and resources/templates/list with the default hint', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'prompts/list'))).toEqual(
      ok(1, { resultType: 'complete', prompts: [{ name: 'greet', description: 'A greeting' }], ...NO_CACHE }),
    );
    expect(await answer(await modernPost(url, 'resources/list'))).toEqual(
      ok(1, {
        resultType: 'complete',
        resources: [
          { uri: 'test://plain', name: 'plain', mimeType: 'text/plain' },
          { uri: 'test://own-cache', name: 'own-cache', mimeType: 'text/plain' },
        ],
        ...NO_CACHE,
      }),
    );
    expect(await answer(await modernPost(url, 'resources/templates/list'))).toEqual(
      ok(1, {
        resultType: 'complete',
        resourceTemplates: [
          { uriTemplate: 'test://items/{id}', name: 'item', mimeType: 'text/plain' },
          { uriTemplate: 'test://plain-items/{id}', name: 'plain-item', mimeType: 'text/plain' },
        ],
        ...NO_CACHE,
      }),
    );
  });

  it('gives every list and discover result the server cache option', async () => {
    const { url } = await start({ cache: { ttlMs: 60_000, scope: 'public' } });
    for (const method of ['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list']) {
      const { body } = await answer(await modernPost(url, method));
      expect({ method, resultType: body.result.resultType, ttlMs: body.result.ttlMs, cacheScope: body.result.cacheScope }).toEqual({
        method,
        resultType: 'complete',
        ttlMs: 60_000,
        cacheScope: 'public',
      });
    }
  });

  it('gives a resources/read result the server hint by default', async () => {
    const { url } = await start({ cache: { ttlMs: 60_000, scope: 'public' } });
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://plain' }))).toEqual(
      ok(1, { resultType: 'complete', contents: [{ uri: 'test://plain', mimeType: 'text/plain', text: 'plain text' }], ttlMs: 60_000, cacheScope: 'public' }),
    );
  });

  it("gives a resource's reads its own cache hint, over the server option", async () => {
    const { url } = await start({ cache: { ttlMs: 60_000, scope: 'private' } });
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://own-cache' }))).toEqual(
      ok(1, {
        resultType: 'complete',
        contents: [{ uri: 'test://own-cache', mimeType: 'text/plain', text: 'cached text' }],
        ttlMs: 5000,
        cacheScope: 'public',
      }),
    );
  });

  it("gives reads through a template the template's own cache hint, and the default through a template without one", async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://items/42' }))).toEqual(
      ok(1, { resultType: 'complete', contents: [{ uri: 'test://items/42', mimeType: 'text/plain', text: 'item 42' }], ttlMs: 7000, cacheScope: 'public' }),
    );
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://plain-items/7' }))).toEqual(
      ok(1, { resultType: 'complete', contents: [{ uri: 'test://plain-items/7', mimeType: 'text/plain', text: 'plain item 7' }], ...NO_CACHE }),
    );
  });

  it('gives a read served by a static resource the default hint even when a template with its own hint also matches the uri', async () => {
    const { url } = await start({}, (server) =>
      server.registerResource('test://items/static', { name: 'static item', mimeType: 'text/plain' }, () => 'static'),
    );
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://items/static' }))).toEqual(
      ok(1, { resultType: 'complete', contents: [{ uri: 'test://items/static', mimeType: 'text/plain', text: 'static' }], ...NO_CACHE }),
    );
  });

  it('gives a read the hint of the template that served it, not of a later template that also matches', async () => {
    const { url } = await start({}, (server) => {
      server.registerResourceTemplate('test://shared/{id}', { name: 'first', mimeType: 'text/plain' }, (_uri, { id }) => `first ${id}`);
      server.registerResourceTemplate(
        'test://shared/{key}',
        { name: 'second', mimeType: 'text/plain', cache: { ttlMs: 9000, scope: 'public' } },
        () => 'second',
      );
    });
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://shared/1' }))).toEqual(
      ok(1, { resultType: 'complete', contents: [{ uri: 'test://shared/1', mimeType: 'text/plain', text: 'first 1' }], ...NO_CACHE }),
    );
  });

  it('answers tools/call with resultType complete and no caching hint', async () => {
    const { url } = await start({ cache: { ttlMs: 60_000, scope: 'public' } });
    expect(await answer(await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'hi' } }))).toEqual(
      ok(1, { resultType: 'complete', content: [{ type: 'text', text: 'hi' }] }),
    );
  });

  it('answers prompts/get and completion/complete with resultType complete and no caching hint', async () => {
    const { url } = await start({ cache: { ttlMs: 60_000, scope: 'public' } });
    expect(await answer(await modernPost(url, 'prompts/get', { name: 'greet' }))).toEqual(
      ok(1, { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'Hello' } }] }),
    );
    expect(
      await answer(await modernPost(url, 'completion/complete', { ref: { type: 'ref/prompt', name: 'greet' }, argument: { name: 'x', value: '' } })),
    ).toEqual(ok(1, { resultType: 'complete', completion: { values: [], hasMore: false } }));
  });

  it('answers a read of an unknown resource with -32602 and data.uri (HTTP 400), never -32002', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://missing' }, { id: 'read-1' }))).toEqual(
      failed(400, 'read-1', { code: -32602, message: 'Resource not found: test://missing', data: { uri: 'test://missing' } }),
    );
  });

  it('answers a read whose handler returns nothing with -32602 and data.uri', async () => {
    const { url } = await start({}, (server) => server.registerResource('test://gone', { name: 'gone' }, () => undefined));
    expect(await answer(await modernPost(url, 'resources/read', { uri: 'test://gone' }))).toEqual(
      failed(400, 1, { code: -32602, message: 'Resource not found: test://gone', data: { uri: 'test://gone' } }),
    );
  });
});

describe('the _meta envelope', () => {
  it('serves a request without clientInfo (it is optional)', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'tools/list', {}, { meta: { [META_KEYS.clientInfo]: undefined } }))).toEqual(
      ok(1, { resultType: 'complete', tools: [ECHO_TOOL], ...NO_CACHE }),
    );
  });

  it('answers a request without clientCapabilities with -32602 (HTTP 400), keeping its id', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'tools/list', {}, { id: 'no-caps', meta: { [META_KEYS.clientCapabilities]: undefined } }))).toEqual(
      failed(400, 'no-caps', {
        code: -32602,
        message: 'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is required on every 2026-07-28 request (an object; {} declares none)',
      }),
    );
  });

  it.each([
    ['null', null],
    ['an array', []],
    ['a string', 'all'],
  ])('answers clientCapabilities that is %s with -32602 (HTTP 400)', async (_name, capabilities) => {
    const { url } = await start();
    const { status, body } = await answer(await modernPost(url, 'tools/list', {}, { id: 7, meta: { [META_KEYS.clientCapabilities]: capabilities } }));
    expect({ status, id: body.id, code: body.error?.code, result: body.result }).toEqual({ status: 400, id: 7, code: -32602, result: undefined });
  });

  it('answers a request whose body has no protocolVersion in _meta (only the header says 2026-07-28) with -32602 (HTTP 400)', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 3, meta: { [META_KEYS.protocolVersion]: undefined } });
    expect(await answer(res)).toEqual(
      failed(400, 3, {
        code: -32602,
        message:
          'Invalid params: a 2026-07-28 request needs _meta["io.modelcontextprotocol/protocolVersion"] and _meta["io.modelcontextprotocol/clientCapabilities"]',
      }),
    );
  });

  it('answers an invalid logLevel with -32602 (HTTP 400)', async () => {
    const { url } = await start();
    expect(await answer(await modernPost(url, 'tools/list', {}, { id: 'lvl', meta: { [META_KEYS.logLevel]: 'verbose' } }))).toEqual(
      failed(400, 'lvl', { code: -32602, message: 'Invalid params: _meta["io.modelcontextprotocol/logLevel"] "verbose" is not a log level' }),
    );
  });

  it('answers an unknown protocol version with -32022, the supported versions and the requested one echoed (HTTP 400)', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 'v', meta: { [META_KEYS.protocolVersion]: '2099-01-01' } });
    expect(await answer(res)).toEqual(
      failed(400, 'v', { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2099-01-01' } }),
    );
  });

  it('answers a _meta claim of a handshake-era version with -32022 (it is not served statelessly)', async () => {
    const { url } = await start();
    const res = await modernPost(url, 'tools/list', {}, { id: 4, meta: { [META_KEYS.protocolVersion]: '2025-11-25' } });
    expect(await answer(res)).toEqual(
      failed(400, 4, { code: -32022, message: 'Unsupported protocol version', data: { supported: ['2026-07-28'], requested: '2025-11-25' } }),
    );
  });
});

describe('removed and unknown methods', () => {
  it.each([
    ['initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: '1' } }],
    ['ping', {}],
    ['logging/setLevel', { level: 'debug' }],
    ['resources/subscribe', { uri: 'test://plain' }],
    ['resources/unsubscribe', { uri: 'test://plain' }],
    ['tools/frobnicate', {}],
  ])('answers %s with -32601 (HTTP 404), keeping the id', async (method, params) => {
    const { url } = await start();
    expect(await answer(await modernPost(url, method, params, { id: `req-${method}` }))).toEqual(
      failed(404, `req-${method}`, { code: -32601, message: `Method not found: ${method}` }),
    );
  });
});

describe('no sessions', () => {
  it('ignores Mcp-Session-Id, mints none, and keeps server.sessions empty', async () => {
    const { server, url } = await start();
    const sessionNew: unknown[] = [];
    server.on('sessionNew', (s) => sessionNew.push(s));
    const res = await modernPost(url, 'tools/call', { name: 'echo', arguments: { text: 'x' } }, { headers: { 'mcp-session-id': 'not-a-session' } });
    expect(await answer(res)).toEqual(ok(1, { resultType: 'complete', content: [{ type: 'text', text: 'x' }] }));
    expect(res.headers['mcp-session-id']).toBeUndefined();
    expect({ sessions: server.sessions.size, sessionNew: sessionNew.length }).toEqual({ sessions: 0, sessionNew: 0 });
  });

  it('answers a notification POST with 202 and no body', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', modernHeaders('notifications/cancelled'), {
      jsonrpc: '2.0',
      method: 'notifications/cancelled',
      params: { requestId: 1, _meta: { [META_KEYS.protocolVersion]: MODERN_VERSION, [META_KEYS.clientCapabilities]: {} } },
    });
    await res.ended;
    expect({ status: res.status, body: res.body, sessionId: res.headers['mcp-session-id'] }).toEqual({ status: 202, body: '', sessionId: undefined });
  });

  it('answers a batch of 2026-07-28 requests with 400 -32600', async () => {
    const { url } = await start();
    const res = await send(url, 'POST', modernHeaders('tools/list'), [modernRequest(1, 'tools/list'), modernRequest(2, 'tools/list')]);
    const { status, body } = await answer(res);
    expect({ status, code: body.error.code }).toEqual({ status: 400, code: -32600 });
  });
});

// ---------------------------------------------------------------------------------------------------------
// Logging, progress and the request-scoped stream

/** The SSE body split into events: each a list of its field lines. */
function rawEvents(body: string): string[][] {
  return body
    .split('\n\n')
    .filter((block) => block.length > 0)
    .map((block) => block.split('\n'));
}

function logTool(server: McpServer): void {
  server.registerTool('chatty', {}, (_args, ctx) => {
    ctx.log('debug', 'debug line');
    ctx.log('info', 'info line');
    ctx.log('error', 'error line', 'chatty-logger');
    return 'done';
  });
}

describe('notifications/message and progress', () => {
  it('sends no notifications/message when _meta has no logLevel, answering with plain JSON', async () => {
    const { url } = await start({ defaultLogLevel: 'debug' }, logTool);
    expect(await answer(await modernPost(url, 'tools/call', { name: 'chatty' }))).toEqual(
      ok(1, { resultType: 'complete', content: [{ type: 'text', text: 'done' }] }),
    );
  });

  it('streams the log lines the _meta logLevel lets through, then the result, with no event ids and no priming event', async () => {
    const { url } = await start({}, logTool);
    const res = await modernPost(url, 'tools/call', { name: 'chatty' }, { id: 'log-1', meta: { [META_KEYS.logLevel]: 'info' } });
    await res.ended;
    expect({ status: res.status, contentType: res.headers['content-type'], sessionId: res.headers['mcp-session-id'] }).toEqual({
      status: 200,
      contentType: 'text/event-stream',
      sessionId: undefined,
    });
    const expected = [
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'info line' } },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'error', data: 'error line', logger: 'chatty-logger' } },
      { jsonrpc: '2.0', id: 'log-1', result: { resultType: 'complete', content: [{ type: 'text', text: 'done' }] } },
    ];
    expect(rawEvents(res.body)).toEqual(expected.map((message) => ['event: message', `data: ${JSON.stringify(message)}`]));
  });

  it('sends progress only when the request has a progressToken, on the request stream before the result', async () => {
    const { url } = await start({}, (server) =>
      server.registerTool('slow', {}, (_args, ctx) => {
        ctx.progress(1, 2, 'half');
        ctx.progress(2, 2);
        return 'finished';
      }),
    );
    const res = await modernPost(url, 'tools/call', { name: 'slow' }, { id: 9, meta: { progressToken: 'tok' } });
    await res.ended;
    const expected = [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 1, total: 2, message: 'half' } },
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'tok', progress: 2, total: 2 } },
      { jsonrpc: '2.0', id: 9, result: { resultType: 'complete', content: [{ type: 'text', text: 'finished' }] } },
    ];
    expect({ contentType: res.headers['content-type'], events: rawEvents(res.body) }).toEqual({
      contentType: 'text/event-stream',
      events: expected.map((message) => ['event: message', `data: ${JSON.stringify(message)}`]),
    });
    expect(await answer(await modernPost(url, 'tools/call', { name: 'slow' }))).toEqual(
      ok(1, { resultType: 'complete', content: [{ type: 'text', text: 'finished' }] }),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// Cancellation: closing the stream

interface Blocking {
  started: ReturnType<typeof deferred<RequestContext>>;
  aborted: ReturnType<typeof deferred<unknown>>;
  finished: ReturnType<typeof deferred<void>>;
}

/** A `block` tool: optionally reports progress, then waits for its signal to abort, then tries to say more. */
function blockingTool(server: McpServer, blocking: Blocking): void {
  server.registerTool('block', { inputSchema: { type: 'object', properties: { progress: { type: 'boolean' } } } }, async ({ progress }, ctx) => {
    if (progress) ctx.progress(1);
    blocking.started.resolve(ctx);
    await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
    blocking.aborted.resolve(ctx.signal.reason);
    ctx.progress(2);
    ctx.log('emergency', 'after the abort');
    blocking.finished.resolve();
    return 'too late';
  });
}

/** Every message the server sent (as traced), for checking that nothing went out after a cancellation. */
function traceOut(server: McpServer): unknown[] {
  const out: unknown[] = [];
  server.on('message', (_session, direction, message) => {
    if (direction === 'out') out.push(message);
  });
  return out;
}

function settle(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}

describe('cancellation by closing the stream', () => {
  it('aborts the handler signal when the client closes the SSE stream, and sends nothing more for it', async () => {
    const blocking: Blocking = { started: deferred(), aborted: deferred(), finished: deferred() };
    const { server, url } = await start({}, (s) => blockingTool(s, blocking));
    const out = traceOut(server);
    const res = await modernPost(
      url,
      'tools/call',
      { name: 'block', arguments: { progress: true } },
      { id: 'c1', meta: { progressToken: 'p', [META_KEYS.logLevel]: 'debug' } },
    );
    expect(res.headers['content-type']).toBe('text/event-stream');
    expect(await res.nextMessage({ method: 'notifications/progress' })).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'p', progress: 1 },
    });
    res.abort();
    const reason = await blocking.aborted.promise;
    expect(reason).toBeInstanceOf(McpError);
    expect({ code: (reason as McpError).code, message: (reason as McpError).message }).toEqual({ code: -32800, message: 'the client closed the stream' });
    await blocking.finished.promise;
    await settle();
    expect(out).toEqual([{ jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 'p', progress: 1 } }]);
  });

  it('aborts the handler signal when the client drops the connection of a request still waiting for its JSON answer', async () => {
    const blocking: Blocking = { started: deferred(), aborted: deferred(), finished: deferred() };
    const { server, url } = await start({}, (s) => blockingTool(s, blocking));
    const out = traceOut(server);
    const body = JSON.stringify(modernRequest('c2', 'tools/call', { name: 'block', arguments: {} }));
    const headers = { ...modernHeaders('tools/call', { name: 'block' }), 'content-length': String(Buffer.byteLength(body)) };
    const req = httpRequest(url, { method: 'POST', headers });
    let responded = false;
    req.on('response', () => (responded = true));
    req.on('error', () => {});
    req.end(body);
    await blocking.started.promise;
    req.destroy();
    const reason = (await blocking.aborted.promise) as McpError;
    expect({ code: reason.code, message: reason.message }).toEqual({ code: -32800, message: 'the client closed the stream' });
    await blocking.finished.promise;
    await settle();
    expect({ out, responded }).toEqual({ out: [], responded: false });
  });

  it('does not abort a request whose answer went out before the connection closed', async () => {
    const signals: AbortSignal[] = [];
    const { url } = await start({}, (server) =>
      server.registerTool('quick', {}, (_args, ctx) => {
        signals.push(ctx.signal);
        return 'quick';
      }),
    );
    const res = await modernPost(url, 'tools/call', { name: 'quick' });
    expect(await answer(res)).toEqual(ok(1, { resultType: 'complete', content: [{ type: 'text', text: 'quick' }] }));
    res.abort();
    await settle();
    expect(signals.map((s) => s.aborted)).toEqual([false]);
  });
});

describe('no server-to-client requests', () => {
  it('keeps a request a handler tries to send off the wire: the response stream carries only the answer', async () => {
    const { url } = await start({}, (server) =>
      server.registerTool('asks', {}, async (_args, ctx) => {
        ctx.progress(1);
        const outcome = await ctx.request('roots/list').then(
          () => 'sent',
          (err: McpError) => `refused ${err.code}`,
        );
        return outcome;
      }),
    );
    const res = await modernPost(url, 'tools/call', { name: 'asks' }, { id: 'a', meta: { progressToken: 1 } });
    await res.ended;
    const expected = [
      { jsonrpc: '2.0', method: 'notifications/progress', params: { progressToken: 1, progress: 1 } },
      { jsonrpc: '2.0', id: 'a', result: { resultType: 'complete', content: [{ type: 'text', text: 'refused -32010' }] } },
    ];
    expect(rawEvents(res.body)).toEqual(expected.map((message) => ['event: message', `data: ${JSON.stringify(message)}`]));
  });
});
