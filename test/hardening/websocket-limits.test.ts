/**
 * What a hostile WebSocket client cannot make the server hold or do, over real sockets on 127.0.0.1: a
 * 2025-03-26 batch is capped at maxBatchSize, a session at maxRequestsInFlight (-32011), every transport
 * together at maxSessions (503 on upgrade); upgrades name an allowed Host; a peer that does not read stops
 * being read from above sendHighWaterMark and is closed (1008) past maxBufferedBytes; a connection must speak
 * within firstMessageTimeoutMs and is closed after sessionIdleTimeoutMs of silence; and the server listen() opens
 * drops silent sockets, times out slow headers and caps connections.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { McpServer, type McpServerOptions, type McpSession, StreamableHttpTransport, WebSocketTransport } from '../../src/index.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { nextEvent, recordEvents } from '../helpers/server-events.js';
import { pingOk, recordMessages, useWsSessions } from '../helpers/ws-sessions.js';
import { httpUpgrade } from '../helpers/transport-peers.js';
import { deferred, gate, tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useFakeClock } from '../helpers/fake-clock.js';
import { within } from '../helpers/waits.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const fakeClock = useFakeClock();

const KiB = 1024;
const MiB = 1024 * KiB;

function toolCall(id: string, name: string): Json {
  return { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: {} } };
}

function textResult(id: string, text: string): Json {
  return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }] } };
}

function tooManyInFlight(id: string, max: number): Json {
  return {
    jsonrpc: '2.0',
    id,
    error: { code: -32011, message: `Too many requests in flight: this session has ${max} unanswered; wait for answers before sending more` },
  };
}

function atSessionLimit(max: number): string {
  return `Service Unavailable: the server is at its limit of ${max} sessions; try again later\n`;
}

/** Resolves once the server has handed the response to request `id` to its transport. */
function responseSent(server: McpServer, id: string): Promise<void> {
  return new Promise((resolve) => {
    const onMessage = (_session: McpSession, direction: 'in' | 'out', message: unknown) => {
      if (direction === 'out' && (message as Json).id === id) {
        server.off('message', onMessage);
        resolve();
      }
    };
    server.on('message', onMessage);
  });
}

/** A bare TCP connection that writes `data` (if any) and then nothing; `closed` gives what it read before the server closed it. */
function rawConnection(port: number, data?: string): { closed: Promise<string> } {
  const socket = connect(port, '127.0.0.1', () => {
    if (data !== undefined) socket.write(data);
  });
  cleanups.push(() => socket.destroy());
  let read = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (read += chunk));
  socket.on('error', () => {});
  return { closed: new Promise((resolve) => socket.on('close', () => resolve(read))) };
}

/**
 * A WebSocket client at the frame level on a bare TCP socket (frames masked with a zero key), for a peer
 * that stops reading: it sees the server's close frame when it reads it, whether or not the closing
 * handshake ever completes.
 */
class FramePeer {
  /** Every JSON-RPC message received, in order. */
  readonly messages: Json[] = [];
  /** The server's close frame: its code and reason. */
  readonly closeFrame: Promise<{ code: number; reason: string }>;
  private pending: Buffer = Buffer.alloc(0);
  private readonly received = new EventEmitter();

  private constructor(readonly socket: Socket) {
    this.closeFrame = new Promise((resolve) => this.received.once('close', resolve));
    socket.on('data', (chunk: Buffer) => this.read(chunk));
  }

  static open(port: number): Promise<FramePeer> {
    return new Promise((resolve, reject) => {
      const key = randomBytes(16).toString('base64');
      const socket = connect(port, '127.0.0.1', () =>
        socket.write(
          `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n` +
            `Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Protocol: mcp\r\n\r\n`,
        ),
      );
      cleanups.push(() => socket.destroy());
      socket.once('error', reject);
      let head = Buffer.alloc(0);
      const onHead = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        socket.off('data', onHead);
        if (!head.subarray(0, end).toString().startsWith('HTTP/1.1 101 ')) return reject(new Error(`upgrade refused: ${head}`));
        const peer = new FramePeer(socket);
        peer.read(head.subarray(end + 4));
        resolve(peer);
      };
      socket.on('data', onHead);
    });
  }

  /** One text frame under 64 KiB, masked with the key 0 (RFC 6455 §5.3: a client must mask; any key will do). */
  send(message: Json): void {
    const payload = Buffer.from(JSON.stringify(message));
    const n = payload.length;
    if (n >= 65536) throw new RangeError(`FramePeer sends frames under 64 KiB; this one is ${n} bytes`);
    const head = n < 126 ? Buffer.from([0x81, 0x80 | n]) : Buffer.from([0x81, 0x80 | 126, n >> 8, n & 0xff]);
    this.socket.write(Buffer.concat([head, Buffer.alloc(4), payload]));
  }

  /** The response to request `id`. */
  response(id: string): Promise<Json> {
    const seen = this.messages.find((m) => m.id === id && !('method' in m));
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve) => {
      const onMessage = (m: Json) => {
        if (m.id !== id || 'method' in m) return;
        this.received.off('message', onMessage);
        resolve(m);
      };
      this.received.on('message', onMessage);
    });
  }

  /** Unmasked server frames, each whole (the server does not fragment): text is JSON-RPC, 0x8 is the close. */
  private read(chunk: Buffer): void {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    for (;;) {
      if (this.pending.length < 2) return;
      let length = this.pending[1] & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (this.pending.length < 4) return;
        length = this.pending.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (this.pending.length < 10) return;
        length = Number(this.pending.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.pending.length < offset + length) return;
      const opcode = this.pending[0] & 0x0f;
      const payload = this.pending.subarray(offset, offset + length);
      this.pending = this.pending.subarray(offset + length);
      if (opcode === 0x1) {
        const message = JSON.parse(payload.toString()) as Json;
        this.messages.push(message);
        this.received.emit('message', message);
      } else if (opcode === 0x8) {
        this.received.emit('close', { code: payload.readUInt16BE(0), reason: payload.subarray(2).toString() });
      }
    }
  }
}

describe('JSON-RPC batches on a 2025-03-26 session', () => {
  it('refuses a batch of 101 tool calls whole with one -32600 error and runs none, then answers a batch of exactly 100 with 100 responses in order', async () => {
    let calls = 0;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('count', {}, () => {
        calls++;
        return 'counted';
      }),
    );
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });

    client.sendRaw(Array.from({ length: 101 }, (_, i) => toolCall(`over-${i}`, 'count')));
    expect(await client.waitFor(() => true)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: a batch of 101 messages is over the limit of 100; send smaller batches' },
    });
    await pingOk(client);
    expect(calls).toBe(0);

    client.sendRaw(Array.from({ length: 100 }, (_, i) => toolCall(`ok-${i}`, 'count')));
    expect(await client.waitFor(() => true)).toEqual(Array.from({ length: 100 }, (_, i) => textResult(`ok-${i}`, 'counted')));
    expect(calls).toBe(100);
    expect(client.received).toEqual([]);
  });

  it('with maxBatchSize 3 refuses a batch of 4 with -32600 naming the limit, and answers a batch of 3', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { maxBatchSize: 3 } });
    const { client } = await h.open(running, { protocolVersion: '2025-03-26' });
    const pings = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: `${prefix}-${i}`, method: 'ping' }));

    client.sendRaw(pings('four', 4));
    expect(await client.waitFor(() => true)).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'Invalid Request: a batch of 4 messages is over the limit of 3; send smaller batches' },
    });
    client.sendRaw(pings('three', 3));
    expect(await client.waitFor(() => true)).toEqual([0, 1, 2].map((i) => ({ jsonrpc: '2.0', id: `three-${i}`, result: {} })));
    expect(client.received).toEqual([]);
  });
});

describe('requests in flight per WebSocket session', () => {
  /** A server whose tool `block` runs until `release` opens; `started` counts the calls that ran. */
  async function startBlocking(server?: McpServerOptions) {
    const release = gate();
    const counter = { started: 0 };
    const running = await startWebSocket(
      cleanups,
      (s) =>
        s.registerTool('block', {}, async () => {
          counter.started++;
          await release.opened;
          return 'released';
        }),
      { server },
    );
    return { running, release, counter };
  }

  it('with maxRequestsInFlight 3 answers a 4th pipelined call -32011 without running it; the 3 answer once released, and then a new call runs', async () => {
    const { running, release, counter } = await startBlocking({ maxRequestsInFlight: 3 });
    const { client } = await h.open(running);

    const blocked = ['b1', 'b2', 'b3'].map((id) => client.request('tools/call', { name: 'block', arguments: {} }, id));
    void Promise.allSettled(blocked); // awaited below; should the test fail first, their timeouts are not unhandled
    expect(await client.request('tools/call', { name: 'block', arguments: {} }, 'b4')).toEqual(tooManyInFlight('b4', 3));
    expect(counter.started).toBe(3);

    release.open();
    expect(await Promise.all(blocked)).toEqual(['b1', 'b2', 'b3'].map((id) => textResult(id, 'released')));
    expect(await client.request('tools/call', { name: 'block', arguments: {} }, 'b5')).toEqual(textResult('b5', 'released'));
    expect(counter.started).toBe(4);
    expect(client.received).toEqual([]);
  });

  it('by default lets 100 calls be in flight and answers the 101st -32011 without running it', async () => {
    const { running, release, counter } = await startBlocking();
    const { client } = await h.open(running);

    const ids = Array.from({ length: 100 }, (_, i) => `c${i}`);
    const blocked = ids.map((id) => client.request('tools/call', { name: 'block', arguments: {} }, id));
    void Promise.allSettled(blocked); // awaited below; should the test fail first, their timeouts are not unhandled
    expect(await client.request('tools/call', { name: 'block', arguments: {} }, 'c100')).toEqual(tooManyInFlight('c100', 100));
    expect(counter.started).toBe(100);

    release.open();
    expect(await Promise.all(blocked)).toEqual(ids.map((id) => textResult(id, 'released')));
    expect(counter.started).toBe(100);
  });
});

describe('sessions over every transport (maxSessions)', () => {
  it('with maxSessions 2 refuses a third WebSocket upgrade with 503, and admits a new one once a session ended', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { maxSessions: 2 } });
    const connects = recordEvents(running.server, 'connect');
    const first = await h.connectUrl(running.url);
    await h.open(running);

    const refused = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 503, body: atSessionLimit(2) });
    expect(connects).toHaveLength(2);

    const ended = nextEvent(running.server, 'disconnect');
    await first.close();
    await ended;
    const { client } = await h.open(running);
    await pingOk(client);
    expect((await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' })).status).toBe(503);
  });

  it('checks the limit again after an async auth: of three upgrades authenticated at once with maxSessions 1, one is accepted', async () => {
    // Each auth ends only once all three are under way: they finish together, however slow the machine.
    const allAsked = deferred();
    let asked = 0;
    const running = await startWebSocket(cleanups, undefined, {
      server: { maxSessions: 1 },
      transport: {
        auth: async () => {
          if (++asked === 3) allAsked.resolve();
          await allAsked.promise;
          return { id: 'x' };
        },
      },
    });
    const connects = recordEvents(running.server, 'connect');
    const upgrades = await Promise.all([1, 2, 3].map(() => httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' })));
    expect(upgrades.map(({ status }) => status).sort()).toEqual([101, 503, 503]);
    expect(connects).toHaveLength(1);
  });

  it('counts a Streamable HTTP session on the same McpServer: with one of each at maxSessions 2, a WebSocket upgrade gets 503 until the HTTP session is deleted', async () => {
    const server = new McpServer({ name: 'test-server', version: '1.0.0' }, { maxSessions: 2 });
    server.on('error', () => {});
    cleanups.push(() => server.close());
    const { url: httpUrl } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
    const { url: wsUrl, port: wsPort } = await new WebSocketTransport(server).listen({ host: '127.0.0.1', port: 0 });

    const httpClient = new HttpTestClient(httpUrl);
    await httpClient.initialize();
    const wsClient = await h.connectUrl(wsUrl);
    await wsClient.initialize();

    const refused = await httpUpgrade(wsPort, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect({ status: refused.status, body: refused.body }).toEqual({ status: 503, body: atSessionLimit(2) });

    const ended = nextEvent(server, 'disconnect');
    expect((await httpClient.delete()).status).toBe(200);
    await ended;
    const next = await h.connectUrl(wsUrl);
    await next.initialize();
    await pingOk(next);
    await pingOk(wsClient);
  });
});

describe('Host check on upgrades', () => {
  const forbidden = (host: string) => ({ status: 403, body: `Forbidden: Host ${host} is not allowed\n` });

  async function upgradeWithHost(port: number, host: string): Promise<{ status: number; body: string }> {
    const { status, body } = await httpUpgrade(port, '/mcp', { host, 'sec-websocket-protocol': 'mcp' });
    return { status, body };
  }

  it('by default, on a loopback address, refuses with 403 a Host that is not a loopback name (DNS rebinding) and opens no session', async () => {
    const running = await startWebSocket(cleanups);
    const connects = recordEvents(running.server, 'connect');
    for (const host of ['evil.example', `evil.example:${running.port}`, 'localhost.evil.example', '127.0.0.1.nip.io']) {
      expect(await upgradeWithHost(running.port, host)).toEqual(forbidden(host));
    }
    expect(connects).toEqual([]);
    for (const host of [`localhost:${running.port}`, `127.0.0.1:${running.port}`, `[::1]:${running.port}`, 'LocalHost']) {
      expect(await upgradeWithHost(running.port, host)).toEqual({ status: 101, body: '' });
    }
    expect(connects).toHaveLength(4);
  });

  it('with allowedHosts accepts exactly the listed names (any port, any case) and refuses the rest with 403, loopback names included', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { allowedHosts: ['mcp.example.com'] } });
    for (const host of ['mcp.example.com', 'mcp.example.com:8443', 'MCP.Example.com']) {
      expect(await upgradeWithHost(running.port, host)).toEqual({ status: 101, body: '' });
    }
    for (const host of ['evil.example', 'mcp.example.com.evil.example', `127.0.0.1:${running.port}`, 'localhost']) {
      expect(await upgradeWithHost(running.port, host)).toEqual(forbidden(host));
    }
  });
});

describe('allowedHosts', () => {
  it.each(['MCP.example.com', 'mcp.example.com:443', ''])('refuses %j at construction: requests are matched in lower case without a port', (host) => {
    const server = new McpServer({ name: 'hosts', version: '1.0.0' });
    const message = `Option allowedHosts lists host names in lower case and without a port, like 'mcp.example.com' or '[::1]'; got ${JSON.stringify(host)}`;
    expect(() => new WebSocketTransport(server, { allowedHosts: [host] })).toThrow(message);
    expect(() => new StreamableHttpTransport(server, { allowedHosts: [host] })).toThrow(message);
  });
});

describe('a peer that does not read what it is sent', () => {
  it('is not read from while more than sendHighWaterMark is queued to it; once it reads, every request runs and is answered exactly once', async () => {
    const BIG = 16 * MiB; // well over what the kernel's socket buffers take, so most of it stays queued
    let counted = 0;
    const running = await startWebSocket(
      cleanups,
      (server) => {
        server.registerTool('big', {}, () => 'x'.repeat(BIG));
        server.registerTool('count', {}, () => String(++counted));
      },
      { transport: { sendHighWaterMark: 64 * KiB, maxBufferedBytes: 64 * MiB } },
    );
    const { client } = await h.open(running);
    const log = recordMessages(client);

    client.socket.pause();
    cleanups.push(() => client.socket.resume()); // so that, should the test fail, closing it does not wait on 16 MiB unread
    const bigSent = responseSent(running.server, 'big');
    client.sendRaw(toolCall('big', 'big'));
    await bigSent;
    await tick();
    const ids = Array.from({ length: 20 }, (_, i) => `c${i + 1}`);
    for (const id of ids) client.sendRaw(toolCall(id, 'count'));
    await sleep(200); // ample time to read them, were the server reading
    expect(counted).toBe(0);

    client.socket.resume();
    expect(await client.waitFor((m) => m.id === 'c20', 10_000)).toEqual(textResult('c20', '20'));
    expect(log.map((m) => m.id)).toEqual(['big', ...ids]);
    expect(log[0]).toEqual(textResult('big', 'x'.repeat(BIG)));
    expect(log.slice(1)).toEqual(ids.map((id, i) => textResult(id, String(i + 1))));
    expect(counted).toBe(20);
    await pingOk(client);
  });

  it('is closed with 1008 once more than maxBufferedBytes is queued to it: the close frame follows what was queued, the answer never comes', async () => {
    const CHUNK = 256 * KiB;
    const flooded = deferred();
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.registerTool('flood', {}, (_args, ctx) => {
          for (let i = 0; i < 64; i++) ctx.log('info', 'x'.repeat(CHUNK));
          flooded.resolve();
          return 'flooded';
        }),
      { transport: { sendHighWaterMark: 64 * KiB, maxBufferedBytes: 1 * MiB } },
    );
    const peer = await FramePeer.open(running.port);
    peer.send({
      jsonrpc: '2.0',
      id: 'init',
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'frames', version: '1.0.0' } },
    });
    expect((await within(peer.response('init'), 5000, 'the initialize result')).result.protocolVersion).toBe('2025-11-25');
    peer.send({ jsonrpc: '2.0', method: 'notifications/initialized' });

    const before = peer.messages.length;
    peer.socket.pause();
    peer.send(toolCall('flood', 'flood'));
    await flooded.promise;
    await tick();
    peer.socket.resume();

    expect(await within(peer.closeFrame, 5000, 'the close frame')).toEqual({
      code: 1008,
      reason: 'the client does not read what it is sent (over 1048576 bytes queued)',
    });
    const sent = peer.messages.slice(before);
    expect(sent.filter((m) => m.method !== 'notifications/message')).toEqual([]);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.length).toBeLessThan(64);
  });

  it("once closed past maxBufferedBytes, reads the close reply of a client that reads again: the session ends then, not after ws's 30 s close timeout", async () => {
    const flooded = deferred();
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.registerTool('flood', {}, (_args, ctx) => {
          for (let i = 0; i < 64; i++) ctx.log('info', 'x'.repeat(256 * KiB));
          flooded.resolve();
          return 'flooded';
        }),
      { transport: { sendHighWaterMark: 64 * KiB, maxBufferedBytes: 1 * MiB } },
    );
    const { client } = await h.open(running);
    const ends = recordEvents(running.server, 'sessionEnd');
    const ended = nextEvent(running.server, 'sessionEnd');
    const closed = new Promise<number>((resolve) => client.socket.once('close', (code: number) => resolve(code)));
    client.socket.pause();
    cleanups.push(() => client.socket.resume());
    client.sendRaw(toolCall('flood', 'flood'));
    await flooded.promise;
    await tick();
    client.socket.resume();
    expect(await within(closed, 5000, "the client's close event")).toBe(1008);
    await within(ended, 5000, 'sessionEnd');
    expect(ends.map(([, reason]) => reason)).toEqual(['websocket closed (1008: the client does not read what it is sent (over 1048576 bytes queued))']);
  });
});

describe('first-message and idle timeouts', () => {
  it('closes with 1008 a connection that sends no message within firstMessageTimeoutMs, and keeps one that did', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { firstMessageTimeoutMs: 50 } });
    fakeClock();
    const silent = await h.connectUrl(running.url);
    const talker = await h.connectUrl(running.url);
    await pingOk(talker);

    vi.advanceTimersByTime(49);
    await pingOk(talker);
    expect(silent.socket.readyState).toBe(WebSocket.OPEN);
    vi.advanceTimersByTime(1);
    expect(await within(silent.closed, 5000, 'the silent connection closing')).toEqual({ code: 1008, reason: 'no message within 50 ms of connecting' });

    vi.advanceTimersByTime(10_000);
    await pingOk(talker);
  });

  it('closes (1000, idle timeout) an initialized session with no traffic once sessionIdleTimeoutMs has passed, not before', async () => {
    fakeClock(); // before connecting: every activity stamp is on the fake clock, which moves only by hand
    const running = await startWebSocket(cleanups, undefined, { transport: { sessionIdleTimeoutMs: 100 } });
    const ended = nextEvent<[McpSession, string]>(running.server, 'sessionEnd');
    const { client, session } = await h.open(running);

    vi.advanceTimersByTime(100);
    await sleep(200); // the sweep runs every 50 ms of real time
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    vi.advanceTimersByTime(1);
    expect(await within(client.closed, 5000, 'the idle session closing')).toEqual({ code: 1000, reason: 'idle timeout' });
    expect(await within(ended, 5000, 'sessionEnd')).toEqual([session, 'websocket closed (1000: idle timeout)']);
  });

  it('does not close for idleness a session whose tool call is under way, and closes it once answered and idle', async () => {
    fakeClock();
    const release = gate();
    const started = deferred();
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.registerTool('block', {}, async () => {
          started.resolve();
          await release.opened;
          return 'released';
        }),
      { transport: { sessionIdleTimeoutMs: 100 } },
    );
    const { client } = await h.open(running);
    const reply = client.request('tools/call', { name: 'block', arguments: {} }, 'slow');
    await started.promise;

    vi.advanceTimersByTime(1000);
    await sleep(200);
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    release.open();
    expect(await reply).toEqual(textResult('slow', 'released'));

    vi.advanceTimersByTime(101);
    expect(await within(client.closed, 5000, 'the idle session closing')).toEqual({ code: 1000, reason: 'idle timeout' });
  });

  it('does not close for idleness a session waiting for the client to answer a server request, and closes it once answered and idle', async () => {
    fakeClock();
    const running = await startWebSocket(cleanups, undefined, { transport: { sessionIdleTimeoutMs: 100 } });
    const { client, session } = await h.open(running);
    const asked = session.request('ping');
    const ping = await client.nextMessage('ping');

    vi.advanceTimersByTime(1000);
    await sleep(200);
    expect(client.socket.readyState).toBe(WebSocket.OPEN);
    client.respond(ping.id, {});
    expect(await asked).toEqual({});

    vi.advanceTimersByTime(101);
    expect(await within(client.closed, 5000, 'the idle session closing')).toEqual({ code: 1000, reason: 'idle timeout' });
  });
});

describe('the server WebSocketTransport.listen() opens', () => {
  it('closes a TCP connection that sends no byte for firstByteTimeoutMs, but not a WebSocket that stays quiet longer after its upgrade', async () => {
    const { url, port } = await startWebSocket(cleanups, undefined, { listen: { firstByteTimeoutMs: 100 } });
    const ws = await h.connectUrl(url);
    await ws.initialize();

    const silent = rawConnection(port);
    expect(await within(silent.closed, 5000, 'the server closing the silent connection')).toBe('');
    await pingOk(ws);
  });

  it('answers 408 and closes a connection that does not finish its request headers within httpHeadersTimeoutMs', async () => {
    const { port } = await startWebSocket(cleanups, undefined, { listen: { httpHeadersTimeoutMs: 100 } });
    const slow = rawConnection(port, `GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n`);
    expect(await within(slow.closed, 5000, 'the server timing out the headers')).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n');
  });

  it('at maxConnections answers further upgrades 503 while every connection is a session, and accepts again once one has closed', async () => {
    const { server, url, port } = await startWebSocket(cleanups, undefined, { listen: { maxConnections: 2, maxConnectionsPerClient: 2 } });
    const first = await h.connectUrl(url);
    const second = await h.connectUrl(url);

    const refused = await httpUpgrade(port, '/mcp', { 'sec-websocket-protocol': 'mcp' });
    expect({ status: refused.status, retryAfter: refused.headers['retry-after'], body: refused.body }).toEqual({
      status: 503,
      retryAfter: '1',
      body: 'Too many connections from your address (limit 2); close some and try again\n',
    });

    const gone = nextEvent(server, 'disconnect');
    await first.close();
    await gone;
    const third = await h.connectUrl(url);
    await third.initialize();
    await pingOk(third);
    await pingOk(second);
  });
});
