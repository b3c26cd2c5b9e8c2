/**
 * The gate decides for every transport in one order: Host, Origin, auth, then the session limit (and
 * draining) where a session begins. A request that breaks several rules gets the same refusal over
 * Streamable HTTP and over a WebSocket upgrade; stdio gets what applies to a pipe.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { StdioTransport } from '../../src/index.js';
import { ACCEPT_BOTH, send } from '../helpers/http-client.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttpAndWebSocket, startStdio } from '../helpers/servers.js';
import { httpUpgrade } from '../helpers/transport-peers.js';

const cleanups = useCleanups();

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'gate', version: '1' } },
};

/** Ann's token opens sessions; anything else is no principal (401). */
const auth = (req: { headers: Record<string, unknown> }) => (req.headers.authorization === 'Bearer ann' ? { id: 'ann' } : undefined);

describe('the transport gate', () => {
  it('refuses in one order on Streamable HTTP and WebSocket: Host, then Origin, then auth, then the session limit', async () => {
    const running = await startHttpAndWebSocket(cleanups, () => {}, { server: { maxSessions: 1 }, transport: { auth, onSessionLimit: 'reject' } });
    const cases: [Record<string, string>, number, string][] = [
      [{ host: 'evil.example', origin: 'https://evil.example' }, 403, 'Forbidden: Host evil.example is not allowed'],
      [{ origin: 'https://evil.example' }, 403, 'Forbidden: Origin https://evil.example is not allowed'],
      [{}, 401, 'Unauthorized: send valid credentials'],
    ];
    for (const [headers, status, message] of cases) {
      const http = await send(running.url, 'POST', { accept: ACCEPT_BOTH, 'content-type': 'application/json', ...headers }, INITIALIZE);
      await http.ended;
      expect({ status: http.status, body: JSON.parse(http.body) }).toEqual({ status, body: { jsonrpc: '2.0', error: { code: -32030, message }, id: null } });
      const ws = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp', ...headers });
      expect({ status: ws.status, body: ws.body }).toEqual({ status, body: `${message}\n` });
    }
    // The one session the server may hold is taken: a newcomer with credentials gets 503 on either transport, one without still 401.
    const first = await send(running.url, 'POST', { accept: ACCEPT_BOTH, 'content-type': 'application/json', authorization: 'Bearer ann' }, INITIALIZE);
    expect(first.status).toBe(200);
    await first.ended;
    const limit = 'Service Unavailable: the server is at its limit of 1 sessions; try again later';
    const http = await send(running.url, 'POST', { accept: ACCEPT_BOTH, 'content-type': 'application/json', authorization: 'Bearer ann' }, INITIALIZE);
    await http.ended;
    expect({ status: http.status, retryAfter: http.res.headers['retry-after'], body: JSON.parse(http.body) }).toEqual({
      status: 503,
      retryAfter: '5',
      body: { jsonrpc: '2.0', error: { code: -32030, message: limit }, id: null },
    });
    const ws = await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp', authorization: 'Bearer ann' });
    expect({ status: ws.status, retryAfter: ws.headers['retry-after'], body: ws.body }).toEqual({ status: 503, retryAfter: '5', body: `${limit}\n` });
    expect((await httpUpgrade(running.port, '/mcp', { 'sec-websocket-protocol': 'mcp' })).status).toBe(401);
  });

  it('gives stdio the session limit through the same gate: a server at its limit does not start another session', () => {
    const running = startStdio(cleanups, () => {}, { server: { maxSessions: 1 } });
    const second = new StdioTransport(running.server, { input: new PassThrough(), output: new PassThrough() });
    expect(() => second.start()).toThrow('StdioTransport cannot start: Service Unavailable: the server is at its limit of 1 sessions; try again later');
  });
});
