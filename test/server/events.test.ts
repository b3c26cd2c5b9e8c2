/**
 * Every McpServerEvents event, with its exact arguments, over a real WebSocket on 127.0.0.1.
 *
 * The client is McpClient wherever a well-behaved client is the peer; the ids and progress tokens it
 * picks are read from what the server received (its `message` event), and what the server sent back
 * is checked whole through `recordOutgoing`. The raw WebSocket peer stays for a session that never
 * initializes or sits between initialize and notifications/initialized, close codes the test picks,
 * an invalid initialize, exact frames and their order, unparsable input and replies to no request.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  ConnectionClosedError,
  type CreateMessageResult,
  type McpClient,
  McpError,
  type McpServer,
  type McpServerEvents,
  type McpSession,
  RequestCancelledError,
  type RequestEvent,
} from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { DEFAULT_CAPABILITIES, type RunningServer, startWebSocket } from '../helpers/servers.js';
import { nextEvent, recordEvents, recordOutgoing } from '../helpers/server-events.js';
import { recordMessages, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { deferred } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { WsTestClient } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

/** A client whose `notifications/initialized` the server has processed (seen on the `initialized` event, no ping), and its session. */
async function ready(running: RunningServer): Promise<{ client: WsTestClient; session: McpSession }> {
  const { client, session } = await h.connect(running);
  const initialized = nextEvent(running.server, 'initialized');
  await client.initialize();
  await initialized;
  return { client, session };
}

const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: { roots: { listChanged: true } }, clientInfo: { name: 'events-client', version: '2.0.0' } };

/** What the McpClient of `useMcpClients` sends as initialize params when it declares `capabilities`. */
const clientInitParams = (capabilities: Record<string, unknown> = {}) => ({
  protocolVersion: '2025-11-25',
  capabilities,
  clientInfo: { name: 'test-client', version: '1.0.0' },
});

/** The initialize result a default test server sends. */
const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } };

/** The server's reply to a ping of the McpClient (whose ids the client picks). */
const PING_REPLY = { jsonrpc: '2.0', id: expect.any(Number), result: {} };

/** Every message the server receives from now on, as parsed. */
function recordIncoming(server: McpServer): Record<string, unknown>[] {
  const log: Record<string, unknown>[] = [];
  server.on('message', (_session, direction, message) => {
    if (direction === 'in') log.push(message as Record<string, unknown>);
  });
  return log;
}

/** The requests with `method` among `incoming`, in order. */
function requestsOf(incoming: Record<string, unknown>[], method: string): { id: unknown; params: Record<string, unknown> }[] {
  return incoming.filter((m) => m.method === method && 'id' in m) as { id: unknown; params: Record<string, unknown> }[];
}

/**
 * The initialize result, whole: the server's reply to the McpClient's initialize (the first message it
 * sent, from `sent`, recorded before the client connected), and what the client took from it.
 */
function expectInitializeResult(client: McpClient, sent: Record<string, unknown>[], result: Record<string, unknown>): void {
  expect(sent[0]).toEqual({ jsonrpc: '2.0', id: expect.any(Number), result });
  expect({
    protocolVersion: client.protocolVersion,
    capabilities: client.serverCapabilities,
    serverInfo: client.serverInfo,
    ...(client.instructions === undefined ? {} : { instructions: client.instructions }),
  }).toEqual(result);
}

describe('connect and disconnect', () => {
  it('connect fires with the new session before initialize', async () => {
    let seen: { args: unknown[]; state: string; sessions: number; protocolVersion: string | undefined } | undefined;
    const running = await startWebSocket(cleanups, (server) =>
      server.on('connect', (...args) => {
        seen = { args, state: args[0].state, sessions: server.sessions.size, protocolVersion: args[0].protocolVersion };
      }),
    );
    const { session } = await clients.connect(running);
    expect(seen).toEqual({ args: [session], state: 'new', sessions: 0, protocolVersion: undefined });
    expect(session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(session.transport).toBe('websocket');
    expect(session.remoteAddress).toBe('127.0.0.1');
  });

  it('disconnect fires with the session and the close reason for a session that never initialized, and sessionEnd does not', async () => {
    const running = await startWebSocket(cleanups);
    const ended = recordEvents(running.server, 'sessionEnd');
    const { client, session } = await h.connect(running);
    const disconnected = nextEvent<McpServerEvents['disconnect']>(running.server, 'disconnect');
    client.socket.close(4000, 'bye');
    expect(await disconnected).toEqual([session, 'websocket closed (4000: bye)']);
    expect(ended).toEqual([]);
    expect(session.state).toBe('closed');
    expect(session.closeReason).toBe('websocket closed (4000: bye)');
  });

  it('an initialized session gets sessionEnd then disconnect, both with the reason, and leaves server.sessions', async () => {
    const running = await startWebSocket(cleanups);
    const order: string[] = [];
    const ended = recordEvents(running.server, 'sessionEnd');
    running.server.on('sessionEnd', () => order.push('sessionEnd'));
    running.server.on('disconnect', () => order.push('disconnect'));
    const { client, session } = await clients.connect(running);
    expect(running.server.sessions.get(session.id)).toBe(session);
    const disconnected = nextEvent<McpServerEvents['disconnect']>(running.server, 'disconnect');
    await client.close();
    expect(await disconnected).toEqual([session, 'websocket closed (1000: client closed)']);
    expect(ended).toEqual([[session, 'websocket closed (1000: client closed)']]);
    expect(order).toEqual(['sessionEnd', 'disconnect']);
    expect(running.server.sessions.has(session.id)).toBe(false);
  });
});

describe('initialize, sessionNew and initialized', () => {
  it('initialize fires with the session, the params as sent and the result about to be sent', async () => {
    const running = await startWebSocket(cleanups);
    const calls = recordEvents(running.server, 'initialize');
    const incoming = recordIncoming(running.server);
    const sent = recordOutgoing(running.server);
    const { client, session } = await clients.connect(running, {}, (c) => c.onRoots(() => ({ roots: [] })));
    const params = clientInitParams({ roots: { listChanged: true } });
    expect(requestsOf(incoming, 'initialize')).toEqual([{ jsonrpc: '2.0', id: expect.any(Number), method: 'initialize', params }]);
    expectInitializeResult(client, sent, INIT_RESULT);
    expect(calls).toEqual([[session, params, INIT_RESULT]]);
    expect(session.clientInfo).toEqual({ name: 'test-client', version: '1.0.0' });
  });

  it('an initialize listener that changes result.instructions changes what the client receives', async () => {
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.on('initialize', (_session, params, result) => {
          result.instructions = `${result.instructions} for ${params.clientInfo.name}`;
        }),
      { info: { name: 'test-server', version: '1.0.0', instructions: 'Be brief' } },
    );
    const sent = recordOutgoing(running.server);
    const { client } = await clients.connect(running);
    expectInitializeResult(client, sent, { ...INIT_RESULT, instructions: 'Be brief for test-client' });
  });

  it('sessionNew fires after the initialize result was sent: what its listener sends reaches the client after the result', async () => {
    let atSessionNew: { args: unknown[]; registered: boolean; state: string } | undefined;
    const running = await startWebSocket(cleanups, (server) =>
      server.on('sessionNew', (...args) => {
        const [session] = args;
        atSessionNew = { args, registered: server.sessions.get(session.id) === session, state: session.state };
        session.log('info', 'welcome', 'greeter');
        session.notify('notifications/custom', { hello: true });
      }),
    );
    const { client, session } = await h.connect(running);
    const frames = recordMessages(client);
    const sessionNew = nextEvent(running.server, 'sessionNew');
    client.sendRaw({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS });
    await sessionNew;
    await client.nextMessage('notifications/custom');
    expect(frames).toEqual([
      {
        jsonrpc: '2.0',
        id: 1,
        result: { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } },
      },
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'welcome', logger: 'greeter' } },
      { jsonrpc: '2.0', method: 'notifications/custom', params: { hello: true } },
    ]);
    expect(atSessionNew).toEqual({ args: [session], registered: true, state: 'initializing' });
  });

  it('a failed initialize fires neither sessionNew nor, when the socket closes, sessionEnd', async () => {
    const running = await startWebSocket(cleanups);
    const started = recordEvents(running.server, 'sessionNew');
    const ended = recordEvents(running.server, 'sessionEnd');
    const { client, session } = await h.connect(running);
    expect(await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {} }, 1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'initialize needs params.clientInfo with a name and a version' },
    });
    expect(await client.request('ping', undefined, 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    const disconnected = nextEvent<McpServerEvents['disconnect']>(running.server, 'disconnect');
    client.socket.close(1000);
    expect(await disconnected).toEqual([session, 'websocket closed (1000)']);
    expect(started).toEqual([]);
    expect(ended).toEqual([]);
  });

  it('initialized fires once with the session when the client sends notifications/initialized', async () => {
    const running = await startWebSocket(cleanups);
    const calls = recordEvents(running.server, 'initialized');
    const { client, session } = await h.connect(running);
    await client.request('initialize', INIT_PARAMS, 1);
    expect(session.state).toBe('initializing');
    client.notify('notifications/initialized');
    await client.request('ping', undefined, 2);
    expect(calls).toEqual([[session]]);
    expect(session.state).toBe('ready');
    client.notify('notifications/initialized');
    await client.request('ping', undefined, 3);
    expect(calls).toEqual([[session]]);
  });
});

describe('request events', () => {
  it('requestTool is observed with the session and a RequestEvent carrying id, params and ctx; the registered handler still answers', async () => {
    const seen: { session: McpSession; request: RequestEvent<unknown, unknown>; answered: boolean }[] = [];
    const running = await startWebSocket(cleanups, (server) => {
      server.registerTool('greet', { inputSchema: { type: 'object', properties: { who: { type: 'string' } } } }, ({ who }) => `hello ${who}`);
      server.on('requestTool', (session, request) => void seen.push({ session, request, answered: request.answered }));
    });
    const { client, session } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    expect(await client.callTool('greet', { who: 'Ada' }, { onProgress: () => {} })).toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    const [call] = requestsOf(incoming, 'tools/call');
    expect(call).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'tools/call',
      params: { name: 'greet', arguments: { who: 'Ada' }, _meta: { progressToken: expect.any(Number) } },
    });
    const token = (call.params._meta as { progressToken: number }).progressToken;
    expect(seen).toHaveLength(1);
    const [{ session: eventSession, request, answered }] = seen;
    expect(eventSession).toBe(session);
    expect(answered).toBe(false);
    expect(typeof request.respond).toBe('function');
    expect(request.id).toBe(call.id);
    expect(request.params).toEqual({ name: 'greet', arguments: { who: 'Ada' } });
    expect(typeof request.ctx.elicit).toBe('function');
    expect(request.ctx.session).toBe(session);
    expect(request.ctx.requestId).toBe(call.id);
    expect(request.ctx.method).toBe('tools/call');
    expect(request.ctx.meta).toEqual({ progressToken: token });
    expect(request.ctx.progressToken).toBe(token);
  });

  it('requestTool answers a tool that has no handler with a sync respond(string)', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.on('requestTool', (_session, request) => {
        if (request.params.name === 'virtual') request.respond(`virtual got ${JSON.stringify(request.params.arguments)}`);
      }),
    );
    const { client } = await clients.connect(running);
    expect(await client.callTool('virtual', { n: 1 })).toEqual({ content: [{ type: 'text', text: 'virtual got {"n":1}' }] });
    // Without a listener answer, the unknown tool is still an error.
    expect(await rpcError(client.callTool('missing'))).toEqual({ code: -32602, message: 'Unknown tool: missing' });
  });

  it('requestTool answers with a Promise of a CallToolResult', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.on('requestTool', (_session, request) => {
        request.respond(
          new Promise((resolve) => setTimeout(() => resolve({ content: [{ type: 'text', text: 'later' }], structuredContent: { ok: true } }), 10)),
        );
      }),
    );
    const { client } = await clients.connect(running);
    expect(await client.callTool('async_virtual')).toEqual({ content: [{ type: 'text', text: 'later' }], structuredContent: { ok: true } });
  });

  it('respond() overrides a registered tool handler, which then does not run', async () => {
    const handler = vi.fn(() => 'from the handler');
    const running = await startWebSocket(cleanups, (server) => {
      server.registerTool('real', {}, handler);
      server.on('requestTool', (_session, request) => request.respond('from the listener'));
    });
    const { client } = await clients.connect(running);
    expect(await client.callTool('real')).toEqual({ content: [{ type: 'text', text: 'from the listener' }] });
    expect(handler).not.toHaveBeenCalled();
  });

  it('a second respond() throws, is reported through error, and the first answer is the one sent', async () => {
    const secondRespond: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) => {
      server.on('requestTool', (_session, request) => request.respond('first'));
      server.on('requestTool', (_session, request) => {
        try {
          request.respond('second');
        } catch (err) {
          secondRespond.push(err);
          throw err;
        }
      });
    });
    const errors = recordEvents(running.server, 'error');
    const { client } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    expect(await client.callTool('x')).toEqual({ content: [{ type: 'text', text: 'first' }] });
    const [call] = requestsOf(incoming, 'tools/call');
    expect(secondRespond).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0][0]).toBeInstanceOf(Error);
    expect(errors[0][0].message).toBe(`a 'requestTool' listener threw: request ${call.id} was already answered by another listener`);
  });

  it('requestPrompt is observed with id, params and ctx, and answers with a sync value or a Promise', async () => {
    const seen: unknown[][] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.on('requestPrompt', (session, request) => {
        seen.push([session, request.id, request.params, request.ctx.method, request.ctx.session === session]);
        const message = { role: 'user' as const, content: { type: 'text' as const, text: `about ${request.params.arguments.topic}` } };
        if (request.params.name === 'sync') request.respond({ description: 'sync prompt', messages: [message] });
        else request.respond(Promise.resolve({ messages: [message] }));
      }),
    );
    const { client, session } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    expect(await client.getPrompt('sync', { topic: 'cats' })).toEqual({
      description: 'sync prompt',
      messages: [{ role: 'user', content: { type: 'text', text: 'about cats' } }],
    });
    expect(await client.getPrompt('async', { topic: 'dogs' })).toEqual({ messages: [{ role: 'user', content: { type: 'text', text: 'about dogs' } }] });
    const [first, second] = requestsOf(incoming, 'prompts/get');
    expect(seen).toEqual([
      [session, first.id, { name: 'sync', arguments: { topic: 'cats' } }, 'prompts/get', true],
      [session, second.id, { name: 'async', arguments: { topic: 'dogs' } }, 'prompts/get', true],
    ]);
  });

  it('requestResource is observed with id, params and ctx, and answers with text or a Promise of contents', async () => {
    const seen: unknown[][] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.on('requestResource', (session, request) => {
        seen.push([session, request.id, request.params, request.ctx.method]);
        if (request.params.uri === 'virtual://text') request.respond('plain text');
        else request.respond(Promise.resolve([{ uri: request.params.uri, mimeType: 'application/json', text: '{"a":1}' }]));
      }),
    );
    const { client, session } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    expect(await client.readResource('virtual://text')).toEqual({ contents: [{ uri: 'virtual://text', text: 'plain text' }] });
    expect(await client.readResource('virtual://json')).toEqual({ contents: [{ uri: 'virtual://json', mimeType: 'application/json', text: '{"a":1}' }] });
    const [first, second] = requestsOf(incoming, 'resources/read');
    expect(seen).toEqual([
      [session, first.id, { uri: 'virtual://text' }, 'resources/read'],
      [session, second.id, { uri: 'virtual://json' }, 'resources/read'],
    ]);
  });

  it('requestCompletion is observed with the complete params, and answers with a string[] or a Promise of a CompleteResult', async () => {
    const seen: unknown[][] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.on('requestCompletion', (session, request) => {
        seen.push([session, request.id, request.params, request.ctx.method]);
        if (request.params.argument.name === 'list') request.respond(['alpha', 'alpine']);
        else request.respond(Promise.resolve({ completion: { values: ['x'], total: 10, hasMore: true } }));
      }),
    );
    const { client, session } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    const listParams = {
      ref: { type: 'ref/prompt', name: 'nowhere' },
      argument: { name: 'list', value: 'al' },
      context: { arguments: { other: 'v' } },
    } as const;
    const promiseParams = { ref: { type: 'ref/resource', uri: 'virtual://{x}' }, argument: { name: 'promise', value: '' } } as const;
    expect(await client.complete(listParams)).toEqual({ completion: { values: ['alpha', 'alpine'], total: 2, hasMore: false } });
    expect(await client.complete(promiseParams)).toEqual({ completion: { values: ['x'], total: 10, hasMore: true } });
    const [first, second] = requestsOf(incoming, 'completion/complete');
    expect(seen).toEqual([
      [session, first.id, listParams, 'completion/complete'],
      [session, second.id, promiseParams, 'completion/complete'],
    ]);
  });
});

describe('notification and state events', () => {
  it('progress fires with the session and the params of the client notifications/progress, and reaches the request onProgress', async () => {
    const running = await startWebSocket(cleanups);
    const progress = recordEvents(running.server, 'progress');
    const answer = deferred<CreateMessageResult>();
    const { client, session } = await clients.connect(running, {}, (c) =>
      c.onSampling((_params, ctx) => {
        ctx.progress(0.5, 1, 'halfway');
        return answer.promise;
      }),
    );
    const sent = recordOutgoing(running.server, session);
    const onProgress = vi.fn();
    const asked = nextEvent(client, 'samplingCreateMessage');
    const pending = session.request('sampling/createMessage', { messages: [], maxTokens: 5 }, { onProgress });
    // The handler reports its progress as it is asked; the ping goes out after it, so its reply comes once the server has handled it.
    await asked;
    await client.ping();
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: 0, method: 'sampling/createMessage', params: { messages: [], maxTokens: 5, _meta: { progressToken: 0 } } },
      PING_REPLY,
    ]);
    const params = { progressToken: 0, progress: 0.5, total: 1, message: 'halfway' };
    expect(progress).toEqual([[session, params]]);
    expect(onProgress).toHaveBeenCalledExactlyOnceWith(params);
    answer.resolve({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
    expect(await pending).toEqual({ role: 'assistant', content: { type: 'text', text: 'hi' }, model: 'm' });
  });

  it('cancelled fires with the session and {requestId, reason}; the cancelled request is aborted and gets no response', async () => {
    let signal: AbortSignal | undefined;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('wait', {}, (_args, ctx) => {
        signal = ctx.signal;
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped')));
      }),
    );
    const { client, session } = await clients.connect(running);
    const incoming = recordIncoming(running.server);
    const sent = recordOutgoing(running.server, session);
    const cancelled = nextEvent<McpServerEvents['cancelled']>(running.server, 'cancelled');
    const started = nextEvent(running.server, 'requestTool');
    const control = new AbortController();
    const call = capture(client.callTool('wait', {}, { signal: control.signal }));
    await started;
    const [{ id }] = requestsOf(incoming, 'tools/call');
    control.abort('changed my mind');
    expect(await cancelled).toEqual([session, { requestId: id, reason: 'changed my mind' }]);
    expect(signal?.aborted).toBe(true);
    expect(await client.request('ping')).toEqual({});
    // Nothing went out for the cancelled call: only the ping's reply.
    expect(sent).toEqual([PING_REPLY]);
    const outcome = await call.outcome;
    expect(outcome.ok === false && outcome.error).toBeInstanceOf(RequestCancelledError);
  });

  it('loggingSetLevel fires with the session and the level', async () => {
    const running = await startWebSocket(cleanups);
    const calls = recordEvents(running.server, 'loggingSetLevel');
    const { client, session } = await clients.connect(running);
    expect(await client.request('logging/setLevel', { level: 'warning' })).toEqual({});
    expect(calls).toEqual([[session, 'warning']]);
    expect(session.logLevel).toBe('warning');
  });

  it('resourceSubscribe and resourceUnsubscribe fire with the session and the uri', async () => {
    const running = await startWebSocket(cleanups);
    const subscribed = recordEvents(running.server, 'resourceSubscribe');
    const unsubscribed = recordEvents(running.server, 'resourceUnsubscribe');
    const { client, session } = await clients.connect(running);
    expect(await client.request('resources/subscribe', { uri: 'test://watched' })).toEqual({});
    expect(subscribed).toEqual([[session, 'test://watched']]);
    expect([...session.subscriptions]).toEqual(['test://watched']);
    expect(unsubscribed).toEqual([]);
    expect(await client.request('resources/unsubscribe', { uri: 'test://watched' })).toEqual({});
    expect(unsubscribed).toEqual([[session, 'test://watched']]);
    expect([...session.subscriptions]).toEqual([]);
  });

  it('rootsListChanged fires with the session', async () => {
    const running = await startWebSocket(cleanups);
    const calls = recordEvents(running.server, 'rootsListChanged');
    const { client, session } = await clients.connect(running, {}, (c) => c.onRoots(() => ({ roots: [] })));
    await client.sendRootsListChanged();
    await client.ping();
    expect(calls).toEqual([[session]]);
  });

  it('notification fires with the session, the method and the params of an unknown notification', async () => {
    const running = await startWebSocket(cleanups);
    const calls = recordEvents(running.server, 'notification');
    const { client, session } = await clients.connect(running);
    const sent = recordOutgoing(running.server, session);
    await client.notify('notifications/vendor/thing', { a: 1, nested: { b: [2] } });
    await client.notify('notifications/vendor/bare');
    expect(await client.request('ping')).toEqual({});
    expect(calls).toEqual([
      [session, 'notifications/vendor/thing', { a: 1, nested: { b: [2] } }],
      [session, 'notifications/vendor/bare', undefined],
    ]);
    // An unknown notification gets no reply of any kind: the server sent only the ping's reply.
    expect(sent).toEqual([PING_REPLY]);
  });
});

describe('message', () => {
  it('message fires for every message in and out, with the parsed messages', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const calls = recordEvents(running.server, 'message');
    expect(await client.request('ping', undefined, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    client.notify('notifications/vendor/x', { y: 2 });
    expect(await client.request('tools/list', undefined, 2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32600, message: 'Invalid Request: tools/list before initialize; send initialize first' },
    });
    expect(calls).toEqual([
      [session, 'in', { jsonrpc: '2.0', id: 1, method: 'ping' }],
      [session, 'out', { jsonrpc: '2.0', id: 1, result: {} }],
      [session, 'in', { jsonrpc: '2.0', method: 'notifications/vendor/x', params: { y: 2 } }],
      [session, 'in', { jsonrpc: '2.0', id: 2, method: 'tools/list' }],
      [session, 'out', { jsonrpc: '2.0', id: 2, error: { code: -32600, message: 'Invalid Request: tools/list before initialize; send initialize first' } }],
    ]);
  });

  it('a message that does not parse arrives as the raw text, and its -32700 reply as an out message', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await h.connect(running);
    const calls = recordEvents(running.server, 'message');
    const raw = '{"jsonrpc":"2.0", "id": 1, "method": "ping"';
    let parseMessage = '';
    try {
      JSON.parse(raw);
    } catch (err) {
      parseMessage = (err as Error).message;
    }
    const expectedReply = { jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${parseMessage}` } };
    const reply = client.waitFor((m) => m.id === null);
    client.sendRaw(raw);
    expect(await reply).toEqual(expectedReply);
    expect(calls).toEqual([
      [session, 'in', raw],
      [session, 'out', expectedReply],
    ]);
  });
});

describe('error', () => {
  it('a handler that throws a non-McpError answers -32603 "Internal error" without its message and fires error with the session', async () => {
    const thrown = new Error('database is down at 10.0.0.7');
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('broken', {}, () => {
        throw thrown;
      }),
    );
    const errors = recordEvents(running.server, 'error');
    const { client, session } = await clients.connect(running);
    expect(await rpcError(client.getPrompt('broken'))).toEqual({ code: -32603, message: 'Internal error' });
    expect(errors).toHaveLength(1);
    const [error, errorSession] = errors[0];
    expect(errorSession).toBe(session);
    expect(error.message).toBe('prompts/get handler failed: database is down at 10.0.0.7');
    expect(error.cause).toBe(thrown);
    expect(await client.request('ping')).toEqual({});
  });

  it('with exposeErrors the -32603 answer carries the message of what the handler threw', async () => {
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.registerPrompt('broken', {}, () => {
          throw new Error('database is down');
        }),
      { server: { exposeErrors: true } },
    );
    const errors = recordEvents(running.server, 'error');
    const { client } = await clients.connect(running);
    expect(await rpcError(client.getPrompt('broken'))).toEqual({ code: -32603, message: 'Internal error: database is down' });
    expect(errors).toHaveLength(1);
  });

  it('a handler that throws an McpError answers with that error and fires no error event', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResource('test://guarded', { name: 'guarded' }, () => {
        throw new McpError(-32001, 'Not allowed', { why: 'test' });
      }),
    );
    const errors = recordEvents(running.server, 'error');
    const { client } = await clients.connect(running);
    expect(await rpcError(client.readResource('test://guarded'))).toEqual({ code: -32001, message: 'Not allowed', data: { why: 'test' } });
    expect(errors).toEqual([]);
  });

  it('a client reply that matches no request fires error with the session', async () => {
    const running = await startWebSocket(cleanups);
    const errors = recordEvents(running.server, 'error');
    const { client, session } = await ready(running);
    client.respond(777, {});
    await client.request('ping', undefined, 1);
    expect(errors).toHaveLength(1);
    expect(errors[0][0].message).toBe('Ignored an unknown reply from the client for request id 777');
    expect(errors[0][1]).toBe(session);
    expect(running.server.stats.unknownResponses).toBe(1);
  });
});

describe('listeners that fail', () => {
  it('a listener that throws is reported through error, the other listeners of the event still run, and the session keeps working', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      server.on('requestTool', () => {
        throw new Error('listener broke');
      });
      server.on('requestTool', (_session, request) => request.respond('still answered'));
    });
    const errors = recordEvents(running.server, 'error');
    const { client } = await clients.connect(running);
    expect(await client.callTool('anything')).toEqual({ content: [{ type: 'text', text: 'still answered' }] });
    expect(errors.map(([error]) => error.message)).toEqual(["a 'requestTool' listener threw: listener broke"]);
    expect(await client.callTool('again')).toEqual({ content: [{ type: 'text', text: 'still answered' }] });
    expect(await client.request('ping')).toEqual({});
  });

  it('a listener that returns a rejected promise is reported through error, and the other listeners still run', async () => {
    const others: McpSession[] = [];
    const running = await startWebSocket(cleanups, (server) => {
      server.on('sessionNew', async () => {
        await Promise.resolve();
        throw new Error('async listener broke');
      });
      server.on('sessionNew', (session) => void others.push(session));
    });
    const errorEvent = nextEvent<McpServerEvents['error']>(running.server, 'error');
    const { client, session } = await clients.connect(running);
    const [error] = await errorEvent;
    expect(error.message).toBe("a 'sessionNew' listener threw: async listener broke");
    expect(others).toEqual([session]);
    expect(await client.listTools()).toEqual({ tools: [] });
  });

  it('a connect listener that throws a non-Error value does not stop the connection', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.on('connect', () => {
        throw 'plain string';
      }),
    );
    const errors = recordEvents(running.server, 'error');
    const { client } = await clients.connect(running);
    expect(errors.map(([error]) => [error instanceof Error, error.message])).toEqual([[true, "a 'connect' listener threw: plain string"]]);
    expect(await client.request('ping')).toEqual({});
  });

  it('an initialize listener that throws does not stop the initialize result', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.on('initialize', () => {
        throw new Error('nope');
      }),
    );
    const errors = recordEvents(running.server, 'error');
    const sent = recordOutgoing(running.server);
    const { client } = await clients.connect(running);
    expectInitializeResult(client, sent, INIT_RESULT);
    expect(errors.map(([error]) => error.message)).toEqual(["a 'initialize' listener threw: nope"]);
  });

  it('a listener function shared by two servers reports its failure on the server that emitted the event', async () => {
    const shared = () => {
      throw new Error('shared listener broke');
    };
    const first = await startWebSocket(cleanups, (server) => server.on('connect', shared));
    const second = await startWebSocket(cleanups, (server) => server.on('connect', shared));
    const firstErrors = recordEvents(first.server, 'error');
    const secondErrors = recordEvents(second.server, 'error');
    await clients.connect(second);
    expect(secondErrors.map(([error]) => error.message)).toEqual(["a 'connect' listener threw: shared listener broke"]);
    expect(firstErrors).toEqual([]);
  });
});

describe('on, once and off', () => {
  it('on and once return the server and call listeners with it as this; once fires once; off stops a listener', async () => {
    const running = await startWebSocket(cleanups);
    const { server } = running;
    const seen: string[] = [];
    const every = function (this: unknown) {
      seen.push(this === server ? 'every' : 'every, with another this');
    };
    expect(server.on('connect', every)).toBe(server);
    expect(server.once('connect', () => void seen.push('once'))).toBe(server);
    await h.connect(running);
    await h.connect(running);
    expect(server.off('connect', every)).toBe(server);
    await h.connect(running);
    expect(seen).toEqual(['every', 'once', 'every']);
  });

  it('has no emit: only the server fires its events', async () => {
    const { server } = await startWebSocket(cleanups);
    expect('emit' in server).toBe(false);
    // @ts-expect-error emit is not part of McpServer
    expect(() => server.emit('sessionEnd')).toThrow(TypeError);
  });
});

describe('close', () => {
  it('server.close() ends each initialized session with sessionEnd(session, "server closed") and rejects its pending requests', async () => {
    const running = await startWebSocket(cleanups);
    const ended = recordEvents(running.server, 'sessionEnd');
    const disconnected = recordEvents(running.server, 'disconnect');
    const { client, session } = await clients.connect(running, {}, (c) => c.onRoots(() => new Promise(() => {})));
    // A session that never initialized: the raw peer.
    const { session: fresh } = await h.connect(running);
    const asked = nextEvent(client, 'rootsList');
    const pending = session.request('roots/list');
    const failed = pending.then(
      () => undefined,
      (err: unknown) => err,
    );
    await asked;
    const closed = nextEvent<[string]>(client, 'close');
    await running.server.close();
    expect(ended).toEqual([[session, 'server closed']]);
    expect(disconnected).toEqual(
      expect.arrayContaining([
        [session, 'server closed'],
        [fresh, 'server closed'],
      ]),
    );
    expect(disconnected).toHaveLength(2);
    const failure = await failed;
    expect(failure).toBeInstanceOf(ConnectionClosedError);
    expect((failure as McpError).toJSON()).toEqual({
      code: -32000,
      message: 'roots/list could not complete: server closed',
      data: { reason: 'server closed' },
    });
    // The close frame the client got: code 1000, reason "server closed".
    expect(await closed).toEqual(['websocket closed (1000: server closed)']);
  });
});
