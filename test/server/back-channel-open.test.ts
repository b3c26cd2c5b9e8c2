import { describe, expect, it } from 'vitest';
import type { McpSession } from '../../src/index.js';
import { CAPS, responseLog } from '../helpers/client-requests.js';
import { startWebSocket, startStdio } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const ASK = { message: 'Who are you?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

describe('backChannelOpen on WebSocket', () => {
  it('fires once, right after sessionNew, and a request sent in sessionNew reaches the client', async () => {
    const order: [string, McpSession][] = [];
    const running = await startWebSocket(cleanups, (server) => {
      server.on('sessionNew', (session) => {
        order.push(['sessionNew', session]);
        server.requestElicitationCreate(session, ASK);
      });
      server.on('backChannelOpen', (session) => void order.push(['backChannelOpen', session]));
    });
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client, session } = await h.open(running, { capabilities: CAPS.form });
    expect(order).toEqual([
      ['sessionNew', session],
      ['backChannelOpen', session],
    ]);
    expect(await client.nextMessage('elicitation/create')).toEqual({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ASK });
    client.respond(0, { action: 'accept', content: { name: 'Ada' } });
    expect((await log.next())[2]).toMatchObject({ isError: false, action: 'accept', content: { name: 'Ada' } });
  });

  it('does not fire for a connection that never initializes', async () => {
    const opened: McpSession[] = [];
    const running = await startWebSocket(cleanups, (server) => server.on('backChannelOpen', (session) => void opened.push(session)));
    const { client } = await h.connect(running);
    expect((await client.request('ping', undefined, 'p')).result).toEqual({});
    expect(opened).toEqual([]);
  });
});

describe('backChannelOpen on stdio', () => {
  it('fires right after sessionNew', async () => {
    const events: string[] = [];
    const io = startStdio(cleanups, (server) => {
      server.on('sessionNew', () => void events.push('sessionNew'));
      server.on('backChannelOpen', () => void events.push('backChannelOpen'));
    });
    io.send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    await io.awaitLines(1);
    expect(events).toEqual(['sessionNew', 'backChannelOpen']);
  });
});
