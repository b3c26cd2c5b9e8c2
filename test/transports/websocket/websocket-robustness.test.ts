/**
 * WebSocket upgrades whose request target is an absolute URL that `new URL` rejects (a bad host, a bad
 * percent escape, a port out of range): the upgrade listener reads the path without URL parsing, so it
 * answers them like any other upgrade instead of throwing out of the 'upgrade' event (which took the
 * whole process down), and the server keeps serving.
 */
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpServer, StreamableHttpTransport, WebSocketTransport, type McpSession } from '../../../src/index.js';
import { HttpTestClient } from '../../helpers/http-client.js';
import { DEFAULT_CAPABILITIES, startWebSocket } from '../../helpers/servers.js';
import { recordEvents } from '../../helpers/server-events.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { useWsSessions } from '../../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

/** Targets `new URL(target, base)` throws on; llhttp lets them through (absolute-form, RFC 9112 §3.2.2). */
const BAD_HOSTS = ['http://[', 'http://%zz', 'http://a:99999'] as const;

/** The whole answer to a raw upgrade request: the head of a 101 (the socket is then dropped), or everything up to the close. */
function rawUpgrade(port: number, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => {
      socket.write(
        `GET ${target} HTTP/1.1\r\n` +
          `Host: 127.0.0.1:${port}\r\n` +
          'Connection: Upgrade\r\n' +
          'Upgrade: websocket\r\n' +
          'Sec-WebSocket-Version: 13\r\n' +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\n` +
          'Sec-WebSocket-Protocol: mcp\r\n' +
          '\r\n',
      );
    });
    let data = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      data += chunk;
      if (data.startsWith('HTTP/1.1 101 ') && data.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
    cleanups.push(() => socket.destroy());
  });
}

/** The status line and body of a raw HTTP answer. */
function parseReply(raw: string): { statusLine: string; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  return { statusLine: raw.slice(0, raw.indexOf('\r\n')), body: end === -1 ? '' : raw.slice(end + 4) };
}

const NOT_FOUND = { statusLine: 'HTTP/1.1 404 Not Found', body: 'No MCP endpoint here; connect to /mcp\n' };

describe('WebSocket upgrades with a target URL that new URL rejects', () => {
  for (const host of BAD_HOSTS) {
    it(`answers an upgrade to ${host}/other with 404 on a standalone WebSocket port and keeps serving new clients`, async () => {
      const running = await startWebSocket(cleanups);
      const errors = recordEvents(running.server, 'error');
      expect(() => new URL(`${host}/other`, 'http://localhost')).toThrow(TypeError);
      expect(parseReply(await rawUpgrade(running.port, `${host}/other`))).toEqual(NOT_FOUND);
      // The process is still here and the listener still works: a new client connects and initializes.
      const { client, result } = await h.open(running);
      expect(result.capabilities).toEqual(DEFAULT_CAPABILITIES);
      await expect(client.request('ping', undefined, 'after')).resolves.toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
      expect(errors).toEqual([]);
    });

    it(`accepts an upgrade to ${host}/mcp (its path is /mcp) with 101, opening a session, and keeps serving new clients`, async () => {
      const running = await startWebSocket(cleanups);
      const connects = recordEvents(running.server, 'connect');
      const errors = recordEvents(running.server, 'error');
      expect(() => new URL(`${host}/mcp`, 'http://localhost')).toThrow(TypeError);
      const raw = await rawUpgrade(running.port, `${host}/mcp`);
      expect(raw).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
      expect(raw).toMatch(/\r\nSec-WebSocket-Protocol: mcp\r\n/i);
      expect(connects).toHaveLength(1);
      const { client } = await h.open(running);
      await expect(client.request('ping', undefined, 'after')).resolves.toEqual({ jsonrpc: '2.0', id: 'after', result: {} });
      expect(connects).toHaveLength(2);
      expect(errors).toEqual([]);
    });
  }

  it('answers all the bad targets in a row on one server, which then still serves a client', async () => {
    const running = await startWebSocket(cleanups);
    for (const host of BAD_HOSTS) expect(parseReply(await rawUpgrade(running.port, `${host}/elsewhere?x=1`))).toEqual(NOT_FOUND);
    const { client } = await h.open(running);
    await expect(client.request('ping', undefined, 'p')).resolves.toEqual({ jsonrpc: '2.0', id: 'p', result: {} });
  });

  it('on a port shared with Streamable HTTP, an upgrade to a bad-host /mcp target is still accepted and plain HTTP keeps working', async () => {
    const server = new McpServer({ name: 'shared', version: '1.0.0' });
    server.on('error', () => {});
    cleanups.push(() => server.close());
    const http = new StreamableHttpTransport(server, { keepAliveIntervalMs: 0 });
    const { port, url } = await http.listen({ host: '127.0.0.1', port: 0 });
    new WebSocketTransport(server).attach(http.httpServer!);
    const connected: McpSession[] = [];
    server.on('connect', (session) => void connected.push(session));
    for (const host of BAD_HOSTS) expect(await rawUpgrade(port, `${host}/mcp`)).toMatch(/^HTTP\/1\.1 101 Switching Protocols\r\n/);
    expect(connected.map((s) => s.transport)).toEqual(['websocket', 'websocket', 'websocket']);
    const client = new HttpTestClient(url);
    expect(await client.initialize()).toMatchObject({ protocolVersion: '2025-11-25' });
    expect(server.sessions.get(client.sessionId!)?.transport).toBe('http');
  });
});
