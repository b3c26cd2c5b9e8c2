/**
 * `npm start`'s demo, end to end over a real WebSocket: everything a session can do, in one walk.
 *
 * The client is McpClient, answering the demo's questions through onElicitation. The demo runs in a
 * child process, so where a test needs what went over the wire (the initialize result whole, the ids a
 * call went out with, that a cancelled call got no response) the McpClient runs on a WebSocket transport
 * that records each message both ways. The raw HTTP peer stays for the status of the session's DELETE.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type ClientTransport,
  type ElicitParams,
  type ElicitResult,
  type ElicitUrlParams,
  type HandlerContext,
  type JsonRpcNotification,
  McpClient,
  type McpClientOptions,
  type ProgressParams,
  RequestCancelledError,
  WebSocketClientTransport,
} from '../src/index.js';
import { HttpTestClient } from './helpers/http-client.js';
import { DEFAULT_CAPABILITIES } from './helpers/servers.js';
import { rpcError, useMcpClients } from './helpers/mcp-clients.js';
import { capture, useCleanups } from './helpers/util.js';
import type { Json } from './helpers/ws-client.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

const root = fileURLToPath(new URL('..', import.meta.url));
let demo: ChildProcess;
let url: string;

beforeAll(async () => {
  demo = spawn(fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url)), ['demo/server.ts'], {
    cwd: root,
    env: { ...process.env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let out = '';
    demo.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /listening on (ws:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(out);
      if (match) resolve(match[1]);
    });
    demo.once('exit', (code) => reject(new Error(`demo exited with ${code}: ${out}`)));
  });
});

afterAll(async () => {
  if (demo.exitCode === null) {
    const exited = new Promise((resolve) => demo.once('exit', resolve));
    demo.kill('SIGTERM');
    await exited;
  }
});

describe('the demo server', () => {
  it('prints its WebSocket URL on 127.0.0.1 and exits cleanly on SIGTERM', () => {
    expect(url).toMatch(/^ws:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  it('serves Streamable HTTP on the same port and path', async () => {
    const client = new HttpTestClient(url.replace(/^ws/, 'http'));
    expect((await client.initialize()).serverInfo.name).toBe('switchboard-demo');
    expect(await client.call('tools/call', { name: 'echo', arguments: { text: 'over http' } }, 'h1')).toEqual({
      jsonrpc: '2.0',
      id: 'h1',
      result: { content: [{ type: 'text', text: 'over http' }] },
    });
    expect((await client.delete()).status).toBe(200);
  });

  it('serves a whole session: initialize, tools, prompts, resources, templates, subscriptions, logging, progress and cancellation', async () => {
    const { client, sent, received } = await recordingClient({ protocolVersion: '2025-06-18' });
    const notifications: JsonRpcNotification[] = [];
    client.on('notification', (notification) => void notifications.push(notification));
    // The initialize result, whole, as the client received it: the first message the demo sent.
    expect(received[0]).toEqual({
      jsonrpc: '2.0',
      id: sent[0].id,
      result: {
        protocolVersion: '2025-06-18',
        capabilities: DEFAULT_CAPABILITIES,
        serverInfo: { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo' },
        instructions: 'Try the echo, add and count_slowly tools.',
      },
    });
    expect(client.protocolVersion).toBe('2025-06-18');

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(['echo', 'add', 'count_slowly', 'write_note', 'delete_note', 'book_table', 'connect_account']);

    expect(await client.callTool('add', { a: 2, b: 3 })).toEqual({ content: [{ type: 'text', text: '2 + 3 = 5' }], structuredContent: { sum: 5 } });

    expect(await client.getPrompt('summarize', { text: 'MCP', style: 'brief' })).toEqual({
      description: 'Summarize a text',
      messages: [{ role: 'user', content: { type: 'text', text: 'Summarize this (brief):\n\nMCP' } }],
    });

    expect(await client.complete({ ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'b' } })).toEqual({
      completion: { values: ['brief', 'bullet-points'], total: 2, hasMore: false },
    });

    const readme = await client.readResource('demo://readme');
    expect(readme.contents[0]).toMatchObject({ uri: 'demo://readme', mimeType: 'text/markdown' });

    expect(await client.listResourceTemplates()).toEqual({
      resourceTemplates: [{ uriTemplate: 'demo://notes/{id}', name: 'note', description: 'A note by id', mimeType: 'text/plain' }],
    });
    expect(await client.readResource('demo://notes/1')).toEqual({ contents: [{ uri: 'demo://notes/1', mimeType: 'text/plain', text: 'Buy milk' }] });
    expect(await rpcError(client.readResource('demo://notes/404'))).toEqual({
      code: -32002,
      message: 'Resource not found: demo://notes/404',
      data: { uri: 'demo://notes/404' },
    });

    expect(await client.request('resources/subscribe', { uri: 'demo://notes/7' })).toEqual({});
    expect(await client.request('logging/setLevel', { level: 'debug' })).toEqual({});
    const updated = nextNotification(client, (n) => n.method === 'notifications/resources/updated');
    const logged = nextNotification(client, (n) => n.method === 'notifications/message' && n.params?.logger === 'notes');
    expect(await client.callTool('write_note', { id: '7', text: 'hello' })).toEqual({ content: [{ type: 'text', text: 'note 7 saved' }] });
    expect(await updated).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://notes/7' } });
    expect(await logged).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'notes', data: 'note 7 created' } });

    // Progress arrives with the token, and cancelling mid-call stops the tool with no response.
    const control = new AbortController();
    let atTwo!: (progress: ProgressParams) => void;
    const reachedTwo = new Promise<ProgressParams>((resolve) => (atTwo = resolve));
    const counting = capture(
      client.callTool('count_slowly', { n: 50 }, { signal: control.signal, onProgress: (progress) => progress.progress === 2 && atTwo(progress) }),
    );
    const progressAtTwo = await reachedTwo;
    // The call as it went out: the id and the progress token the client picked.
    const countCall = sent.find((m) => m.method === 'tools/call' && m.params.name === 'count_slowly')!;
    const token = countCall.params._meta.progressToken;
    expect(countCall).toEqual({
      jsonrpc: '2.0',
      id: expect.any(Number),
      method: 'tools/call',
      params: { name: 'count_slowly', arguments: { n: 50 }, _meta: { progressToken: expect.any(Number) } },
    });
    expect(progressAtTwo).toEqual({ progressToken: token, progress: 2, total: 50, message: 'counted to 2' });
    expect(notifications.find((n) => n.method === 'notifications/progress' && n.params?.progress === 2)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: token, progress: 2, total: 50, message: 'counted to 2' },
    });
    control.abort('enough');
    const cancelledCall = await counting.outcome;
    expect(cancelledCall.ok === false && cancelledCall.error).toBeInstanceOf(RequestCancelledError);
    expect(sent.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: countCall.id, reason: 'enough' } });
    // count_slowly waits 100 ms a step, and timers of one duration fire in the order they were set: this
    // one-step call starts its wait after the cancelled call started its current one, so its result comes
    // only after the cancelled call has woken, seen the cancel and ended.
    expect(await client.callTool('count_slowly', { n: 1 })).toEqual({ content: [{ type: 'text', text: 'counted to 1' }] });
    expect(received.filter((m) => m.id === countCall.id)).toEqual([]);
    expect(await client.request('ping')).toEqual({});
  });

  it('asks with a form, validates the answer, and books the table', async () => {
    const asks: ElicitParams[] = [];
    const answers: ElicitResult[] = [
      { action: 'accept', content: { name: 'Ada', email: 'ada@example.com', date: '2026-12-24', guests: 4, seating: 'terrace', dietary: ['vegan'] } },
      { action: 'accept', content: { name: 'Ada', email: 'not-an-email', date: '2026-12-24' } },
    ];
    // The demo validates the answer, so this client sends it unchecked.
    const { client } = await clients.connectUrl(url, { era: 'legacy', validateElicitation: false }, (c) =>
      c.onElicitation((params) => {
        asks.push(params);
        return answers.shift()!;
      }),
    );
    expect(await client.callTool('book_table', { restaurant: 'Chez Nous' })).toEqual({
      content: [{ type: 'text', text: 'Booked a table at Chez Nous for 4 on 2026-12-24, terrace, under Ada.' }],
    });
    expect(asks).toHaveLength(1);
    expect(asks[0].message).toBe('Booking at Chez Nous: who, when and where?');
    expect(asks[0].mode === 'url' ? undefined : asks[0].requestedSchema.required).toEqual(['name', 'email', 'date']);

    expect(await client.callTool('book_table', { restaurant: 'Chez Nous' })).toEqual({
      content: [{ type: 'text', text: 'The elicitation answer does not match requestedSchema: email must match format "email"' }],
      isError: true,
    });
    expect(asks).toHaveLength(2);
  });

  it('runs a URL-mode flow: the client opens the page, the tool finishes, and the completion notification arrives', async () => {
    let asked!: (params: ElicitUrlParams) => void;
    const ask = new Promise<ElicitUrlParams>((resolve) => (asked = resolve));
    const { client } = await clients.connectUrl(url, { era: 'legacy', capabilities: { elicitation: { form: {}, url: {} } } }, (c) =>
      c.onElicitation((params) => {
        asked(params as ElicitUrlParams);
        return { action: 'accept' };
      }),
    );
    const completed = nextNotification(client, (n) => n.method === 'notifications/elicitation/complete');
    const call = capture(client.callTool('connect_account'));
    const params = await ask;
    expect(params).toEqual({
      mode: 'url',
      message: 'Open this page to connect your account.',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/),
      elicitationId: expect.any(String),
    });
    expect(params.url.endsWith(`/connect/${params.elicitationId}`)).toBe(true);
    const page = await fetch(params.url);
    expect(page.status).toBe(200);
    expect(await completed).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: params.elicitationId },
    });
    expect(await call.outcome).toEqual({ ok: true, value: { content: [{ type: 'text', text: 'Account connected.' }] } });
    expect((await fetch(params.url)).status).toBe(404);
  });

  it('asks before deleting: decline keeps the note, accept deletes it', async () => {
    const asks: ElicitParams[] = [];
    const answers: ElicitResult[] = [{ action: 'decline' }, { action: 'accept' }];
    const { client } = await clients.connectUrl(url, { era: 'legacy' }, (c) =>
      c.onElicitation((params) => {
        asks.push(params);
        return answers.shift()!;
      }),
    );
    const question = { message: 'Delete note 1? This cannot be undone.', requestedSchema: { type: 'object', properties: {} } };
    expect(await client.callTool('delete_note', { id: '1' })).toEqual({
      content: [{ type: 'text', text: 'The user declined: "Delete note 1? This cannot be undone.". Nothing was done.' }],
      isError: true,
    });
    expect(asks).toEqual([question]);
    expect(await client.readResource('demo://notes/1')).toEqual({ contents: [{ uri: 'demo://notes/1', mimeType: 'text/plain', text: 'Buy milk' }] });

    expect(await client.callTool('delete_note', { id: '1' })).toEqual({ content: [{ type: 'text', text: 'Note 1 deleted.' }] });
    expect(asks).toEqual([question, question]);
    expect(await rpcError(client.readResource('demo://notes/1'))).toEqual({
      code: -32002,
      message: 'Resource not found: demo://notes/1',
      data: { uri: 'demo://notes/1' },
    });
  });

  it('runs the URL-mode flow for a 2026-07-28 client too: input-required, the page, then the retry', async () => {
    const asks: [ElicitParams, Pick<HandlerContext, 'era' | 'inputKey'>, number][] = [];
    const { client } = await clients.connectUrl(url.replace(/^ws/, 'http'), { era: 'modern', capabilities: { elicitation: { url: {} } } }, (c) =>
      c.onElicitation(async (params, { era, inputKey }) => {
        // The page is opened before the answer goes back in the retry.
        const page = await fetch((params as ElicitUrlParams).url);
        asks.push([params, { era, inputKey }, page.status]);
        return { action: 'accept' };
      }),
    );
    expect(client.era).toBe('modern');
    expect(await client.callTool('connect_account')).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Account connected.' }] });
    // Asked once, as the input request `connect` of an input_required result.
    expect(asks).toEqual([
      [
        { mode: 'url', message: 'Open this page to connect your account.', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/) },
        { era: 'modern', inputKey: 'connect' },
        200,
      ],
    ]);
    expect((await fetch((asks[0][0] as ElicitUrlParams).url)).status).toBe(404);
  });
});

/** The next notification `client` receives that `matches`. */
function nextNotification(client: McpClient, matches: (notification: JsonRpcNotification) => boolean): Promise<JsonRpcNotification> {
  return new Promise((resolve) => {
    const listener = (notification: JsonRpcNotification) => {
      if (!matches(notification)) return;
      client.off('notification', listener);
      resolve(notification);
    };
    client.on('notification', listener);
  });
}

/**
 * An McpClient (legacy era) on the demo's WebSocket, on a transport that records every message it sends
 * and receives, as they went over the wire; closed after the test.
 */
async function recordingClient(options: McpClientOptions = {}): Promise<{ client: McpClient; sent: Json[]; received: Json[] }> {
  const socket = new WebSocketClientTransport(url);
  const sent: Json[] = [];
  const received: Json[] = [];
  const transport: ClientTransport = {
    kind: socket.kind,
    cancelsByClosingStream: socket.cancelsByClosingStream,
    start: (sink) =>
      socket.start({
        ...sink,
        message: (message) => {
          received.push(message as Json);
          sink.message(message);
        },
      }),
    send: (message) => {
      sent.push(message as Json);
      return socket.send(message);
    },
    close: () => socket.close(),
  };
  const client = new McpClient({ name: 'test-client', version: '1.0.0' }, { era: 'legacy', ...options });
  cleanups.push(() => client.close());
  await client.connect(transport);
  return { client, sent, received };
}
