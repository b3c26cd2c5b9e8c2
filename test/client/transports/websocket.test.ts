/** WebSocketClientTransport against the repo's own server and raw ws peers, over real sockets on 127.0.0.1. */
import type { IncomingMessage } from 'node:http';
import { createServer, type Server as NetServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { WebSocketClientTransport } from '../../../src/client/transports/websocket.js';
import type { JsonSchemaObject } from '../../../src/index.js';
import { RecordingSink } from '../../helpers/recording-sink.js';
import { DEFAULT_CAPABILITIES, type RunningServer, startWebSocket } from '../../helpers/servers.js';
import { capture } from '../../helpers/outcome.js';
import { parseErrorMessage } from '../../helpers/parse-error.js';
import { tick } from '../../helpers/deferred.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'ws-transport-test', version: '1.0.0' } };
const INIT_RESULT = { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'test-server', version: '1.0.0' } };
const ECHO_TOOL: { name: string; description: string; inputSchema: JsonSchemaObject } = {
  name: 'echo',
  description: 'Repeats text',
  inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
};

async function serve(options: Parameters<typeof startWebSocket>[2] = {}): Promise<RunningServer> {
  const running = await startWebSocket(
    cleanups,
    (server) => {
      server.registerTool('echo', { description: ECHO_TOOL.description, inputSchema: ECHO_TOOL.inputSchema }, ({ text }) => String(text));
    },
    options,
  );
  cleanups.push(() => running.close());
  return running;
}

/** A transport whose close() runs after the test. */
function transportTo(url: string, options?: ConstructorParameters<typeof WebSocketClientTransport>[1]): WebSocketClientTransport {
  const transport = new WebSocketClientTransport(url, options);
  cleanups.push(() => transport.close());
  return transport;
}

async function connected(url: string, options?: ConstructorParameters<typeof WebSocketClientTransport>[1]) {
  const transport = transportTo(url, options);
  const sink = new RecordingSink();
  await transport.start(sink);
  return { transport, sink };
}

/** A bare ws server speaking subprotocol `mcp` (unless told otherwise), for what our own server never sends. */
async function rawPeer(onConnection: (socket: ServerSocket) => void, handleProtocols = (offered: Set<string>) => (offered.has('mcp') ? 'mcp' : false)) {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols });
  wss.on('connection', onConnection);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  cleanups.push(async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  const { port } = wss.address() as { port: number };
  return `ws://127.0.0.1:${port}/mcp`;
}

/** A TCP server that accepts connections and never answers. */
async function silentTcp(): Promise<string> {
  const sockets: Socket[] = [];
  const server: NetServer = createServer((socket) => void sockets.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  cleanups.push(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  return `ws://127.0.0.1:${port}/mcp`;
}

describe('WebSocketClientTransport with the repo server', () => {
  it('says what it is: websocket, cancelled by notifications/cancelled', () => {
    const transport = new WebSocketClientTransport('ws://127.0.0.1:1/mcp');
    expect({ kind: transport.kind, cancelsByClosingStream: transport.cancelsByClosingStream }).toEqual({ kind: 'websocket', cancelsByClosingStream: false });
  });

  it('carries initialize, notifications/initialized and tools/list as raw JSON-RPC', async () => {
    const running = await serve();
    const { transport, sink } = await connected(running.url);
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await sink.messageCount(1);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await sink.messageCount(2);
    expect(sink.messages).toEqual([
      { jsonrpc: '2.0', id: 0, result: INIT_RESULT },
      { jsonrpc: '2.0', id: 'list', result: { tools: [ECHO_TOOL] } },
    ]);
    expect({ errors: sink.errorMessages, closed: sink.closedReasons }).toEqual({ errors: [], closed: [] });
  });

  it('sends the headers option with the upgrade request', async () => {
    const byToken = (req: IncomingMessage) => (req.headers.authorization === 'Bearer good' ? { id: 'alice' } : undefined);
    const running = await serve({ transport: { auth: byToken } });
    const principals: unknown[] = [];
    running.server.on('sessionNew', (session) => void principals.push(session.principal));
    const { transport, sink } = await connected(running.url, { headers: { Authorization: 'Bearer good' } });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: INIT_PARAMS });
    await sink.messageCount(1);
    expect(principals).toEqual([{ id: 'alice' }]);
  });

  it('fails start() with the status and body of a refused upgrade (401)', async () => {
    const running = await serve({ transport: { auth: () => undefined } });
    const transport = transportTo(running.url, { headers: { Authorization: 'Bearer bad' } });
    await expect(transport.start(new RecordingSink())).rejects.toThrow(
      new Error(`WebSocket upgrade to ${running.url} refused: HTTP 401 Unauthorized: Unauthorized: send valid credentials`),
    );
  });

  it('fails start() with 503 when the server is at its session limit', async () => {
    const running = await serve({ server: { maxSessions: 1 } });
    await connected(running.url);
    const second = transportTo(running.url);
    await expect(second.start(new RecordingSink())).rejects.toThrow(
      new Error(
        `WebSocket upgrade to ${running.url} refused: HTTP 503 Service Unavailable: Service Unavailable: the server is at its limit of 1 sessions; try again later`,
      ),
    );
  });

  it('reports the server closing the socket once, with its code and reason', async () => {
    const running = await serve();
    const { transport, sink } = await connected(running.url);
    await running.close();
    await sink.until(() => sink.closedReasons.length > 0);
    await transport.close();
    expect(sink.closedReasons).toEqual(['websocket closed (1000: server closed)']);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(new Error('Cannot send: the WebSocket is closed'));
  });

  it('closes from the client with 1000 and resolves once closed; close() again is a no-op', async () => {
    const running = await serve();
    const disconnects: string[] = [];
    running.server.on('disconnect', (_session, reason) => void disconnects.push(reason));
    const { transport, sink } = await connected(running.url);
    await transport.close();
    expect(sink.closedReasons).toEqual(['websocket closed (1000: client closed)']);
    await transport.close();
    expect(sink.closedReasons).toHaveLength(1);
    await expect.poll(() => disconnects).toEqual(['websocket closed (1000: client closed)']);
  });

  it('rejects send() before start()', async () => {
    const transport = new WebSocketClientTransport('ws://127.0.0.1:1/mcp');
    await expect(transport.send({ jsonrpc: '2.0', method: 'ping' } as never)).rejects.toThrow(new Error('Cannot send: the WebSocket is not started'));
  });
});

describe('WebSocketClientTransport with a raw peer', () => {
  it('delivers a batch member by member, reports frames that are not JSON or are binary, and goes on', async () => {
    const url = await rawPeer((socket) => {
      socket.send('not json');
      socket.send(Buffer.from('{"jsonrpc":"2.0","method":"binary"}'), { binary: true });
      socket.send('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]');
      socket.send('{"jsonrpc":"2.0","method":"€ after"}');
    });
    const { sink } = await connected(url);
    await sink.messageCount(3);
    expect(sink.messages).toEqual([
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: '€ after' },
    ]);
    expect(sink.errorMessages).toEqual([
      `The server sent a WebSocket frame that is not JSON (Parse error: ${parseErrorMessage('not json')}): "not json"`,
      'The server sent a binary WebSocket frame; MCP messages travel as UTF-8 text frames',
    ]);
    expect(sink.closedReasons).toEqual([]);
  });

  it('sends each message as one JSON text frame', async () => {
    const frames: { text: string; isBinary: boolean }[] = [];
    const url = await rawPeer((socket) => socket.on('message', (data, isBinary) => void frames.push({ text: String(data), isBinary })));
    const { transport } = await connected(url);
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'é\n' } } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await expect
      .poll(() => frames)
      .toEqual([
        { text: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"é\\n"}}}', isBinary: false },
        { text: '{"jsonrpc":"2.0","method":"notifications/initialized"}', isBinary: false },
      ]);
  });

  it('makes send() wait for the socket while the server does not read, and goes on once it does', async () => {
    let peer: ServerSocket | undefined;
    let received = 0;
    const url = await rawPeer((socket) => {
      peer = socket;
      socket.pause();
      socket.on('message', () => void received++);
    });
    const { transport } = await connected(url);
    const big = { jsonrpc: '2.0' as const, method: 'notifications/message', params: { data: 'x'.repeat(100_000) } };
    let sent = 0;
    let waiting: ReturnType<typeof capture> | undefined;
    while (!waiting && sent < 500) {
      const send = capture(transport.send(big));
      sent++;
      await tick();
      if (!send.settled()) waiting = send;
    }
    expect(waiting).toBeDefined();
    peer!.resume();
    expect(await waiting!.outcome).toEqual({ ok: true, value: undefined });
    await expect.poll(() => received, { timeout: 5000 }).toBe(sent);
  });

  it('closes with 1009 when a frame exceeds maxMessageBytes', async () => {
    const url = await rawPeer((socket) => socket.send(`{"jsonrpc":"2.0","method":"big","params":{"x":"${'x'.repeat(200)}"}}`));
    const { sink } = await connected(url, { maxMessageBytes: 100 });
    await sink.until(() => sink.closedReasons.length > 0);
    expect({ messages: sink.messages, closed: sink.closedReasons }).toEqual({
      messages: [],
      closed: ['websocket closed (1009: a frame exceeded maxMessageBytes (100 bytes))'],
    });
  });

  it('fails start() when the server does not select subprotocol mcp', async () => {
    const url = await rawPeer(
      () => {},
      () => false,
    );
    const transport = transportTo(url);
    await expect(transport.start(new RecordingSink())).rejects.toThrow(
      new Error(`WebSocket connection to ${url} failed: the server did not select subprotocol 'mcp'`),
    );
  });
});

describe('WebSocketClientTransport connection failures', () => {
  it('fails start() when nothing listens on the port', async () => {
    const running = await serve();
    await running.close();
    const transport = transportTo(running.url);
    await expect(transport.start(new RecordingSink())).rejects.toThrow(
      new Error(`WebSocket connection to ${running.url} failed: connect ECONNREFUSED 127.0.0.1:${running.port}`),
    );
  });

  it('fails start() after connectTimeoutMs when the server never answers the upgrade', async () => {
    const url = await silentTcp();
    const transport = transportTo(url, { connectTimeoutMs: 200 });
    const started = Date.now();
    await expect(transport.start(new RecordingSink())).rejects.toThrow(new Error(`WebSocket connection to ${url} timed out after 200 ms`));
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('fails start() when close() is called while connecting', async () => {
    const url = await silentTcp();
    const transport = transportTo(url);
    const start = transport.start(new RecordingSink());
    await transport.close();
    await expect(start).rejects.toThrow(new Error(`WebSocket connection to ${url} failed: WebSocket was closed before the connection was established`));
    await expect(transport.start(new RecordingSink())).rejects.toThrow(
      new Error('WebSocketClientTransport is already started; create another transport for another connection'),
    );
  });

  it('rejects wrong options at construction', () => {
    expect(() => new WebSocketClientTransport('http://127.0.0.1/mcp')).toThrow(
      new TypeError('WebSocketClientTransport url must have scheme ws: or wss:; got "http:"'),
    );
    expect(() => new WebSocketClientTransport('/mcp')).toThrow(
      new TypeError('WebSocketClientTransport url must be an absolute URL with scheme ws: or wss:; got "/mcp"'),
    );
    expect(() => new WebSocketClientTransport('ws://h/mcp', { maxMessageBytes: 0 })).toThrow(
      new TypeError('Option maxMessageBytes must be a positive integer; got 0'),
    );
    expect(() => new WebSocketClientTransport('ws://h/mcp', { connectTimeoutMs: 1.5 })).toThrow(
      new TypeError('Option connectTimeoutMs must be a positive integer up to 2147483647; got 1.5'),
    );
    expect(() => new WebSocketClientTransport('ws://h/mcp', { headers: { a: 1 as never } })).toThrow(
      new TypeError('Option headers: the value of "a" must be a string; got number'),
    );
    expect(() => new WebSocketClientTransport('ws://h/mcp', { headers: { 'Sec-WebSocket-Protocol': 'other' } })).toThrow(
      new TypeError('Option headers cannot set Sec-WebSocket-Protocol: the transport sets it itself'),
    );
    expect(() => new WebSocketClientTransport('ws://h/mcp', { headers: { 'a b': 'c' } })).toThrow(
      new TypeError('Option headers: Header name must be a valid HTTP token ["a b"]'),
    );
  });
});
