/** WebSocketTransport over real sockets on 127.0.0.1: handshake, Origin, framing limits, keepalive, attach and close. */
import { createServer, type Server as HttpServer } from 'node:http';
import { connect as netConnect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { ConnectionClosedError, McpServer, type McpSession, WebSocketTransport, type McpServerEvents } from '../../../src/index.js';
import { nextEvent } from '../../helpers/server-events.js';
import { httpGet, httpUpgrade, initializeSocket, openSocket, socketClosed } from '../../helpers/transport-peers.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { WsTestClient, type Json } from '../../helpers/ws-client.js';
import { startWebSocket } from '../../helpers/servers.js';
import { useWsSessions } from '../../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

function trackSocket(socket: WebSocket): WebSocket {
  cleanups.push(() => {
    if (socket.readyState !== WebSocket.CLOSED) socket.terminate();
  });
  return socket;
}

async function readyClient(url: string): Promise<WsTestClient> {
  const client = await h.connectUrl(url);
  await client.initialize();
  return client;
}

const PING_REPLY = (id: string | number): Json => ({ jsonrpc: '2.0', id, result: {} });

/** Whether a TCP connection to 127.0.0.1:`port` is accepted. */
function tcpAccepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket: Socket = netConnect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('handshake', () => {
  it("echoes subprotocol 'mcp' when the client offers it", async () => {
    const running = await startWebSocket(cleanups);
    const client = await h.connectUrl(running.url, { protocols: ['other', 'mcp'] });
    expect(client.socket.protocol).toBe('mcp');
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
  });

  it('answers the upgrade with 101 and Sec-WebSocket-Protocol: mcp', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect(reply.status).toBe(101);
    expect(reply.headers['sec-websocket-protocol']).toBe('mcp');
  });

  it('refuses with HTTP 400 a client that offers only other subprotocols', async () => {
    const running = await startWebSocket(cleanups);
    const connects: unknown[] = [];
    running.server.on('connect', (session) => void connects.push(session));
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'graphql-ws, chat' });
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 400, body: "Unsupported WebSocket subprotocol; offer 'mcp'\n" });
    await expect(WsTestClient.connect(running.url, { protocols: ['graphql-ws'] })).rejects.toThrow('HTTP 400');
    expect(connects).toEqual([]);
  });

  it('accepts a client that offers no subprotocol', async () => {
    const running = await startWebSocket(cleanups);
    const client = await h.connectUrl(running.url, { protocols: [] });
    expect(client.socket.protocol).toBe('');
    await client.initialize();
    expect(await client.request('tools/list', undefined, 'l')).toEqual({ jsonrpc: '2.0', id: 'l', result: { tools: [] } });
  });

  it('answers upgrades on another path with 404 when listening on its own port', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpUpgrade(running.port, '/other', { 'sec-websocket-protocol': 'mcp' });
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 404, body: 'No MCP endpoint here; connect to /mcp\n' });
  });

  it('accepts the MCP path with a query string', async () => {
    const running = await startWebSocket(cleanups);
    const client = await h.connectUrl(`${running.url}?token=abc`);
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
  });

  it('answers a plain HTTP GET with 426 Upgrade Required', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpGet(running.port, '/mcp');
    expect(reply.status).toBe(426);
    expect(reply.headers.upgrade).toBe('websocket');
    expect(reply.body).toBe("Upgrade to WebSocket at /mcp with subprotocol 'mcp'\n");
  });
});

describe('Origin', () => {
  it('accepts a handshake without Origin', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect(reply.status).toBe(101);
  });

  it('accepts loopback origins by default', async () => {
    const running = await startWebSocket(cleanups);
    for (const origin of ['http://localhost:1234', 'http://127.0.0.1', 'http://[::1]:8080']) {
      const client = await h.connectUrl(running.url, { headers: { Origin: origin } });
      expect(await client.request('ping', undefined, origin)).toEqual(PING_REPLY(origin));
    }
  });

  it('refuses another site with 403 by default', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp', origin: 'http://evil.example.com' });
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 403, body: 'Forbidden: Origin http://evil.example.com is not allowed\n' });
  });

  it('refuses a loopback-looking origin on another host name with 403 by default', async () => {
    const running = await startWebSocket(cleanups);
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp', origin: 'http://localhost.evil.example.com' });
    expect(reply.status).toBe(403);
  });

  it('with allowedOrigins accepts exactly the listed origins', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { allowedOrigins: ['https://app.example.com'] } });
    const client = await h.connectUrl(running.url, { headers: { Origin: 'https://app.example.com' } });
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
    for (const origin of ['http://localhost:1234', 'https://evil.example.com', 'http://app.example.com']) {
      const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp', origin });
      expect({ origin, status: reply.status, body: reply.body }).toEqual({ origin, status: 403, body: `Forbidden: Origin ${origin} is not allowed\n` });
    }
    expect((await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' })).status).toBe(101);
  });

  it("with allowedOrigins '*' accepts any origin", async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { allowedOrigins: '*' } });
    const client = await h.connectUrl(running.url, { headers: { Origin: 'http://evil.example.com' } });
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
    expect((await httpUpgrade(running.port, '/mcp', { origin: 'null' })).status).toBe(101);
  });
});

describe('frames', () => {
  it('closes the connection with 1009 on a frame larger than maxMessageBytes, and keeps serving other and new clients', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { maxMessageBytes: 1024 } });
    const bystander = await readyClient(running.url);
    const offender = await readyClient(running.url);
    const errors: McpServerEvents['error'][] = [];
    running.server.on('error', (error: Error, session?: McpSession) => void errors.push([error, session]));
    const disconnected = nextEvent<McpServerEvents['disconnect']>(running.server, 'disconnect');
    offender.sendRaw({ jsonrpc: '2.0', id: 1, method: 'ping', params: { _meta: { pad: 'x'.repeat(2048) } } });
    expect(await offender.closed).toEqual({ code: 1009, reason: '' });
    const [session, reason] = await disconnected;
    expect(reason).toBe('websocket closed (1009: a frame exceeded maxMessageBytes (1024 bytes))');
    expect(session.state).toBe('closed');
    expect(running.server.sessions.has(session.id)).toBe(false);
    expect(errors).toHaveLength(1);
    expect(errors[0][0].message).toBe('Max payload size exceeded');
    expect(errors[0][1]).toBe(session);
    // A frame of exactly maxMessageBytes is still fine.
    const exact = { jsonrpc: '2.0', id: 'exact', method: 'ping', params: { _meta: { pad: '' } } };
    exact.params._meta.pad = 'y'.repeat(1024 - JSON.stringify(exact).length);
    expect(JSON.stringify(exact).length).toBe(1024);
    const exactReply = bystander.waitFor((m) => m.id === 'exact');
    bystander.sendRaw(exact);
    expect(await exactReply).toEqual(PING_REPLY('exact'));
    const newcomer = await readyClient(running.url);
    expect(await newcomer.request('ping', undefined, 2)).toEqual(PING_REPLY(2));
  });

  it('answers a binary frame with a -32600 error and keeps the session', async () => {
    const running = await startWebSocket(cleanups);
    const client = await readyClient(running.url);
    const reply = client.waitFor((m) => m.id === null);
    client.sendRaw(Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping' })), { binary: true });
    expect(await reply).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: binary frames are not accepted; send each JSON-RPC message as one UTF-8 text frame' },
    });
    expect(client.received.filter((m) => m.id === 1)).toEqual([]);
    expect(await client.request('ping', undefined, 2)).toEqual(PING_REPLY(2));
    expect(running.server.stats.invalidMessages).toBe(1);
  });

  it('handles a JSON-RPC message split across continuation frames as one message', async () => {
    const running = await startWebSocket(cleanups);
    const client = await readyClient(running.url);
    const text = JSON.stringify({ jsonrpc: '2.0', id: 'frag', method: 'ping' });
    const reply = client.waitFor((m) => m.id === 'frag');
    client.socket.send(text.slice(0, 10), { fin: false });
    client.socket.send(text.slice(10), { fin: true });
    expect(await reply).toEqual(PING_REPLY('frag'));
  });
});

describe('keepalive', () => {
  it('terminates a peer that does not answer pings, with disconnect and sessionEnd', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { keepAliveIntervalMs: 100 } });
    const socket = trackSocket(await openSocket(running.url, { autoPong: false }));
    const closed = socketClosed(socket);
    const ended = nextEvent<McpServerEvents['sessionEnd']>(running.server, 'sessionEnd');
    const disconnected = nextEvent<McpServerEvents['disconnect']>(running.server, 'disconnect');
    let pings = 0;
    socket.on('ping', () => pings++);
    expect(await initializeSocket(socket)).toMatchObject({ id: 'init', result: { protocolVersion: '2025-11-25' } });
    const [session, reason] = await ended;
    expect(reason).toBe('websocket closed (1006)');
    expect(await disconnected).toEqual([session, 'websocket closed (1006)']);
    expect((await closed).code).toBe(1006);
    expect(pings).toBeGreaterThanOrEqual(1);
    expect(running.server.sessions.size).toBe(0);
  });

  it('keeps a peer that answers pings connected across several intervals', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { keepAliveIntervalMs: 100 } });
    const disconnects: unknown[] = [];
    running.server.on('disconnect', (...args) => void disconnects.push(args));
    const client = await readyClient(running.url);
    await new Promise<void>((resolve) => {
      let pings = 0;
      client.socket.on('ping', () => {
        if (++pings === 5) resolve();
      });
    });
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    expect(await client.request('ping', undefined, 'alive')).toEqual(PING_REPLY('alive'));
    expect(disconnects).toEqual([]);
    expect(running.server.sessions.size).toBe(1);
  });
});

describe('attach', () => {
  let http: HttpServer;
  let other: WebSocketServer;
  let port: number;

  async function attached(): Promise<{ server: McpServer; transport: WebSocketTransport }> {
    http = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`app saw ${req.method} ${req.url}`);
    });
    other = new WebSocketServer({ noServer: true });
    other.on('connection', (ws) => ws.on('message', (data) => ws.send(`other echoes ${data.toString()}`)));
    http.on('upgrade', (req, socket, head) => {
      if (new URL(req.url ?? '/', 'http://x').pathname === '/other') other.handleUpgrade(req, socket, head, (ws) => other.emit('connection', ws, req));
    });
    const server = new McpServer({ name: 'attached', version: '1.0.0' });
    server.on('error', () => {});
    const transport = new WebSocketTransport(server).attach(http);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    port = (http.address() as { port: number }).port;
    cleanups.push(async () => {
      await server.close();
      for (const ws of other.clients) ws.terminate();
      await new Promise<void>((resolve) => other.close(() => resolve()));
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    });
    return { server, transport };
  }

  it('serves MCP on /mcp of an existing http server', async () => {
    await attached();
    const client = await h.connectUrl(`ws://127.0.0.1:${port}/mcp`);
    expect(client.socket.protocol).toBe('mcp');
    const result = await client.initialize();
    expect(result.serverInfo).toEqual({ name: 'attached', version: '1.0.0' });
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
  });

  it("leaves upgrades on other paths to the app's own upgrade listener", async () => {
    await attached();
    const socket = trackSocket(await openSocket(`ws://127.0.0.1:${port}/other`, { protocols: [] }));
    const echoed = new Promise<string>((resolve) => socket.once('message', (data) => resolve(data.toString())));
    socket.send('hello');
    expect(await echoed).toBe('other echoes hello');
  });

  it("leaves plain HTTP requests to the app's request handler", async () => {
    await attached();
    const reply = await httpGet(port, '/mcp?x=1');
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 200, body: 'app saw GET /mcp?x=1' });
    expect((await httpGet(port, '/health')).body).toBe('app saw GET /health');
  });

  it("server.close() removes only its own upgrade listener and leaves the app's server running", async () => {
    const { server } = await attached();
    expect(http.listenerCount('upgrade')).toBe(2);
    await server.close();
    expect(http.listenerCount('upgrade')).toBe(1);
    expect(http.listening).toBe(true);
    expect((await httpGet(port, '/after')).body).toBe('app saw GET /after');
  });
});

describe('options', () => {
  it('serves on a custom path, and answers 404 on /mcp', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { path: '/custom/ws' } });
    expect(running.url).toBe(`ws://127.0.0.1:${running.port}/custom/ws`);
    expect(running.transport.path).toBe('/custom/ws');
    const client = await h.connectUrl(running.url);
    expect(await client.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
    const reply = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect({ status: reply.status, body: reply.body }).toEqual({ status: 404, body: 'No MCP endpoint here; connect to /custom/ws\n' });
  });

  it('throws a TypeError at construction for invalid options', () => {
    const server = new McpServer({ name: 'options', version: '1.0.0' });
    expect(() => new WebSocketTransport(server, { path: 'mcp' })).toThrow(new TypeError(`WebSocketTransport option path must start with '/'; got "mcp"`));
    expect(() => new WebSocketTransport(server, { path: 'mcp' })).toThrow(TypeError);
    expect(() => new WebSocketTransport(server, { maxMessageBytes: 0 })).toThrow(new TypeError('Option maxMessageBytes must be a positive integer; got 0'));
    expect(() => new WebSocketTransport(server, { maxMessageBytes: 0 })).toThrow(TypeError);
    expect(() => new WebSocketTransport(server, { maxMessageBytes: 1.5 })).toThrow(TypeError);
    expect(() => new WebSocketTransport(server, { keepAliveIntervalMs: -1 })).toThrow(TypeError);
    expect(() => new WebSocketTransport(server, { keepAliveIntervalMs: 0 })).not.toThrow();
  });

  it('refuses a second listen() on the same transport', async () => {
    const running = await startWebSocket(cleanups);
    await expect(running.transport.listen()).rejects.toThrow('WebSocketTransport is already listening; create another transport for another port');
  });
});

describe('closing one session', () => {
  it('session.close(reason) closes the socket with 1000 and the reason, cut to the 123 bytes a close frame allows', async () => {
    const running = await startWebSocket(cleanups);
    const sessions: McpSession[] = [];
    running.server.on('connect', (session) => void sessions.push(session));
    const short = await readyClient(running.url);
    const long = await readyClient(running.url);
    sessions[0].close('kicked by the admin');
    expect(await short.closed).toEqual({ code: 1000, reason: 'kicked by the admin' });
    sessions[1].close('x'.repeat(200));
    expect(await long.closed).toEqual({ code: 1000, reason: 'x'.repeat(123) });
  });

  it('session.close(reason) with a long non-ASCII reason still closes the socket, with at most 123 bytes of it', async () => {
    const running = await startWebSocket(cleanups);
    const connected = nextEvent<[McpSession]>(running.server, 'connect');
    const client = await readyClient(running.url);
    const [session] = await connected;
    const reason = 'é'.repeat(70);
    expect(() => session.close(reason)).not.toThrow();
    const closed = await client.closed;
    expect(closed.code).toBe(1000);
    expect(Buffer.byteLength(closed.reason)).toBeLessThanOrEqual(123);
    expect(reason.startsWith(closed.reason)).toBe(true);
    expect(closed.reason.length).toBeGreaterThanOrEqual(60);
  });
});

describe('server.close()', () => {
  it('ends every session with "server closed", closes the sockets and the port, and rejects pending server requests', async () => {
    const running = await startWebSocket(cleanups);
    const ended: McpServerEvents['sessionEnd'][] = [];
    const disconnected: McpServerEvents['disconnect'][] = [];
    const sessions: McpSession[] = [];
    running.server.on('sessionEnd', (session: McpSession, reason: string) => void ended.push([session, reason]));
    running.server.on('disconnect', (session: McpSession, reason: string) => void disconnected.push([session, reason]));
    running.server.on('connect', (session) => void sessions.push(session));
    const a = await readyClient(running.url);
    const b = await readyClient(running.url);
    const fresh = await h.connectUrl(running.url);
    expect(await fresh.request('ping', undefined, 1)).toEqual(PING_REPLY(1));
    const [sessionA, sessionB, sessionFresh] = sessions;
    const pending = sessionA.request('roots/list', undefined, { timeoutMs: 10_000 });
    const failed = pending.then(
      () => undefined,
      (err: unknown) => err,
    );
    await a.nextMessage('roots/list');

    await running.server.close();

    expect(ended).toHaveLength(2);
    expect(ended).toEqual(
      expect.arrayContaining([
        [sessionA, 'server closed'],
        [sessionB, 'server closed'],
      ]),
    );
    expect(disconnected).toHaveLength(3);
    expect(disconnected).toEqual(
      expect.arrayContaining([
        [sessionA, 'server closed'],
        [sessionB, 'server closed'],
        [sessionFresh, 'server closed'],
      ]),
    );
    expect(await a.closed).toEqual({ code: 1000, reason: 'server closed' });
    expect(await b.closed).toEqual({ code: 1000, reason: 'server closed' });
    expect(await fresh.closed).toEqual({ code: 1000, reason: 'server closed' });
    const error = await failed;
    expect(error).toBeInstanceOf(ConnectionClosedError);
    expect((error as ConnectionClosedError).toJSON()).toEqual({
      code: -32000,
      message: 'roots/list could not complete: server closed',
      data: { reason: 'server closed' },
    });
    expect(await tcpAccepts(running.port)).toBe(false);
    expect(running.server.sessions.size).toBe(0);
  });

  it('is idempotent: a second close() returns the same promise and ends nothing twice', async () => {
    const running = await startWebSocket(cleanups);
    const ended: unknown[] = [];
    running.server.on('sessionEnd', (...args) => void ended.push(args));
    await readyClient(running.url);
    const first = running.server.close();
    const second = running.server.close();
    expect(second).toBe(first);
    await first;
    await running.server.close();
    await running.transport.close();
    expect(ended).toHaveLength(1);
  });

  it('finishes even when a peer never answers the closing handshake', async () => {
    const running = await startWebSocket(cleanups);
    const connected = nextEvent<[McpSession]>(running.server, 'connect');
    // A raw TCP peer: completes the upgrade, then never reads a frame nor sends a close frame.
    const raw = netConnect({ host: '127.0.0.1', port: running.port });
    cleanups.push(() => void raw.destroy());
    await new Promise<void>((resolve) => raw.once('connect', resolve));
    raw.write(
      'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Protocol: mcp\r\n\r\n',
    );
    await connected;
    const outcome = await Promise.race([
      running.server.close().then(() => 'closed'),
      new Promise((resolve) => setTimeout(resolve, 5000, 'close() still pending after 5 s')),
    ]);
    expect(outcome).toBe('closed');
  });
});
