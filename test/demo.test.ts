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
import { DEMO_INSTRUCTIONS } from '../demo/catalog.js';
import {
  type ClientTransport,
  type CreateMessageParams,
  type ElicitFormParams,
  type ElicitParams,
  type ElicitResult,
  type ElicitUrlParams,
  type HandlerContext,
  type JsonRpcNotification,
  type LogMessage,
  McpClient,
  type McpClientOptions,
  type ProgressParams,
  RequestCancelledError,
  type Root,
  TASKS_EXTENSION,
  WebSocketClientTransport,
} from '../src/index.js';
import { HttpTestClient } from './helpers/http-client.js';
import { DEFAULT_CAPABILITIES } from './helpers/servers.js';
import { rpcError, useMcpClients } from './helpers/mcp-clients.js';
import { capture } from './helpers/outcome.js';
import { useCleanups } from './helpers/cleanups.js';
import type { Json } from './helpers/ws-client.js';

const cleanups = useCleanups();
const clients = useMcpClients(cleanups);

const root = fileURLToPath(new URL('..', import.meta.url));

/** The demo's tools, in the order tools/list gives them. */
const DEMO_TOOLS = [
  'echo',
  'add',
  'count_slowly',
  'write_note',
  'delete_note',
  'book_table',
  'register_for_event',
  'connect_account',
  'plan_trip',
  'summarize_note',
  'list_roots',
  'export_report',
];
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
      // The first WebSocket URL the demo prints: its MCP endpoint.
      const match = /(ws:\/\/127\.0\.0\.1:\d+\/mcp)\b/.exec(out);
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

  it('serves /healthz and /readyz on the same port', async () => {
    const base = url.replace(/^ws/, 'http').replace(/\/mcp$/, '');
    const live = await fetch(`${base}/healthz`);
    expect([live.status, await live.json()]).toEqual([200, { status: 'ok' }]);
    const ready = await fetch(`${base}/readyz`);
    expect([ready.status, await ready.json()]).toEqual([200, { status: 'ready' }]);
  });

  it('drains on SIGTERM: a call under way finishes, then the process exits 0', async () => {
    const second = spawn(fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url)), ['demo/server.ts'], {
      cwd: root,
      env: { ...process.env, PORT: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const exited = new Promise<number | null>((resolve) => second.once('exit', (code) => resolve(code)));
    const secondUrl = await new Promise<string>((resolve, reject) => {
      second.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
        const match = /(ws:\/\/127\.0\.0\.1:\d+\/mcp)\b/.exec(out);
        if (match) resolve(match[1]);
      });
      void exited.then((code) => reject(new Error(`demo exited with ${code}: ${out}`)));
    });
    const client = new McpClient({ name: 'drain-test', version: '1.0.0' }, { era: 'legacy' });
    await client.connect(secondUrl);
    let progressed!: () => void;
    const started = new Promise<void>((resolve) => (progressed = resolve));
    const counting = client.callTool('count_slowly', { n: 5 }, { onProgress: () => progressed() });
    await started;
    second.kill('SIGTERM');
    expect(await counting).toEqual({ content: [{ type: 'text', text: 'counted to 5' }] });
    expect(await exited).toBe(0);
    expect(out).toContain('SIGTERM: draining (up to 10 s), then stopping');
    await client.close();
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
        capabilities: { ...DEFAULT_CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } },
        serverInfo: { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo' },
        instructions: DEMO_INSTRUCTIONS,
      },
    });
    expect(client.protocolVersion).toBe('2025-06-18');

    const tools = await client.listTools();
    expect(tools.tools.map((t) => t.name)).toEqual(DEMO_TOOLS);

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
    let completedYet = false;
    const completed = nextNotification(client, (n) => n.method === 'notifications/elicitation/complete').finally(() => (completedYet = true));
    const call = capture(client.callTool('connect_account'));
    const params = await ask;
    expect(params).toEqual({
      mode: 'url',
      message: 'Open this page and press Connect to connect your account.',
      url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/),
      elicitationId: expect.any(String),
    });
    expect(params.url.endsWith(`/connect/${params.elicitationId}`)).toBe(true);
    // Opening the page changes nothing (a link preview may fetch it): its Connect button does.
    const page = await openConnectPage(params.url);
    expect(page.buttons).toEqual([
      { action: `/connect/${params.elicitationId}/allow`, label: 'Connect' },
      { action: `/connect/${params.elicitationId}/deny`, label: "Don't connect" },
    ]);
    expect((await fetch(params.url)).status).toBe(200);
    expect(await client.request('ping')).toEqual({});
    expect(completedYet).toBe(false);
    const connected = await fetch(new URL(page.buttons[0].action, params.url));
    expect([connected.status, connected.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
    expect(await connected.text()).toContain('Your account is connected.');
    expect(await completed).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: params.elicitationId },
    });
    expect(await call.outcome).toEqual({ ok: true, value: { content: [{ type: 'text', text: 'Account connected.' }] } });
    expect((await fetch(params.url)).status).toBe(404);
    expect((await fetch(new URL(page.buttons[0].action, params.url))).status).toBe(404);
  });

  it("ends the URL-mode flow without connecting when the page's Don't connect is pressed", async () => {
    const { client } = await clients.connectUrl(url, { era: 'legacy', capabilities: { elicitation: { url: {} } } }, (c) =>
      c.onElicitation(async (params) => {
        const { buttons } = await openConnectPage((params as ElicitUrlParams).url);
        expect((await fetch(new URL(buttons[1].action, (params as ElicitUrlParams).url))).status).toBe(200);
        return { action: 'accept' };
      }),
    );
    const completed = nextNotification(client, (n) => n.method === 'notifications/elicitation/complete');
    expect(await client.callTool('connect_account')).toEqual({ content: [{ type: 'text', text: 'Not connected (you chose not to, on the page).' }] });
    expect((await completed).params).toEqual({ elicitationId: expect.any(String) });
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
        // The page's Connect is pressed before the answer goes back in the retry.
        const pageUrl = (params as ElicitUrlParams).url;
        const connected = await fetch(new URL((await openConnectPage(pageUrl)).buttons[0].action, pageUrl));
        asks.push([params, { era, inputKey }, connected.status]);
        return { action: 'accept' };
      }),
    );
    expect(client.era).toBe('modern');
    expect(await client.callTool('connect_account')).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Account connected.' }] });
    // Asked once, as the input request `connect` of an input_required result.
    expect(asks).toEqual([
      [
        {
          mode: 'url',
          message: 'Open this page and press Connect to connect your account.',
          url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/connect\/[\w-]+$/),
        },
        { era: 'modern', inputKey: 'connect' },
        200,
      ],
    ]);
    expect((await fetch((asks[0][0] as ElicitUrlParams).url)).status).toBe(404);
  });
});

/** The eras a tool is driven in: the legacy era over WebSocket, 2026-07-28 over Streamable HTTP, on one port and path. */
const ERAS = ['legacy', 'modern'] as const;
type Era = (typeof ERAS)[number];

/** How the client was asked: `era`, and the input key of a 2026-07-28 round (none for a pushed request). */
type Asked = Pick<HandlerContext, 'era' | 'inputKey'>;

/** The demo's MCP URL for a client of `era`. */
function endpoint(era: Era): string {
  return era === 'legacy' ? url : url.replace(/^ws/, 'http');
}

/** A tool's result as McpClient gives it in `era`: 2026-07-28 results say they are complete. */
function toolResult(era: Era, result: Record<string, unknown>): Record<string, unknown> {
  return era === 'modern' ? { resultType: 'complete', ...result } : result;
}

function text(era: Era, value: string, isError = false): Record<string, unknown> {
  return toolResult(era, isError ? { content: [{ type: 'text', text: value }], isError } : { content: [{ type: 'text', text: value }] });
}

describe.each(ERAS)('the demo for a %s client', (era) => {
  it('register_for_event asks one form with every field kind, and sums up a full answer, a defaults-only answer and a decline', async () => {
    const asks: [ElicitParams, Asked][] = [];
    const full = {
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      website: 'https://ada.example.com/talks',
      arrival: '2026-09-14',
      callback: '2026-09-14T10:30:00Z',
      budget: 250.5,
      guests: 2,
      newsletter: false,
      ticket: 'vip',
      track: 'ai',
      shirt: 'l',
      sessions: ['keynote', 'workshop', 'party'],
      dietary: ['vegan', 'gluten-free'],
    };
    // Only the required fields without a default: McpClient fills in the rest from the form's defaults.
    const required = { name: 'Grace Hopper', email: 'grace@example.com', arrival: '2026-09-15', track: 'infra' };
    const answers: ElicitResult[] = [{ action: 'accept', content: full }, { action: 'accept', content: required }, { action: 'decline' }];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) =>
      c.onElicitation((params, { era, inputKey }) => {
        asks.push([params, { era, inputKey }]);
        return answers.shift()!;
      }),
    );
    expect(client.era).toBe(era);

    expect(await client.callTool('register_for_event')).toEqual(
      toolResult(era, {
        content: [
          {
            type: 'text',
            text: [
              'Registered for the launch event:',
              '- Full name: Ada Lovelace',
              '- Email: ada@example.com',
              '- Website: https://ada.example.com/talks',
              '- Arrival date: 2026-09-14',
              '- Call me back at: 2026-09-14T10:30:00Z',
              '- Travel budget (EUR): 250.5',
              '- Guests you bring: 2',
              '- Send me the launch newsletter: no',
              '- Ticket: vip',
              '- Track: AI and agents',
              '- T-shirt size: Large',
              '- Sessions to attend: keynote, workshop, party',
              '- Dietary needs: Vegan, Gluten-free',
            ].join('\n'),
          },
        ],
        structuredContent: { received: full },
      }),
    );
    // One form, and in it every kind of field the form subset has.
    expect(asks).toHaveLength(1);
    const [asked, how] = asks[0];
    expect(how).toEqual(era === 'legacy' ? { era } : { era, inputKey: 'elicit-1' });
    expect(asked).toEqual({ message: 'Sign up for the launch event.', requestedSchema: expect.any(Object) });
    const form = (asked as ElicitFormParams).requestedSchema;
    expect(form).toMatchObject({
      type: 'object',
      properties: {
        name: { type: 'string', minLength: 2, maxLength: 60 },
        email: { type: 'string', format: 'email' },
        website: { type: 'string', format: 'uri' },
        arrival: { type: 'string', format: 'date' },
        callback: { type: 'string', format: 'date-time' },
        budget: { type: 'number', minimum: 0, maximum: 5000 },
        guests: { type: 'integer', minimum: 0, maximum: 4, default: 0 },
        newsletter: { type: 'boolean', default: true },
        ticket: { type: 'string', enum: ['standard', 'student', 'vip'], default: 'standard' },
        track: {
          type: 'string',
          oneOf: [
            { const: 'web', title: 'Web and front end' },
            { const: 'ai', title: 'AI and agents' },
            { const: 'infra', title: 'Infrastructure' },
          ],
        },
        shirt: { type: 'string', enum: ['s', 'm', 'l', 'xl'], enumNames: ['Small', 'Medium', 'Large', 'Extra large'], default: 'm' },
        sessions: { type: 'array', minItems: 1, maxItems: 3, items: { type: 'string', enum: ['keynote', 'workshop', 'panel', 'party'] }, default: ['keynote'] },
        dietary: { type: 'array', items: { anyOf: expect.arrayContaining([{ const: 'vegan', title: 'Vegan' }]) }, default: [] },
      },
      required: ['name', 'email', 'arrival', 'track', 'sessions'],
    });
    expect(Object.keys(form.properties)).toHaveLength(13);

    expect(await client.callTool('register_for_event')).toEqual(
      toolResult(era, {
        content: [
          {
            type: 'text',
            text: [
              'Registered for the launch event:',
              '- Full name: Grace Hopper',
              '- Email: grace@example.com',
              '- Website: not given',
              '- Arrival date: 2026-09-15',
              '- Call me back at: not given',
              '- Travel budget (EUR): not given',
              '- Guests you bring: 0',
              '- Send me the launch newsletter: yes',
              '- Ticket: standard',
              '- Track: Infrastructure',
              '- T-shirt size: Medium',
              '- Sessions to attend: keynote',
              '- Dietary needs: none',
            ].join('\n'),
          },
        ],
        structuredContent: { received: { ...required, guests: 0, newsletter: true, ticket: 'standard', shirt: 'm', sessions: ['keynote'], dietary: [] } },
      }),
    );
    expect(await client.callTool('register_for_event')).toEqual(text(era, 'Not registered (you chose decline).'));
    expect(asks).toHaveLength(3);
  });

  it('plan_trip asks in three rounds: where and when, an itinerary from the model, then whether to book', async () => {
    const itinerary = 'Day 1: Alfama and the castle\nDay 2: Belém\nDay 3: Sintra';
    const asks: (['elicit', ElicitParams, Asked] | ['sample', CreateMessageParams, Asked])[] = [];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) => {
      c.onElicitation((params, { era, inputKey }): ElicitResult => {
        asks.push(['elicit', params, { era, inputKey }]);
        return params.message.startsWith('Where')
          ? { action: 'accept', content: { destination: 'Lisbon', depart: '2026-10-01', return: '2026-10-04' } }
          : { action: 'accept', content: { book: true } };
      });
      c.onSampling((params, { era, inputKey }) => {
        asks.push(['sample', params, { era, inputKey }]);
        return { role: 'assistant', content: { type: 'text', text: itinerary }, model: 'test-model', stopReason: 'endTurn' };
      });
    });
    expect(await client.callTool('plan_trip')).toEqual(
      text(era, `Booked: 3 nights in Lisbon, 2026-10-01 to 2026-10-04. Itinerary (suggested by test-model):\n${itinerary}`),
    );
    // Each question once, in order, whether pushed (2025) or asked in an input round of its own (2026-07-28).
    const how = (inputKey: string): Asked => (era === 'legacy' ? { era } : { era, inputKey });
    expect(asks).toEqual([
      [
        'elicit',
        {
          message: 'Where do you want to go, and when?',
          requestedSchema: {
            type: 'object',
            properties: {
              destination: { type: 'string', title: 'Destination', minLength: 1, maxLength: 80 },
              depart: { type: 'string', title: 'Departure date', format: 'date' },
              return: { type: 'string', title: 'Return date', format: 'date' },
            },
            required: ['destination', 'depart', 'return'],
          },
        },
        how('elicit-1'),
      ],
      [
        'sample',
        {
          messages: [
            {
              role: 'user',
              content: { type: 'text', text: 'Suggest an itinerary for 3 nights in Lisbon, from 2026-10-01 to 2026-10-04. One short line per day.' },
            },
          ],
          systemPrompt: 'You are a concise travel planner.',
          maxTokens: 400,
        },
        how('sample-2'),
      ],
      [
        'elicit',
        {
          message: `Suggested itinerary for Lisbon, 2026-10-01 to 2026-10-04:\n\n${itinerary}\n\nBook this trip?`,
          requestedSchema: { type: 'object', properties: { book: { type: 'boolean', title: 'Book this trip', default: true } }, required: ['book'] },
        },
        how('elicit-3'),
      ],
    ]);
  });

  it('plan_trip says at once, before any question, that it needs a client that can sample', async () => {
    const asks: ElicitParams[] = [];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) => c.onElicitation((params) => (asks.push(params), { action: 'cancel' })));
    const message = 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage';
    if (era === 'legacy') {
      expect(await client.callTool('plan_trip')).toEqual(text(era, message, true));
    } else {
      // 2026-07-28: -32021 names the capability, so a client could retry declaring it.
      expect(await rpcError(client.callTool('plan_trip'))).toEqual({ code: -32021, message, data: { requiredCapabilities: { sampling: {} } } });
    }
    expect(asks).toEqual([]);
  });

  it("summarize_note asks the client's model for a summary (sampling)", async () => {
    const asks: [CreateMessageParams, Asked][] = [];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) =>
      c.onSampling((params, { era, inputKey }) => {
        asks.push([params, { era, inputKey }]);
        return { role: 'assistant', content: { type: 'text', text: ' Someone has to ring the plumber. ' }, model: 'test-model' };
      }),
    );
    expect(await client.callTool('summarize_note', { id: '2' })).toEqual(text(era, 'Note 2, summarized by test-model: Someone has to ring the plumber.'));
    expect(asks).toEqual([
      [
        {
          messages: [{ role: 'user', content: { type: 'text', text: 'Summarize this note in one short sentence:\n\nCall the plumber' } }],
          systemPrompt: 'You summarize notes in one short sentence.',
          modelPreferences: { speedPriority: 0.8, intelligencePriority: 0.2 },
          maxTokens: 100,
        },
        era === 'legacy' ? { era } : { era, inputKey: 'sample-1' },
      ],
    ]);
    expect(await client.callTool('summarize_note', { id: 'nowhere' })).toEqual(text(era, 'There is no note nowhere.', true));
    expect(asks).toHaveLength(1);
  });

  it('list_roots lists the roots the client shares', async () => {
    const asks: Asked[] = [];
    const roots: Root[] = [{ uri: 'file:///home/ada/launch', name: 'launch' }, { uri: 'file:///home/ada/notes.md' }];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) =>
      c.onRoots(({ era, inputKey }) => {
        asks.push({ era, inputKey });
        return { roots: asks.length === 1 ? roots : [] };
      }),
    );
    expect(await client.callTool('list_roots')).toEqual(
      text(era, 'Your client shares 2 roots:\n- file:///home/ada/launch (launch)\n- file:///home/ada/notes.md'),
    );
    expect(await client.callTool('list_roots')).toEqual(text(era, 'Your client shares no roots.'));
    expect(asks).toEqual(
      era === 'legacy'
        ? [{ era }, { era }]
        : [
            { era, inputKey: 'roots-1' },
            { era, inputKey: 'roots-1' },
          ],
    );
  });

  it('count_slowly logs its start and end at info, which a client gets without asking for a level', async () => {
    const logs: LogMessage[] = [];
    const progress: ProgressParams[] = [];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) => c.on('log', (message) => void logs.push(message)));
    // A 2026-07-28 request carries its log level, and without one the server logs nothing: info, as a legacy-era session gets by default.
    if (era === 'modern') await client.setLogLevel('info');
    expect(await client.callTool('count_slowly', { n: 2 }, { onProgress: (p) => void progress.push(p) })).toEqual(text(era, 'counted to 2'));
    expect(logs).toEqual([
      { level: 'info', logger: 'count_slowly', data: 'counting to 2' },
      { level: 'info', logger: 'count_slowly', data: 'counted to 2' },
    ]);
    expect(progress.map(({ progress, total, message }) => ({ progress, total, message }))).toEqual([
      { progress: 1, total: 2, message: 'counted to 1' },
      { progress: 2, total: 2, message: 'counted to 2' },
    ]);
  });
});

describe('the demo task', () => {
  const FORMAT_QUESTION = 'The Q2 figures are in. How should the report look?';

  it('export_report runs as a task for a 2026-07-28 client that declares the extension, asking the format halfway', async () => {
    const asked: { message: string; asked: Asked }[] = [];
    const { client } = await clients.connectUrl(endpoint('modern'), { era: 'modern', tasks: true }, (c) =>
      c.onElicitation((params, ctx) => {
        asked.push({ message: params.message, asked: { era: ctx.era, inputKey: ctx.inputKey } });
        return { action: 'accept', content: { format: 'csv', charts: false } };
      }),
    );
    const states: string[] = [];
    const result = await client.callTool(
      'export_report',
      { quarter: 'Q2' },
      { onTask: (task) => void states.push(`${task.status}: ${task.statusMessage ?? ''}`) },
    );
    expect(result).toEqual({ content: [{ type: 'text', text: 'Exported the Q2 report as CSV, without charts.' }] });
    expect(asked).toEqual([{ message: FORMAT_QUESTION, asked: { era: 'modern', inputKey: 'elicit-1' } }]);
    // The task as created, then its progress as its status message while it waits for the answer.
    expect(states[0]).toBe('working: ');
    expect(states).toContain('input_required: Gathering the Q2 figures…');
    expect(states.at(-1)).toBe('completed: Done');
  });

  it.each(ERAS)('export_report runs within the call for a %s client without tasks, asking the same question', async (era) => {
    const asked: string[] = [];
    const { client } = await clients.connectUrl(endpoint(era), { era }, (c) =>
      c.onElicitation((params) => {
        asked.push(params.message);
        return { action: 'decline' };
      }),
    );
    expect(await client.callTool('export_report', { quarter: 'Q2' })).toEqual(text(era, 'Export of Q2 stopped: you chose decline.', true));
    expect(asked).toEqual([FORMAT_QUESTION]);
  });
});

describe('the demo instructions', () => {
  it('name every tool of npm start, one short paragraph per feature, and reach clients of both eras', async () => {
    expect(DEMO_INSTRUCTIONS).toBe(
      [
        'Switchboard demo: each tool shows one MCP feature.',
        'Forms: register_for_event asks you to sign up for the launch event with a form that has every field kind (text with formats and lengths, numbers, a yes/no, single and multi-select lists, defaults, required fields); book_table is a shorter form.',
        'URL mode: connect_account sends you to a page this demo serves; press Connect there and the call finishes.',
        'Confirmation: delete_note asks you to confirm before it deletes a note; write_note writes one.',
        'Multiple rounds: plan_trip asks in three rounds: where and when (a form), an itinerary from your model (sampling), then whether to book it (a yes/no form).',
        'Sampling: summarize_note asks your model to summarize a note.',
        'Roots: list_roots lists the roots your client shares.',
        'Progress and logging: count_slowly counts to n, reporting progress and logging as it goes; cancel it to stop early.',
        'Tasks: export_report runs as a task for a 2026-07-28 client that declares the Tasks extension (this console does), and asks which format you want halfway through.',
        'Also: echo repeats text, add returns structured content, the summarize prompt, and the resources demo://readme, demo://pixel and demo://notes/{id} (subscribe to one to hear when write_note changes it).',
      ].join('\n\n'),
    );
    for (const era of ERAS) {
      const { client } = await clients.connectUrl(endpoint(era), { era });
      expect([client.era, client.instructions]).toEqual([era, DEMO_INSTRUCTIONS]);
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(DEMO_TOOLS);
      expect(tools.filter((tool) => !new RegExp(`\\b${tool.name}\\b`).test(DEMO_INSTRUCTIONS)).map((tool) => tool.name)).toEqual([]);
    }
  });
});

/** The consent page a URL-mode elicitation points to: its buttons, each a form's action (a path) and its label. */
async function openConnectPage(pageUrl: string): Promise<{ buttons: { action: string; label: string }[] }> {
  const response = await fetch(pageUrl);
  expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/html; charset=utf-8']);
  const html = await response.text();
  const buttons = [...html.matchAll(/<form method="get" action="([^"]+)"><button[^>]*>([^<]+)<\/button><\/form>/g)].map(([, action, label]) => ({
    action,
    label,
  }));
  return { buttons };
}

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
