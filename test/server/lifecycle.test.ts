/**
 * initialize, version negotiation, the session object, ordering rules, and ping in both directions.
 *
 * The handshake is the subject of most of these tests, so they stay on the raw WebSocket peer: the
 * initialize reply as sent, versions and params McpClient never sends, states between the messages,
 * messages out of order, and the client's own answers to the server's ping. McpClient is the peer where
 * the subject is the server's events, the session or its answers after a well-behaved handshake.
 */
import { describe, expect, it, vi } from 'vitest';
import type { McpSession } from '../../src/index.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { DEFAULT_CAPABILITIES, startWebSocket } from '../helpers/servers.js';
import { nextEvent } from '../helpers/server-events.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useFakeClock } from '../helpers/fake-clock.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);
const fakeClock = useFakeClock();

const CLIENT_INFO = { name: 'test-client', version: '1.0.0' };

function initParams(protocolVersion: string, extra: Record<string, unknown> = {}) {
  return { protocolVersion, capabilities: {}, clientInfo: CLIENT_INFO, ...extra };
}

describe('initialize', () => {
  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('echoes the supported version %s with the full server declaration', async (version) => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const reply = await client.request('initialize', initParams(version), 1);
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { protocolVersion: version, capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } },
    });
    expect(session.protocolVersion).toBe(version);
    await expectQuietAndAlive(client);
  });

  it('answers an unknown version with 2025-11-25 as a normal result, not an error', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const reply = await client.request('initialize', initParams('1999-01-01'), 'init');
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'init',
      result: { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } },
    });
    expect(session.protocolVersion).toBe('2025-11-25');
    expect(session.state).toBe('initializing');
  });

  it('sends title, description, icons and websiteUrl in serverInfo and info.instructions as instructions', async () => {
    const icons = [{ src: 'https://example.com/icon.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'dark' as const }];
    const running = await startWebSocket(cleanups, undefined, {
      info: {
        name: 'fancy',
        version: '2.3.4',
        title: 'Fancy Server',
        description: 'Does fancy things',
        icons,
        websiteUrl: 'https://example.com',
        instructions: 'Call the fancy tool first.',
      },
    });
    const { client } = await h.connect(running);
    const reply = await client.request('initialize', initParams('2025-11-25'), 1);
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-11-25',
        capabilities: DEFAULT_CAPABILITIES,
        serverInfo: { name: 'fancy', version: '2.3.4', title: 'Fancy Server', description: 'Does fancy things', icons, websiteUrl: 'https://example.com' },
        instructions: 'Call the fancy tool first.',
      },
    });
  });

  it('merges options.capabilities over the derived capabilities', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { capabilities: { experimental: { 'example.com/feature': { level: 2 } } } } });
    const { client } = await h.connect(running);
    const reply = await client.request('initialize', initParams('2025-06-18'), 1);
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: { ...DEFAULT_CAPABILITIES, experimental: { 'example.com/feature': { level: 2 } } },
        serverInfo: { name: 'test-server', version: '1.0.0' },
      },
    });
  });

  it('emits initialize, sessionNew and initialized with the session, in that order', async () => {
    const running = await startWebSocket(cleanups);
    const events: string[] = [];
    let initializeArgs: unknown[] = [];
    running.server.on('initialize', (...args) => {
      events.push('initialize');
      initializeArgs = args;
    });
    running.server.on('sessionNew', () => events.push('sessionNew'));
    const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
    running.server.on('initialized', () => events.push('initialized'));
    const { session } = await clients.connect(running);
    const [readySession] = await initialized;
    expect(readySession).toBe(session);
    expect(events).toEqual(['initialize', 'sessionNew', 'initialized']);
    expect(initializeArgs).toEqual([
      session,
      initParams('2025-11-25'),
      { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } },
    ]);
  });
});

describe('the session', () => {
  it('is findable by id and exposes the negotiated version, client info, normalised capabilities and transport', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const clientInfo = { name: 'inspector', version: '0.9.1', title: 'Inspector' };
    const reply = await client.request(
      'initialize',
      { protocolVersion: '2025-06-18', capabilities: { roots: { listChanged: true }, sampling: {}, elicitation: {}, bogus: true }, clientInfo },
      1,
    );
    expect(reply.result.protocolVersion).toBe('2025-06-18');
    expect(running.server.sessions.get(session.id)).toBe(session);
    expect(running.server.sessions.size).toBe(1);
    expect(session.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(session.protocolVersion).toBe('2025-06-18');
    expect(session.clientInfo).toEqual(clientInfo);
    expect(session.clientCapabilities).toEqual({ roots: { listChanged: true }, sampling: {}, elicitation: { form: {} } });
    expect(session.transport).toBe('websocket');
    expect(session.remoteAddress).toBe('127.0.0.1');
  });

  it('keeps an explicit elicitation mode as declared', async () => {
    const running = await startWebSocket(cleanups);
    const { session } = await clients.connect(running, { capabilities: { elicitation: { url: {} } } });
    expect(session.clientCapabilities).toEqual({ elicitation: { url: {} } });
  });

  it('is not listed before initialize, and each connection gets its own session id', async () => {
    const running = await startWebSocket(cleanups);
    const a = await h.connect(running);
    const b = await h.connect(running);
    expect(a.session.id).not.toBe(b.session.id);
    expect(a.session.state).toBe('new');
    expect(running.server.sessions.size).toBe(0);
    await a.client.initialize();
    await pingOk(a.client);
    expect([...running.server.sessions.keys()]).toEqual([a.session.id]);
  });

  it('goes from new to initializing to ready to closed', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    expect(session.state).toBe('new');
    const reply = await client.request('initialize', initParams('2025-11-25'), 1);
    expect(reply.result.protocolVersion).toBe('2025-11-25');
    expect(session.state).toBe('initializing');
    expect(running.server.sessions.get(session.id)).toBe(session);

    const initialized = nextEvent(running.server, 'initialized');
    client.notify('notifications/initialized');
    await initialized;
    expect(session.state).toBe('ready');

    const ended = nextEvent<[McpSession, string]>(running.server, 'sessionEnd');
    client.socket.close(1000, 'bye');
    const [endedSession, reason] = await ended;
    expect(endedSession).toBe(session);
    expect(reason).toBe('websocket closed (1000: bye)');
    expect(session.state).toBe('closed');
    expect(session.closeReason).toBe('websocket closed (1000: bye)');
    expect(running.server.sessions.get(session.id)).toBeUndefined();
  });

  it('has createdAt and lastActivity dates, and lastActivity advances with a later message', async () => {
    const running = await startWebSocket(cleanups);
    const before = Date.now();
    const { client, session } = await clients.connect(running);
    expect(session.createdAt).toBeInstanceOf(Date);
    expect(session.lastActivity).toBeInstanceOf(Date);
    expect(session.createdAt.getTime()).toBeGreaterThanOrEqual(before);
    expect(session.lastActivity.getTime()).toBeGreaterThanOrEqual(session.createdAt.getTime());
    const created = session.createdAt.getTime();
    const seen = session.lastActivity.getTime();
    fakeClock();
    vi.advanceTimersByTime(25);
    expect(await client.request('ping')).toEqual({});
    expect(session.lastActivity.getTime()).toBeGreaterThan(seen);
    expect(session.lastActivity.getTime()).toBe(Date.now());
    expect(session.createdAt.getTime()).toBe(created);
  });
});

describe('invalid initialize params', () => {
  const cases: [string, Record<string, unknown> | undefined, string][] = [
    ['no params at all', undefined, 'initialize needs params.protocolVersion as a string'],
    ['no protocolVersion', { capabilities: {}, clientInfo: CLIENT_INFO }, 'initialize needs params.protocolVersion as a string'],
    [
      'a numeric protocolVersion',
      { protocolVersion: 20251125, capabilities: {}, clientInfo: CLIENT_INFO },
      'initialize needs params.protocolVersion as a string',
    ],
    ['no capabilities', { protocolVersion: '2025-11-25', clientInfo: CLIENT_INFO }, 'initialize needs params.capabilities as an object'],
    [
      'capabilities as a string',
      { protocolVersion: '2025-11-25', capabilities: 'all', clientInfo: CLIENT_INFO },
      'initialize needs params.capabilities as an object',
    ],
    ['capabilities null', { protocolVersion: '2025-11-25', capabilities: null, clientInfo: CLIENT_INFO }, 'initialize needs params.capabilities as an object'],
    [
      'capabilities as an array',
      { protocolVersion: '2025-11-25', capabilities: [], clientInfo: CLIENT_INFO },
      'initialize needs params.capabilities as an object',
    ],
    ['no clientInfo', { protocolVersion: '2025-11-25', capabilities: {} }, 'initialize needs params.clientInfo with a name and a version'],
    [
      'clientInfo without a name',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { version: '1' } },
      'initialize needs params.clientInfo with a name and a version',
    ],
    [
      'clientInfo without a version',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x' } },
      'initialize needs params.clientInfo with a name and a version',
    ],
    [
      'clientInfo with a numeric version',
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'x', version: 1 } },
      'initialize needs params.clientInfo with a name and a version',
    ],
  ];

  it.each(cases)('answers %s with -32602, leaves the session uninitialized, and a valid initialize then works', async (_name, params, message) => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const reply = await client.request('initialize', params, 1);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32602, message } });
    expect(session.state).toBe('new');
    expect(session.protocolVersion).toBeUndefined();
    expect(running.server.sessions.size).toBe(0);

    const retry = await client.request('initialize', initParams('2025-11-25'), 2);
    expect(retry.result).toEqual({ protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } });
    expect(running.server.sessions.get(session.id)).toBe(session);
  });
});

describe('ordering', () => {
  it('rejects a second initialize on the same socket with -32600 and keeps the first negotiation', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running, { protocolVersion: '2025-03-26' });
    const reply = await client.request('initialize', initParams('2025-11-25', { clientInfo: { name: 'other', version: '2' } }), 'again');
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'again',
      error: { code: -32600, message: 'Invalid Request: initialize was already received on this session' },
    });
    expect(session.protocolVersion).toBe('2025-03-26');
    expect(session.clientInfo).toEqual(CLIENT_INFO);
    expect(session.state).toBe('ready');
    await expectQuietAndAlive(client);
  });

  it('rejects a request before initialize with -32600, and initialize still succeeds afterwards', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const reply = await client.request('tools/list', {}, 1);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32600, message: 'Invalid Request: tools/list before initialize; send initialize first' } });
    expect(session.state).toBe('new');
    const init = await client.request('initialize', initParams('2025-11-25'), 2);
    expect(init.result.protocolVersion).toBe('2025-11-25');
    client.notify('notifications/initialized');
    const list = await client.request('tools/list', {}, 3);
    expect(list).toEqual({ jsonrpc: '2.0', id: 3, result: { tools: [] } });
    expect(session.state).toBe('ready');
  });

  it('answers ping before initialize with {} and stays uninitialized', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const reply = await client.request('ping', undefined, 7);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
    expect(session.state).toBe('new');
    expect(running.server.sessions.size).toBe(0);
  });

  it('answers an unknown method before initialize with -32601', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.connect(running);
    const reply = await client.request('frobnicate', {}, 1);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 1, error: { code: -32601, message: 'Method not found: frobnicate' } });
  });

  it('ignores notifications/initialized before initialize', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    let initializedEvents = 0;
    running.server.on('initialized', () => initializedEvents++);
    client.notify('notifications/initialized');
    await expectQuietAndAlive(client);
    expect(session.state).toBe('new');
    expect(initializedEvents).toBe(0);
  });
});

describe('ping', () => {
  it('answers a client ping with an empty result', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await clients.connect(running);
    expect(await client.request('ping')).toEqual({});
    expect(await client.request('ping', { _meta: { trace: 'x' } })).toEqual({});
  });

  it('session.ping() sends a ping request and resolves when the client answers {}', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const ping = capture(session.ping());
    const request = await client.nextMessage('ping');
    expect(request).toEqual({ jsonrpc: '2.0', id: 0, method: 'ping', params: {} });
    // The server has handled a later message from the client, and the ping is still waiting for its answer.
    await pingOk(client);
    expect(ping.settled()).toBe(false);
    client.respond(0, {});
    expect(await ping.outcome).toEqual({ ok: true, value: undefined });
    expect(session.pendingRequests).toBe(0);
  });

  it('session.ping() rejects when the client answers with an error', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    const ping = capture(session.ping());
    const request = await client.nextMessage('ping');
    client.respondError(request.id, -32603, 'busy');
    const outcome = await ping.outcome;
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.error).toMatchObject({ name: 'McpError', code: -32603, message: 'busy' });
  });
});
