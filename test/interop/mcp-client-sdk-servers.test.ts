/**
 * McpClient against the official SDK servers over real sockets: SDK v1 1.32 on Streamable HTTP (the 2025
 * era: initialize, sessions, elicitation pushed on the POST stream) and SDK v2 2.4 (2026-07-28: stateless
 * requests, `input_required` rounds), each found by `auto`; then both over stdio, spawned by
 * StdioClientTransport. Every SEP-1034 defaults rule and every validation rule is one case, run
 * against each server: what the server received, or how the client refused.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { McpClient, McpError, StdioClientTransport, type ElicitParams, type ElicitResult, type McpClientOptions } from '../../src/index.js';
import { NOTE, PEER_TOOLS } from '../fixtures/sdk-peer-servers.js';
import { rpcError } from '../helpers/mcp-clients.js';
import { useSdkServers } from '../helpers/sdk-servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const servers = useSdkServers();
const cleanups = useCleanups();
const root = fileURLToPath(new URL('../..', import.meta.url));

const ALL_CAPABILITIES = { elicitation: { form: {}, url: {} }, sampling: {}, roots: { listChanged: true } };
const ROOTS = [{ uri: 'file:///home/ada/trips', name: 'trips' }];
const SAMPLED = 'a walk along the river';

interface Peer {
  name: string;
  /** The era `auto` should pick, and the protocol version that comes with it. */
  protocolVersion: string;
  serverName: string;
  start(): Promise<string>;
}

const V1: Peer = { name: 'SDK v1 1.32 (HTTP, 2025)', protocolVersion: '2025-11-25', serverName: 'sdk-v1-peer', start: async () => (await servers.v1()).url };
const V2: Peer = {
  name: 'SDK v2 2.4 (HTTP, 2026-07-28)',
  protocolVersion: '2026-07-28',
  serverName: 'sdk-v2-peer',
  start: async () => (await servers.v2()).url,
};

/** A client declaring everything, closed after the test; `errors` collects its error events. */
function newClient(options: McpClientOptions = {}) {
  const client = new McpClient({ name: 'interop', version: '1.0.0' }, { capabilities: ALL_CAPABILITIES, ...options });
  const errors: Error[] = [];
  client.on('error', (err) => void errors.push(err));
  client.onSampling(() => ({ role: 'assistant', content: { type: 'text', text: SAMPLED }, model: 'test-model' }));
  client.onRoots(() => ({ roots: ROOTS }));
  cleanups.push(() => client.close());
  return { client, errors };
}

/** The JSON a tool answered with as its text. */
function toolJson(result: { content?: unknown }): unknown {
  const [first] = result.content as { type: string; text: string }[];
  return JSON.parse(first!.text);
}

describe.each([V1, V2])('McpClient against $name', (peer) => {
  it(`auto picks ${peer.protocolVersion} and learns the server`, async () => {
    const { client, errors } = newClient();
    await client.connect(await peer.start());
    expect(client.protocolVersion).toBe(peer.protocolVersion);
    expect(client.serverInfo).toEqual({ name: peer.serverName, version: peer.serverName === 'sdk-v1-peer' ? '1.32.2' : '2.4.0' });
    expect(client.serverCapabilities).toMatchObject({ tools: {}, prompts: {}, resources: {}, logging: {} });
    expect(errors).toEqual([]);
  });

  it('lists and calls tools, reads prompts and resources, follows progress and pings', async () => {
    const { client, errors } = newClient();
    await client.connect(await peer.start());
    const { tools } = await client.listTools();
    expect(tools.map((tool) => [tool.name, tool.inputSchema])).toEqual(PEER_TOOLS.map((tool) => [tool.name, expect.objectContaining(tool.inputSchema)]));
    expect((await client.callTool('echo', { text: 'hi' })).content).toEqual([{ type: 'text', text: 'hi' }]);

    expect((await client.listPrompts()).prompts.map((prompt) => prompt.name)).toEqual(['greet']);
    expect((await client.getPrompt('greet', { name: 'Ada' })).messages).toEqual([{ role: 'user', content: { type: 'text', text: 'Say hello to Ada' } }]);
    expect((await client.listResources()).resources).toEqual([expect.objectContaining({ uri: NOTE.uri, name: NOTE.name })]);
    expect((await client.readResource(NOTE.uri)).contents).toEqual([{ uri: NOTE.uri, mimeType: NOTE.mimeType, text: NOTE.text }]);

    const progress: unknown[] = [];
    const counted = await client.callTool('count', { n: 3 }, { onProgress: (p) => void progress.push([p.progress, p.total]) });
    expect(counted.content).toEqual([{ type: 'text', text: 'counted 3' }]);
    expect(progress).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    await client.ping();
    expect(errors).toEqual([]);
  });
});

describe('era choice', () => {
  it('legacy against SDK v2 initializes and is served statelessly', async () => {
    const { client } = newClient({ era: 'legacy' });
    await client.connect(await V2.start());
    expect(client.protocolVersion).toBe('2025-11-25');
    expect((await client.callTool('echo', { text: 'old' })).content).toEqual([{ type: 'text', text: 'old' }]);
  });

  it('modern against SDK v1 fails to connect, saying the server does not speak 2026-07-28', async () => {
    const { client } = newClient({ era: 'modern' });
    // SDK v1 answers HTTP 400 with a JSON-RPC error: no session, so no 2026-07-28 either.
    expect(await rpcError(client.connect(await V1.start()))).toEqual({
      code: -32000,
      message: 'The server did not accept server/discover at 2026-07-28: Bad Request: Server not initialized',
    });
  });
});

/** One case per SEP-1034 defaults rule and per validation rule. */
interface RuleCase {
  rule: string;
  requestedSchema: Record<string, unknown>;
  answer: ElicitResult;
  /** What the server receives. */
  received?: ElicitResult;
  /** What the client refuses with instead of sending content the server did not ask for. */
  violations?: { property: string; rule: string; message: string }[];
  /** What SDK v1 answers instead, when it checks what it received and fails on its own. */
  v1?: unknown;
}

const RULES: RuleCase[] = [
  {
    rule: 'defaults: the user input wins over a default',
    requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
    answer: { action: 'accept', content: { name: 'Grace' } },
    received: { action: 'accept', content: { name: 'Grace' } },
  },
  {
    rule: 'defaults: a default fills an absent key only, even when the value given is 0, "" or false',
    requestedSchema: {
      type: 'object',
      properties: {
        nights: { type: 'integer', default: 3 },
        note: { type: 'string', default: 'none' },
        breakfast: { type: 'boolean', default: true },
        city: { type: 'string', default: 'Lisbon' },
      },
    },
    answer: { action: 'accept', content: { nights: 0, note: '', breakfast: false } },
    received: { action: 'accept', content: { nights: 0, note: '', breakfast: false, city: 'Lisbon' } },
  },
  {
    rule: 'defaults: apply only on accept',
    requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' } } },
    answer: { action: 'decline' },
    received: { action: 'decline' },
  },
  {
    rule: 'defaults: a default whose type contradicts its schema is dropped',
    requestedSchema: { type: 'object', properties: { guests: { type: 'number', default: '2' }, city: { type: 'string', default: 'Porto' } } },
    answer: { action: 'accept', content: {} },
    received: { action: 'accept', content: { city: 'Porto' } },
  },
  {
    rule: 'defaults: an integer property takes a whole number (2), never 2.5',
    requestedSchema: { type: 'object', properties: { whole: { type: 'integer', default: 2 }, half: { type: 'integer', default: 2.5 } } },
    answer: { action: 'accept', content: {} },
    received: { action: 'accept', content: { whole: 2 } },
  },
  {
    rule: 'validation: an accept that breaks the schema is refused -32602 with each violation',
    requestedSchema: {
      type: 'object',
      properties: { email: { type: 'string', format: 'email' }, age: { type: 'integer', minimum: 18 } },
      required: ['email'],
    },
    answer: { action: 'accept', content: { email: 'not-an-email', age: 12 } },
    violations: [
      { property: 'email', rule: 'format', message: 'must match format "email"' },
      { property: 'age', rule: 'minimum', message: 'must be >= 18' },
    ],
  },
  {
    rule: 'validation: runs after the merge, so a required key that only its default fills passes',
    requestedSchema: { type: 'object', properties: { name: { type: 'string', default: 'Ada' }, email: { type: 'string' } }, required: ['name'] },
    answer: { action: 'accept', content: { email: 'ada@example.com' } },
    received: { action: 'accept', content: { email: 'ada@example.com', name: 'Ada' } },
  },
  {
    rule: 'validation: a schema ajv cannot compile skips validation',
    requestedSchema: { type: 'object', properties: { code: { type: 'string', pattern: '(' } } },
    answer: { action: 'accept', content: { code: 'X1' } },
    received: { action: 'accept', content: { code: 'X1' } },
    // SDK v1 compiles the schema to check the content it got, and fails on it: the content reached it unvalidated.
    v1: {
      error: { code: -32603, message: 'MCP error -32603: Error validating elicitation response: Invalid regular expression: /(/u: Unterminated group' },
    },
  },
  {
    rule: 'validation: a malformed schema (properties is no object) skips validation',
    requestedSchema: { type: 'object', properties: 'name' },
    answer: { action: 'accept', content: { name: 'Ada' } },
    received: { action: 'accept', content: { name: 'Ada' } },
    v1: { error: { code: -32603, message: 'MCP error -32603: Error validating elicitation response: properties value must be ["object"]' } },
  },
  {
    rule: 'validation: only an accept is validated (a decline of a form with required fields goes as it is)',
    requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    answer: { action: 'decline' },
    received: { action: 'decline' },
  },
];

describe.each([V1, V2])('the client side of elicitation against $name', (peer) => {
  it.each(RULES)('$rule', async ({ requestedSchema, answer, received, violations, v1 }) => {
    const { client, errors } = newClient();
    const asked: ElicitParams[] = [];
    client.onElicitation((params) => {
      asked.push(params);
      return answer;
    });
    await client.connect(await peer.start());
    const call = client.callTool('ask', { message: 'Tell us', requestedSchema });
    if (received) {
      expect(toolJson(await call)).toEqual(peer === V1 && v1 ? v1 : received);
    } else if (peer === V1) {
      // Pushed: the server gets the -32602 answer, and its elicitInput rejects with it.
      expect(toolJson(await call)).toEqual({
        error: {
          code: -32602,
          message: expect.stringContaining('The elicitation answer does not match requestedSchema: email must match format "email"; age must be >= 18'),
          data: { violations },
        },
      });
    } else {
      // An input round has no error answer: the call fails here, and nothing is sent.
      const failure = await call.then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(failure).toBeInstanceOf(McpError);
      expect(failure).toMatchObject({ code: -32602, data: { violations } });
    }
    expect(asked).toEqual([expect.objectContaining({ message: 'Tell us', requestedSchema })]);
    expect(errors).toEqual(received ? [] : [expect.objectContaining({ name: 'ElicitationValidationError' })]);
  });

  it('validateElicitation: false sends the content as the handler gave it', async () => {
    const { client } = newClient({ validateElicitation: false });
    client.onElicitation(() => ({ action: 'accept', content: { email: 'not-an-email' } }));
    await client.connect(await peer.start());
    const result = toolJson(await client.callTool('ask', { requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } } } }));
    if (peer === V1) {
      // SDK v1 validates what it receives, so the bad content reaches it and it refuses it itself.
      expect(result).toEqual({ error: { code: -32602, message: expect.stringContaining('does not match'), data: undefined } });
    } else {
      expect(result).toEqual({ action: 'accept', content: { email: 'not-an-email' } });
    }
  });

  it('URL mode: the handler sees the URL and the server gets the action', async () => {
    const { client, errors } = newClient();
    const asked: ElicitParams[] = [];
    const completed: unknown[] = [];
    client.onElicitation((params) => {
      asked.push(params);
      return { action: 'accept' };
    });
    client.on('elicitationComplete', (id, request) => void completed.push([id, request?.url]));
    await client.connect(await peer.start());
    const url = 'https://auth.example.com/connect?state=1';
    const result = await client.callTool('ask_url', { url, elicitationId: 'connect-1' });
    expect(toolJson(result)).toEqual({ action: 'accept' });
    if (peer === V1) {
      expect(asked).toEqual([{ mode: 'url', message: 'Connect your account', url, elicitationId: 'connect-1' }]);
      await expect.poll(() => completed).toEqual([['connect-1', url]]);
    } else {
      // 2026-07-28 URL mode has no elicitationId: the retry is what finishes it.
      expect(asked).toEqual([{ mode: 'url', message: 'Connect your account', url }]);
      expect(completed).toEqual([]);
    }
    expect(errors).toEqual([]);
  });

  it('sampling, roots and a confirmation in one call, through the same handlers', async () => {
    const { client, errors } = newClient();
    const contexts: unknown[] = [];
    client.on('samplingCreateMessage', (_params, ctx) => void contexts.push(['sampling', ctx.era, ctx.inputKey]));
    client.on('rootsList', (ctx) => void contexts.push(['roots', ctx.era, ctx.inputKey]));
    client.onElicitation((params, ctx) => {
      contexts.push(['elicitation', ctx.era, ctx.inputKey]);
      expect(params.message).toBe(`Book ${SAMPLED}?`);
      return { action: 'accept', content: {} };
    });
    await client.connect(await peer.start());
    const result = await client.callTool('plan', { city: 'Lisbon' });
    expect(toolJson(result)).toEqual({ idea: SAMPLED, roots: [ROOTS[0]!.uri], confirmed: { action: 'accept', content: { confirm: false } } });
    if (peer === V1) {
      expect(contexts).toEqual([
        ['sampling', 'legacy', undefined],
        ['roots', 'legacy', undefined],
        ['elicitation', 'legacy', undefined],
      ]);
    } else {
      expect(contexts).toEqual([
        ['sampling', 'modern', 'idea'],
        ['roots', 'modern', 'roots'],
        ['elicitation', 'modern', 'confirm'],
      ]);
    }
    expect(errors).toEqual([]);
  });
});

describe('StdioClientTransport: McpClient spawning an SDK v2 server', () => {
  const spawnV2 = () =>
    new StdioClientTransport({ command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/sdk-stdio-server.ts'], cwd: root, stderr: 'ignore' });

  it.each([
    ['auto', '2026-07-28', 'modern'],
    ['legacy', '2025-11-25', 'legacy'],
  ] as const)('era %s: %s, and the same handler asks for input in the %s way', async (era, protocolVersion, how) => {
    const { client, errors } = newClient({ era });
    const eras: string[] = [];
    client.onElicitation((_params, ctx) => {
      eras.push(ctx.era);
      return { action: 'accept', content: { confirm: true } };
    });
    await client.connect(spawnV2());
    expect(client.protocolVersion).toBe(protocolVersion);
    expect(client.serverInfo).toEqual({ name: 'sdk-v2-peer', version: '2.4.0' });
    expect((await client.callTool('echo', { text: 'over stdio' })).content).toEqual([{ type: 'text', text: 'over stdio' }]);
    expect(toolJson(await client.callTool('plan', { city: 'Porto' }))).toEqual({
      idea: SAMPLED,
      roots: [ROOTS[0]!.uri],
      confirmed: { action: 'accept', content: { confirm: true } },
    });
    expect(eras).toEqual([how]);
    await client.close();
    expect(errors).toEqual([]);
  });
});
