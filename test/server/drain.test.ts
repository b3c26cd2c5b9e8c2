/**
 * Health checks and graceful drain over real sockets: `/healthz` and `/readyz` from `listen({ health })`;
 * `server.close({ drainMs })` refusing what is new (HTTP 503, WebSocket upgrades 503, -32013 on open
 * connections) while requests under way finish and their elicitations can still be answered, then ending
 * what is left with a clear outcome, and SSE streams with a `retry` hint.
 */
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { type ElicitationResponse, McpServer, type McpServerOptions, type SharedState, StreamableHttpTransport } from '../../src/index.js';
import { ACCEPT_BOTH, HttpTestClient, send } from '../helpers/http-client.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { deferred } from '../helpers/deferred.js';
import { startHttpAndWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

const NAME_FORM = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;

/** A server with `slow` (waits for `release`) and `ask` (an elicitation), on HTTP with health checks and WebSocket. */
async function serve(options: McpServerOptions = {}) {
  const release = deferred<void>();
  const running = await startHttpAndWebSocket(
    cleanups,
    (server) => {
      server.registerTool('slow', { description: 'Waits' }, async () => {
        await release.promise;
        return 'slow done';
      });
      server.registerTool('ask', { description: 'Asks a name' }, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'Name?', requestedSchema: { ...NAME_FORM, required: ['name'] } });
        return `hello ${String(answer.content?.name)}`;
      });
    },
    { server: options, listen: { health: true } },
  );
  return { server: running.server, url: running.url, base: `http://127.0.0.1:${running.port}`, ws: running.wsUrl, release };
}

async function health(base: string, path: string) {
  const res = await fetch(`${base}${path}`);
  return { status: res.status, body: await res.json() };
}

function upgradeStatus(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, 'mcp');
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
  });
}

describe('health checks', () => {
  it('answers /healthz and /readyz, without auth, and /readyz 503 while the server drains', async () => {
    const { server, base, release } = await serve();
    expect(await health(base, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await health(base, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await fetch(`${base}/readyz`, { method: 'HEAD' })).status).toBe(200);
    // Draining while a request is under way: not ready, but alive.
    const { client } = await clients.connectUrl(`${base}/mcp`, { era: 'legacy' });
    const call = client.callTool('slow');
    await expect.poll(() => server.stats.requestsInFlight).toBe(1);
    const closed = server.close({ drainMs: 10_000 });
    expect(server.draining).toBe(true);
    expect(await health(base, '/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: 'draining' } });
    expect(await health(base, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    release.resolve();
    expect(await call).toEqual({ content: [{ type: 'text', text: 'slow done' }] });
    await closed;
  });

  it('is not ready while the shared store is unreachable, and ready again when it is back', async () => {
    let healthy = false;
    const scale: SharedState = { stateKeys: ['k'.repeat(32)], consumeState: async () => true, healthy: () => healthy };
    const { base, server } = await serve({ scale });
    expect(await health(base, '/readyz')).toEqual({ status: 503, body: { status: 'not ready', reason: 'the shared store is unreachable' } });
    healthy = true;
    expect(server.readiness()).toEqual({ ready: true });
    expect(await health(base, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('takes other paths, and serves none unless asked', async () => {
    const server = new McpServer({ name: 'paths', version: '1.0.0' });
    cleanups.push(() => server.close());
    const custom = new StreamableHttpTransport(server);
    const { port } = await custom.listen({ host: '127.0.0.1', port: 0, health: { livePath: '/live', readyPath: '/ready' } });
    expect(await health(`http://127.0.0.1:${port}`, '/live')).toEqual({ status: 200, body: { status: 'ok' } });
    expect(await health(`http://127.0.0.1:${port}`, '/ready')).toEqual({ status: 200, body: { status: 'ready' } });
    const plain = new StreamableHttpTransport(server);
    const other = await plain.listen({ host: '127.0.0.1', port: 0 });
    expect((await fetch(`http://127.0.0.1:${other.port}/healthz`)).status).toBe(404);
    await expect(new StreamableHttpTransport(server).listen({ health: { livePath: 'live' } })).rejects.toThrow(
      'listen() health paths must start with \'/\'; got "live"',
    );
  });
});

describe('server.close({ drainMs })', () => {
  it('refuses what is new while requests under way finish and an elicitation under way is still answered', async () => {
    const { server, base, ws, release } = await serve();
    const url = `${base}/mcp`;
    const answered = deferred<void>();
    const asked = deferred<void>();
    const { client: asker } = await clients.connectUrl(url, { era: 'legacy' }, (c) =>
      c.onElicitation(async () => {
        asked.resolve();
        await answered.promise;
        return { action: 'accept', content: { name: 'Ada' } };
      }),
    );
    const { client: waiter } = await clients.connectUrl(url, { era: 'legacy' });
    const existing = new HttpTestClient(url);
    await existing.initialize();
    const responses: ElicitationResponse[] = [];
    server.on('responseElicitationCreate', (_session, _request, response) => void responses.push(response));

    const asking = asker.callTool('ask');
    const waiting = waiter.callTool('slow');
    await asked.promise;
    await expect.poll(() => server.stats.requestsInFlight).toBe(2);
    const closed = server.close({ drainMs: 10_000 });

    // New sessions, new requests on open sessions, 2026-07-28 requests and WebSocket upgrades: 503, -32013.
    const fresh = await new HttpTestClient(url).request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'x', version: '1' },
    });
    expect(fresh.status).toBe(503);
    expect(fresh.headers['retry-after']).toBe('1');
    expect(await fresh.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32013, message: 'Service Unavailable: the server is shutting down; send the request again (to another instance)' },
    });
    const onOpen = await existing.request('tools/list');
    expect(onOpen.status).toBe(503);
    expect((await onOpen.json()).error.code).toBe(-32013);
    const modern = await send(
      url,
      'POST',
      { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } },
      },
    );
    expect(modern.status).toBe(503);
    expect(await upgradeStatus(ws)).toBe(503);

    // What was under way finishes: the elicitation is answered, the slow call returns.
    answered.resolve();
    expect(await asking).toEqual({ content: [{ type: 'text', text: 'hello Ada' }] });
    release.resolve();
    expect(await waiting).toEqual({ content: [{ type: 'text', text: 'slow done' }] });
    await closed;
    expect(responses.map((r) => [r.isError, r.action])).toEqual([[false, 'accept']]);
    expect(server.sessions.size).toBe(0);
  });

  it('ends what is still under way at the deadline with a clear outcome', async () => {
    const { server, ws } = await serve();
    const never = deferred<void>();
    // Over WebSocket the client hears of the end at once (an HTTP stream ends with a retry hint, and the client waits it out).
    const { client } = await clients.connectUrl(ws, { era: 'legacy' }, (c) =>
      c.onElicitation(async () => {
        await never.promise;
        return { action: 'cancel' };
      }),
    );
    const responses: ElicitationResponse[] = [];
    server.on('responseElicitationCreate', (_session, _request, response) => void responses.push(response));
    const ended: string[] = [];
    server.on('sessionEnd', (_session, reason) => void ended.push(reason));
    const call = client.callTool('ask').then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    await expect.poll(() => server.stats.pendingRequests).toBe(1);
    await server.close({ drainMs: 100 });
    expect(await call).toBe('tools/call could not complete: websocket closed (1000: server closed)');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ isError: true, errorCode: -32000 });
    expect(responses[0].errorMessage).toContain('server closed');
    expect(ended).toEqual(['server closed']);
    never.resolve();
  });

  it('ends an open SSE stream with a retry hint, and answers -32013 on an open WebSocket', async () => {
    const { server, base, ws, release } = await serve();
    const http = new HttpTestClient(`${base}/mcp`);
    await http.initialize();
    await http.notify('notifications/initialized');
    const stream = await http.get();
    expect(stream.isSse).toBe(true);

    const socket = new WebSocket(ws, 'mcp');
    cleanups.push(() => socket.close());
    const replies: Record<string, unknown>[] = [];
    socket.on('message', (data) => void replies.push(JSON.parse(String(data))));
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'w', version: '1' } },
      }),
    );
    await expect.poll(() => replies.length).toBe(1);
    socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'slow', arguments: {} } }));
    await expect.poll(() => server.stats.requestsInFlight).toBe(1);

    const closed = server.close({ drainMs: 5000 });
    socket.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list' }));
    await expect
      .poll(() => replies.find((r) => r.id === 3))
      .toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: { code: -32013, message: 'The server is shutting down: send the request again (to another instance)' },
      });
    release.resolve();
    await closed;
    expect(replies.find((r) => r.id === 2)).toMatchObject({ result: { content: [{ type: 'text', text: 'slow done' }] } });
    await stream.ended;
    expect(stream.body.endsWith('retry: 5000\n\n')).toBe(true);
  });
});
