import { describe, expect, it } from 'vitest';
import type { JsonRpcNotification, McpClient, McpServer, Registration } from '../../src/index.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { flush, useWsSessions } from '../helpers/ws-sessions.js';
import { tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { WsTestClient } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

const TOOLS_CHANGED = { jsonrpc: '2.0', method: 'notifications/tools/list_changed' };
const PROMPTS_CHANGED = { jsonrpc: '2.0', method: 'notifications/prompts/list_changed' };
const RESOURCES_CHANGED = { jsonrpc: '2.0', method: 'notifications/resources/list_changed' };

const isListChanged = (m: { method?: unknown }) => typeof m.method === 'string' && m.method.endsWith('/list_changed');

interface Listener {
  client: McpClient;
  /** Every notification the client received since it connected, in order. */
  notifications: JsonRpcNotification[];
}

/** An McpClient on `running` that records every notification it receives from the start. */
async function listener(running: RunningServer): Promise<Listener> {
  const notifications: JsonRpcNotification[] = [];
  const { client } = await clients.connect(running, {}, (c) => c.on('notification', (n) => void notifications.push(n)));
  return { client, notifications };
}

/** Every list_changed notification the client has received so far (after a ping round trip), in order. */
async function listChanges({ client, notifications }: Listener) {
  await client.ping();
  return notifications.filter(isListChanged);
}

/** The same for a raw peer. */
async function rawListChanges(client: WsTestClient) {
  await flush(client);
  return client.received.filter(isListChanged);
}

const addTool = (server: McpServer, name = 'tool') => server.registerTool(name, {}, () => 'ok');
const addPrompt = (server: McpServer, name = 'prompt') => server.registerPrompt(name, {}, () => ({ messages: [] }));
const addResource = (server: McpServer, uri = 'test://r') => server.registerResource(uri, { name: 'r' }, () => 'x');
const addTemplate = (server: McpServer, uriTemplate = 'test://t/{id}') => server.registerResourceTemplate(uriTemplate, { name: 't' }, () => 'x');

describe('list_changed notifications', () => {
  it.each([
    ['a tool', addTool, TOOLS_CHANGED],
    ['a prompt', addPrompt, PROMPTS_CHANGED],
    ['a resource', addResource, RESOURCES_CHANGED],
    ['a resource template', addTemplate, RESOURCES_CHANGED],
  ])('registering %s sends its list_changed to every ready session', async (_what, add, expected) => {
    const running = await startWebSocket(cleanups);
    const a = await listener(running);
    const b = await listener(running);

    add(running.server);

    expect(await listChanges(a)).toEqual([expected]);
    expect(await listChanges(b)).toEqual([expected]);
  });

  it.each([
    ['a tool', addTool, TOOLS_CHANGED],
    ['a prompt', addPrompt, PROMPTS_CHANGED],
    ['a resource', addResource, RESOURCES_CHANGED],
    ['a resource template', addTemplate, RESOURCES_CHANGED],
  ])('removing %s sends its list_changed to every ready session, and a second remove() sends nothing', async (_what, add, expected) => {
    let registration: Registration | undefined;
    const running = await startWebSocket(cleanups, (server) => {
      registration = add(server);
    });
    const a = await listener(running);
    const b = await listener(running);

    registration!.remove();
    expect(await listChanges(a)).toEqual([expected]);
    expect(await listChanges(b)).toEqual([expected]);

    registration!.remove();
    expect(await listChanges(a)).toEqual([expected]);
    expect(await listChanges(b)).toEqual([expected]);
  });

  it('coalesces registrations in one tick into one notification per list per session', async () => {
    const running = await startWebSocket(cleanups);
    const { server } = running;
    const a = await listener(running);
    const b = await listener(running);

    addTool(server, 't1');
    addTool(server, 't2');
    const t3 = addTool(server, 't3');
    addPrompt(server, 'p1');
    addPrompt(server, 'p2');
    addResource(server, 'test://r1');
    addTemplate(server, 'test://t1/{id}');
    t3.remove();

    for (const client of [a, b]) {
      const changes = await listChanges(client);
      expect(changes).toHaveLength(3);
      expect(changes).toEqual(expect.arrayContaining([TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED]));
    }
  });

  it('sends one notification per tick for changes in separate ticks', async () => {
    const running = await startWebSocket(cleanups);
    const client = await listener(running);

    addTool(running.server, 't1');
    await client.client.ping();
    addTool(running.server, 't2');

    expect(await listChanges(client)).toEqual([TOOLS_CHANGED, TOOLS_CHANGED]);
  });

  // The subject is a session stopped between initialize and notifications/initialized, which McpClient never is: raw peers.
  it('sends nothing to a session that has not sent notifications/initialized', async () => {
    const { url, server } = await startWebSocket(cleanups);
    const ready = await h.ready(url);
    const initializing = await h.connectUrl(url);
    const init = await initializing.request('initialize', {
      protocolVersion: '2025-11-25',
      capabilities: {},
      clientInfo: { name: 'slow-client', version: '1.0.0' },
    });
    expect(init.result.protocolVersion).toBe('2025-11-25');
    expect([...server.sessions.values()].map((s) => s.state)).toEqual(['ready', 'initializing']);

    addTool(server);
    addPrompt(server);
    addResource(server);

    expect(await rawListChanges(ready)).toHaveLength(3);
    expect(await rawListChanges(initializing)).toEqual([]);
  });

  // The subject is a socket that has sent nothing, which McpClient never is: raw peers.
  it('sends nothing to a session that has only connected', async () => {
    const { url, server } = await startWebSocket(cleanups);
    const connected = await h.connectUrl(url);
    const ready = await h.ready(url);

    addTool(server);

    expect(await rawListChanges(ready)).toEqual([TOOLS_CHANGED]);
    expect(await rawListChanges(connected)).toEqual([]);
  });

  it('sends nothing when no session exists, and does not replay those changes to sessions that start later', async () => {
    const running = await startWebSocket(cleanups);
    const { server } = running;
    const sent: unknown[] = [];
    server.on('message', (_session, direction, message) => {
      if (direction === 'out') sent.push(message);
    });

    addTool(server);
    addPrompt(server);
    addResource(server);
    addTemplate(server);
    await tick();
    expect(sent).toEqual([]);

    const client = await listener(running);
    expect(await listChanges(client)).toEqual([]);
    expect((await client.client.listTools()).tools.map((t) => t.name)).toEqual(['tool']);
  });
});
