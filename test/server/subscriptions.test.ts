/**
 * `subscriptions/listen` (2026-07-28) on real sockets: the acknowledgement first, list_changed and
 * resources/updated only to the subscriptions that asked, each tagged with its subscription id; ending by
 * closing the HTTP stream, by notifications/cancelled over WebSocket, and gracefully on server.close().
 */
import { describe, expect, it } from 'vitest';
import type { McpServer, Registration } from '../../src/index.js';
import type { OpenResponse } from '../helpers/http-client.js';
import { META_KEYS, modernMeta, modernPost, modernRequest } from '../helpers/modern.js';
import { tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { until } from '../helpers/waits.js';
import type { Json } from '../helpers/ws-client.js';
import { useWsSessions } from '../helpers/ws-sessions.js';
import { startHttp, startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

/** The one tool every HTTP server here starts with. */
const withBaseTool = (server: McpServer) => void server.registerTool('base', {}, () => 'base');

/** Open a listen stream over HTTP. */
async function listen(url: string, id: string | number, notifications?: unknown): Promise<OpenResponse> {
  const res = await modernPost(url, 'subscriptions/listen', notifications === undefined ? {} : { notifications }, { id });
  cleanups.push(() => res.abort());
  return res;
}

/** Every JSON-RPC message on an SSE body so far, in order (nothing consumed). */
function messagesOf(res: OpenResponse): Json[] {
  return res.body
    .split('\n\n')
    .filter((block) => block.length > 0)
    .flatMap((block) => block.split('\n').filter((line) => line.startsWith('data: ')))
    .map((line) => JSON.parse(line.slice('data: '.length)) as Json);
}

const sub = (id: string | number) => ({ [META_KEYS.subscriptionId]: id });

function ack(id: string | number, notifications: Json): Json {
  return { jsonrpc: '2.0', method: 'notifications/subscriptions/acknowledged', params: { _meta: sub(id), notifications } };
}

function listChanged(kind: 'tools' | 'prompts' | 'resources', id: string | number): Json {
  return { jsonrpc: '2.0', method: `notifications/${kind}/list_changed`, params: { _meta: sub(id) } };
}

function updated(uri: string, id: string | number): Json {
  return { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri, _meta: sub(id) } };
}

// ---------------------------------------------------------------------------------------------------------

describe('subscriptions/listen over HTTP', () => {
  it('opens an event stream whose first message is the acknowledgement with the requested filter, and mints no session', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const res = await listen(url, 'listen-1', { toolsListChanged: true, resourceSubscriptions: ['file:///project/config.json'] });
    expect(await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' })).toEqual(
      ack('listen-1', { toolsListChanged: true, resourceSubscriptions: ['file:///project/config.json'] }),
    );
    expect({ status: res.status, contentType: res.headers['content-type'], sessionId: res.headers['mcp-session-id'] }).toEqual({
      status: 200,
      contentType: 'text/event-stream',
      sessionId: undefined,
    });
    expect(messagesOf(res)).toEqual([ack('listen-1', { toolsListChanged: true, resourceSubscriptions: ['file:///project/config.json'] })]);
    expect(res.body.split('\n').filter((line) => line.startsWith('id:'))).toEqual([]);
    expect({ subscriptions: server.stats.subscriptions, sessions: server.sessions.size }).toEqual({ subscriptions: 1, sessions: 0 });
  });

  it('acknowledges only the honoured subset of the requested filter', async () => {
    const { url } = await startHttp(cleanups, withBaseTool);
    const res = await listen(url, 7, {
      toolsListChanged: 'yes',
      promptsListChanged: true,
      resourcesListChanged: false,
      resourceSubscriptions: ['test://a', 42, null],
      somethingElse: true,
    });
    expect(await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' })).toEqual(
      ack(7, { promptsListChanged: true, resourceSubscriptions: ['test://a'] }),
    );
  });

  it('acknowledges an empty filter when the request names no notifications', async () => {
    const { url } = await startHttp(cleanups, withBaseTool);
    const res = await listen(url, 'empty');
    expect(await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' })).toEqual(ack('empty', {}));
  });

  it('sends tools/list_changed and prompts/list_changed, tagged with the subscription id, only to the streams that asked', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const tools = await listen(url, 'tools-sub', { toolsListChanged: true });
    const prompts = await listen(url, 'prompts-sub', { promptsListChanged: true });
    await tools.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    await prompts.nextMessage({ method: 'notifications/subscriptions/acknowledged' });

    const added = server.registerTool('added', {}, () => 'added');
    expect(await tools.nextMessage({ method: 'notifications/tools/list_changed' })).toEqual(listChanged('tools', 'tools-sub'));
    server.registerPrompt('p', {}, () => ({ messages: [] }));
    expect(await prompts.nextMessage({ method: 'notifications/prompts/list_changed' })).toEqual(listChanged('prompts', 'prompts-sub'));
    added.remove();
    expect(await tools.nextMessage({ method: 'notifications/tools/list_changed' })).toEqual(listChanged('tools', 'tools-sub'));

    // Each stream is written in order: had a stream been sent the other kind, it would sit before its last message.
    expect(messagesOf(tools)).toEqual([ack('tools-sub', { toolsListChanged: true }), listChanged('tools', 'tools-sub'), listChanged('tools', 'tools-sub')]);
    expect(messagesOf(prompts)).toEqual([ack('prompts-sub', { promptsListChanged: true }), listChanged('prompts', 'prompts-sub')]);
  });

  it('sends one list_changed to every open stream that asked for it', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const streams = [await listen(url, 'a', { toolsListChanged: true }), await listen(url, 'b', { toolsListChanged: true, promptsListChanged: true })];
    for (const s of streams) await s.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    server.registerTool('one', {}, () => 'one');
    server.registerTool('two', {}, () => 'two');
    expect(await streams[0].nextMessage({ method: 'notifications/tools/list_changed' })).toEqual(listChanged('tools', 'a'));
    expect(await streams[1].nextMessage({ method: 'notifications/tools/list_changed' })).toEqual(listChanged('tools', 'b'));
  });

  it('sends resources/list_changed when a resource or a template is registered or removed', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const res = await listen(url, 'res', { resourcesListChanged: true });
    await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    const resource: Registration = server.registerResource('test://r', { name: 'r' }, () => 'r');
    expect(await res.nextMessage({ method: 'notifications/resources/list_changed' })).toEqual(listChanged('resources', 'res'));
    server.registerResourceTemplate('test://t/{id}', { name: 't' }, () => 't');
    expect(await res.nextMessage({ method: 'notifications/resources/list_changed' })).toEqual(listChanged('resources', 'res'));
    resource.remove();
    expect(await res.nextMessage({ method: 'notifications/resources/list_changed' })).toEqual(listChanged('resources', 'res'));
  });

  it('sends resources/updated only to the subscriptions listing that uri', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const a = await listen(url, 'sub-a', { resourceSubscriptions: ['test://a'] });
    const b = await listen(url, 'sub-b', { resourceSubscriptions: ['test://b'], resourcesListChanged: true });
    const lists = await listen(url, 'sub-lists', { resourcesListChanged: true });
    for (const s of [a, b, lists]) await s.nextMessage({ method: 'notifications/subscriptions/acknowledged' });

    expect(server.sendResourceUpdated('test://a')).toBe(1);
    expect(await a.nextMessage({ method: 'notifications/resources/updated' })).toEqual(updated('test://a', 'sub-a'));
    expect(server.sendResourceUpdated('test://b')).toBe(1);
    expect(await b.nextMessage({ method: 'notifications/resources/updated' })).toEqual(updated('test://b', 'sub-b'));
    expect(server.sendResourceUpdated('test://nobody')).toBe(0);
    expect(server.sendResourceUpdated('test://a')).toBe(1);
    await a.nextMessage({ method: 'notifications/resources/updated' });
    server.registerResource('test://new', { name: 'new' }, () => 'new');
    await lists.nextMessage({ method: 'notifications/resources/list_changed' });
    await b.nextMessage({ method: 'notifications/resources/list_changed' });

    expect(messagesOf(a)).toEqual([ack('sub-a', { resourceSubscriptions: ['test://a'] }), updated('test://a', 'sub-a'), updated('test://a', 'sub-a')]);
    expect(messagesOf(b)).toEqual([
      ack('sub-b', { resourcesListChanged: true, resourceSubscriptions: ['test://b'] }),
      updated('test://b', 'sub-b'),
      listChanged('resources', 'sub-b'),
    ]);
    expect(messagesOf(lists)).toEqual([ack('sub-lists', { resourcesListChanged: true }), listChanged('resources', 'sub-lists')]);
  });

  it('ends the subscription when the client closes the stream, and answers nothing for it', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const out: unknown[] = [];
    server.on('message', (_s, direction, message) => direction === 'out' && out.push(message));
    const res = await listen(url, 'gone', { toolsListChanged: true, resourceSubscriptions: ['test://a'] });
    await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    expect(server.stats.subscriptions).toBe(1);
    res.abort();
    await until(() => server.stats.subscriptions === 0, 'the subscription to end');
    expect(server.sendResourceUpdated('test://a')).toBe(0);
    server.registerTool('after', {}, () => 'after');
    await tick();
    expect(out).toEqual([ack('gone', { toolsListChanged: true, resourceSubscriptions: ['test://a'] })]);
  });

  it('ends open listen requests gracefully on server.close(): the result carries resultType and the subscription id', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    const res = await listen(url, 'closing', { toolsListChanged: true });
    await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    await server.close();
    await res.ended;
    expect(messagesOf(res)).toEqual([
      ack('closing', { toolsListChanged: true }),
      { jsonrpc: '2.0', id: 'closing', result: { resultType: 'complete', _meta: sub('closing') } },
    ]);
    expect(server.stats.subscriptions).toBe(0);
  });

  it('acknowledges on an event stream even when the transport answers other requests with JSON only', async () => {
    const { server, url } = await startHttp(cleanups, undefined, { transport: { responseMode: 'json' } });
    const pending = modernPost(url, 'subscriptions/listen', { notifications: { toolsListChanged: true } }, { id: 'json-mode' });
    await until(() => server.stats.subscriptions === 1, 'the subscription to be registered');
    // Ending it gracefully makes the stream complete, whatever reached the client before.
    await server.close();
    const res = await pending;
    await res.ended;
    expect({ contentType: res.headers['content-type'], messages: res.isSse ? messagesOf(res) : [JSON.parse(res.body)] }).toEqual({
      contentType: 'text/event-stream',
      messages: [
        ack('json-mode', { toolsListChanged: true }),
        { jsonrpc: '2.0', id: 'json-mode', result: { resultType: 'complete', _meta: sub('json-mode') } },
      ],
    });
  });

  it('does not send progress or log messages of other requests on a listen stream', async () => {
    const { server, url } = await startHttp(cleanups, withBaseTool);
    server.registerTool('noisy', {}, (_args, ctx) => {
      ctx.progress(1);
      ctx.log('error', 'noise');
      return 'noisy';
    });
    const res = await listen(url, 'quiet', { toolsListChanged: true });
    await res.nextMessage({ method: 'notifications/subscriptions/acknowledged' });
    const call = await modernPost(url, 'tools/call', { name: 'noisy' }, { id: 'n', meta: { progressToken: 'pt', [META_KEYS.logLevel]: 'debug' } });
    await call.ended;
    expect(messagesOf(call).map((m) => m.method ?? 'result')).toEqual(['notifications/progress', 'notifications/message', 'result']);
    server.registerTool('marker', {}, () => 'marker');
    await res.nextMessage({ method: 'notifications/tools/list_changed' });
    expect(messagesOf(res)).toEqual([ack('quiet', { toolsListChanged: true }), listChanged('tools', 'quiet')]);
  });
});

describe('subscriptions/listen over WebSocket', () => {
  it('acknowledges on the connection and sends list_changed tagged with the subscription id', async () => {
    const { server, url } = await startWebSocket(cleanups);
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest('ws-listen', 'subscriptions/listen', { notifications: { toolsListChanged: true, promptsListChanged: true } }));
    expect(await client.nextMessage('notifications/subscriptions/acknowledged')).toEqual(
      ack('ws-listen', { toolsListChanged: true, promptsListChanged: true }),
    );
    server.registerTool('t', {}, () => 't');
    expect(await client.nextMessage('notifications/tools/list_changed')).toEqual(listChanged('tools', 'ws-listen'));
    server.registerResource('test://x', { name: 'x' }, () => 'x');
    server.registerPrompt('p', {}, () => ({ messages: [] }));
    expect(await client.nextMessage('notifications/prompts/list_changed')).toEqual(listChanged('prompts', 'ws-listen'));
    expect(client.messages('notifications/resources/list_changed')).toEqual([]);
    expect(server.sessions.size).toBe(0);
  });

  it('ends the subscription on notifications/cancelled, with no response', async () => {
    const { server, url } = await startWebSocket(cleanups);
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest(5, 'subscriptions/listen', { notifications: { toolsListChanged: true, resourceSubscriptions: ['test://a'] } }));
    await client.nextMessage('notifications/subscriptions/acknowledged');
    expect(server.stats.subscriptions).toBe(1);
    client.notify('notifications/cancelled', { requestId: 5, reason: 'done listening' });
    const discover = await client.request('server/discover', { _meta: modernMeta() }, 'after-cancel');
    expect(discover.result.resultType).toBe('complete');
    expect(server.stats.subscriptions).toBe(0);
    expect(server.sendResourceUpdated('test://a')).toBe(0);
    server.registerTool('later', {}, () => 'later');
    const second = await client.request('server/discover', { _meta: modernMeta() }, 'after-register');
    expect(second.result.resultType).toBe('complete');
    expect(
      client.received.filter((m) => m.id === 5 || m.method === 'notifications/tools/list_changed' || m.method === 'notifications/resources/updated'),
    ).toEqual([]);
  });

  it('ends the listen request gracefully on server.close(), before the connection closes', async () => {
    const { server, url } = await startWebSocket(cleanups);
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest('bye', 'subscriptions/listen', { notifications: { promptsListChanged: true } }));
    await client.nextMessage('notifications/subscriptions/acknowledged');
    const result = client.waitFor((m) => m.id === 'bye');
    await server.close();
    expect(await result).toEqual({ jsonrpc: '2.0', id: 'bye', result: { resultType: 'complete', _meta: sub('bye') } });
    await client.closed;
  });

  it('ends the subscriptions of a connection when the connection closes', async () => {
    const { server, url } = await startWebSocket(cleanups);
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest('ws-gone', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    await client.nextMessage('notifications/subscriptions/acknowledged');
    expect(server.stats.subscriptions).toBe(1);
    await client.close();
    await until(() => server.stats.subscriptions === 0, 'the subscription to end');
  });

  it('serves two listen subscriptions on one connection, each with its own filter and id', async () => {
    const { server, url } = await startWebSocket(cleanups);
    const client = await h.connectUrl(url);
    client.sendRaw(modernRequest('l-tools', 'subscriptions/listen', { notifications: { toolsListChanged: true } }));
    client.sendRaw(modernRequest('l-res', 'subscriptions/listen', { notifications: { resourceSubscriptions: ['test://z'] } }));
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[META_KEYS.subscriptionId] === 'l-tools');
    await client.waitFor((m) => m.method === 'notifications/subscriptions/acknowledged' && m.params._meta[META_KEYS.subscriptionId] === 'l-res');
    server.registerTool('t', {}, () => 't');
    expect(await client.nextMessage('notifications/tools/list_changed')).toEqual(listChanged('tools', 'l-tools'));
    expect(server.sendResourceUpdated('test://z')).toBe(1);
    expect(await client.nextMessage('notifications/resources/updated')).toEqual(updated('test://z', 'l-res'));
    expect(client.received).toEqual([]);
  });
});
