/**
 * Serving both eras: per-message era classification, the `eras` option (dual, legacy only, modern only),
 * the era gate on server-to-client requests, the per-request session, and 2026-07-28 requests over
 * WebSocket and stdio (answered on the connection, cancelled with notifications/cancelled, interleaved
 * with a handshake-era session on the same connection).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  type ClientTransport,
  type Implementation,
  LegacyOnlyRequestError,
  McpClient,
  type McpClientOptions,
  type McpError,
  McpServer,
  type McpSession,
  NoBackChannelError,
  StdioClientTransport,
  type McpServerOptions,
  type RequestContext,
} from '../../src/index.js';
import { toolText } from '../helpers/client-requests.js';
import { ACCEPT_BOTH, HttpTestClient, send, type OpenResponse } from '../helpers/http-client.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { META_KEYS, modernMeta, modernPost, modernRequest, TEST_CLIENT_INFO } from '../helpers/modern.js';
import { DEFAULT_CAPABILITIES, type RunningHttp, type RunningWebSocket, startHttp, startWebSocket } from '../helpers/servers.js';
import { StdioTestClient } from '../helpers/stdio-client.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const mcp = useMcpClients(cleanups);

const ECHO_TOOL = { name: 'echo', inputSchema: { type: 'object' as const, properties: { text: { type: 'string' } } } };
const NO_CACHE = { ttlMs: 0, cacheScope: 'private' };
const MODERN_ONLY = ['2026-07-28'];
const ERAS_INFO = { name: 'eras', version: '3.0.0' };

/** A server with an echo tool, and whatever `setup` adds. */
function withEcho(setup: (server: McpServer) => void): (server: McpServer) => void {
  return (server) => {
    server.registerTool('echo', { inputSchema: ECHO_TOOL.inputSchema }, ({ text }) => String(text));
    setup(server);
  };
}

function httpServer(options: McpServerOptions = {}, setup: (server: McpServer) => void = () => {}): Promise<RunningHttp> {
  return startHttp(cleanups, withEcho(setup), { info: ERAS_INFO, server: options });
}

function wsServer(options: McpServerOptions = {}, setup: (server: McpServer) => void = () => {}): Promise<RunningWebSocket> {
  return startWebSocket(cleanups, withEcho(setup), { info: ERAS_INFO, server: options });
}

function spawnStdio(eras?: 'dual' | 'legacy' | 'modern'): StdioTestClient {
  const client = StdioTestClient.spawn('test/fixtures/modern-stdio-server.ts', eras ? [`--eras=${eras}`] : []);
  cleanups.push(() => client.end());
  return client;
}

/** The stdio fixture (dual eras), spawned by an McpClient's transport. */
function stdioFixture(): StdioClientTransport {
  const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
  return new StdioClientTransport({ command: tsx, args: ['test/fixtures/modern-stdio-server.ts'], cwd: fileURLToPath(new URL('../..', import.meta.url)) });
}

/** An McpClient that says it is `info` (the harness's clients are all test-client), connected to `target`, closed after the test. */
async function connectAs(info: Implementation, options: McpClientOptions, target: string | ClientTransport): Promise<McpClient> {
  const client = new McpClient(info, options);
  cleanups.push(() => client.close());
  await client.connect(target);
  return client;
}

async function answer(res: OpenResponse): Promise<{ status: number; body: Json }> {
  return { status: res.status, body: await res.json() };
}

const INITIALIZE_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy', version: '1.0.0' } };
const POST_HEADERS = { accept: ACCEPT_BOTH, 'content-type': 'application/json' };

/** A modern tools/call of a tool whose text result is JSON: the parsed JSON. */
function parsedText(response: Json): Json {
  return jsonOf(response.result);
}

/** The JSON in the text of a tool result. */
function jsonOf(result: Json): Json {
  return JSON.parse(result.content[0].text);
}

// ---------------------------------------------------------------------------------------------------------

describe('the eras option', () => {
  it('defaults to dual', () => {
    expect(new McpServer(ERAS_INFO).options.eras).toBe('dual');
  });

  it('rejects a value other than dual, legacy or modern with a TypeError naming the option', () => {
    expect(() => new McpServer({ name: 'x', version: '1' }, { eras: 'both' as 'dual' })).toThrow(
      new TypeError('McpServer option eras must be dual, legacy or modern; got "both"'),
    );
  });

  it('dual: serves a legacy-era session and 2026-07-28 requests on the same HTTP endpoint', async () => {
    const { server, url } = await httpServer();
    const { client: legacy } = await mcp.connectUrl(url, { era: 'legacy' });
    const { client: modern } = await mcp.connectUrl(url, { era: 'modern' });
    expect({ legacy: legacy.protocolVersion, modern: modern.protocolVersion }).toEqual({ legacy: '2025-11-25', modern: '2026-07-28' });
    expect(await modern.listTools()).toEqual({ resultType: 'complete', tools: [ECHO_TOOL], ...NO_CACHE });
    expect(await legacy.listTools()).toEqual({ tools: [ECHO_TOOL] });
    expect(server.sessions.size).toBe(1);
  });

  it('dual: answers initialize without a claim with an InitializeResult (legacy era)', async () => {
    const { url } = await wsServer();
    const client = await h.connectUrl(url);
    const reply = await client.request('initialize', INITIALIZE_PARAMS, 'init');
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'init',
      result: { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'eras', version: '3.0.0' } },
    });
  });

  it('dual: treats an HTTP initialize without a claim as a handshake even when it carries MCP-Protocol-Version 2026-07-28', async () => {
    const { server, url } = await httpServer();
    const res = await send(
      url,
      'POST',
      { ...POST_HEADERS, 'mcp-protocol-version': '2026-07-28' },
      { jsonrpc: '2.0', id: 1, method: 'initialize', params: INITIALIZE_PARAMS },
    );
    const { status, body } = await answer(res);
    expect({ status, body, hasSessionId: typeof res.headers['mcp-session-id'] === 'string' }).toEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'eras', version: '3.0.0' } },
      },
      hasSessionId: true,
    });
    expect(server.sessions.size).toBe(1);
  });

  it('dual: answers initialize that carries a _meta claim as a 2026-07-28 request, where it is removed (-32601)', async () => {
    const { server, url } = await wsServer();
    const client = await h.connectUrl(url);
    const reply = await client.request('initialize', { ...INITIALIZE_PARAMS, _meta: modernMeta() }, 'init');
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'init', error: { code: -32601, message: 'Method not found: initialize' } });
    expect(server.sessions.size).toBe(0);
  });
});

describe('legacy only', () => {
  it('WebSocket: ignores the claim, so server/discover before initialize is -32601', async () => {
    const { url } = await wsServer({ eras: 'legacy' });
    const client = await h.connectUrl(url);
    expect(await client.request('server/discover', { _meta: modernMeta() }, 'd')).toEqual({
      jsonrpc: '2.0',
      id: 'd',
      error: { code: -32601, message: 'Method not found: server/discover' },
    });
  });

  it('WebSocket: serves a claimed request after initialize as handshake-era (no resultType, no caching hint)', async () => {
    const { url } = await wsServer({ eras: 'legacy' });
    const client = await h.connectUrl(url);
    await client.initialize();
    expect(await client.request('tools/list', { _meta: modernMeta() }, 'l')).toEqual({ jsonrpc: '2.0', id: 'l', result: { tools: [ECHO_TOOL] } });
    expect(await client.request('ping', { _meta: modernMeta() }, 'p')).toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('HTTP: answers a sessionless POST with MCP-Protocol-Version 2026-07-28 with a plain 400 that has no 2026-07-28 error code', async () => {
    const { server, url } = await httpServer({ eras: 'legacy' });
    const res = await modernPost(url, 'server/discover', {}, { id: 'probe' });
    const { status, body } = await answer(res);
    expect(status).toBe(400);
    expect(body.result).toBeUndefined();
    expect(body.error).toBeDefined();
    expect([-32020, -32021, -32022]).not.toContain(body.error.code);
    expect(JSON.stringify(body)).not.toMatch(/-3202[012]/);
    expect({ sessionId: res.headers['mcp-session-id'], sessions: server.sessions.size }).toEqual({ sessionId: undefined, sessions: 0 });
  });

  it('HTTP: does not check 2026-07-28 headers (a wrong Mcp-Method gets no -32020)', async () => {
    const { url } = await httpServer({ eras: 'legacy' });
    const { status, body } = await answer(await modernPost(url, 'tools/list', {}, { headers: { 'mcp-method': 'nope' } }));
    expect(status).toBe(400);
    expect(JSON.stringify(body)).not.toMatch(/-3202[012]/);
  });

  it('HTTP: serves a claimed request in an initialized session as handshake-era', async () => {
    const { url } = await httpServer({ eras: 'legacy' });
    const client = new HttpTestClient(url);
    await client.initialize();
    expect(await client.call('tools/list', { _meta: modernMeta() }, 6)).toEqual({ jsonrpc: '2.0', id: 6, result: { tools: [ECHO_TOOL] } });
  });

  it('HTTP: still serves initialize and the session it opens', async () => {
    const { url } = await httpServer({ eras: 'legacy' });
    const { client } = await mcp.connectUrl(url, { era: 'legacy' });
    expect(client.protocolVersion).toBe('2025-11-25');
    expect(await client.listTools()).toEqual({ tools: [ECHO_TOOL] });
  });
});

describe('modern only', () => {
  it.each(['2025-11-25', '2024-11-05'])('HTTP: answers initialize %s with -32022, supported and requested (HTTP 400), keeping the id', async (version) => {
    const { server, url } = await httpServer({ eras: 'modern' });
    const res = await send(url, 'POST', POST_HEADERS, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { ...INITIALIZE_PARAMS, protocolVersion: version },
    });
    expect({ ...(await answer(res)), sessionId: res.headers['mcp-session-id'] }).toEqual({
      status: 400,
      sessionId: undefined,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32022, message: 'Unsupported protocol version', data: { supported: MODERN_ONLY, requested: version } } },
    });
    expect(server.sessions.size).toBe(0);
  });

  it.each(['GET', 'DELETE'])('HTTP: answers %s with 405', async (method) => {
    const { url } = await httpServer({ eras: 'modern' });
    const res = await send(url, method, { accept: 'text/event-stream', 'mcp-session-id': 'whatever' });
    const { status, body } = await answer(res);
    expect({ status, allow: res.headers.allow, code: body.error?.code }).toEqual({ status: 405, allow: 'POST', code: -32030 });
  });

  it('HTTP: serves 2026-07-28 requests', async () => {
    const { url } = await httpServer({ eras: 'modern' });
    const { client } = await mcp.connectUrl(url, { era: 'modern' });
    expect(await client.callTool('echo', { text: 'm' })).toEqual({ resultType: 'complete', ...toolText('m') });
  });

  it('WebSocket: answers initialize with -32022 naming the supported versions and the requested one', async () => {
    const { server, url } = await wsServer({ eras: 'modern' });
    const client = await h.connectUrl(url);
    expect(await client.request('initialize', INITIALIZE_PARAMS, 'i')).toEqual({
      jsonrpc: '2.0',
      id: 'i',
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: MODERN_ONLY, requested: '2025-11-25' } },
    });
    expect(await client.request('server/discover', { _meta: modernMeta() }, 'd')).toMatchObject({
      id: 'd',
      result: { resultType: 'complete', supportedVersions: MODERN_ONLY },
    });
    expect(server.sessions.size).toBe(0);
  });

  it('stdio: answers initialize with -32022 naming the supported versions and the requested one', async () => {
    const client = spawnStdio('modern');
    expect(await client.request('initialize', INITIALIZE_PARAMS, 'i')).toEqual({
      jsonrpc: '2.0',
      id: 'i',
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: MODERN_ONLY, requested: '2025-11-25' } },
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

interface GateOutcome {
  thrown: Record<string, unknown>;
  rejected: Record<string, unknown>;
}

function describeError(err: unknown) {
  const e = err as McpError;
  return {
    legacyOnly: e instanceof LegacyOnlyRequestError,
    noBackChannel: e instanceof NoBackChannelError,
    code: e.code,
    mentionsInputRequired: e.message.includes('input-required'),
  };
}

const GATED = { legacyOnly: true, noBackChannel: true, code: -32010, mentionsInputRequired: true };

/** A `gate` tool: every server-to-client request on the request's session, and how each ended. */
function gateTool(server: McpServer, outcome: ReturnType<typeof deferred<GateOutcome>>): void {
  server.registerTool('gate', {}, async (_args, ctx) => {
    const s = ctx.session;
    const thrown: Record<string, unknown> = {};
    const attempt = (name: string, fn: () => unknown) => {
      try {
        fn();
        thrown[name] = 'sent';
      } catch (err) {
        thrown[name] = describeError(err);
      }
    };
    attempt('requestElicitationCreate', () => server.requestElicitationCreate(s, { message: 'm', requestedSchema: { type: 'object', properties: {} } }));
    attempt('requestSamplingCreateMessage', () => server.requestSamplingCreateMessage(s, { messages: [], maxTokens: 1 }));
    attempt('requestRootsList', () => server.requestRootsList(s));
    const settle = (p: Promise<unknown>) => p.then(() => 'resolved', describeError);
    const rejected = {
      elicit: await settle(s.elicit({ message: 'm', requestedSchema: { type: 'object', properties: {} } })),
      createMessage: await settle(s.createMessage({ messages: [], maxTokens: 1 })),
      listRoots: await settle(s.listRoots()),
      request: await settle(s.request('ping')),
    };
    outcome.resolve({ thrown, rejected });
    return 'gated';
  });
}

const ALL_GATED: GateOutcome = {
  thrown: { requestElicitationCreate: GATED, requestSamplingCreateMessage: GATED, requestRootsList: GATED },
  rejected: { elicit: GATED, createMessage: GATED, listRoots: GATED, request: GATED },
};

const ALL_CAPABILITIES = { elicitation: {}, sampling: {}, roots: {} };

describe('the era gate', () => {
  it('HTTP: throws LegacyOnlyRequestError for every server-to-client request on a 2026-07-28 request, even with the capabilities declared', async () => {
    const outcome = deferred<GateOutcome>();
    const { url } = await httpServer({}, (s) => gateTool(s, outcome));
    const res = await modernPost(url, 'tools/call', { name: 'gate' }, { meta: { [META_KEYS.clientCapabilities]: ALL_CAPABILITIES } });
    expect(await outcome.promise).toEqual(ALL_GATED);
    expect({ ...(await answer(res)), contentType: res.headers['content-type'] }).toEqual({
      status: 200,
      contentType: 'application/json',
      body: { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', ...toolText('gated') } },
    });
  });

  it('WebSocket: gates the per-request session while the connection keeps its legacy-era session', async () => {
    const outcome = deferred<GateOutcome>();
    const { server, url } = await wsServer({}, (s) => gateTool(s, outcome));
    const client = await h.connectUrl(url);
    await client.initialize({ capabilities: ALL_CAPABILITIES });
    const reply = await client.request('tools/call', { name: 'gate', _meta: modernMeta({ [META_KEYS.clientCapabilities]: ALL_CAPABILITIES }) }, 'g');
    expect(await outcome.promise).toEqual(ALL_GATED);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 'g', result: { resultType: 'complete', ...toolText('gated') } });
    // The legacy-era session on the same connection can still be asked.
    const [legacy] = [...server.sessions.values()];
    server.requestRootsList(legacy);
    expect(await client.nextMessage('roots/list')).toMatchObject({ method: 'roots/list' });
  });

  it('stdio: gates every server-to-client request of a 2026-07-28 request', async () => {
    const client = spawnStdio();
    const reply = await client.request('tools/call', { name: 'gate', _meta: modernMeta({ [META_KEYS.clientCapabilities]: ALL_CAPABILITIES }) }, 'g');
    const gated = { name: 'LegacyOnlyRequestError', code: -32010, inputRequired: true };
    expect(parsedText(reply)).toEqual({
      requestElicitationCreate: gated,
      requestSamplingCreateMessage: gated,
      requestRootsList: gated,
      elicit: gated,
      createMessage: gated,
      listRoots: gated,
      request: gated,
    });
    expect(client.received.filter((m) => 'method' in m && 'id' in m)).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------------------

interface SeenSession {
  fromListener: McpSession;
  fromContext: McpSession;
}

function sessionFacts(s: McpSession, server: McpServer) {
  return {
    era: s.era,
    protocolVersion: s.protocolVersion,
    clientInfo: s.clientInfo,
    clientCapabilities: s.clientCapabilities,
    logLevel: s.logLevel,
    transport: s.transport,
    inSessions: server.sessions.has(s.id),
  };
}

/** A `seen` tool and a requestTool listener that both record the session they were given. */
function recordSessions(server: McpServer, seen: SeenSession[], sessionNew: McpSession[]): void {
  let fromListener: McpSession | undefined;
  server.on('requestTool', (session) => (fromListener = session));
  server.on('sessionNew', (session) => sessionNew.push(session));
  server.registerTool('seen', {}, (_args, ctx: RequestContext) => {
    seen.push({ fromListener: fromListener!, fromContext: ctx.session });
    return 'seen';
  });
}

const RICH_META = {
  [META_KEYS.clientInfo]: { name: 'rich-client', version: '9.9.9', title: 'Rich' },
  [META_KEYS.clientCapabilities]: { elicitation: {}, sampling: { tools: {} }, roots: {} },
  [META_KEYS.logLevel]: 'warning',
};

/**
 * A 2026-07-28 McpClient that says what RICH_META says (its log level is set once connected). McpClient sends
 * `elicitation: {}` as `{ form: {} }` itself, so here the server is not the one reading it as form mode.
 */
async function richClient(target: string | ClientTransport): Promise<McpClient> {
  const client = await connectAs(
    { name: 'rich-client', version: '9.9.9', title: 'Rich' },
    {
      era: 'modern',
      capabilities: { elicitation: {}, sampling: { tools: {} }, roots: {} },
    },
    target,
  );
  await client.setLogLevel('warning');
  return client;
}

const RICH_FACTS = {
  era: 'modern',
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'rich-client', version: '9.9.9', title: 'Rich' },
  clientCapabilities: { elicitation: { form: {} }, sampling: { tools: {} }, roots: {} },
  logLevel: 'warning',
  inSessions: false,
};

describe('the per-request session', () => {
  it('HTTP: is what requestTool listeners and ctx.session see, says what _meta says, is not in server.sessions, and fires no sessionNew', async () => {
    const seen: SeenSession[] = [];
    const sessionNew: McpSession[] = [];
    const { server, url } = await httpServer({}, (s) => recordSessions(s, seen, sessionNew));
    const client = await richClient(url);
    expect(await client.callTool('seen')).toEqual({ resultType: 'complete', ...toolText('seen') });
    expect(seen).toHaveLength(1);
    expect(seen[0].fromListener).toBe(seen[0].fromContext);
    expect(seen[0].fromContext).toMatchObject({ era: 'modern', state: 'ready' });
    expect(sessionFacts(seen[0].fromContext, server)).toEqual({ ...RICH_FACTS, transport: 'http' });
    expect({ sessions: server.sessions.size, sessionNew: sessionNew.length }).toEqual({ sessions: 0, sessionNew: 0 });
  });

  it('HTTP: has no clientInfo when _meta has none, and a new session for each request', async () => {
    const seen: SeenSession[] = [];
    const { server, url } = await httpServer({}, (s) => recordSessions(s, seen, []));
    await (await modernPost(url, 'tools/call', { name: 'seen' }, { meta: { [META_KEYS.clientInfo]: undefined } })).ended;
    await (await modernPost(url, 'tools/call', { name: 'seen' })).ended;
    expect(sessionFacts(seen[0].fromContext, server)).toEqual({
      era: 'modern',
      protocolVersion: '2026-07-28',
      clientInfo: undefined,
      clientCapabilities: {},
      logLevel: undefined,
      transport: 'http',
      inSessions: false,
    });
    expect(seen[1].fromContext.clientInfo).toEqual(TEST_CLIENT_INFO);
    expect(seen[0].fromContext.id).not.toBe(seen[1].fromContext.id);
  });

  it('WebSocket: is a modern session of transport websocket, apart from the legacy-era session of the connection', async () => {
    const seen: SeenSession[] = [];
    const sessionNew: McpSession[] = [];
    const { server, url } = await wsServer({}, (s) => recordSessions(s, seen, sessionNew));
    const client = await h.connectUrl(url);
    await client.initialize({ clientInfo: { name: 'legacy-side', version: '1.0.0' } });
    await client.request('tools/call', { name: 'seen', _meta: modernMeta(RICH_META) }, 'm');
    await client.request('tools/call', { name: 'seen' }, 'l');
    expect(sessionFacts(seen[0].fromContext, server)).toEqual({ ...RICH_FACTS, transport: 'websocket' });
    expect(seen[0].fromListener).toBe(seen[0].fromContext);
    expect(sessionFacts(seen[1].fromContext, server)).toEqual({
      era: 'legacy',
      protocolVersion: '2025-11-25',
      clientInfo: { name: 'legacy-side', version: '1.0.0' },
      clientCapabilities: {},
      logLevel: undefined,
      transport: 'websocket',
      inSessions: true,
    });
    expect({ sessions: server.sessions.size, sessionNew: sessionNew.map((s) => s.id) }).toEqual({ sessions: 1, sessionNew: [seen[1].fromContext.id] });
  });

  it('stdio: is a modern session of transport stdio, not in server.sessions, with no sessionNew', async () => {
    const client = await richClient(stdioFixture());
    expect(jsonOf(await client.callTool('whoami'))).toEqual({
      era: 'modern',
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'rich-client', version: '9.9.9', title: 'Rich' },
      clientCapabilities: { elicitation: { form: {} }, sampling: { tools: {} }, roots: {} },
      transport: 'stdio',
      inSessions: false,
      sessions: 0,
      sessionNew: 0,
    });
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('WebSocket carries 2026-07-28 requests', () => {
  it('answers server/discover on a fresh connection, with no initialize', async () => {
    const { server, url } = await wsServer();
    const { client } = await mcp.connectUrl(url, { era: 'modern' });
    expect(await client.request('server/discover')).toEqual({
      resultType: 'complete',
      supportedVersions: MODERN_ONLY,
      capabilities: DEFAULT_CAPABILITIES,
      _meta: { [META_KEYS.serverInfo]: { name: 'eras', version: '3.0.0' } },
      ...NO_CACHE,
    });
    expect(server.sessions.size).toBe(0);
  });

  it('answers envelope errors on the connection, keeping the id', async () => {
    const { url } = await wsServer();
    const client = await h.connectUrl(url);
    expect(await client.request('tools/list', { _meta: modernMeta({ [META_KEYS.clientCapabilities]: undefined }) }, 'e1')).toEqual({
      jsonrpc: '2.0',
      id: 'e1',
      error: {
        code: -32602,
        message: 'Invalid params: _meta["io.modelcontextprotocol/clientCapabilities"] is required on every 2026-07-28 request (an object; {} declares none)',
      },
    });
    expect(await client.request('tools/list', { _meta: modernMeta({ [META_KEYS.protocolVersion]: '1900-01-01' }) }, 'e2')).toEqual({
      jsonrpc: '2.0',
      id: 'e2',
      error: { code: -32022, message: 'Unsupported protocol version', data: { supported: MODERN_ONLY, requested: '1900-01-01' } },
    });
    expect(await client.request('ping', { _meta: modernMeta() }, 'e3')).toEqual({
      jsonrpc: '2.0',
      id: 'e3',
      error: { code: -32601, message: 'Method not found: ping' },
    });
  });

  it('cancels a 2026-07-28 request on notifications/cancelled: its signal aborts and no response is sent', async () => {
    const started = deferred();
    const aborted = deferred<unknown>();
    const { server, url } = await wsServer({}, (s) =>
      s.registerTool('block', {}, async (_args, ctx) => {
        started.resolve();
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve(), { once: true }));
        aborted.resolve(ctx.signal.reason);
        return 'too late';
      }),
    );
    const cancelled: unknown[] = [];
    server.on('cancelled', (_s, params) => cancelled.push(params));
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest('blk', 'tools/call', { name: 'block' }));
    await started.promise;
    client.notify('notifications/cancelled', { requestId: 'blk', reason: 'user gave up' });
    const reason = (await aborted.promise) as McpError;
    expect({ code: reason.code, message: reason.message }).toEqual({ code: -32800, message: 'cancelled by the client: user gave up' });
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'next' }, _meta: modernMeta() }, 'next')).toEqual({
      jsonrpc: '2.0',
      id: 'next',
      result: { resultType: 'complete', ...toolText('next') },
    });
    expect(client.received.filter((m) => m.id === 'blk')).toEqual([]);
    expect(cancelled).toEqual([{ requestId: 'blk', reason: 'user gave up' }]);
  });

  it('interleaves a legacy-era session and 2026-07-28 requests on one connection, each answered in its era', async () => {
    const sessionNew: McpSession[] = [];
    const { server, url } = await wsServer({}, (s) => s.on('sessionNew', (session) => sessionNew.push(session)));
    const client = await h.connectUrl(url);
    expect(await client.request('tools/list', { _meta: modernMeta() }, 'm1')).toEqual({
      jsonrpc: '2.0',
      id: 'm1',
      result: { resultType: 'complete', tools: [ECHO_TOOL], ...NO_CACHE },
    });
    expect(sessionNew).toHaveLength(0);
    await client.initialize();
    expect(await client.request('tools/list', undefined, 'l1')).toEqual({ jsonrpc: '2.0', id: 'l1', result: { tools: [ECHO_TOOL] } });
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'modern' }, _meta: modernMeta() }, 'm2')).toEqual({
      jsonrpc: '2.0',
      id: 'm2',
      result: { resultType: 'complete', ...toolText('modern') },
    });
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'legacy' } }, 'l2')).toEqual({
      jsonrpc: '2.0',
      id: 'l2',
      result: toolText('legacy'),
    });
    expect(await client.request('ping', undefined, 'l3')).toEqual({ jsonrpc: '2.0', id: 'l3', result: {} });
    expect({ sessions: server.sessions.size, sessionNew: sessionNew.length }).toEqual({ sessions: 1, sessionNew: 1 });
  });

  it('answers a 2026-07-28 request before initialize without starting a session, and a handshake-era request before initialize with -32600', async () => {
    const sessionNew: McpSession[] = [];
    const { server, url } = await wsServer({}, (s) => s.on('sessionNew', (session) => sessionNew.push(session)));
    const client = await h.connectUrl(url);
    expect((await client.request('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: modernMeta() }, 1)).result).toEqual({
      resultType: 'complete',
      ...toolText('x'),
    });
    expect((await client.request('tools/list', undefined, 2)).error.code).toBe(-32600);
    expect({ sessions: server.sessions.size, sessionNew: sessionNew.length }).toEqual({ sessions: 0, sessionNew: 0 });
  });
});

describe('stdio carries 2026-07-28 requests', () => {
  it('answers server/discover on a fresh process, with no initialize', async () => {
    const client = spawnStdio();
    expect(await client.request('server/discover', { _meta: modernMeta() }, 'd')).toEqual({
      jsonrpc: '2.0',
      id: 'd',
      result: {
        resultType: 'complete',
        supportedVersions: MODERN_ONLY,
        capabilities: DEFAULT_CAPABILITIES,
        _meta: { [META_KEYS.serverInfo]: { name: 'modern-stdio', version: '1.2.3' } },
        ...NO_CACHE,
      },
    });
    expect(client.strayStdout).toEqual([]);
  });

  it('cancels a 2026-07-28 request on notifications/cancelled, with no response for it', async () => {
    const client = spawnStdio();
    client.send(modernRequest('blk', 'tools/call', { name: 'block' }));
    // The echo answer proves the block call is running (lines are handled in order).
    await client.request('tools/call', { name: 'echo', arguments: { text: 'x' }, _meta: modernMeta() }, 'e1');
    client.notify('notifications/cancelled', { requestId: 'blk', reason: 'stop' });
    await client.request('tools/call', { name: 'echo', arguments: { text: 'y' }, _meta: modernMeta() }, 'e2');
    const report = await client.request('tools/call', { name: 'cancellations', _meta: modernMeta() }, 'c');
    expect(parsedText(report)).toEqual([{ requestId: 'blk', reason: { code: -32800, message: 'cancelled by the client: stop' } }]);
    expect(client.received.filter((m) => m.id === 'blk')).toEqual([]);
  });

  it('interleaves a legacy-era session and 2026-07-28 requests in one process', async () => {
    const client = spawnStdio();
    const init = await client.request('initialize', INITIALIZE_PARAMS, 'init');
    expect(init.result.protocolVersion).toBe('2025-11-25');
    client.notify('notifications/initialized');
    const modern = await client.request('tools/call', { name: 'whoami', _meta: modernMeta({ [META_KEYS.clientInfo]: undefined }) }, 'm');
    const legacy = await client.request('tools/call', { name: 'whoami' }, 'l');
    expect({ modern: parsedText(modern), legacy: parsedText(legacy) }).toEqual({
      modern: {
        era: 'modern',
        protocolVersion: '2026-07-28',
        clientInfo: null,
        clientCapabilities: {},
        transport: 'stdio',
        inSessions: false,
        sessions: 1,
        sessionNew: 1,
      },
      legacy: {
        era: 'legacy',
        protocolVersion: '2025-11-25',
        clientInfo: { name: 'legacy', version: '1.0.0' },
        clientCapabilities: {},
        transport: 'stdio',
        inSessions: true,
        sessions: 1,
        sessionNew: 1,
      },
    });
    expect(modern.result.resultType).toBe('complete');
    expect(legacy.result.resultType).toBeUndefined();
  });

  it('legacy only: answers server/discover with a claim before initialize with -32601', async () => {
    const client = spawnStdio('legacy');
    expect(await client.request('server/discover', { _meta: modernMeta() }, 'd')).toEqual({
      jsonrpc: '2.0',
      id: 'd',
      error: { code: -32601, message: 'Method not found: server/discover' },
    });
  });
});
