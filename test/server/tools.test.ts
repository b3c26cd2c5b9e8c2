import { afterEach, describe, expect, it, vi } from 'vitest';
import { ErrorCode, McpError, McpServer, UrlElicitationRequiredError, type ToolConfig } from '../../src/index.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

afterEach(() => {
  vi.restoreAllMocks();
});

const ADD_INPUT = {
  type: 'object',
  properties: { a: { type: 'number' }, b: { type: 'number' } },
  required: ['a', 'b'],
} as const satisfies ToolConfig['inputSchema'];
const SUM_OUTPUT = { type: 'object', properties: { sum: { type: 'number' } }, required: ['sum'] } as const satisfies ToolConfig['outputSchema'];

describe('tools/list', () => {
  it('lists every registered tool with its exact descriptor, defaulting inputSchema to an object with no properties', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      server.registerTool(
        'add',
        {
          title: 'Add',
          description: 'Adds two numbers',
          inputSchema: ADD_INPUT,
          outputSchema: SUM_OUTPUT,
          annotations: { readOnlyHint: true, idempotentHint: true },
          icons: [{ src: 'https://example.com/add.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'light' }],
          _meta: { 'com.example/owner': 'math' },
        },
        // A handler that could not meet its outputSchema: never called here.
        () => 'unused' as never,
      );
      server.registerTool('bare', {}, () => 'unused');
    });
    const { client } = await clients.connect(running);

    expect(await client.listTools()).toEqual({
      tools: [
        {
          name: 'add',
          title: 'Add',
          description: 'Adds two numbers',
          inputSchema: ADD_INPUT,
          outputSchema: SUM_OUTPUT,
          annotations: { readOnlyHint: true, idempotentHint: true },
          icons: [{ src: 'https://example.com/add.png', mimeType: 'image/png', sizes: ['48x48'], theme: 'light' }],
          _meta: { 'com.example/owner': 'math' },
        },
        { name: 'bare', inputSchema: { type: 'object', additionalProperties: false } },
      ],
    });
  });

  it('keeps the confirm option out of the descriptor', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('wipe', { description: 'Wipes', confirm: 'Really wipe?' }, () => 'wiped'));
    const { client } = await clients.connect(running);

    expect(await client.listTools()).toEqual({
      tools: [{ name: 'wipe', description: 'Wipes', inputSchema: { type: 'object', additionalProperties: false } }],
    });
  });

  it('answers an empty tools array when nothing is registered', async () => {
    const { client } = await clients.connect(await startWebSocket(cleanups));

    expect(await client.listTools()).toEqual({ tools: [] });
  });
});

describe('tools/list pagination', () => {
  const names = ['t1', 't2', 't3', 't4', 't5'];
  const descriptor = (name: string) => ({ name, inputSchema: { type: 'object', additionalProperties: false } });

  function startPaged() {
    return startWebSocket(
      cleanups,
      (server) => {
        for (const name of names) server.registerTool(name, {}, () => name);
      },
      { server: { pageSize: 2 } },
    );
  }

  it('returns pages of pageSize with a nextCursor, and following the cursors yields every tool in registration order', async () => {
    const { client } = await clients.connect(await startPaged());

    const first = await client.listTools();
    expect(first.tools).toEqual(names.slice(0, 2).map(descriptor));
    expect(typeof first.nextCursor).toBe('string');

    const second = await client.listTools(first.nextCursor);
    expect(second.tools).toEqual(names.slice(2, 4).map(descriptor));
    expect(typeof second.nextCursor).toBe('string');
    expect(second.nextCursor).not.toBe(first.nextCursor);

    const last = await client.listTools(second.nextCursor);
    expect(last).toEqual({ tools: [descriptor('t5')] });
    expect('nextCursor' in last).toBe(false);
  });

  it('gives no nextCursor on a last page that is exactly full', async () => {
    const running = await startWebSocket(
      cleanups,
      (server) => {
        for (const name of names.slice(0, 4)) server.registerTool(name, {}, () => name);
      },
      { server: { pageSize: 2 } },
    );
    const { client } = await clients.connect(running);

    const first = await client.listTools();
    const second = await client.listTools(first.nextCursor);

    expect(second).toEqual({ tools: names.slice(2, 4).map(descriptor) });
  });

  it('answers -32602 for a cursor it did not issue', async () => {
    const { client } = await clients.connect(await startPaged());

    expect(await rpcError(client.listTools('garbage'))).toEqual({
      code: -32602,
      message: 'Invalid cursor: "garbage"; pass back a nextCursor from an earlier page',
    });
  });

  // A cursor that is no string is malformed input McpClient never sends: raw peer.
  it('answers -32602 for a cursor that is not a string', async () => {
    const { url } = await startPaged();
    const client = await h.ready(url);

    const reply = await client.request('tools/list', { cursor: 2 });
    expect(reply.error.code).toBe(-32602);
    expect(reply.result).toBeUndefined();
  });
});

describe('tools/call results', () => {
  it('turns a string return into a single text block', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('hello', {}, () => 'hello world'));
    const { client } = await clients.connect(running);

    expect(await client.callTool('hello')).toEqual({ content: [{ type: 'text', text: 'hello world' }] });
  });

  it('passes the validated arguments and a request context to the handler', async () => {
    const seen: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('add', { inputSchema: ADD_INPUT }, (args, ctx) => {
        seen.push(args, ctx.method, ctx.requestId);
        return String((args.a as number) + (args.b as number));
      }),
    );
    const { client } = await clients.connect(running);
    // The id the tools/call came in with, as the server read it: ctx.requestId must be that id.
    const calls: { id?: unknown; method?: unknown }[] = [];
    running.server.on('message', (_session, direction, message) => {
      const m = message as { id?: unknown; method?: unknown };
      if (direction === 'in' && m.method === 'tools/call') calls.push(m);
    });

    expect(await client.callTool('add', { a: 2, b: 3 })).toEqual({ content: [{ type: 'text', text: '5' }] });
    expect(calls).toHaveLength(1);
    expect(seen).toEqual([{ a: 2, b: 3 }, 'tools/call', calls[0].id]);
  });

  it('passes a returned CallToolResult through unchanged', async () => {
    const result = {
      content: [
        { type: 'text', text: 'a picture' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      ],
      structuredContent: { seen: true },
      _meta: { 'com.example/trace': 'abc' },
    } as const;
    const running = await startWebSocket(cleanups, (server) => server.registerTool('pic', {}, () => structuredClone(result) as never));
    const { client } = await clients.connect(running);

    expect(await client.callTool('pic', {})).toEqual(result);
  });

  it('adds content: [] to a result without content, and a JSON text block when it has structuredContent', async () => {
    const running = await startWebSocket(cleanups, (server) => {
      server.registerTool('flag', {}, () => ({ isError: true }) as never);
      server.registerTool('data', {}, () => ({ structuredContent: { n: 1 } }) as never);
    });
    const { client } = await clients.connect(running);

    expect(await client.callTool('flag')).toEqual({ content: [], isError: true });
    expect(await client.callTool('data')).toEqual({
      content: [{ type: 'text', text: '{"n":1}' }],
      structuredContent: { n: 1 },
    });
  });

  it('answers -32603 naming the tool when the handler returns neither a string nor an object', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('nothing', {}, () => null as never));
    const { client } = await clients.connect(running);

    expect(await rpcError(client.callTool('nothing'))).toEqual({ code: -32603, message: 'Tool nothing returned null; return a CallToolResult or a string' });
  });

  it('answers invalid arguments with an isError result naming the tool, not a JSON-RPC error', async () => {
    let called = false;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('add', { inputSchema: ADD_INPUT }, () => {
        called = true;
        return 'never';
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('add', { a: 'one' })).toEqual({
      content: [{ type: 'text', text: "Invalid arguments for tool add: /b: must have required property 'b'; /a: must be number" }],
      isError: true,
    });
    expect(called).toBe(false);
  });

  it('rejects any argument to a tool registered without an inputSchema (additionalProperties: false)', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('bare', {}, () => 'ran'));
    const { client } = await clients.connect(running);

    expect(await client.callTool('bare', { extra: 1 })).toEqual({
      content: [{ type: 'text', text: 'Invalid arguments for tool bare: (root): must NOT have additional properties' }],
      isError: true,
    });
  });

  it('answers -32602 "Unknown tool: x" for a tool that is not registered', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('known', {}, () => 'ok'));
    const { client } = await clients.connect(running);

    expect(await rpcError(client.callTool('x', {}))).toEqual({ code: -32602, message: 'Unknown tool: x' });
  });

  // arguments that are no object are malformed input McpClient never sends: raw peer.
  it.each([
    ['an array', [1, 2]],
    ['a string', 'a=1'],
    ['a number', 5],
  ])('answers -32602 when arguments is %s instead of an object', async (_what, args) => {
    const { url } = await startWebSocket(cleanups, (server) => server.registerTool('t', {}, () => 'ok'));
    const client = await h.ready(url);

    expect(await client.request('tools/call', { name: 't', arguments: args }, 'a')).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32602, message: 'tools/call params.arguments must be an object' },
    });
  });

  // A tools/call without a name is malformed input McpClient never sends: raw peer.
  it('answers -32602 when params.name is missing', async () => {
    const { url } = await startWebSocket(cleanups);
    const client = await h.ready(url);

    expect(await client.request('tools/call', { arguments: {} }, 'n')).toEqual({
      jsonrpc: '2.0',
      id: 'n',
      error: { code: -32602, message: 'tools/call needs params.name as a string' },
    });
  });

  it('turns an Error thrown by the handler into an isError result carrying its message', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('fail', {}, () => {
        throw new Error('the database is down');
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('fail')).toEqual({ content: [{ type: 'text', text: 'the database is down' }], isError: true });
  });

  it('turns a rejected promise from an async handler into an isError result', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('fail', {}, async () => {
        await Promise.resolve();
        throw new Error('async failure');
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('fail')).toEqual({
      content: [{ type: 'text', text: 'async failure' }],
      isError: true,
    });
  });

  it('turns a thrown non-Error value into an isError result with its text', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('fail', {}, () => {
        throw 'plain string failure';
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('fail')).toEqual({
      content: [{ type: 'text', text: 'plain string failure' }],
      isError: true,
    });
  });

  // SEP-1303: every thrown error is an isError result, McpError included; only -32042 travels as a JSON-RPC error.
  it('turns an McpError thrown by the handler into an isError result with its message', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('deny', {}, () => {
        throw new McpError(ErrorCode.InvalidParams, 'wrong account', { account: 42 });
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('deny')).toEqual({ content: [{ type: 'text', text: 'wrong account' }], isError: true });
  });

  it('answers a UrlElicitationRequiredError thrown by the handler as the -32042 JSON-RPC error', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('connect', {}, () => {
        throw new UrlElicitationRequiredError([{ message: 'Sign in first', url: 'https://example.com/login', elicitationId: 'el-1' }]);
      }),
    );
    const { client } = await clients.connect(running);

    expect(await rpcError(client.callTool('connect'))).toEqual({
      code: -32042,
      message: 'This request requires more information: complete the linked page(s), then retry.',
      data: { elicitations: [{ mode: 'url', message: 'Sign in first', url: 'https://example.com/login', elicitationId: 'el-1' }] },
    });
  });
});

describe('tools/call outputSchema', () => {
  it('passes structuredContent that matches and adds its JSON as a text block when content is empty', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => ({ content: [], structuredContent: { sum: 5 } })),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('sum')).toEqual({ content: [{ type: 'text', text: '{"sum":5}' }], structuredContent: { sum: 5 } });
  });

  it('keeps the handler content when structuredContent matches and content is not empty', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => ({ content: [{ type: 'text', text: '2 + 3 = 5' }], structuredContent: { sum: 5 } })),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('sum')).toEqual({
      content: [{ type: 'text', text: '2 + 3 = 5' }],
      structuredContent: { sum: 5 },
    });
  });

  it('answers -32603 naming the tool when structuredContent does not match the outputSchema', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => ({ content: [], structuredContent: { sum: 'five' } }) as never),
    );
    const { client } = await clients.connect(running);

    expect(await rpcError(client.callTool('sum'))).toEqual({
      code: -32603,
      message: 'Tool sum returned structuredContent that does not match its outputSchema: /sum: must be number',
    });
  });

  it('answers -32603 naming the tool when structuredContent is missing', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => 'just text' as never));
    const { client } = await clients.connect(running);

    expect(await rpcError(client.callTool('sum'))).toEqual({
      code: -32603,
      message: 'Tool sum returned structuredContent that does not match its outputSchema: (root): structuredContent is missing',
    });
  });

  it('does not validate the output of an isError result', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => ({ content: [{ type: 'text', text: 'overflow' }], isError: true })),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('sum')).toEqual({ content: [{ type: 'text', text: 'overflow' }], isError: true });
  });

  it('does not validate the output when the handler throws', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('sum', { outputSchema: SUM_OUTPUT }, () => {
        throw new Error('cannot add');
      }),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('sum')).toEqual({
      content: [{ type: 'text', text: 'cannot add' }],
      isError: true,
    });
  });
});

describe('tool registration', () => {
  const server = () => new McpServer({ name: 'reg', version: '1.0.0' });

  it.each(['', 'has space', 'semi;colon', 'x'.repeat(129), 'ünïcode'])('throws a TypeError for the invalid name %j', (name) => {
    expect(() => server().registerTool(name, {}, () => 'x')).toThrow(
      new TypeError(`Tool name '${name}' is invalid: use 1 to 128 of A-Z a-z 0-9 _ . - / (SEP-986)`),
    );
  });

  it('accepts a name of 128 allowed characters', () => {
    expect(() => server().registerTool('a'.repeat(128), {}, () => 'x')).not.toThrow();
  });

  it('throws a TypeError when inputSchema is not of type object', () => {
    const config = { inputSchema: { type: 'string' } } as unknown as ToolConfig;
    expect(() => server().registerTool('t', config, () => 'x')).toThrow(new TypeError(`Tool 't': inputSchema must have type "object"`));
  });

  it('throws a TypeError when outputSchema is not of type object', () => {
    const config = { outputSchema: { type: 'array' } } as unknown as ToolConfig;
    expect(() => server().registerTool('t', config, () => 'x')).toThrow(new TypeError(`Tool 't': outputSchema must have type "object"`));
  });

  it('throws a TypeError when inputSchema is not valid JSON Schema', () => {
    const config: ToolConfig = { inputSchema: { type: 'object', properties: { a: { type: 'nonsense' } } } };
    expect(() => server().registerTool('t', config, () => 'x')).toThrow(TypeError);
    expect(() => server().registerTool('t', config, () => 'x')).toThrow(/^Tool 't': inputSchema is not a valid JSON Schema: /);
  });

  it('throws a TypeError when outputSchema is not valid JSON Schema', () => {
    const config = { outputSchema: { type: 'object', required: 'sum' } } as unknown as ToolConfig;
    expect(() => server().registerTool('t', config, () => 'x')).toThrow(/^Tool 't': outputSchema is not a valid JSON Schema: /);
  });

  it('throws when the handler is not a function', () => {
    expect(() => server().registerTool('t', {}, undefined as never)).toThrow(new TypeError(`Tool 't' needs a handler function`));
  });

  it('throws for a duplicate name and keeps the first registration', async () => {
    const running = await startWebSocket(cleanups, (s) => s.registerTool('dup', {}, () => 'first'));
    expect(() => running.server.registerTool('dup', {}, () => 'second')).toThrow(
      new Error(`Tool 'dup' is already registered; remove it before registering it again`),
    );
    const { client } = await clients.connect(running);

    expect(await client.callTool('dup')).toEqual({ content: [{ type: 'text', text: 'first' }] });
  });

  it('makes the tool unknown after Registration.remove(), and a second remove() does nothing', async () => {
    let registration: ReturnType<McpServer['registerTool']> | undefined;
    const running = await startWebSocket(cleanups, (s) => {
      registration = s.registerTool('gone', {}, () => 'here');
      s.registerTool('stays', {}, () => 'here');
    });
    const { client } = await clients.connect(running);
    expect(await client.callTool('gone')).toEqual({ content: [{ type: 'text', text: 'here' }] });

    registration!.remove();
    registration!.remove();

    expect(await rpcError(client.callTool('gone'))).toEqual({ code: -32602, message: 'Unknown tool: gone' });
    expect(await client.listTools()).toEqual({
      tools: [{ name: 'stays', inputSchema: { type: 'object', additionalProperties: false } }],
    });
    // The name is free again.
    expect(() => running.server.registerTool('gone', {}, () => 'back')).not.toThrow();
  });

  it('does not let a stale Registration remove a later tool of the same name', async () => {
    const running = await startWebSocket(cleanups);
    const old = running.server.registerTool('t', {}, () => 'old');
    old.remove();
    running.server.registerTool('t', {}, () => 'new');
    old.remove();
    const { client } = await clients.connect(running);

    expect(await client.callTool('t')).toEqual({ content: [{ type: 'text', text: 'new' }] });
  });

  it('compiles the schemas once at registration and never while calling', async () => {
    const compile = vi.spyOn(SchemaCompiler.prototype, 'compile');
    const running = await startWebSocket(cleanups, (s) =>
      s.registerTool('add', { inputSchema: ADD_INPUT, outputSchema: SUM_OUTPUT }, ({ a, b }) => ({
        content: [],
        structuredContent: { sum: (a as number) + (b as number) },
      })),
    );
    expect(compile).toHaveBeenCalledTimes(2);
    expect(compile.mock.calls).toEqual([[ADD_INPUT], [SUM_OUTPUT]]);
    const { client } = await clients.connect(running);

    for (let i = 0; i < 3; i++) {
      expect(await client.callTool('add', { a: i, b: 1 })).toEqual({
        content: [{ type: 'text', text: JSON.stringify({ sum: i + 1 }) }],
        structuredContent: { sum: i + 1 },
      });
    }
    expect((await client.callTool('add', { a: 'x' })).isError).toBe(true);

    expect(compile).toHaveBeenCalledTimes(2);
  });
});
