/** Malformed and invalid input: exact error replies, stats, and the session surviving every one. */
import { describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/index.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { gate } from '../helpers/deferred.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

const PARSE_ERROR = { jsonrpc: '2.0', id: null, error: { code: -32700, message: expect.stringMatching(/^Parse error/) } };

function invalid(id: string | number | null, message: string) {
  return { jsonrpc: '2.0', id, error: { code: -32600, message: `Invalid Request: ${message}` } };
}

const isReply = (m: Json) => !Array.isArray(m) && !('method' in m);

/** A server with a `slow` tool that waits until the test lets it finish. */
function slowTool(server: McpServer, started: { open: () => void }, release: Promise<void>) {
  server.registerTool('slow', {}, async () => {
    started.open();
    await release;
    return 'done';
  });
}

describe('malformed and invalid single messages', () => {
  const cases: [string, string | object, object][] = [
    ['truncated JSON', '{"jsonrpc":"2.0","id":1,"method":"ping"', PARSE_ERROR],
    ['plain text', 'hello there', PARSE_ERROR],
    ['an empty frame', '', PARSE_ERROR],
    ['a number', '5', invalid(null, 'a JSON-RPC message must be an object')],
    ['null', 'null', invalid(null, 'a JSON-RPC message must be an object')],
    ['a string', '"ping"', invalid(null, 'a JSON-RPC message must be an object')],
    ['a request without jsonrpc', { id: 7, method: 'ping' }, invalid(7, 'jsonrpc must be "2.0"')],
    ['a request with jsonrpc 1.0', { jsonrpc: '1.0', id: 'a', method: 'ping' }, invalid('a', 'jsonrpc must be "2.0"')],
    ['a request with id null', { jsonrpc: '2.0', id: null, method: 'ping' }, invalid(null, 'id must be a string or an integer, never null')],
    ['a request with a fractional id', { jsonrpc: '2.0', id: 1.5, method: 'ping' }, invalid(null, 'id must be a string or an integer, never null')],
    ['a request with an object id', { jsonrpc: '2.0', id: { n: 1 }, method: 'ping' }, invalid(null, 'id must be a string or an integer, never null')],
    ['a request with params as an array', { jsonrpc: '2.0', id: 8, method: 'ping', params: [1, 2] }, invalid(8, 'params must be an object')],
    ['a request with params as a string', { jsonrpc: '2.0', id: 'p', method: 'tools/list', params: 'x' }, invalid('p', 'params must be an object')],
    ['a request with params null', { jsonrpc: '2.0', id: 9, method: 'ping', params: null }, invalid(9, 'params must be an object')],
    ['a notification with params as an array', { jsonrpc: '2.0', method: 'notifications/initialized', params: [] }, invalid(null, 'params must be an object')],
    ['a numeric method', { jsonrpc: '2.0', id: 10, method: 42 }, invalid(10, 'method must be a non-empty string')],
    ['an empty method', { jsonrpc: '2.0', id: 11, method: '' }, invalid(11, 'method must be a non-empty string')],
    [
      'a message with neither method nor result nor error',
      { jsonrpc: '2.0', id: 12 },
      invalid(12, 'a message needs a method, or exactly one of result and error'),
    ],
    [
      'a message with both result and error',
      { jsonrpc: '2.0', id: 13, result: {}, error: { code: 1, message: 'x' } },
      invalid(13, 'a message needs a method, or exactly one of result and error'),
    ],
    [
      'an error reply whose error is a string',
      { jsonrpc: '2.0', id: 14, error: 'bad' },
      invalid(14, 'error must be an object with an integer code and a string message'),
    ],
    ['a result with id null', { jsonrpc: '2.0', id: null, result: {} }, invalid(null, 'a result needs a string or integer id')],
  ];

  it.each(cases)('answers %s exactly, counts it, and the session survives', async (_name, frame, expected) => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running);
    client.sendRaw(frame);
    const reply = await client.waitFor(isReply);
    expect(reply).toEqual(expected);
    expect(running.server.stats.invalidMessages).toBe(1);
    await expectQuietAndAlive(client);
    expect(session.state).toBe('ready');
    expect(running.server.sessions.get(session.id)).toBe(session);
  });

  it('answers malformed JSON before initialize too, and initialize then works', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    client.sendRaw('{oops');
    expect(await client.waitFor(isReply)).toEqual(PARSE_ERROR);
    expect(session.state).toBe('new');
    await client.initialize();
    await expectQuietAndAlive(client);
    expect(session.state).toBe('ready');
  });

  it('answers a binary frame with -32600 and counts it', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running);
    client.sendRaw(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })), { binary: true });
    expect(await client.waitFor(isReply)).toEqual(invalid(null, 'binary frames are not accepted; send each JSON-RPC message as one UTF-8 text frame'));
    expect(running.server.stats.invalidMessages).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('counts every invalid message, one by one', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running);
    const frames = ['nope', '[', '7', JSON.stringify({ id: 1, method: 'ping' }), JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' })];
    for (const [i, frame] of frames.entries()) {
      client.sendRaw(frame);
      await client.waitFor(isReply);
      expect(running.server.stats.invalidMessages).toBe(i + 1);
    }
    await expectQuietAndAlive(client);
    expect(running.server.stats).toMatchObject({ unknownResponses: 0, lateResponses: 0, duplicateResponses: 0, invalidMessages: 5 });
  });
});

describe('unknown methods', () => {
  it('answers an unknown method with -32601 naming it, without counting an invalid message', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running);
    const reply = await client.request('x', {}, 5);
    expect(reply).toEqual({ jsonrpc: '2.0', id: 5, error: { code: -32601, message: 'Method not found: x' } });
    const noParams = await client.request('tools/frobnicate', undefined, 'f');
    expect(noParams).toEqual({ jsonrpc: '2.0', id: 'f', error: { code: -32601, message: 'Method not found: tools/frobnicate' } });
    expect(running.server.stats.invalidMessages).toBe(0);
    await expectQuietAndAlive(client);
  });

  it('does not treat Object.prototype names as methods', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running);
    for (const [i, method] of ['toString', 'constructor', '__proto__', 'hasOwnProperty'].entries()) {
      const reply = await client.request(method, {}, i + 1);
      expect(reply).toEqual({ jsonrpc: '2.0', id: i + 1, error: { code: -32601, message: `Method not found: ${method}` } });
    }
    await expectQuietAndAlive(client);
  });

  it('answers an unknown notification with nothing and reports it as a notification event', async () => {
    const running = await startWebSocket(cleanups);
    const seen: unknown[][] = [];
    running.server.on('notification', (...args) => seen.push(args));
    const { client, session } = await h.open(running);
    client.notify('notifications/whatever', { a: 1 });
    await expectQuietAndAlive(client);
    expect(seen).toEqual([[session, 'notifications/whatever', { a: 1 }]]);
  });
});

describe('request ids in flight', () => {
  it('rejects a request whose id is already in flight with -32600, and the first still completes', async () => {
    const started = gate();
    const release = gate();
    const running = await startWebSocket(cleanups, (server) => slowTool(server, started, release.opened));
    const { client } = await h.open(running);

    // Both replies carry id 1, so tell them apart by result/error rather than with client.request.
    const first = capture(client.waitFor((m) => m.id === 1 && 'result' in m));
    client.sendRaw({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'slow', arguments: {} } });
    await started.opened;
    client.sendRaw({ jsonrpc: '2.0', id: 1, method: 'ping' });
    const duplicate = await client.waitFor((m) => m.id === 1 && 'error' in m);
    expect(duplicate).toEqual(invalid(1, 'request id 1 is already in flight in this session; use a new id'));
    expect(running.server.stats.invalidMessages).toBe(1);
    expect(first.settled()).toBe(false);

    release.open();
    expect(await first.outcome).toEqual({ ok: true, value: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done' }] } } });
    await expectQuietAndAlive(client);
  });

  it('treats ids 1 and "1" as different requests', async () => {
    const started = gate();
    const release = gate();
    const running = await startWebSocket(cleanups, (server) => slowTool(server, started, release.opened));
    const { client } = await h.open(running);

    const first = capture(client.request('tools/call', { name: 'slow', arguments: {} }, 1));
    await started.opened;
    const stringId = await client.request('ping', undefined, '1');
    expect(stringId).toEqual({ jsonrpc: '2.0', id: '1', result: {} });
    expect(first.settled()).toBe(false);
    release.open();
    expect(await first.outcome).toEqual({ ok: true, value: { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'done' }] } } });
    expect(running.server.stats.invalidMessages).toBe(0);
  });

  it('accepts an id again once its request has completed', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running);
    expect(await client.request('ping', undefined, 77)).toEqual({ jsonrpc: '2.0', id: 77, result: {} });
    expect(await client.request('tools/list', {}, 77)).toEqual({ jsonrpc: '2.0', id: 77, result: { tools: [] } });
  });
});

describe('batches', () => {
  const byId = (a: Json, b: Json) => String(a.id).localeCompare(String(b.id));

  it('on 2025-03-26 answers a batch with one array frame holding each response, and nothing for notifications', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('echo', { description: 'echo' }, () => 'hi'));
    const rootsChanged: unknown[] = [];
    running.server.on('rootsListChanged', (s) => rootsChanged.push(s));
    const { client, session } = await h.open(running, { protocolVersion: '2025-03-26' });

    client.sendRaw([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', method: 'notifications/roots/list_changed' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: {} } },
      { jsonrpc: '2.0', id: 3, method: 'nope' },
    ]);
    const reply = await client.waitFor((m) => Array.isArray(m));
    expect((reply as unknown as Json[]).slice().sort(byId)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'hi' }] } },
      { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: nope' } },
    ]);
    expect(rootsChanged).toEqual([session]);
    await expectQuietAndAlive(client);
    expect(running.server.stats.invalidMessages).toBe(0);
  });

  it('on 2025-03-26 answers invalid elements inside a batch element by element', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });
    client.sendRaw([5, { jsonrpc: '2.0', id: 'a', method: 'ping' }, { jsonrpc: '2.0', id: 'b', method: 'ping', params: [] }]);
    const reply = (await client.waitFor((m) => Array.isArray(m))) as unknown as Json[];
    expect(reply).toHaveLength(3);
    expect(reply.filter((m) => m.id === null)).toEqual([invalid(null, 'a JSON-RPC message must be an object')]);
    expect(reply.filter((m) => m.id !== null).sort(byId)).toEqual([{ jsonrpc: '2.0', id: 'a', result: {} }, invalid('b', 'params must be an object')]);
    expect(running.server.stats.invalidMessages).toBe(2);
    await expectQuietAndAlive(client);
  });

  it('on 2025-03-26 sends no frame at all for a batch of notifications', async () => {
    const running = await startWebSocket(cleanups);
    const seen: string[] = [];
    running.server.on('notification', (_s, method) => seen.push(method));
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });
    client.sendRaw([
      { jsonrpc: '2.0', method: 'notifications/one' },
      { jsonrpc: '2.0', method: 'notifications/two' },
    ]);
    await expectQuietAndAlive(client);
    await expectQuietAndAlive(client);
    expect(seen.sort()).toEqual(['notifications/one', 'notifications/two']);
  });

  it('on 2025-03-26 settles server requests answered in one batch of responses, and sends nothing back', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running, { protocolVersion: '2025-03-26' });
    const a = session.request('roots/list', {});
    const b = session.request('sampling/createMessage', { maxTokens: 5, messages: [] });
    const [ra, rb] = [await client.nextMessage('roots/list'), await client.nextMessage('sampling/createMessage')];
    client.sendRaw([
      { jsonrpc: '2.0', id: rb.id, result: { role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' } },
      { jsonrpc: '2.0', id: ra.id, result: { roots: [] } },
    ]);
    expect(await a).toEqual({ roots: [] });
    expect(await b).toEqual({ role: 'assistant', content: { type: 'text', text: 'ok' }, model: 'm' });
    await expectQuietAndAlive(client);
  });

  it.each(['2025-06-18', '2025-11-25'])('on %s answers a batch with a single -32600 error with id null', async (version) => {
    const running = await startWebSocket(cleanups);
    let pings = 0;
    running.server.on('message', (_s, direction, message) => {
      if (direction === 'in' && !Array.isArray(message) && (message as Json)?.method === 'ping') pings++;
    });
    const { client } = await h.open(running, { protocolVersion: version });
    const pingsBefore = pings;
    client.sendRaw([
      { jsonrpc: '2.0', id: 1, method: 'ping' },
      { jsonrpc: '2.0', id: 2, method: 'tools/list' },
    ]);
    const reply = await client.waitFor(isReply);
    expect(reply).toEqual(
      invalid(null, `JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: ${version}); send one message at a time`),
    );
    expect(pings).toBe(pingsBefore);
    expect(running.server.stats.invalidMessages).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('answers a batch before initialize with a single -32600 error with id null', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    client.sendRaw([{ jsonrpc: '2.0', id: 1, method: 'ping' }]);
    expect(await client.waitFor(isReply)).toEqual(
      invalid(null, 'JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: not initialized); send one message at a time'),
    );
    expect(session.state).toBe('new');
    await expectQuietAndAlive(client);
  });

  it.each(['2025-03-26', '2025-11-25'])('answers an empty array on %s with -32600', async (version) => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running, { protocolVersion: version });
    client.sendRaw('[]');
    expect(await client.waitFor(isReply)).toEqual(invalid(null, 'an empty batch'));
    expect(running.server.stats.invalidMessages).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('on 2025-03-26 answers initialize inside a batch with -32600 for that element and runs the others', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.open(running, { protocolVersion: '2025-03-26' });
    client.sendRaw([
      {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      },
      { jsonrpc: '2.0', id: 'p', method: 'ping' },
    ]);
    const reply = (await client.waitFor((m) => Array.isArray(m))) as unknown as Json[];
    expect(reply.slice().sort(byId)).toEqual([
      { jsonrpc: '2.0', id: 'init', error: { code: -32600, message: 'Invalid Request: initialize must not be part of a batch' } },
      { jsonrpc: '2.0', id: 'p', result: {} },
    ]);
    expect(session.protocolVersion).toBe('2025-03-26');
    await expectQuietAndAlive(client);
  });

  it('counts initialize inside a batch as an invalid message (stats: messages answered with -32600)', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });
    client.sendRaw([
      {
        jsonrpc: '2.0',
        id: 'init',
        method: 'initialize',
        params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 'b', version: '1' } },
      },
    ]);
    await client.waitFor((m) => Array.isArray(m));
    expect(running.server.stats.invalidMessages).toBe(1);
    await pingOk(client);
  });

  it('on 2025-03-26 rejects a duplicate id inside one batch while the first is in flight', async () => {
    const started = gate();
    const release = gate();
    const running = await startWebSocket(cleanups, (server) => slowTool(server, started, release.opened));
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });
    client.sendRaw([
      { jsonrpc: '2.0', id: 9, method: 'tools/call', params: { name: 'slow', arguments: {} } },
      { jsonrpc: '2.0', id: 9, method: 'ping' },
    ]);
    await started.opened;
    release.open();
    const reply = (await client.waitFor((m) => Array.isArray(m))) as unknown as Json[];
    expect(reply).toHaveLength(2);
    expect(reply).toContainEqual({ jsonrpc: '2.0', id: 9, result: { content: [{ type: 'text', text: 'done' }] } });
    expect(reply).toContainEqual(invalid(9, 'request id 9 is already in flight in this session; use a new id'));
    await expectQuietAndAlive(client);
  });
});

describe('the invalidMessages counter', () => {
  it('counts every -32600 answer, including a request before initialize and a second initialize', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await h.connect(running);
    expect((await client.request('tools/list', undefined, 'early')).error).toEqual({
      code: -32600,
      message: 'Invalid Request: tools/list before initialize; send initialize first',
    });
    expect(running.server.stats.invalidMessages).toBe(1);
    await client.initialize();
    const again = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'c', version: '1' } }, 'again');
    expect(again.error).toEqual({ code: -32600, message: 'Invalid Request: initialize was already received on this session' });
    expect(running.server.stats.invalidMessages).toBe(2);
    // Other errors are not invalid messages.
    expect((await client.request('no/such/method', undefined, 'unknown')).error.code).toBe(-32601);
    expect(running.server.stats.invalidMessages).toBe(2);
  });
});
