/**
 * `backChannelOpen`: when server-to-client requests can reach a session without riding on a client
 * request. On WebSocket and stdio that is right after `sessionNew`; requests sent in `sessionNew` go out.
 */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McpServer, type McpSession, StdioTransport } from '../../src/index.js';
import { CAPS, responseLog } from '../helpers/client-requests.js';
import { useHarness } from '../helpers/session-harness.js';

const h = useHarness();
const ASK = { message: 'Who are you?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } } } };

describe('backChannelOpen on WebSocket', () => {
  it('fires once, right after sessionNew, and a request sent in sessionNew reaches the client', async () => {
    const order: [string, McpSession][] = [];
    const running = await h.start((server) => {
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
    const running = await h.start((server) => server.on('backChannelOpen', (session) => void opened.push(session)));
    const { client } = await h.connect(running);
    expect((await client.request('ping', undefined, 'p')).result).toEqual({});
    expect(opened).toEqual([]);
  });
});

describe('backChannelOpen on stdio', () => {
  it('fires right after sessionNew', async () => {
    const server = new McpServer({ name: 'stdio', version: '1' });
    const input = new PassThrough();
    const output = new PassThrough();
    const events: string[] = [];
    server.on('sessionNew', () => void events.push('sessionNew'));
    server.on('backChannelOpen', () => void events.push('backChannelOpen'));
    const initialized = new Promise<void>((resolve) => server.once('backChannelOpen', () => resolve()));
    new StdioTransport(server, { input, output }).start();
    input.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } })}\n`,
    );
    await initialized;
    expect(events).toEqual(['sessionNew', 'backChannelOpen']);
    await server.close();
  });
});
