/**
 * McpClient against Switchboard's own server, over real sockets on 127.0.0.1: era negotiation, calls,
 * progress, timeouts and cancellation, and the handlers answering what the server asks in either era:
 * a pushed request (legacy) or an input_required result (2026-07-28), with the same handler code.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import {
  ConnectionClosedError,
  type ElicitResult,
  inputRequired,
  McpClient,
  type McpClientOptions,
  McpError,
  type McpServer,
  type McpServerOptions,
  type McpSession,
  RequestCancelledError,
  RequestTimeoutError,
} from '../../src/index.js';
import { useCleanups } from '../helpers/cleanups.js';
import { deferred } from '../helpers/deferred.js';
import { startHttpAndWebSocket, TEST_SERVER_INFO } from '../helpers/servers.js';

const cleanups = useCleanups();

/** One McpServer on 127.0.0.1, reachable over Streamable HTTP and WebSocket on the same port. */
async function serve(setup: (server: McpServer) => void, options: McpServerOptions = {}) {
  const running = await startHttpAndWebSocket(cleanups, setup, { info: { ...TEST_SERVER_INFO, instructions: 'be kind' }, server: options });
  return { server: running.server, http: running.url, ws: running.wsUrl };
}

function client(options: McpClientOptions = {}): McpClient {
  const made = new McpClient({ name: 'test-client', version: '2.0.0' }, options);
  made.on('error', () => {});
  cleanups.push(() => made.close());
  return made;
}

const FORM = {
  message: 'Who are you?',
  requestedSchema: {
    type: 'object' as const,
    properties: {
      name: { type: 'string' as const },
      plan: { type: 'string' as const, enum: ['free', 'pro'], default: 'free' },
      seats: { type: 'integer' as const, default: 2 },
    },
    required: ['name', 'plan'],
  },
};

/** A tool that asks who is calling, and says what it was told: the same handler code in both eras. */
function whoami(server: McpServer): void {
  server.registerTool('whoami', {}, async (_args, ctx) => {
    const answer = await ctx.elicit(FORM);
    return JSON.stringify(answer);
  });
}

/** A tool `hang` that calls `started` and runs until it is cancelled. */
function hang(server: McpServer, started: () => void): void {
  server.registerTool('hang', {}, (_args, ctx) => {
    started();
    return new Promise((_resolve, reject) => ctx.signal.addEventListener('abort', () => reject(ctx.signal.reason)));
  });
}

const TRANSPORTS = ['ws', 'http'] as const;
const ERAS = ['legacy', 'modern'] as const;
const EACH = TRANSPORTS.flatMap((transport) => ERAS.map((era) => ({ transport, era })));

describe('connect', () => {
  it.each(TRANSPORTS)("with era 'auto' speaks 2026-07-28 to a dual-era server over %s, from its server/discover", async (transport) => {
    const urls = await serve(() => {});
    const c = client();
    await c.connect(urls[transport]);
    expect({ era: c.era, version: c.protocolVersion, info: c.serverInfo, instructions: c.instructions, connected: c.connected }).toEqual({
      era: 'modern',
      version: '2026-07-28',
      info: { name: 'test-server', version: '1.0.0' },
      instructions: 'be kind',
      connected: true,
    });
    expect(c.serverCapabilities).toMatchObject({ tools: { listChanged: true } });
  });

  it.each(TRANSPORTS)("with era 'legacy' initializes over %s, declaring the capabilities its handlers give", async (transport) => {
    const urls = await serve(() => {});
    const sessions: McpSession[] = [];
    urls.server.on('sessionNew', (session) => void sessions.push(session));
    const c = client({ era: 'legacy' });
    c.onElicitation(() => ({ action: 'decline' })).onRoots(() => ({ roots: [] }));
    await c.connect(urls[transport]);
    expect({ era: c.era, version: c.protocolVersion, info: c.serverInfo }).toEqual({
      era: 'legacy',
      version: '2025-11-25',
      info: { name: 'test-server', version: '1.0.0' },
    });
    expect(sessions).toHaveLength(1);
    expect(sessions[0].clientInfo).toEqual({ name: 'test-client', version: '2.0.0' });
    expect(sessions[0].clientCapabilities).toEqual({ elicitation: { form: {} }, roots: { listChanged: true } });
  });

  it.each(TRANSPORTS)("with era 'auto' falls back to initialize when the server speaks only the legacy era (%s)", async (transport) => {
    const urls = await serve(() => {}, { eras: 'legacy' });
    const c = client();
    await c.connect(urls[transport]);
    expect({ era: c.era, version: c.protocolVersion }).toEqual({ era: 'legacy', version: '2025-11-25' });
  });

  it.each(TRANSPORTS)("with era 'modern' fails against a legacy-only server (%s), saying server/discover was refused", async (transport) => {
    const urls = await serve(() => {}, { eras: 'legacy' });
    const c = client({ era: 'modern' });
    const failure = await c.connect(urls[transport]).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failure).toBeInstanceOf(Error);
    expect(failure!.message).toMatch(/server\/discover/);
    expect(c.connected).toBe(false);
  });

  it('may be called once', async () => {
    const urls = await serve(() => {});
    const c = client();
    await c.connect(urls.ws);
    await expect(c.connect(urls.ws)).rejects.toThrow('McpClient.connect may be called once; create another McpClient to connect again');
  });

  it('refuses a URL that is neither http(s) nor ws(s)', async () => {
    await expect(client().connect('ftp://127.0.0.1/mcp')).rejects.toThrow(
      'McpClient.connect takes an http(s) or ws(s) URL, or a transport (new StdioClientTransport({ command }) spawns a server); got ftp:',
    );
  });

  it('throws a TypeError naming what is missing for bad client info or options', () => {
    expect(() => new McpClient({ name: 'x' } as never)).toThrow(
      'McpClient needs client info with a name and a version, e.g. new McpClient({ name: "my-app", version: "1.0.0" })',
    );
    expect(() => new McpClient({ name: 'x', version: '1' }, { era: 'new' as never })).toThrow('McpClient option era must be auto, legacy or modern; got "new"');
    expect(() => new McpClient({ name: 'x', version: '1' }, { maxRounds: 0 })).toThrow('Option maxRounds must be a positive integer; got 0');
  });
});

describe.each(EACH)('calls over $transport on the $era era', ({ transport, era }) => {
  async function connected(setup: (server: McpServer) => void, options: McpClientOptions = {}) {
    const urls = await serve(setup);
    const c = client({ era, ...options });
    return { c, urls };
  }

  it('lists and calls tools', async () => {
    const { c, urls } = await connected((server) => {
      server.registerTool('add', { inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } } }, ({ a, b }) =>
        String((a as number) + (b as number)),
      );
    });
    await c.connect(urls[transport]);
    const { tools } = await c.listTools();
    expect(tools.map((t) => t.name)).toEqual(['add']);
    const result = await c.callTool('add', { a: 2, b: 3 });
    expect(result.content).toEqual([{ type: 'text', text: '5' }]);
  });

  it('answers an elicitation through onElicitation, with SEP-1034 defaults merged, and the tool gets the answer', async () => {
    const { c, urls } = await connected(whoami);
    const asked: unknown[] = [];
    c.onElicitation((params, ctx) => {
      asked.push({ params, era: ctx.era });
      return { action: 'accept', content: { name: 'Ada' } };
    });
    const created: unknown[] = [];
    c.on('elicitationCreate', (params) => void created.push(params));
    await c.connect(urls[transport]);
    const result = await c.callTool('whoami');
    expect(JSON.parse((result.content[0] as { text: string }).text) as ElicitResult).toEqual({
      action: 'accept',
      content: { name: 'Ada', plan: 'free', seats: 2 },
    });
    expect(asked).toEqual([{ params: FORM, era }]);
    expect(created).toEqual([FORM]);
  });

  it('reports progress to onProgress and to the progress event', async () => {
    const { c, urls } = await connected((server) =>
      server.registerTool('slow', {}, (_args, ctx) => {
        ctx.progress(1, 2, 'half');
        ctx.progress(2, 2, 'done');
        return 'ok';
      }),
    );
    await c.connect(urls[transport]);
    const seen: unknown[] = [];
    const events: unknown[] = [];
    c.on('progress', (p) => void events.push(p.progress));
    await c.callTool('slow', {}, { onProgress: (p) => void seen.push([p.progress, p.total, p.message]) });
    expect(seen).toEqual([
      [1, 2, 'half'],
      [2, 2, 'done'],
    ]);
    expect(events).toEqual([1, 2]);
  });

  it('times out with RequestTimeoutError and the server sees the request cancelled', async () => {
    const cancelled = deferred<string>();
    const { c, urls } = await connected((server) =>
      server.registerTool('forever', {}, (_args, ctx) => {
        return new Promise((_resolve, reject) => {
          ctx.signal.addEventListener('abort', () => {
            cancelled.resolve(String(ctx.signal.reason?.message ?? ctx.signal.reason));
            reject(ctx.signal.reason);
          });
        });
      }),
    );
    await c.connect(urls[transport]);
    const failure = await c.callTool('forever', {}, { timeoutMs: 100 }).catch((err: Error) => err);
    expect(failure).toBeInstanceOf(RequestTimeoutError);
    expect((failure as Error).message).toBe('tools/call timed out after 100 ms without a reply; raise timeoutMs if a person has to answer it');
    expect(await cancelled.promise).toBeTruthy();
  });

  it("ends with RequestCancelledError when the caller's signal aborts", async () => {
    const started = deferred();
    const { c, urls } = await connected((server) => hang(server, started.resolve));
    await c.connect(urls[transport]);
    const abort = new AbortController();
    const call = c.callTool('hang', {}, { signal: abort.signal });
    await started.promise;
    abort.abort('the user left');
    const failure = await call.catch((err: Error) => err);
    expect(failure).toBeInstanceOf(RequestCancelledError);
    expect((failure as Error).message).toBe('tools/call was cancelled: the user left');
  });

  it('sends nothing for a call whose signal is already aborted, not even notifications/cancelled', async () => {
    const { c, urls } = await connected(() => {});
    await c.connect(urls[transport]);
    const seen: unknown[] = [];
    urls.server.on('message', (_session, direction, message) => {
      const { method } = message as { method?: string };
      if (direction === 'in' && method !== 'notifications/initialized') seen.push(method);
    });
    const failure = await c.callTool('anything', {}, { signal: AbortSignal.abort('too late') }).catch((err: Error) => err);
    expect(failure).toEqual(new RequestCancelledError('tools/call', 'too late'));
    await c.ping();
    expect(seen).toEqual([c.era === 'modern' ? 'server/discover' : 'ping']);
  });

  it('answers sampling and roots through onSampling and onRoots', async () => {
    const { c, urls } = await connected((server) =>
      server.registerTool('ask', {}, async (_args, ctx) => {
        const sampled = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: '2+2?' } }], maxTokens: 5 });
        const roots = await ctx.listRoots();
        return `${(sampled.content as { text: string }).text} in ${roots.roots.map((r) => r.uri).join(',')}`;
      }),
    );
    c.onSampling(() => ({ role: 'assistant', content: { type: 'text', text: '4' }, model: 'test-model' }));
    c.onRoots(() => ({ roots: [{ uri: 'file:///work', name: 'work' }] }));
    await c.connect(urls[transport]);
    expect((await c.callTool('ask')).content).toEqual([{ type: 'text', text: '4 in file:///work' }]);
  });

  it('receives log messages at the level it set', async () => {
    const { c, urls } = await connected((server) =>
      server.registerTool('chatty', {}, (_args, ctx) => {
        ctx.log('debug', 'too fine');
        ctx.log('warning', 'careful');
        return 'ok';
      }),
    );
    await c.connect(urls[transport]);
    await c.setLogLevel('info');
    const logs: unknown[] = [];
    c.on('log', (m) => void logs.push(m));
    await c.callTool('chatty');
    expect(logs).toEqual([{ level: 'warning', data: 'careful' }]);
  });

  it('fails calls in flight with ConnectionClosedError when it closes, and emits close once', async () => {
    const started = deferred();
    const { c, urls } = await connected((server) => hang(server, started.resolve));
    await c.connect(urls[transport]);
    const closes: string[] = [];
    c.on('close', (reason) => void closes.push(reason));
    const call = c.callTool('hang').catch((err: Error) => err);
    await started.promise;
    await c.close();
    expect(await call).toBeInstanceOf(ConnectionClosedError);
    expect(closes).toEqual(['closed by the client']);
    await expect(c.listTools()).rejects.toThrow('McpClient is closed (closed by the client); cannot send tools/list');
  });
});

describe('elicitation answers the server did not ask for', () => {
  it('legacy: an accept that fails requestedSchema is answered -32602 with its violations, and the tool hears of it', async () => {
    const urls = await serve((server) =>
      server.registerTool('whoami', {}, async (_args, ctx) => {
        try {
          await ctx.elicit(FORM);
          return 'accepted';
        } catch (err) {
          return `refused: ${(err as McpError).code}`;
        }
      }),
    );
    const c = client({ era: 'legacy' });
    c.onElicitation(() => ({ action: 'accept', content: { name: 7 } as never }));
    await c.connect(urls.ws);
    expect((await c.callTool('whoami')).content).toEqual([{ type: 'text', text: 'refused: -32602' }]);
  });

  it('modern: the call fails with -32602 and the violations, and no retry carries the content', async () => {
    let runs = 0;
    const urls = await serve((server) =>
      server.registerTool('whoami', {}, async (_args, ctx) => {
        runs++;
        await ctx.elicit(FORM);
        return 'accepted';
      }),
    );
    const c = client({ era: 'modern' });
    c.onElicitation(() => ({ action: 'accept', content: { name: 7 } as never }));
    await c.connect(urls.ws);
    const failure = (await c.callTool('whoami').catch((err: Error) => err)) as McpError;
    expect(failure).toBeInstanceOf(McpError);
    expect(failure.code).toBe(-32602);
    expect(failure.data).toEqual({ violations: [{ property: 'name', rule: 'type', message: expect.any(String) }] });
    expect(runs).toBe(1);
  });

  it('legacy: without a handler, an elicitation the client declared is answered -32601', async () => {
    const urls = await serve(whoami);
    const c = client({ era: 'legacy', capabilities: { elicitation: { form: {} } } });
    await c.connect(urls.ws);
    const result = await c.callTool('whoami');
    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(/-32601|Method not found/);
  });
});

describe('input_required (2026-07-28)', () => {
  it("echoes requestState byte for byte, sends only this round's answers, and a new id each round", async () => {
    const urls = await serve((server) =>
      server.registerTool('twice', {}, (_args, ctx) => {
        if (ctx.requestState === undefined) return inputRequired({ inputRequests: { q1: { method: 'roots/list', params: {} } }, state: { round: 1 } });
        if ((ctx.requestState as { round: number }).round === 1) return inputRequired({ state: { round: 2 } });
        return 'done';
      }),
    );
    const calls: Record<string, unknown>[] = [];
    const answers: Record<string, unknown>[] = [];
    urls.server.on('message', (_session, direction, message) => {
      const m = message as Record<string, unknown>;
      // A 2026-07-28 request on a connection is traced as it arrives and as its stateless session sees it: once per id here.
      if (direction === 'in' && m.method === 'tools/call' && !calls.some((c) => c.id === m.id)) calls.push(m);
      const result = m.result as Record<string, unknown> | undefined;
      if (direction === 'out' && result?.resultType === 'input_required' && !answers.includes(result)) answers.push(result);
    });
    const c = client({ era: 'modern' });
    c.onRoots(() => ({ roots: [] }));
    await c.connect(urls.ws);
    expect((await c.callTool('twice')).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(calls).toHaveLength(3);
    expect(new Set(calls.map((m) => m.id)).size).toBe(3);
    const params = calls.map((m) => m.params as Record<string, unknown>);
    expect(params.map((p) => [p.name, p.arguments])).toEqual([
      ['twice', {}],
      ['twice', {}],
      ['twice', {}],
    ]);
    expect(params.map((p) => p.inputResponses)).toEqual([undefined, { q1: { roots: [] } }, undefined]);
    expect(params.map((p) => p.requestState)).toEqual([undefined, answers[0].requestState, answers[1].requestState]);
    expect(typeof answers[0].requestState).toBe('string');
  });

  it('gives up after maxRounds with an error that says so', async () => {
    const urls = await serve((server) => server.registerTool('again', {}, () => inputRequired({ state: { more: true } })));
    const c = client({ era: 'modern', maxRounds: 3 });
    await c.connect(urls.ws);
    await expect(c.callTool('again')).rejects.toThrow('tools/call still asked for input after 3 rounds; raise maxRounds if the server needs more');
  });

  it('takes 8 input rounds by default, as the server does: a ninth ask fails the call, and the server refuses a ninth round itself', async () => {
    let runs = 0;
    const insatiable = (server: McpServer) =>
      server.registerTool('again', {}, () => {
        runs++;
        return inputRequired({ state: { more: true } });
      });
    const generous = await serve(insatiable, { maxRounds: 9 });
    const c = client({ era: 'modern' });
    await c.connect(generous.ws);
    await expect(c.callTool('again')).rejects.toThrow('tools/call still asked for input after 8 rounds; raise maxRounds if the server needs more');
    expect(runs).toBe(9);

    const strict = await serve(insatiable);
    const d = client({ era: 'modern' });
    await d.connect(strict.ws);
    await expect(d.callTool('again')).rejects.toMatchObject({
      code: -32602,
      message: "tools/call again asked for input 8 times without finishing; answer every input request in one retry, or raise the server's maxRounds",
    });
  });

  it('fails the call when the server asks for something the client has no handler for', async () => {
    const urls = await serve((server) =>
      server.registerTool('sample', {}, () =>
        inputRequired({ inputRequests: { s: { method: 'sampling/createMessage', params: { messages: [], maxTokens: 1 } } } }),
      ),
    );
    const c = client({ era: 'modern', capabilities: { sampling: {} } });
    await c.connect(urls.ws);
    await expect(c.callTool('sample')).rejects.toThrow(
      `Could not answer the server's sampling/createMessage (input "s"): Method not found: this client does not do sampling`,
    );
  });
});

describe('events', () => {
  it('correlates notifications/elicitation/complete with the URL-mode request by elicitationId', async () => {
    const urls = await serve((server) =>
      server.registerTool('link', {}, async (_args, ctx) => {
        await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e-1' });
        server.sendElicitationComplete(ctx.session, 'e-1');
        return 'linked';
      }),
    );
    const c = client({ era: 'legacy', capabilities: { elicitation: { url: {} } } });
    c.onElicitation(() => ({ action: 'accept' }));
    const completed = deferred<unknown[]>();
    c.on('elicitationComplete', (...args) => completed.resolve(args));
    await c.connect(urls.ws);
    await c.callTool('link');
    expect(await completed.promise).toEqual(['e-1', { mode: 'url', message: 'Sign in', url: 'https://example.com/login', elicitationId: 'e-1' }]);
  });

  it('emits close with the reason when the server ends the connection', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'legacy' });
    await c.connect(urls.ws);
    const closed = deferred<string>();
    c.on('close', (reason) => closed.resolve(reason));
    for (const session of urls.server.sessions.values()) session.close('bye');
    expect(await closed.promise).toMatch(/websocket closed \(1000/);
    expect(c.connected).toBe(false);
  });
});

describe('2026-07-28 over HTTP: SEP-2243 tool headers', () => {
  it('mirrors marked arguments in Mcp-Param-* headers, learnt from tools/list before the first call', async () => {
    const urls = await serve((server) =>
      server.registerTool(
        'weather',
        { inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] } },
        ({ region }) => `sunny in ${region as string}`,
      ),
    );
    const c = client({ era: 'modern' });
    await c.connect(urls.http);
    // A wrong or missing Mcp-Param-Region would be answered -32020 by the server.
    expect((await c.callTool('weather', { region: 'Zoë-1' })).content).toEqual([{ type: 'text', text: 'sunny in Zoë-1' }]);
  });

  it('leaves out of tools/list a tool whose markings cannot be sent, says why on error, and refuses to call it', async () => {
    const urls = await serve((server) => {
      server.registerTool('fine', {}, () => 'ok');
      server.registerTool('scored', { inputSchema: { type: 'object', properties: { score: { type: 'number', 'x-mcp-header': 'Score' } } } }, () => 'never');
    });
    const c = client({ era: 'modern' });
    const errors: string[] = [];
    c.on('error', (err) => void errors.push(err.message));
    await c.connect(urls.http);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['fine']);
    expect(errors).toEqual([
      'Tool scored is left out of tools/list: property score is marked x-mcp-header but is of type "number", not string, integer or boolean',
    ]);
    await expect(c.callTool('scored', { score: 1.5 })).rejects.toThrow(
      'Tool scored cannot be called over HTTP: property score is marked x-mcp-header but is of type "number", not string, integer or boolean (SEP-2243)',
    );
  });

  it('names the task in Mcp-Name on tasks/* (SEP-2663): the server checks it before it finds no such method', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'modern' });
    await c.connect(urls.http);
    // A missing or wrong Mcp-Name would be -32020; with it right, this server (no Tasks extension) has no such method.
    const failure = await c.request('tasks/get', { taskId: 'task-ü-1' }).catch((err: McpError) => err);
    expect({ code: (failure as McpError).code, message: (failure as McpError).message }).toEqual({ code: -32601, message: 'Method not found: tasks/get' });
  });

  it('keeps every tool over WebSocket, where markings mean nothing', async () => {
    const urls = await serve((server) =>
      server.registerTool('scored', { inputSchema: { type: 'object', properties: { score: { type: 'number', 'x-mcp-header': 'Score' } } } }, () => 'ok'),
    );
    const c = client({ era: 'modern' });
    await c.connect(urls.ws);
    expect((await c.listTools()).tools.map((t) => t.name)).toEqual(['scored']);
  });
});

describe('a tool listing the server never ends', () => {
  /** A raw 2026-07-28 HTTP server whose every tools/list page holds one tool and the nextCursor `cursorAfter(page)`. */
  async function endlessLister(cursorAfter: (page: number) => string) {
    const methods: string[] = [];
    let pages = 0;
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk));
      req.on('end', () => {
        const body = JSON.parse(text) as { id: number; method: string };
        methods.push(body.method);
        const result = (value: Record<string, unknown>) =>
          res
            .writeHead(200, { 'content-type': 'application/json' })
            .end(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { resultType: 'complete', ...value } }));
        if (body.method === 'server/discover') {
          return result({
            supportedVersions: ['2026-07-28'],
            capabilities: { tools: {} },
            _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1' } },
          });
        }
        if (body.method === 'tools/list') {
          pages++;
          return result({ tools: [{ name: `tool${pages}`, inputSchema: { type: 'object' } }], nextCursor: cursorAfter(pages) });
        }
        if (body.method === 'tools/call') return result({ content: [{ type: 'text', text: 'called' }] });
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const c = client({ era: 'modern' });
    const errors: string[] = [];
    c.on('error', (err) => void errors.push(err.message));
    await c.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`);
    return { c, errors, methods };
  }

  it('stops at a cursor the server gave before, with the tools so far, and says so on error', async () => {
    const { c, errors, methods } = await endlessLister(() => 'again');
    expect((await c.listAllTools()).map((tool) => tool.name)).toEqual(['tool1', 'tool2']);
    expect(errors).toEqual(['tools/list stopped after 2 pages (2 tools), the rest not listed: the server gave the cursor "again" again']);
    expect(methods).toEqual(['server/discover', 'tools/list', 'tools/list']);
  });

  it('stops after 100 pages of cursors the server makes up afresh', async () => {
    const { c, errors, methods } = await endlessLister((page) => `page-${page}`);
    const tools = await c.listAllTools();
    expect([tools.length, tools.at(-1)?.name]).toEqual([100, 'tool100']);
    expect(errors).toEqual(['tools/list stopped after 100 pages (100 tools), the rest not listed: the server still gave a nextCursor after 100 pages']);
    expect(methods.filter((method) => method === 'tools/list')).toHaveLength(100);
  });

  it('still calls a tool on 2026-07-28 HTTP, where the header arguments are learnt from the listing first', async () => {
    const { c, errors, methods } = await endlessLister(() => 'again');
    expect(await c.callTool('tool1')).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'called' }] });
    expect(methods).toEqual(['server/discover', 'tools/list', 'tools/list', 'tools/call']);
    expect(errors).toEqual(['tools/list stopped after 2 pages (2 tools), the rest not listed: the server gave the cursor "again" again']);
  }, 5000);
});

describe('server/discover answered -32022', () => {
  /** A raw HTTP server: the first POST gets `first`, then server/discover succeeds and initialize answers 2025-11-25. */
  async function rawServer(first: { supported: string[] }) {
    const bodies: Record<string, unknown>[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk));
      req.on('end', () => {
        const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
        bodies.push(body);
        const json = (status: number, value: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
        if (bodies.length === 1) {
          return json(400, {
            jsonrpc: '2.0',
            id: body.id,
            error: { code: -32022, message: 'Unsupported protocol version', data: { supported: first.supported, requested: '2026-07-28' } },
          });
        }
        if (body.method === 'server/discover') {
          return json(200, {
            jsonrpc: '2.0',
            id: body.id,
            result: {
              resultType: 'complete',
              supportedVersions: ['2026-07-28'],
              capabilities: {},
              _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'raw', version: '1' } },
            },
          });
        }
        if (body.method === 'initialize') {
          return json(200, {
            jsonrpc: '2.0',
            id: body.id,
            result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } },
          });
        }
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, bodies };
  }

  it('retries server/discover once when the error lists 2026-07-28, and stays modern', async () => {
    const raw = await rawServer({ supported: ['2026-07-28'] });
    const c = client();
    await c.connect(raw.url);
    expect(raw.bodies.map((b) => b.method)).toEqual(['server/discover', 'server/discover']);
    expect(raw.bodies[0].id).not.toBe(raw.bodies[1].id);
    expect({ era: c.era, info: c.serverInfo }).toEqual({ era: 'modern', info: { name: 'raw', version: '1' } });
  });

  it("initializes when the error lists only legacy versions (era 'auto')", async () => {
    const raw = await rawServer({ supported: ['2025-11-25'] });
    const c = client();
    await c.connect(raw.url);
    expect(raw.bodies.map((b) => b.method)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
    expect(c.era).toBe('legacy');
  });
});

describe('subscriptions/listen (2026-07-28)', () => {
  const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

  it.each(TRANSPORTS)('over %s: resolves with what the server acknowledged, delivers what was asked for, tagged, and ends on close()', async (transport) => {
    const urls = await serve((server) => server.registerTool('base', {}, () => 'base'));
    const c = client({ era: 'modern' });
    await c.connect(urls[transport]);
    const got: unknown[] = [];
    const everywhere: string[] = [];
    c.on('notification', (n) => void everywhere.push(n.method));
    const sub = await c.listen({ toolsListChanged: true, resourceSubscriptions: ['note://a'] }, { onNotification: (n) => void got.push(n) });
    expect(sub.notifications).toEqual({ toolsListChanged: true, resourceSubscriptions: ['note://a'] });
    expect(urls.server.stats.subscriptions).toBe(1);

    urls.server.registerTool('later', {}, () => 'later');
    await expect.poll(() => got.length).toBe(1);
    urls.server.sendResourceUpdated('note://b');
    urls.server.sendResourceUpdated('note://a');
    await expect.poll(() => got.length).toBe(2);
    expect(got).toEqual([
      { jsonrpc: '2.0', method: 'notifications/tools/list_changed', params: { _meta: { [SUBSCRIPTION_ID]: sub.id } } },
      { jsonrpc: '2.0', method: 'notifications/resources/updated', params: { uri: 'note://a', _meta: { [SUBSCRIPTION_ID]: sub.id } } },
    ]);
    expect(everywhere).toEqual(['notifications/subscriptions/acknowledged', 'notifications/tools/list_changed', 'notifications/resources/updated']);

    sub.close();
    expect(await sub.ended).toBe('subscriptions/listen was cancelled: closed by the client');
    await expect.poll(() => urls.server.stats.subscriptions).toBe(0);
    // The client goes on working.
    expect((await c.callTool('later')).content).toEqual([{ type: 'text', text: 'later' }]);
  });

  it('says the server ended it when the server completes the stream (server.close() over HTTP)', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'modern' });
    await c.connect(urls.http);
    const sub = await c.listen({ promptsListChanged: true });
    await urls.server.close();
    expect(await sub.ended).toBe('completed by the server');
  });

  it('ends with the signal, before or after the acknowledgement', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'modern' });
    await c.connect(urls.ws);
    await expect(c.listen({ toolsListChanged: true }, { signal: AbortSignal.abort('not now') })).rejects.toThrow(
      new RequestCancelledError('subscriptions/listen', 'not now'),
    );
    const control = new AbortController();
    const sub = await c.listen({ toolsListChanged: true }, { signal: control.signal });
    control.abort('done');
    expect(await sub.ended).toBe('subscriptions/listen was cancelled: done');
    await expect.poll(() => urls.server.stats.subscriptions).toBe(0);
  });

  it('fails with RequestTimeoutError when no acknowledgement comes in time, and tells the server', async () => {
    const sockets = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
    cleanups.push(() => new Promise<void>((resolve) => sockets.close(() => resolve())));
    const received: Record<string, any>[] = [];
    sockets.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        received.push(message);
        if (message.method === 'server/discover') {
          socket.send(
            JSON.stringify({
              jsonrpc: '2.0',
              id: message.id,
              result: {
                resultType: 'complete',
                supportedVersions: ['2026-07-28'],
                capabilities: { tools: { listChanged: true } },
                ttlMs: 0,
                cacheScope: 'private',
              },
            }),
          );
        }
        // subscriptions/listen is never acknowledged.
      });
    });
    await new Promise((resolve) => sockets.once('listening', resolve));
    const c = client({ era: 'modern' });
    await c.connect(`ws://127.0.0.1:${(sockets.address() as AddressInfo).port}/mcp`);
    await expect(c.listen({ toolsListChanged: true }, { timeoutMs: 50 })).rejects.toThrow(new RequestTimeoutError('subscriptions/listen', 50));
    const listen = received.find((m) => m.method === 'subscriptions/listen')!;
    await expect
      .poll(() => received.at(-1))
      .toEqual({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: listen.id, reason: 'subscriptions/listen timed out after 50 ms without a reply; raise timeoutMs if a person has to answer it' },
      });
  });

  it('is refused on a legacy session, which uses subscribe(uri)', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'legacy' });
    await c.connect(urls.ws);
    await expect(c.listen({ toolsListChanged: true })).rejects.toThrow(
      new Error('subscriptions/listen belongs to 2026-07-28; on a legacy session use subscribe(uri), and the list_changed notifications come by themselves'),
    );
  });

  it('tells subscribe() on 2026-07-28 to use listen()', async () => {
    const urls = await serve(() => {});
    const c = client({ era: 'modern' });
    await c.connect(urls.http);
    await expect(c.subscribe('note://a')).rejects.toThrow(
      new Error('resources/subscribe belongs to the legacy era; on 2026-07-28 use listen({ resourceSubscriptions: [uri] }), a subscriptions/listen stream'),
    );
  });
});

describe('the edges of answering and being answered (legacy)', () => {
  it('reports an answer to a request the client never sent, and takes a late answer to one it gave up on quietly', async () => {
    const sockets = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => 'mcp' });
    cleanups.push(() => new Promise<void>((resolve) => sockets.close(() => resolve())));
    sockets.on('connection', (socket) => {
      socket.on('message', (data) => {
        const message = JSON.parse(String(data));
        const reply = (body: Record<string, unknown>) => socket.send(JSON.stringify({ jsonrpc: '2.0', ...body }));
        if (message.method === 'initialize') {
          reply({ id: message.id, result: { protocolVersion: '2025-11-25', capabilities: {}, serverInfo: { name: 'raw', version: '1' } } });
        } else if (message.method === 'tools/call') {
          setTimeout(() => reply({ id: message.id, result: { content: [] } }), 80);
        } else if (message.method === 'ping') {
          reply({ id: 999, result: {} });
          reply({ id: 'x-1', error: { code: -1, message: 'stray' } });
          reply({ id: message.id, result: {} });
        }
      });
    });
    await new Promise((resolve) => sockets.once('listening', resolve));
    const c = client({ era: 'legacy' });
    const errors: string[] = [];
    c.on('error', (err) => void errors.push(err.message));
    await c.connect(`ws://127.0.0.1:${(sockets.address() as AddressInfo).port}/mcp`);

    await expect(c.callTool('slow', {}, { timeoutMs: 20 })).rejects.toThrow(RequestTimeoutError);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(errors).toEqual([]);
    await c.ping();
    expect(errors).toEqual([
      'The server answered request 999, which this client never sent',
      'The server answered request "x-1", which this client never sent',
    ]);
  });

  it("sends notifications/cancelled with the abort's own reason when the signal aborted without one, as the server does", async () => {
    const started = deferred();
    const reason = deferred<unknown>();
    const urls = await serve((server) =>
      server.registerTool('hang', {}, (_args, ctx) => {
        started.resolve();
        return new Promise((resolve) => ctx.signal.addEventListener('abort', () => resolve('stopped')));
      }),
    );
    urls.server.on('message', (_session, direction, message) => {
      if (direction === 'in' && (message as { method?: string }).method === 'notifications/cancelled') reason.resolve((message as { params: unknown }).params);
    });
    const c = client({ era: 'legacy' });
    await c.connect(urls.ws);
    const abort = new AbortController();
    const call = c.callTool('hang', {}, { signal: abort.signal }).catch((err: Error) => err);
    await started.promise;
    abort.abort();
    expect(await call).toEqual(new RequestCancelledError('tools/call', 'This operation was aborted'));
    expect(await reason.promise).toEqual({ requestId: expect.any(Number), reason: 'This operation was aborted' });
  });

  it("reports progress on the server's request through ctx.progress, to the token it asked with", async () => {
    const seen: unknown[] = [];
    const urls = await serve((server) =>
      server.registerTool('draft', {}, async (_args, ctx) => {
        const result = await ctx.session.request(
          'sampling/createMessage',
          { messages: [{ role: 'user', content: { type: 'text', text: 'draft it' } }], maxTokens: 5 },
          { onProgress: (progress) => void seen.push(progress) },
        );
        return (result.content as { text: string }).text;
      }),
    );
    const c = client({ era: 'legacy' });
    c.onSampling((_params, ctx) => {
      ctx.progress(1, 2, 'thinking');
      ctx.progress(2);
      return { role: 'assistant', content: { type: 'text', text: 'done' }, model: 'm' };
    });
    await c.connect(urls.ws);
    expect((await c.callTool('draft')).content).toEqual([{ type: 'text', text: 'done' }]);
    expect(seen).toEqual([
      { progressToken: expect.anything(), progress: 1, total: 2, message: 'thinking' },
      { progressToken: expect.anything(), progress: 2 },
    ]);
  });
});

describe('closing', () => {
  it('emits close with why a failed connect failed, and rejects connect() with the cause', async () => {
    const c = client({});
    const reasons: string[] = [];
    c.on('close', (reason) => void reasons.push(reason));
    const failure = await c.connect('http://127.0.0.1:9/mcp').catch((err: Error) => err);
    expect((failure as Error).message).toMatch(/^could not reach the server at http:\/\/127\.0\.0\.1:9\/mcp: /);
    expect(reasons).toEqual([`could not connect: ${(failure as Error).message}`]);
  });

  it.each(TRANSPORTS)('over %s lets an answer a handler already gave go out before it closes, even when the handler closes the client', async (transport) => {
    const answered = deferred<unknown>();
    const urls = await serve((server) => {
      server.on('responseElicitationCreate', (_session, _request, response) => answered.resolve({ isError: response.isError, action: response.action }));
      server.registerTool('ask', {}, async (_args, ctx) => JSON.stringify(await ctx.elicit(FORM)));
    });
    const c = client({ era: 'legacy' });
    c.onElicitation(() => {
      queueMicrotask(() => void c.close());
      return { action: 'decline' };
    });
    await c.connect(urls[transport]);
    void c.callTool('ask').catch(() => {});
    expect(await answered.promise).toEqual({ isError: false, action: 'decline' });
  });
});
