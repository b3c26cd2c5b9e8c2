/** StdioTransport: the demo as a real child process, and the transport in-process on PassThrough streams. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { McpServer, type McpSession, StdioTransport, type McpServerEvents } from '../../../src/index.js';
import { nextEvent } from '../../helpers/server-events.js';
import { StdioTestClient } from '../../helpers/stdio-client.js';
import { parseErrorMessage } from '../../helpers/parse-error.js';
import { tick } from '../../helpers/deferred.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { type RunningStdio, type Setup, startStdio, TEST_SERVER_INFO } from '../../helpers/servers.js';
import type { Json } from '../../helpers/ws-client.js';

const cleanups = useCleanups();

const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stdio-test', version: '1.0.0' } };

const DEMO_INIT_RESULT = {
  protocolVersion: '2025-11-25',
  capabilities: {
    logging: {},
    completions: {},
    prompts: { listChanged: true },
    resources: { subscribe: true, listChanged: true },
    tools: { listChanged: true },
  },
  serverInfo: { name: 'switchboard-demo', version: '0.1.0' },
};

const DEMO_TOOLS = [
  {
    name: 'echo',
    title: 'Echo',
    description: 'Repeats the text it is given.',
    inputSchema: { type: 'object', properties: { text: { type: 'string', description: 'What to repeat' } }, required: ['text'] },
    annotations: { readOnlyHint: true },
  },
  {
    name: 'add',
    title: 'Add two numbers',
    description: 'Adds a and b, and returns the sum as structured content.',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    outputSchema: { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] },
    annotations: { readOnlyHint: true, idempotentHint: true },
  },
  {
    name: 'count_slowly',
    title: 'Count slowly',
    description: 'Counts to n, one step every 100 ms, reporting progress. Cancel it to stop early.',
    inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 1, maximum: 100 } }, required: ['n'] },
  },
  {
    name: 'write_note',
    title: 'Write a note',
    description: 'Writes a note; subscribers of demo://notes/{id} are told it changed.',
    inputSchema: { type: 'object', properties: { id: { type: 'string' }, text: { type: 'string' } }, required: ['id', 'text'] },
    annotations: { destructiveHint: false },
  },
];

describe('the demo over stdio (child process)', () => {
  function spawnDemo(): StdioTestClient {
    const client = StdioTestClient.spawn('demo/stdio.ts');
    cleanups.push(async () => {
      if (client.child.exitCode === null && client.child.signalCode === null) {
        client.child.kill('SIGKILL');
        await client.exited;
      }
    });
    return client;
  }

  async function initialized(): Promise<StdioTestClient> {
    const client = spawnDemo();
    expect(await client.request('initialize', INIT_PARAMS, 0)).toEqual({ jsonrpc: '2.0', id: 0, result: DEMO_INIT_RESULT });
    client.notify('notifications/initialized');
    return client;
  }

  it('initializes, lists the demo tools, calls echo and reads demo://readme', async () => {
    const client = await initialized();
    const list = await client.request('tools/list', undefined, 1);
    expect(Object.keys(list)).toEqual(['jsonrpc', 'id', 'result']);
    expect(list).toMatchObject({ jsonrpc: '2.0', id: 1 });
    // The demo's catalog grows; these four tools must be there, exactly as declared, in this order.
    const names = DEMO_TOOLS.map((tool) => tool.name);
    expect((list.result.tools as Json[]).filter((tool) => names.includes(tool.name))).toEqual(DEMO_TOOLS);
    expect(list.result.nextCursor).toBeUndefined();
    expect(await client.request('tools/call', { name: 'echo', arguments: { text: 'over stdio ✓' } }, 2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      result: { content: [{ type: 'text', text: 'over stdio ✓' }] },
    });
    expect(await client.request('resources/read', { uri: 'demo://readme' }, 3)).toEqual({
      jsonrpc: '2.0',
      id: 3,
      result: {
        contents: [
          {
            uri: 'demo://readme',
            mimeType: 'text/markdown',
            text: expect.stringMatching(
              /^# Switchboard demo\n\nTools: echo, add, count_slowly, write_note[.,].*Resources: demo:\/\/readme, demo:\/\/pixel, demo:\/\/notes\/\{id\}\.\n$/,
            ),
          },
        ],
      },
    });
    expect(client.received).toEqual([]);
    expect(client.strayStdout).toEqual([]);
  });

  it('answers a malformed JSON line with -32700 and keeps the session', async () => {
    const client = await initialized();
    const line = '{"jsonrpc":"2.0","id":1,"method":"ping"';
    const error = client.waitFor((m) => m.id === null);
    client.sendLine(line);
    expect(await error).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `Parse error: ${parseErrorMessage(line)}` } });
    expect(await client.request('ping', undefined, 2)).toEqual({ jsonrpc: '2.0', id: 2, result: {} });
    expect(client.received).toEqual([]);
  });

  it('ignores blank lines', async () => {
    const client = await initialized();
    client.child.stdin.write('\n\n   \n\t\n\r\n');
    expect(await client.request('ping', undefined, 'after-blanks')).toEqual({ jsonrpc: '2.0', id: 'after-blanks', result: {} });
    expect(client.received).toEqual([]);
    expect(client.strayStdout).toEqual([]);
  });

  it('accepts CRLF line endings', async () => {
    const client = spawnDemo();
    const init = client.waitFor((m) => m.id === 'crlf-init');
    client.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'crlf-init', method: 'initialize', params: INIT_PARAMS })}\r\n`);
    expect(await init).toEqual({ jsonrpc: '2.0', id: 'crlf-init', result: DEMO_INIT_RESULT });
    client.child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\r\n`);
    const echo = client.waitFor((m) => m.id === 'crlf-echo');
    client.child.stdin.write(
      `${JSON.stringify({ jsonrpc: '2.0', id: 'crlf-echo', method: 'tools/call', params: { name: 'echo', arguments: { text: 'crlf' } } })}\r\n`,
    );
    expect(await echo).toEqual({ jsonrpc: '2.0', id: 'crlf-echo', result: { content: [{ type: 'text', text: 'crlf' }] } });
    expect(client.received).toEqual([]);
  });

  it('writes only JSON to stdout, and its logs to stderr', async () => {
    const client = await initialized();
    expect(await client.request('tools/call', { name: 'write_note', arguments: { id: 'n1', text: 'hello' } }, 1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      result: { content: [{ type: 'text', text: 'note n1 saved' }] },
    });
    // The tool's ctx.log went to the client as an MCP notification, not as a stdout text line.
    expect(client.received).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'note n1 created', logger: 'notes' } }]);
    const exit = await client.end();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(client.stderr).toContain('switchboard demo on stdio');
    expect(client.strayStdout).toEqual([]);
  });

  it('exits with code 0 when stdin closes', async () => {
    const client = await initialized();
    expect(await client.request('ping', undefined, 1)).toEqual({ jsonrpc: '2.0', id: 1, result: {} });
    expect(await client.end()).toEqual({ code: 0, signal: null });
  });
});

/** A started server with an echo tool on in-process streams, and whatever `setup` adds before it starts. */
function inProcess(options: { maxMessageBytes?: number } = {}, setup: Setup = () => {}): RunningStdio {
  return startStdio(
    cleanups,
    (server) => {
      server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) =>
        String(text),
      );
      setup(server);
    },
    { transport: options },
  );
}

describe('StdioTransport in-process', () => {
  it('start() returns a stdio session and emits connect', async () => {
    const connects: McpSession[] = [];
    const io = inProcess({}, (server) => server.on('connect', (session) => void connects.push(session)));
    expect(io.session.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(io.session.transport).toBe('stdio');
    expect(connects).toEqual([io.session]);
    io.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    expect(await io.awaitLines(1)).toEqual([{ jsonrpc: '2.0', id: 1, result: {} }]);
  });

  it('discards a line longer than maxMessageBytes with a -32600 error, and handles the next line', async () => {
    const io = inProcess({ maxMessageBytes: 200 });
    const long = JSON.stringify({ jsonrpc: '2.0', id: 'long', method: 'ping', params: { _meta: { pad: 'x'.repeat(300) } } });
    io.input.write(`${long}\n${JSON.stringify({ jsonrpc: '2.0', id: 'next', method: 'ping' })}\n`);
    expect(await io.awaitLines(2)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: message longer than maxMessageBytes (200 bytes); it was discarded' } },
      { jsonrpc: '2.0', id: 'next', result: {} },
    ]);
    expect(io.server.stats.invalidMessages).toBe(1);
  });

  it('discards a too-long line that arrives in several chunks with one error, and handles the line after it', async () => {
    const io = inProcess({ maxMessageBytes: 100 });
    io.input.write('{"jsonrpc":"2.0","id":"long","method":"ping","params":{"pad":"');
    io.input.write('y'.repeat(80));
    io.input.write('y'.repeat(80));
    io.input.write(`"}}\n${JSON.stringify({ jsonrpc: '2.0', id: 'next', method: 'ping' })}\n`);
    io.send({ jsonrpc: '2.0', id: 'last', method: 'ping' });
    expect(await io.awaitLines(3)).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request: message longer than maxMessageBytes (100 bytes); it was discarded' } },
      { jsonrpc: '2.0', id: 'next', result: {} },
      { jsonrpc: '2.0', id: 'last', result: {} },
    ]);
  });

  it('accepts a line of exactly maxMessageBytes', async () => {
    const message = { jsonrpc: '2.0', id: 'exact', method: 'ping', params: { _meta: { pad: '' } } };
    message.params._meta.pad = 'z'.repeat(120 - JSON.stringify(message).length);
    expect(JSON.stringify(message).length).toBe(120);
    const io = inProcess({ maxMessageBytes: 120 });
    io.send(message);
    expect(await io.awaitLines(1)).toEqual([{ jsonrpc: '2.0', id: 'exact', result: {} }]);
  });

  it('does not count the CR of a CRLF line ending against maxMessageBytes', async () => {
    const message = { jsonrpc: '2.0', id: 'crlf', method: 'ping', params: { _meta: { pad: '' } } };
    message.params._meta.pad = 'z'.repeat(120 - JSON.stringify(message).length);
    const io = inProcess({ maxMessageBytes: 120 });
    io.input.write(`${JSON.stringify(message)}\r\n`);
    expect(await io.awaitLines(1)).toEqual([{ jsonrpc: '2.0', id: 'crlf', result: {} }]);
  });

  it('reassembles a message split across several chunks, including inside a multi-byte character', async () => {
    const io = inProcess();
    io.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await io.awaitLines(1);
    io.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const bytes = Buffer.from(
      `${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'héllo €uro' } } })}\n`,
    );
    const euro = bytes.indexOf(Buffer.from('€'));
    const cuts = [7, 30, euro + 1, euro + 2, bytes.length - 1];
    let from = 0;
    for (const cut of cuts) {
      io.input.write(bytes.subarray(from, cut));
      await tick();
      from = cut;
    }
    expect(io.lines).toHaveLength(1);
    io.input.write(bytes.subarray(from));
    expect((await io.awaitLines(2))[1]).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'héllo €uro' }] } });
  });

  it('handles every message when several arrive in one chunk', async () => {
    const io = inProcess();
    io.input.write(
      [
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 2, method: 'ping' },
        { jsonrpc: '2.0', id: 3, method: 'tools/list' },
      ]
        .map((m) => `${JSON.stringify(m)}\n`)
        .join(''),
    );
    const lines = await io.awaitLines(3);
    expect([...lines].sort((a, b) => a.id - b.id)).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', id: 2, result: {} },
      { jsonrpc: '2.0', id: 3, error: { code: -32600, message: 'Invalid Request: tools/list before initialize; send initialize first' } },
    ]);
  });

  it('throws when start() is called twice', () => {
    const io = inProcess();
    expect(() => io.transport.start()).toThrow(new Error('StdioTransport is already started; a process has one stdin'));
  });

  it('rejects an invalid maxMessageBytes at construction', () => {
    const server = new McpServer({ name: 'x', version: '1' });
    expect(() => new StdioTransport(server, { input: new PassThrough(), output: new PassThrough(), maxMessageBytes: 0 })).toThrow(
      new TypeError('Option maxMessageBytes must be a positive integer; got 0'),
    );
  });

  it('the end of input fires sessionEnd and disconnect with "stdin closed" for an initialized session', async () => {
    const io = inProcess();
    const { session } = io;
    const ended: McpServerEvents['sessionEnd'][] = [];
    io.server.on('sessionEnd', (s: McpSession, reason: string) => void ended.push([s, reason]));
    io.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    expect(await io.awaitLines(1)).toEqual([
      {
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: '2025-11-25', capabilities: expect.any(Object), serverInfo: TEST_SERVER_INFO },
      },
    ]);
    io.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const disconnected = nextEvent<McpServerEvents['disconnect']>(io.server, 'disconnect');
    io.input.end();
    expect(await disconnected).toEqual([session, 'stdin closed']);
    expect(ended).toEqual([[session, 'stdin closed']]);
    expect(session.state).toBe('closed');
    expect(io.server.sessions.size).toBe(0);
  });

  it('the end of input fires only disconnect for a session that never initialized', async () => {
    const io = inProcess();
    const { session } = io;
    const ended: unknown[] = [];
    io.server.on('sessionEnd', (...args) => void ended.push(args));
    const disconnected = nextEvent<McpServerEvents['disconnect']>(io.server, 'disconnect');
    io.input.end();
    expect(await disconnected).toEqual([session, 'stdin closed']);
    expect(ended).toEqual([]);
  });

  it('server.close() ends the stdio session with "server closed" and stops reading input', async () => {
    const io = inProcess();
    const { session } = io;
    io.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await io.awaitLines(1);
    const ended = nextEvent<McpServerEvents['sessionEnd']>(io.server, 'sessionEnd');
    await io.server.close();
    expect(await ended).toEqual([session, 'server closed']);
    const received: unknown[] = [];
    io.server.on('message', (...args) => void received.push(args));
    io.send({ jsonrpc: '2.0', id: 1, method: 'ping' });
    await tick();
    expect(received).toEqual([]);
    expect(io.lines).toHaveLength(1);
  });
});
