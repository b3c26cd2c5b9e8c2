import { describe, expect, it } from 'vitest';
import type { JsonRpcNotification, McpClient, McpServer, McpSession } from '../../src/index.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { nextEvent } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

// A 1x1 transparent PNG.
const PIXEL = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

/** The conformance suite's template scenario (resources-templates-read). */
function registerConformanceTemplate(server: McpServer, seen: unknown[] = []): void {
  server.registerResourceTemplate(
    'test://template/{id}/data',
    { name: 'template', title: 'Template resource', description: 'Data by id', mimeType: 'application/json' },
    (uri, variables, ctx) => {
      seen.push(uri, variables, ctx.method);
      return JSON.stringify({ id: variables.id, templateTest: true, data: `Data for ID: ${variables.id}` });
    },
  );
}

/** An McpClient on `running`, and every notification it receives from the start, in order. */
async function watching(running: RunningServer): Promise<{ client: McpClient; notifications: JsonRpcNotification[] }> {
  const notifications: JsonRpcNotification[] = [];
  const { client } = await clients.connect(running, {}, (c) => c.on('notification', (n) => void notifications.push(n)));
  return { client, notifications };
}

/** The notifications/resources/updated the client has received, once everything the server sent before a ping round trip is in. */
async function updates(client: McpClient, notifications: JsonRpcNotification[]): Promise<JsonRpcNotification[]> {
  await client.ping();
  return notifications.filter((n) => n.method === 'notifications/resources/updated');
}

describe('resources/list and resources/templates/list', () => {
  it('lists exact resource descriptors in registration order', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      server.registerResource(
        'test://static-text',
        {
          name: 'static-text',
          title: 'Static text',
          description: 'A fixed text',
          mimeType: 'text/plain',
          size: 11,
          annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
          icons: [{ src: 'https://example.com/r.png' }],
          _meta: { 'com.example/kind': 'fixed' },
        },
        () => 'hello world',
      );
      server.registerResource('test://minimal', { name: 'minimal' }, () => 'x');
    });
    const { client } = await clients.connect(running);

    expect(await client.listResources()).toEqual({
      resources: [
        {
          uri: 'test://static-text',
          name: 'static-text',
          title: 'Static text',
          description: 'A fixed text',
          mimeType: 'text/plain',
          size: 11,
          annotations: { audience: ['user'], priority: 0.5, lastModified: '2025-01-01T00:00:00Z' },
          icons: [{ src: 'https://example.com/r.png' }],
          _meta: { 'com.example/kind': 'fixed' },
        },
        { uri: 'test://minimal', name: 'minimal' },
      ],
    });
  });

  it('lists exact template descriptors without their completers', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      registerConformanceTemplate(server);
      server.registerResourceTemplate('test://users/{user}', { name: 'user', annotations: { priority: 1 }, complete: { user: () => ['ann'] } }, () => 'x');
    });
    const { client } = await clients.connect(running);

    expect(await client.listResourceTemplates()).toEqual({
      resourceTemplates: [
        { uriTemplate: 'test://template/{id}/data', name: 'template', title: 'Template resource', description: 'Data by id', mimeType: 'application/json' },
        { uriTemplate: 'test://users/{user}', name: 'user', annotations: { priority: 1 } },
      ],
    });
  });

  it('keeps templates out of resources/list and resources out of resources/templates/list', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      registerConformanceTemplate(server);
      server.registerResource('test://only', { name: 'only' }, () => 'x');
    });
    const { client } = await clients.connect(running);

    expect(await client.listResources()).toEqual({ resources: [{ uri: 'test://only', name: 'only' }] });
    expect((await client.listResourceTemplates()).resourceTemplates.map((t) => t.name)).toEqual(['template']);
  });
});

describe('resources/read', () => {
  it('answers a static resource whose handler returns a string with one text content carrying the mimeType', async () => {
    const seen: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResource('test://static-text', { name: 'static-text', mimeType: 'text/plain' }, (uri, ctx) => {
        seen.push(uri, ctx.method);
        return 'This is the content of the static text resource.';
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://static-text')).toEqual({
      contents: [{ uri: 'test://static-text', mimeType: 'text/plain', text: 'This is the content of the static text resource.' }],
    });
    expect(seen).toEqual(['test://static-text', 'resources/read']);
  });

  it('leaves mimeType out of the text content when the resource has none', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerResource('test://untyped', { name: 'untyped' }, () => 'text'));
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://untyped')).toEqual({
      contents: [{ uri: 'test://untyped', text: 'text' }],
    });
  });

  it('answers blob contents returned as a contents array', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResource('test://static-binary', { name: 'pixel', mimeType: 'image/png' }, (uri) => [{ uri, mimeType: 'image/png', blob: PIXEL }]),
    );
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://static-binary')).toEqual({ contents: [{ uri: 'test://static-binary', mimeType: 'image/png', blob: PIXEL }] });
  });

  it('passes a full ReadResourceResult through unchanged', async () => {
    const result = {
      contents: [
        { uri: 'test://multi#1', mimeType: 'text/plain', text: 'one' },
        { uri: 'test://multi#2', blob: PIXEL },
      ],
      _meta: { 'com.example/etag': 'v1' },
    };
    const running = await startWebSocket(cleanups, (server) => server.registerResource('test://multi', { name: 'multi' }, () => structuredClone(result)));
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://multi')).toEqual(result);
  });

  it('reads a template resource with its variables (conformance test://template/{id}/data)', async () => {
    const seen: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) => registerConformanceTemplate(server, seen));
    const { client } = await clients.connect(running);

    const result = await client.readResource('test://template/123/data');

    expect(result).toEqual({
      contents: [{ uri: 'test://template/123/data', mimeType: 'application/json', text: '{"id":"123","templateTest":true,"data":"Data for ID: 123"}' }],
    });
    expect(JSON.parse((result.contents[0] as { text: string }).text)).toEqual({ id: '123', templateTest: true, data: 'Data for ID: 123' });
    expect(seen).toEqual(['test://template/123/data', { id: '123' }, 'resources/read']);
  });

  it('percent-decodes template variables and does not match a uri with extra path segments', async () => {
    const seen: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) => registerConformanceTemplate(server, seen));
    const { client } = await clients.connect(running);

    const result = await client.readResource('test://template/a%20b/data');
    expect(JSON.parse((result.contents[0] as { text: string }).text)).toEqual({ id: 'a b', templateTest: true, data: 'Data for ID: a b' });
    expect(seen[1]).toEqual({ id: 'a b' });

    expect(await rpcError(client.readResource('test://template/1/2/data'))).toEqual({
      code: -32002,
      message: 'Resource not found: test://template/1/2/data',
      data: { uri: 'test://template/1/2/data' },
    });
  });

  it('prefers a static resource over a template that also matches the uri', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      registerConformanceTemplate(server);
      server.registerResource('test://template/fixed/data', { name: 'fixed', mimeType: 'text/plain' }, () => 'static wins');
    });
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://template/fixed/data')).toEqual({
      contents: [{ uri: 'test://template/fixed/data', mimeType: 'text/plain', text: 'static wins' }],
    });
  });

  it('answers -32002 with data {uri} for a uri that nothing serves', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      registerConformanceTemplate(server);
      server.registerResource('test://static-text', { name: 'static-text' }, () => 'x');
    });
    const { client } = await clients.connect(running);

    expect(await rpcError(client.readResource('test://nope'))).toEqual({
      code: -32002,
      message: 'Resource not found: test://nope',
      data: { uri: 'test://nope' },
    });
  });

  it('answers -32002 when a static resource handler returns undefined', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerResource('test://vanished', { name: 'vanished' }, () => undefined));
    const { client } = await clients.connect(running);

    expect(await rpcError(client.readResource('test://vanished'))).toEqual({
      code: -32002,
      message: 'Resource not found: test://vanished',
      data: { uri: 'test://vanished' },
    });
  });

  it('answers -32002 when a template handler returns undefined for the matched uri', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResourceTemplate('test://notes/{id}', { name: 'note' }, (_uri, { id }) => (id === '1' ? 'note one' : undefined)),
    );
    const { client } = await clients.connect(running);

    expect(await client.readResource('test://notes/1')).toEqual({ contents: [{ uri: 'test://notes/1', text: 'note one' }] });
    expect(await rpcError(client.readResource('test://notes/2'))).toEqual({
      code: -32002,
      message: 'Resource not found: test://notes/2',
      data: { uri: 'test://notes/2' },
    });
  });

  // A resources/read without a uri is malformed input McpClient never sends: raw peer.
  it('answers -32602 when params.uri is missing', async () => {
    const { url } = await startWebSocket(cleanups);
    const client = await h.ready(url);

    expect(await client.request('resources/read', {}, 'm')).toEqual({
      jsonrpc: '2.0',
      id: 'm',
      error: { code: -32602, message: 'resources/read needs params.uri as a string' },
    });
  });
});

describe('resources/subscribe and resources/unsubscribe', () => {
  const WATCHED = 'test://watched';

  it('sends notifications/resources/updated only to subscribed sessions, returns the count, and stops after unsubscribe', async () => {
    const running = await startWebSocket(cleanups, (s) => s.registerResource(WATCHED, { name: 'watched' }, () => 'v1'));
    const { server } = running;
    const subscriber = await watching(running);
    const bystander = await watching(running);
    const subscribed = nextEvent<[McpSession, string]>(server, 'resourceSubscribe');

    // request() rather than subscribe()/unsubscribe(), which drop the result: it must be exactly {}.
    expect(await subscriber.client.request('resources/subscribe', { uri: WATCHED })).toEqual({});
    const [subscribedSession, subscribedUri] = await subscribed;
    expect(subscribedUri).toBe(WATCHED);
    expect(subscribedSession.subscriptions.has(WATCHED)).toBe(true);
    expect(await bystander.client.request('resources/subscribe', { uri: 'test://other' })).toEqual({});

    expect(server.sendResourceUpdated(WATCHED)).toBe(1);

    const updated = { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: WATCHED } };
    await expect.poll(() => subscriber.notifications.filter((n) => n.method === 'notifications/resources/updated')).toEqual([updated]);
    expect(await updates(bystander.client, bystander.notifications)).toEqual([]);

    const unsubscribed = nextEvent<[McpSession, string]>(server, 'resourceUnsubscribe');
    expect(await subscriber.client.request('resources/unsubscribe', { uri: WATCHED })).toEqual({});
    expect((await unsubscribed)[1]).toBe(WATCHED);

    expect(server.sendResourceUpdated(WATCHED)).toBe(0);
    expect(await updates(subscriber.client, subscriber.notifications)).toEqual([updated]);
  });

  it('tells every subscribed session, once each', async () => {
    const running = await startWebSocket(cleanups, (s) => s.registerResource(WATCHED, { name: 'watched' }, () => 'v1'));
    const a = await watching(running);
    const b = await watching(running);
    await a.client.subscribe(WATCHED);
    await a.client.subscribe(WATCHED);
    await b.client.subscribe(WATCHED);

    expect(running.server.sendResourceUpdated(WATCHED)).toBe(2);

    for (const { client, notifications } of [a, b]) {
      expect(await updates(client, notifications)).toEqual([{ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: WATCHED } }]);
    }
  });

  // A subscribe or unsubscribe without a string uri is malformed input McpClient never sends: raw peer.
  it('answers -32602 when subscribe or unsubscribe has no uri', async () => {
    const { url } = await startWebSocket(cleanups);
    const client = await h.ready(url);

    expect(await client.request('resources/subscribe', {}, 's')).toEqual({
      jsonrpc: '2.0',
      id: 's',
      error: { code: -32602, message: 'resources/subscribe needs params.uri as a string' },
    });
    expect(await client.request('resources/unsubscribe', { uri: 5 }, 'u')).toEqual({
      jsonrpc: '2.0',
      id: 'u',
      error: { code: -32602, message: 'resources/unsubscribe needs params.uri as a string' },
    });
  });
});
