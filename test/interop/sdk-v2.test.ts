/**
 * Interop with the official SDK v2 client (@modelcontextprotocol/client 2.4.0) over real Streamable
 * HTTP: pinned to 2026-07-28 it fulfils MRTR input_required rounds through its request handlers; in
 * 'auto' mode it falls back to initialize against a legacy-only server and speaks 2026-07-28 to a dual one.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import type { McpServer, ElicitParams, Era, McpServerOptions, McpSession } from '../../src/index.js';
import { registerFixtureCatalog } from '../../conformance/fixture-catalog.js';
import { registerModernFixtures } from '../../conformance/fixture-modern.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startHttp } from '../helpers/servers.js';
import type { Json } from '../helpers/ws-client.js';

const STATE_KEY = 'sdk-v2-interop-request-state-key-0123456789';
const CAPS = { elicitation: { form: {} }, sampling: {}, roots: {} };
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] };

const cleanups = useCleanups();

interface Started {
  server: McpServer;
  url: string;
  /** Every message the server received, with the era of the session it arrived on. */
  inbound: { era: Era; message: Json }[];
  /** Sessions that completed initialize (legacy era only). */
  sessionsNew: McpSession[];
}

/** The conformance fixtures (catalog + 2026-07-28) on a real HTTP port, plus whatever `setup` adds. */
async function startServer(options: McpServerOptions = {}, setup: (server: McpServer) => void = () => {}): Promise<Started> {
  const inbound: Started['inbound'] = [];
  const sessionsNew: McpSession[] = [];
  const { server, url } = await startHttp(
    cleanups,
    (server) => {
      registerFixtureCatalog(server);
      registerModernFixtures(server);
      setup(server);
      server.on('message', (session, direction, message) => {
        if (direction === 'in' && !Array.isArray(message)) inbound.push({ era: session.era, message: message as Json });
      });
      server.on('sessionNew', (session) => void sessionsNew.push(session));
    },
    { info: { name: 'sdk-v2-interop', version: '1.0.0' }, server: { requestState: { keys: [STATE_KEY] }, ...options } },
  );
  return { server, url, inbound, sessionsNew };
}

type Mode = 'auto' | { pin: string };

/** An SDK v2 client with `setup` (request handlers) applied, connected to `url`, closed after the test. */
async function connect(url: string, mode: Mode, setup: (client: Client) => void = () => {}, capabilities: Json = CAPS): Promise<Client> {
  const client = new Client({ name: 'sdk-v2-peer', version: '2.4.0' }, { capabilities, versionNegotiation: { mode } });
  setup(client);
  cleanups.push(() => client.close());
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

const PIN = { pin: '2026-07-28' } as const;

/** The tools/call requests the server received, in order. */
function toolCalls(started: Started): Json[] {
  return started.inbound.filter((m) => m.message.method === 'tools/call').map((m) => m.message);
}

describe('SDK v2 client pinned to 2026-07-28', () => {
  it('negotiates 2026-07-28 with server/discover and opens no legacy-era session', async () => {
    const started = await startServer();
    const client = await connect(started.url, PIN);
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
    expect(started.inbound.map((m) => [m.era, m.message.method])).toEqual([
      ['modern', 'server/discover'],
      ['modern', 'tools/call'],
    ]);
    expect(started.sessionsNew).toEqual([]);
  });

  it('completes the multi-round fixture: two input_required rounds, each retried on a new id with inputResponses and the requestState echoed', async () => {
    const started = await startServer();
    const asked: unknown[] = [];
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('elicitation/create', async (request) => {
        asked.push(request.params);
        const content: Record<string, string> = String(request.params.message).startsWith('Step 1') ? { name: 'Ada' } : { color: 'teal' };
        return { action: 'accept', content };
      }),
    );
    const result = await client.callTool({ name: 'test_input_required_result_multi_round', arguments: {} });
    expect(result).toEqual({ content: [{ type: 'text', text: 'Ada likes teal.' }] });
    expect(asked).toEqual([
      { message: 'Step 1: What is your name?', requestedSchema: NAME_SCHEMA },
      { message: 'Step 2: What is your favorite color?', requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] } },
    ]);
    const calls = toolCalls(started);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((c) => c.id)).size).toBe(3);
    expect(calls[0].params.inputResponses).toBeUndefined();
    expect(calls[0].params.requestState).toBeUndefined();
    expect(calls[1].params.inputResponses).toEqual({ step1: { action: 'accept', content: { name: 'Ada' } } });
    expect(calls[1].params.requestState).toMatch(/^v1\./);
    expect(calls[2].params.inputResponses).toEqual({ step2: { action: 'accept', content: { color: 'teal' } } });
    expect(calls[2].params.requestState).toMatch(/^v1\./);
    expect(calls[2].params.requestState).not.toBe(calls[1].params.requestState);
    expect(started.sessionsNew).toEqual([]);
  });

  it('completes the sampling fixture through its sampling/createMessage handler', async () => {
    const started = await startServer();
    const asked: unknown[] = [];
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('sampling/createMessage', async (request) => {
        asked.push(request.params);
        return { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' };
      }),
    );
    expect(await client.callTool({ name: 'test_input_required_result_sampling', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'The model said: Paris' }],
    });
    expect(asked).toEqual([{ messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 }]);
    expect(toolCalls(started)[1].params.inputResponses).toEqual({
      capital_question: { role: 'assistant', content: { type: 'text', text: 'Paris' }, model: 'test-model', stopReason: 'endTurn' },
    });
  });

  it('completes the roots fixture through its roots/list handler', async () => {
    const started = await startServer();
    let asked = 0;
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('roots/list', async () => {
        asked++;
        return { roots: [{ uri: 'file:///projects/a', name: 'A' }, { uri: 'file:///projects/b' }] };
      }),
    );
    expect(await client.callTool({ name: 'test_input_required_result_list_roots', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Roots: file:///projects/a, file:///projects/b' }],
    });
    expect(asked).toBe(1);
    expect(toolCalls(started)).toHaveLength(2);
  });

  it('completes the multiple-inputs fixture: elicitation, sampling and roots in one round, one retry', async () => {
    const started = await startServer();
    const calls: string[] = [];
    const client = await connect(started.url, PIN, (c) => {
      c.setRequestHandler('elicitation/create', async () => (calls.push('elicit'), { action: 'accept', content: { name: 'Ada' } }));
      c.setRequestHandler(
        'sampling/createMessage',
        async () => (calls.push('sample'), { role: 'assistant', content: { type: 'text', text: 'Howdy' }, model: 'm' }),
      );
      c.setRequestHandler('roots/list', async () => (calls.push('roots'), { roots: [{ uri: 'file:///x' }] }));
    });
    expect(await client.callTool({ name: 'test_input_required_result_multiple_inputs', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Howdy Ada; 1 root(s)' }],
    });
    expect(calls.sort()).toEqual(['elicit', 'roots', 'sample']);
    expect(toolCalls(started)).toHaveLength(2);
  });

  it('echoes requestState byte for byte, so the request-state fixture sees its own state back', async () => {
    const started = await startServer();
    const client = await connect(started.url, PIN, (c) => c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { ok: true } })));
    expect(await client.callTool({ name: 'test_input_required_result_request_state', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'state-ok: confirmed=true' }],
    });
  });

  it('runs an era-portable tool that uses plain ctx.elicit: the handler is replayed with the answer', async () => {
    const runs: string[] = [];
    const started = await startServer({}, (server) =>
      server.registerTool('portable_greet', { inputSchema: { type: 'object', properties: { greeting: { type: 'string' } } } }, async (args, ctx) => {
        runs.push('run');
        const answer = await ctx.elicit({ message: 'Your name?', requestedSchema: NAME_SCHEMA } as unknown as ElicitParams);
        return `${args.greeting}, ${answer.content?.name}!`;
      }),
    );
    const asked: unknown[] = [];
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('elicitation/create', async (request) => (asked.push(request.params), { action: 'accept', content: { name: 'Grace' } })),
    );
    expect(await client.callTool({ name: 'portable_greet', arguments: { greeting: 'Hi' } })).toEqual({ content: [{ type: 'text', text: 'Hi, Grace!' }] });
    expect(asked).toEqual([{ message: 'Your name?', requestedSchema: NAME_SCHEMA }]);
    expect(runs).toEqual(['run', 'run']);
    expect(toolCalls(started)[1].params.inputResponses).toEqual({ 'elicit-1': { action: 'accept', content: { name: 'Grace' } } });
  });

  it('completes an MRTR prompts/get', async () => {
    const started = await startServer();
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { context: 'the sea' } })),
    );
    expect(await client.getPrompt({ name: 'test_input_required_result_prompt', arguments: {} })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: the sea' } }],
    });
  });

  it('completes an MRTR resources/read', async () => {
    const started = await startServer({}, (server) =>
      server.registerResource('test://locked', { name: 'locked', mimeType: 'text/plain' }, async (uri, ctx) => {
        const answer = await ctx.elicit({
          message: 'Code?',
          requestedSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
        } as unknown as ElicitParams);
        return `${uri} opened with ${answer.content?.code}`;
      }),
    );
    const client = await connect(started.url, PIN, (c) =>
      c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { code: '0000' } })),
    );
    const result = await client.readResource({ uri: 'test://locked' });
    expect(result.contents).toEqual([{ uri: 'test://locked', mimeType: 'text/plain', text: 'test://locked opened with 0000' }]);
  });

  it('gets the confirm option as an elicitation: decline gives the isError result, accept runs the tool', async () => {
    let runs = 0;
    const started = await startServer({}, (server) =>
      server.registerTool('wipe', { confirm: 'Wipe the disk?' }, () => {
        runs++;
        return 'wiped';
      }),
    );
    let action: 'accept' | 'decline' = 'decline';
    const client = await connect(started.url, PIN, (c) => c.setRequestHandler('elicitation/create', async () => ({ action })));
    expect(await client.callTool({ name: 'wipe', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'The user declined: "Wipe the disk?". Nothing was done.' }],
      isError: true,
    });
    expect(runs).toBe(0);
    action = 'accept';
    expect(await client.callTool({ name: 'wipe', arguments: {} })).toEqual({ content: [{ type: 'text', text: 'wiped' }] });
    expect(runs).toBe(1);
  });

  it('surfaces a missing capability as the SDK MissingRequiredClientCapabilityError with the required capabilities', async () => {
    const started = await startServer();
    const client = await connect(started.url, PIN, () => {}, { elicitation: { form: {} } });
    let caught: unknown;
    try {
      await client.callTool({ name: 'test_missing_capability', arguments: {} });
    } catch (err) {
      caught = err;
    }
    expect((caught as Error)?.constructor?.name).toBe('MissingRequiredClientCapabilityError');
    const error = caught as { code: number; message: string; data: unknown };
    expect({ code: error.code, message: error.message, data: error.data }).toEqual({
      code: -32021,
      message: 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage',
      data: { requiredCapabilities: { sampling: {} } },
    });
  });
});

describe("SDK v2 client in 'auto' mode", () => {
  it('falls back to initialize against a server constructed with eras: legacy, and still calls tools (elicitation pushed for real)', async () => {
    const started = await startServer({ eras: 'legacy' });
    const asked: unknown[] = [];
    const client = await connect(started.url, 'auto', (c) =>
      c.setRequestHandler('elicitation/create', async (request) => (asked.push(request.params), { action: 'accept', content: { name: 'Ada' } })),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2025-11-25');
    expect(started.sessionsNew).toHaveLength(1);
    expect(started.sessionsNew[0].era).toBe('legacy');
    expect(started.sessionsNew[0].protocolVersion).toBe('2025-11-25');
    expect(await client.callTool({ name: 'test_simple_text', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'This is a simple text response for testing.' }],
    });
    expect(await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    expect(asked).toEqual([{ message: 'What is your name?', requestedSchema: NAME_SCHEMA }]);
    expect(started.inbound.every((m) => m.era === 'legacy')).toBe(true);
    // The handshake-era retry is not needed: the elicitation was pushed within the one tools/call.
    expect(toolCalls(started)).toHaveLength(2);
  });

  it('speaks 2026-07-28 to a dual-era server: no initialize, no legacy-era session, MRTR rounds', async () => {
    const started = await startServer();
    const client = await connect(started.url, 'auto', (c) =>
      c.setRequestHandler('elicitation/create', async () => ({ action: 'accept', content: { name: 'Ada' } })),
    );
    expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
    expect(await client.callTool({ name: 'test_input_required_result_elicitation', arguments: {} })).toEqual({
      content: [{ type: 'text', text: 'Hello, Ada!' }],
    });
    expect(started.sessionsNew).toEqual([]);
    expect(started.inbound.map((m) => [m.era, m.message.method])).toEqual([
      ['modern', 'server/discover'],
      ['modern', 'tools/call'],
      ['modern', 'tools/call'],
    ]);
    expect(toolCalls(started)[1].params.inputResponses).toEqual({ user_name: { action: 'accept', content: { name: 'Ada' } } });
  });
});
