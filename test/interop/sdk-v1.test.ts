/** The official TypeScript SDK v1 client, an independent peer, against Switchboard over WebSocket and stdio. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { LoggingMessageNotificationSchema, ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { registerDemoCatalog } from '../../demo/catalog.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

let running: RunningServer | undefined;
let client: Client | undefined;

afterEach(async () => {
  await client?.close();
  await running?.close();
  client = running = undefined;
});

const peers: [string, () => Promise<Transport>][] = [
  [
    'WebSocket',
    async () => {
      running = await startWebSocket(cleanups, registerDemoCatalog, { info: { name: 'switchboard-demo', version: '0.1.0' } });
      return new WebSocketClientTransport(new URL(running.url));
    },
  ],
  ['stdio', async () => new StdioClientTransport({ command: tsx, args: ['demo/stdio.ts'], cwd: root, stderr: 'pipe' })],
];

describe.each(peers)('the SDK v1 client over %s', (_name, connect) => {
  it('initializes at 2025-11-25 and lists, calls, gets and reads everything the demo serves', async () => {
    client = new Client({ name: 'sdk-v1-peer', version: '1.0.0' });
    await client.connect(await connect());
    expect(client.getServerVersion()).toEqual({ name: 'switchboard-demo', version: '0.1.0' });
    expect(client.getServerCapabilities()).toEqual({
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    });

    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['echo', 'add', 'count_slowly', 'write_note', 'delete_note']);
    // The SDK validates structuredContent against the listed outputSchema itself.
    expect(await client.callTool({ name: 'add', arguments: { a: 20, b: 22 } })).toEqual({
      content: [{ type: 'text', text: '20 + 22 = 42' }],
      structuredContent: { sum: 42 },
    });
    expect(await client.callTool({ name: 'echo', arguments: {} })).toEqual({
      content: [{ type: 'text', text: "Invalid arguments for tool echo: /text: must have required property 'text'" }],
      isError: true,
    });
    await expect(client.callTool({ name: 'missing' })).rejects.toMatchObject({ code: -32602, message: expect.stringContaining('Unknown tool: missing') });

    expect((await client.listPrompts()).prompts.map((p) => p.name)).toEqual(['summarize']);
    expect(await client.getPrompt({ name: 'summarize', arguments: { text: 'hi' } })).toEqual({
      description: 'Summarize a text',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize this:\n\nhi' } }],
    });
    expect(await client.complete({ ref: { type: 'ref/resource', uri: 'demo://notes/{id}' }, argument: { name: 'id', value: '' } })).toEqual({
      completion: { values: ['1', '2'], total: 2, hasMore: false },
    });

    expect((await client.listResources()).resources.map((r) => r.uri)).toEqual(['demo://readme', 'demo://pixel']);
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate)).toEqual(['demo://notes/{id}']);
    expect(await client.readResource({ uri: 'demo://notes/2' })).toEqual({
      contents: [{ uri: 'demo://notes/2', mimeType: 'text/plain', text: 'Call the plumber' }],
    });
    await expect(client.readResource({ uri: 'demo://nowhere' })).rejects.toMatchObject({ code: -32002 });
    expect(await client.ping()).toEqual({});
  });

  it('receives log messages, resource updates and progress, and cancels a call with its AbortSignal', async () => {
    client = new Client({ name: 'sdk-v1-peer', version: '1.0.0' });
    const logs: unknown[] = [];
    const updates: unknown[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => void logs.push(n.params));
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => void updates.push(n.params));
    await client.connect(await connect());

    await client.setLoggingLevel('info');
    await client.subscribeResource({ uri: 'demo://notes/9' });
    await client.callTool({ name: 'write_note', arguments: { id: '9', text: 'nine' } });
    await client.ping(); // notifications precede the ping's answer on one connection
    expect(updates).toEqual([{ uri: 'demo://notes/9' }]);
    expect(logs).toEqual([{ level: 'info', logger: 'notes', data: 'note 9 created' }]);

    const progress: unknown[] = [];
    const done = await client.callTool({ name: 'count_slowly', arguments: { n: 3 } }, undefined, { onprogress: (p) => void progress.push(p) });
    expect(done).toEqual({ content: [{ type: 'text', text: 'counted to 3' }] });
    // The SDK runs notification handlers a microtask late but drops a request's progress handler as soon
    // as its response arrives, so it can lose the last progress sent right before the result.
    expect(progress.slice(0, 2)).toEqual([
      { progress: 1, total: 3, message: 'counted to 1' },
      { progress: 2, total: 3, message: 'counted to 2' },
    ]);

    const controller = new AbortController();
    const call = client.callTool({ name: 'count_slowly', arguments: { n: 50 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('changed my mind'), 150);
    await expect(call).rejects.toThrow();
    expect(await client.ping()).toEqual({});
  });
});
