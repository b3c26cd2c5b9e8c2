/**
 * The `message` event traces every message once: a 2026-07-28 request that arrives on a WebSocket is
 * traced where it arrived (the connection's session), its answer with the request's own session; over
 * HTTP both go with the request's session.
 */
import { describe, expect, it } from 'vitest';
import type { McpServer, McpSession } from '../../src/index.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

type Traced = [session: McpSession, direction: 'in' | 'out', message: Record<string, unknown>];

function trace(server: McpServer): Traced[] {
  const log: Traced[] = [];
  server.on('message', (session, direction, message) => void log.push([session, direction, message as Record<string, unknown>]));
  return log;
}

function echo(server: McpServer): void {
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => String(text));
}

/** The traced messages of tools/call requests: the requests and their answers, in order. */
function toolCalls(log: Traced[]): Traced[] {
  const ids = new Set(log.filter(([, d, m]) => d === 'in' && m.method === 'tools/call').map(([, , m]) => m.id));
  return log.filter(([, , m]) => ids.has(m.id));
}

describe('the message event', () => {
  it('WebSocket, 2026-07-28: a request is traced in once, on the connection, and its answer out once, with its own session', async () => {
    const running = await startWebSocket(cleanups, echo);
    const log = trace(running.server);
    const { client } = await clients.connectUrl(running.url, { era: 'modern' });
    expect(await client.callTool('echo', { text: 'hi' })).toMatchObject({ content: [{ type: 'text', text: 'hi' }] });

    const calls = toolCalls(log);
    expect(calls.map(([, direction]) => direction)).toEqual(['in', 'out']);
    const [[connection], [request]] = calls as [Traced, Traced];
    expect(connection).not.toBe(request);
    expect(request.protocolVersion).toBe('2026-07-28');
  });

  it('HTTP, 2026-07-28: a request is traced in once and its answer out once, both with the request session', async () => {
    const running = await startHttp(cleanups, echo);
    const log = trace(running.server);
    const { client } = await clients.connectUrl(running.url, { era: 'modern' });
    await client.callTool('echo', { text: 'hi' });

    const calls = toolCalls(log);
    expect(calls.map(([, direction]) => direction)).toEqual(['in', 'out']);
    expect(calls[0]![0]).toBe(calls[1]![0]);
  });
});
