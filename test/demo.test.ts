/** `npm start`'s demo, end to end over a real WebSocket: everything a session can do, in one walk. */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCEPT_BOTH, HttpTestClient, send } from './helpers/http-client.js';
import { WsTestClient } from './helpers/ws-client.js';

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
    const { client, result } = await WsTestClient.initialized(url, { protocolVersion: '2025-06-18' });
    expect(result).toEqual({
      protocolVersion: '2025-06-18',
      capabilities: {
        logging: {},
        completions: {},
        prompts: { listChanged: true },
        resources: { subscribe: true, listChanged: true },
        tools: { listChanged: true },
      },
      serverInfo: { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo' },
      instructions: 'Try the echo, add and count_slowly tools.',
    });

    const tools = await client.request('tools/list');
    expect(tools.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'echo',
      'add',
      'count_slowly',
      'write_note',
      'delete_note',
      'book_table',
      'connect_account',
    ]);

    expect(await client.request('tools/call', { name: 'add', arguments: { a: 2, b: 3 } }, 'add')).toEqual({
      jsonrpc: '2.0',
      id: 'add',
      result: { content: [{ type: 'text', text: '2 + 3 = 5' }], structuredContent: { sum: 5 } },
    });

    expect(await client.request('prompts/get', { name: 'summarize', arguments: { text: 'MCP', style: 'brief' } }, 'p')).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      result: { description: 'Summarize a text', messages: [{ role: 'user', content: { type: 'text', text: 'Summarize this (brief):\n\nMCP' } }] },
    });

    expect(
      await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'summarize' }, argument: { name: 'style', value: 'b' } }, 'c'),
    ).toEqual({
      jsonrpc: '2.0',
      id: 'c',
      result: { completion: { values: ['brief', 'bullet-points'], total: 2, hasMore: false } },
    });

    const readme = await client.request('resources/read', { uri: 'demo://readme' });
    expect(readme.result.contents[0]).toMatchObject({ uri: 'demo://readme', mimeType: 'text/markdown' });

    const templates = await client.request('resources/templates/list');
    expect(templates.result.resourceTemplates).toEqual([
      { uriTemplate: 'demo://notes/{id}', name: 'note', description: 'A note by id', mimeType: 'text/plain' },
    ]);
    expect((await client.request('resources/read', { uri: 'demo://notes/1' }, 'n1')).result).toEqual({
      contents: [{ uri: 'demo://notes/1', mimeType: 'text/plain', text: 'Buy milk' }],
    });
    expect((await client.request('resources/read', { uri: 'demo://notes/404' }, 'n404')).error).toEqual({
      code: -32002,
      message: 'Resource not found: demo://notes/404',
      data: { uri: 'demo://notes/404' },
    });

    expect((await client.request('resources/subscribe', { uri: 'demo://notes/7' })).result).toEqual({});
    expect((await client.request('logging/setLevel', { level: 'debug' })).result).toEqual({});
    const updated = client.nextMessage('notifications/resources/updated');
    const logged = client.waitFor((m) => m.method === 'notifications/message' && m.params.logger === 'notes');
    expect((await client.request('tools/call', { name: 'write_note', arguments: { id: '7', text: 'hello' } })).result).toEqual({
      content: [{ type: 'text', text: 'note 7 saved' }],
    });
    expect(await updated).toEqual({ jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'demo://notes/7' } });
    expect(await logged).toEqual({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', logger: 'notes', data: 'note 7 created' } });

    // Progress arrives with the token, and cancelling mid-call stops the tool with no response.
    client.sendRaw({
      jsonrpc: '2.0',
      id: 'count',
      method: 'tools/call',
      params: { name: 'count_slowly', arguments: { n: 50 }, _meta: { progressToken: 'tok' } },
    });
    expect(await client.waitFor((m) => m.method === 'notifications/progress' && m.params.progress === 2)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 'tok', progress: 2, total: 50, message: 'counted to 2' },
    });
    client.notify('notifications/cancelled', { requestId: 'count', reason: 'enough' });
    // count_slowly waits 100 ms a step, and timers of one duration fire in the order they were set: this
    // one-step call starts its wait after the cancelled call started its current one, so its result comes
    // only after the cancelled call has woken, seen the cancel and ended.
    expect((await client.request('tools/call', { name: 'count_slowly', arguments: { n: 1 } }, 'one')).result).toEqual({
      content: [{ type: 'text', text: 'counted to 1' }],
    });
    expect(client.received.filter((m) => m.id === 'count')).toEqual([]);
    expect((await client.request('ping', undefined, 'after')).result).toEqual({});
    await client.close();
  });

  it('asks with a form, validates the answer, and books the table', async () => {
    const { client } = await WsTestClient.initialized(url, { capabilities: { elicitation: {} } });
    const call = client.request('tools/call', { name: 'book_table', arguments: { restaurant: 'Chez Nous' } }, 'book');
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.params.message).toBe('Booking at Chez Nous: who, when and where?');
    expect(ask.params.requestedSchema.required).toEqual(['name', 'email', 'date']);
    client.respond(ask.id, {
      action: 'accept',
      content: { name: 'Ada', email: 'ada@example.com', date: '2026-12-24', guests: 4, seating: 'terrace', dietary: ['vegan'] },
    });
    expect((await call).result).toEqual({ content: [{ type: 'text', text: 'Booked a table at Chez Nous for 4 on 2026-12-24, terrace, under Ada.' }] });

    const second = client.request('tools/call', { name: 'book_table', arguments: { restaurant: 'Chez Nous' } }, 'bad');
    const again = await client.nextMessage('elicitation/create');
    client.respond(again.id, { action: 'accept', content: { name: 'Ada', email: 'not-an-email', date: '2026-12-24' } });
    expect((await second).result).toEqual({
      content: [{ type: 'text', text: 'The elicitation answer does not match requestedSchema: email must match format "email"' }],
      isError: true,
    });
    await client.close();
  });

  it('runs a URL-mode flow: the client opens the page, the tool finishes, and the completion notification arrives', async () => {
    const { client } = await WsTestClient.initialized(url, { capabilities: { elicitation: { form: {}, url: {} } } });
    const call = client.request('tools/call', { name: 'connect_account', arguments: {} }, 'connect');
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.params).toEqual({
      mode: 'url',
      message: 'Open this page to connect your account.',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/),
      elicitationId: expect.any(String),
    });
    expect(ask.params.url.endsWith(`/connect/${ask.params.elicitationId}`)).toBe(true);
    client.respond(ask.id, { action: 'accept' });
    const page = await fetch(ask.params.url);
    expect(page.status).toBe(200);
    expect(await client.nextMessage('notifications/elicitation/complete')).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: ask.params.elicitationId },
    });
    expect((await call).result).toEqual({ content: [{ type: 'text', text: 'Account connected.' }] });
    expect((await fetch(ask.params.url)).status).toBe(404);
    await client.close();
  });

  it('asks before deleting: decline keeps the note, accept deletes it', async () => {
    const { client } = await WsTestClient.initialized(url, { capabilities: { elicitation: {} } });
    const declined = client.request('tools/call', { name: 'delete_note', arguments: { id: '1' } }, 'd1');
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.params).toEqual({ message: 'Delete note 1? This cannot be undone.', requestedSchema: { type: 'object', properties: {} } });
    client.respond(ask.id, { action: 'decline' });
    expect((await declined).result).toEqual({
      content: [{ type: 'text', text: 'The user declined: "Delete note 1? This cannot be undone.". Nothing was done.' }],
      isError: true,
    });
    expect((await client.request('resources/read', { uri: 'demo://notes/1' }, 'still')).result.contents[0].text).toBe('Buy milk');

    const accepted = client.request('tools/call', { name: 'delete_note', arguments: { id: '1' } }, 'd2');
    client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept' });
    expect((await accepted).result).toEqual({ content: [{ type: 'text', text: 'Note 1 deleted.' }] });
    expect((await client.request('resources/read', { uri: 'demo://notes/1' }, 'gone')).error.code).toBe(-32002);
    await client.close();
  });

  it('runs the URL-mode flow for a 2026-07-28 client too: input-required, the page, then the retry', async () => {
    const http = url.replace(/^ws/, 'http');
    const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: { url: {} } } };
    const call = async (extra: Record<string, unknown>) => {
      const res = await send(
        http,
        'POST',
        {
          accept: ACCEPT_BOTH,
          'content-type': 'application/json',
          'mcp-protocol-version': '2026-07-28',
          'mcp-method': 'tools/call',
          'mcp-name': 'connect_account',
        },
        {
          jsonrpc: '2.0',
          id: 1,
          method: 'tools/call',
          params: { name: 'connect_account', arguments: {}, ...extra, _meta: meta },
        },
      );
      return (await res.json()).result;
    };
    const first = await call({});
    expect(first.resultType).toBe('input_required');
    const ask = first.inputRequests.connect;
    expect(ask).toEqual({
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Open this page to connect your account.', url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/) },
    });
    expect((await fetch(ask.params.url)).status).toBe(200);
    expect(await call({ requestState: first.requestState, inputResponses: { connect: { action: 'accept' } } })).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Account connected.' }],
    });
    expect((await fetch(ask.params.url)).status).toBe(404);
  });
});
