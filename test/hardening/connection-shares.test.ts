/**
 * One client cannot lock the others out of a server from `listen()`, with default options: a hostile
 * address (127.0.0.2) holds 1,100 silent TCP sockets, reopened as they drop, or 1,024 idle initialized
 * WebSocket sessions, and initializes from another address (127.0.0.1) still succeed, each within 1 s.
 * Connections count against their principal once a request authenticates one.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { McpServer, StreamableHttpTransport, WebSocketTransport } from '../../src/index.js';
import { TOO_MANY_FOR_PRINCIPAL } from '../../src/transports/connection-budget.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const HOSTILE = '127.0.0.2';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legit', version: '1.0.0' } },
});

function newServer(): McpServer {
  const server = new McpServer({ name: 'shares', version: '1.0.0' });
  server.on('error', () => {});
  cleanups.push(() => server.close());
  return server;
}

/**
 * Another process that holds `count` connections from `from`, each sending nothing (or only `send`),
 * and opens another as soon as one drops; resolves once all have connected. Its own process, as an
 * attacker's would be, so its churn does not share this test's event loop.
 */
async function holdUnusedSockets(port: number, from: string, count: number, send?: string): Promise<void> {
  const args = [fileURLToPath(new URL('../fixtures/hostile-sockets.mjs', import.meta.url)), String(port), from, String(count)];
  const child = spawn(process.execPath, send === undefined ? args : [...args, send], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGKILL');
      }),
  );
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => String(chunk).includes('held') && resolve());
    child.once('exit', (code) => reject(new Error(`the hostile client exited (${code}) before holding its connections`)));
  });
}

/** POST initialize from `from` over a connection of its own; the status, or why it failed, within 1 s. */
function httpInitialize(port: number, from = '127.0.0.1'): Promise<string> {
  return new Promise((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/mcp',
      method: 'POST',
      localAddress: from,
      agent: false,
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      timeout: 1000,
    });
    req.on('timeout', () => req.destroy(new Error('no answer within 1 s')));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(String(res.statusCode)));
    });
    req.end(INITIALIZE);
  });
}

/** A WebSocket from `from`, initialized: `'ok'`, or why it was not, within 1 s. */
function wsInitialize(url: string, from = '127.0.0.1', keep?: WebSocket[]): Promise<string> {
  return new Promise((resolve) => {
    const ws = new WebSocket(url, ['mcp'], { localAddress: from });
    const timer = setTimeout(() => finish('no answer within 1 s'), 1000);
    const finish = (outcome: string) => {
      clearTimeout(timer);
      if (outcome === 'ok' && keep) keep.push(ws);
      else ws.terminate();
      resolve(outcome);
    };
    ws.on('error', (err: NodeJS.ErrnoException) => finish(err.code ?? err.message));
    ws.on('unexpected-response', (_req, res) => finish(`HTTP ${res.statusCode}`));
    ws.on('open', () => ws.send(INITIALIZE));
    ws.on('message', (data) => {
      const reply = JSON.parse(data.toString());
      if (reply.id === 1) finish(reply.result ? 'ok' : JSON.stringify(reply.error));
    });
  });
}

/** The kernel's cap on a listen backlog (Linux), or Infinity where it cannot be read. */
function somaxconn(): number {
  try {
    return Number(readFileSync('/proc/sys/net/core/somaxconn', 'utf8'));
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

async function tally(attempts: number, attempt: () => Promise<string>): Promise<Record<string, number>> {
  const outcomes: Record<string, number> = {};
  for (let n = 0; n < attempts; n++) {
    const outcome = await attempt();
    outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
  }
  return outcomes;
}

describe('connection shares, with default options', () => {
  it('let another address initialize while one holds 1,100 silent sockets, reopened as they drop', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0 });
    await holdUnusedSockets(port, HOSTILE, 1100);

    const outcomes = await tally(10, () => httpInitialize(port));
    expect(outcomes['200'] ?? 0, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(9);
  }, 30_000);

  it('let another address initialize while one holds 1,100 sockets that each sent one byte, reopened as they drop', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0 });
    await holdUnusedSockets(port, HOSTILE, 1100, 'P');
    // A connection that began no request is displaced once it has sat unused a moment (a fifth of firstByteTimeoutMs).
    await new Promise((resolve) => setTimeout(resolve, 1100));

    const outcomes = await tally(10, () => httpInitialize(port));
    expect(outcomes['200'] ?? 0, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(9);
  }, 30_000);

  it('let another address initialize while one holds 1,024 idle initialized WebSocket sessions', async () => {
    const ws = new WebSocketTransport(newServer());
    const { url } = await ws.listen({ host: '127.0.0.1', port: 0 });
    const held: WebSocket[] = [];
    cleanups.push(() => {
      for (const socket of held) socket.terminate();
    });
    // Opened 64 at a time: a thousand connects at once would overflow the listen backlog (511) and wait on SYN retries.
    const hostile: string[] = [];
    for (let batch = 0; batch < 1024 / 64; batch++) hostile.push(...(await Promise.all(Array.from({ length: 64 }, () => wsInitialize(url, HOSTILE, held)))));
    const outcomes = await tally(10, () => wsInitialize(url));
    expect(outcomes.ok ?? 0, JSON.stringify(outcomes)).toBeGreaterThanOrEqual(9);
    // The hostile address got its share, 128, and the rest were told why.
    expect({ ok: hostile.filter((o) => o === 'ok').length, refused: hostile.filter((o) => o === 'HTTP 503').length }).toEqual({ ok: 128, refused: 896 });
  }, 30_000);

  // The kernel caps every accept queue at somaxconn: below 900, no listen() can queue them all.
  it.skipIf(somaxconn() < 900)('queue 900 connections that arrive while the server is busy, so none waits on a SYN retry', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0 });
    // Another process opens 900 connections at once when told, and says how many connected within 700 ms:
    // a SYN the full accept queue dropped is sent again only after 1 s.
    const opener = `
      const { connect } = require('node:net');
      const sockets = [];
      let connected = 0;
      process.stdin.once('data', () => {
        for (let n = 0; n < 900; n++) {
          const socket = connect({ port: ${port}, host: '127.0.0.1', localAddress: '${HOSTILE}' });
          socket.on('error', () => {});
          socket.once('connect', () => connected++);
          sockets.push(socket);
        }
        setTimeout(() => console.log('connected ' + connected), 700);
      });
      console.log('ready');`;
    const child = spawn(process.execPath, ['-e', opener], { stdio: ['pipe', 'pipe', 'inherit'] });
    cleanups.push(() => void child.kill('SIGKILL'));
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    expect((await lines.next()).value).toBe('ready');
    child.stdin.write('go\n');
    // The server accepts nothing while its event loop is held: every connection waits in the accept queue.
    const until = Date.now() + 1000;
    while (Date.now() < until) {}
    expect((await lines.next()).value).toBe('connected 900');
  });

  it('close a connection that sends nothing after 5 s, before the 10 s header timeout', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0 });
    const started = Date.now();
    const socket = connect({ port, host: '127.0.0.1' });
    socket.on('error', () => {});
    cleanups.push(() => socket.destroy());
    const received = await new Promise<string>((resolve) => {
      let text = '';
      socket.on('data', (chunk) => (text += chunk));
      socket.on('close', () => resolve(text));
    });
    const after = Date.now() - started;
    expect({ received, closedAfterFirstByteTimeout: after >= 4900, beforeHeaderTimeout: after < 9000 }).toEqual({
      received: '',
      closedAfterFirstByteTimeout: true,
      beforeHeaderTimeout: true,
    });
  }, 15_000);
});

describe('connection shares at small limits', () => {
  it('let a newcomer in while several addresses fill the server with connections that began no request', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0, maxConnections: 16, maxConnectionsPerClient: 4, firstByteTimeoutMs: 1000 });
    for (const from of ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5']) await holdUnusedSockets(port, from, 4, 'P');
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await httpInitialize(port)).toBe('200');
  });

  it('drop refused connections unanswered past 128 waiting to close, so a flood costs no more descriptors', async () => {
    const transport = new StreamableHttpTransport(newServer());
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 1 });
    const sockets: Socket[] = [];
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy();
    });
    // Neither reads nor closes: each refused one waits on the server's side until it gives up.
    const open = () => {
      const socket = connect({ port, host: '127.0.0.1', localAddress: HOSTILE });
      sockets.push(socket);
      socket.on('error', () => {});
      socket.once('connect', () => socket.pause());
    };
    open();
    for (let batch = 0; batch < 5; batch++) {
      for (let n = 0; n < 64; n++) open();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const held = await new Promise<number>((resolve, reject) => transport.httpServer!.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    expect(held).toBeLessThanOrEqual(1 + 128);
  });
});

describe('connection shares by principal', () => {
  const auth = (req: { headers: Record<string, string | string[] | undefined> }) => {
    const user = req.headers['x-user'];
    return typeof user === 'string' ? { id: user } : undefined;
  };

  /** Open WebSockets as `users`, one after another, kept open: `open`, or the refusal's status, Retry-After and body. */
  async function connectAs(url: string, users: string[]): Promise<string[]> {
    const open: WebSocket[] = [];
    cleanups.push(() => {
      for (const socket of open) socket.terminate();
    });
    const outcomes: string[] = [];
    for (const user of users) {
      outcomes.push(
        await new Promise<string>((resolve) => {
          const socket = new WebSocket(url, ['mcp'], { headers: { 'x-user': user } });
          socket.on('open', () => {
            open.push(socket);
            resolve('open');
          });
          socket.on('unexpected-response', (_req, res) => {
            let body = '';
            res.on('data', (chunk) => (body += chunk));
            res.on('end', () => resolve(`${res.statusCode} ${res.headers['retry-after']} ${body}`));
          });
          socket.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
        }),
      );
    }
    return outcomes;
  }

  it('count a WebSocket against its principal after the upgrade: one address may hold the shares of several principals, one principal only its own', async () => {
    const { url } = await new WebSocketTransport(newServer(), { auth }).listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 2 });
    expect(await connectAs(url, ['ann', 'bob', 'cid', 'ann', 'ann'])).toEqual(['open', 'open', 'open', 'open', `503 1 ${TOO_MANY_FOR_PRINCIPAL}\n`]);
  });

  it('count every connection toward the most one address holds, half the server, whatever principals it carries', async () => {
    const { url } = await new WebSocketTransport(newServer(), { auth }).listen({ host: '127.0.0.1', port: 0, maxConnections: 8, maxConnectionsPerClient: 2 });
    expect(await connectAs(url, ['u1', 'u2', 'u3', 'u4', 'u5'])).toEqual([
      'open',
      'open',
      'open',
      'open',
      '503 1 Too many connections from your address (limit 4); close some and try again\n',
    ]);
  });

  it("let a principal's request displace its own connection that sits idle between requests, when its share is full", async () => {
    const transport = new StreamableHttpTransport(newServer(), { auth });
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 2, firstByteTimeoutMs: 500 });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const post = (agent: Agent) =>
      new Promise<number>((resolve, reject) => {
        const req = request({
          host: '127.0.0.1',
          port,
          path: '/mcp',
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': 'ann' },
        });
        req.on('error', reject);
        req.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.end(INITIALIZE);
      });
    const agents = [new Agent({ keepAlive: true, maxSockets: 1 }), new Agent({ keepAlive: true, maxSockets: 1 }), agent];
    cleanups.push(() => {
      for (const each of agents) each.destroy();
    });
    // Two kept-alive connections of ann's, idle once answered, fill her share.
    expect([await post(agents[0]!), await post(agents[1]!)]).toEqual([200, 200]);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(await post(agents[2]!)).toBe(200);
  });

  it("answer an HTTP request 503 and close its connection when its principal's share is full of connections in use", async () => {
    const server = newServer();
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    cleanups.push(() => release());
    let started = 0;
    server.registerTool('wait', {}, async () => {
      started++;
      await released;
      return 'done';
    });
    const transport = new StreamableHttpTransport(server, { auth });
    const { port } = await transport.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 2 });
    const post = (user: string, body: object, sessionId?: string) =>
      new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-user': user };
        if (sessionId) Object.assign(headers, { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' });
        const req = request({ host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent: false, headers });
        req.on('error', reject);
        req.on('response', (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
        });
        req.end(JSON.stringify(body));
      });
    const init = await post('ann', JSON.parse(INITIALIZE));
    const sessionId = init.headers['mcp-session-id'] as string;
    await post('ann', { jsonrpc: '2.0', method: 'notifications/initialized' }, sessionId);
    const call = (id: number) => post('ann', { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'wait', arguments: {} } }, sessionId);
    const waiting = [call(2), call(3)];
    // Both calls are under way (and their connections charged to ann) before the third connection arrives.
    while (started < 2) await new Promise((r) => setTimeout(r, 5));
    const third = await call(4);
    expect({ status: third.status, retryAfter: third.headers['retry-after'], connection: third.headers.connection, body: JSON.parse(third.body) }).toEqual({
      status: 503,
      retryAfter: '1',
      connection: 'close',
      body: { jsonrpc: '2.0', error: { code: -32030, message: TOO_MANY_FOR_PRINCIPAL }, id: null },
    });
    // Another principal from the same address is not held back by ann's share.
    expect((await post('bob', JSON.parse(INITIALIZE))).status).toBe(200);
    release();
    expect((await Promise.all(waiting)).map((r) => r.status)).toEqual([200, 200]);
  });
});
