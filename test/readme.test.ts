/** The examples the README and docs/ show are the files in examples/, and they run. */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { McpClient, StreamableHttpClientTransport } from '../src/index.js';
import { testIssuer } from './helpers/oauth.js';
import { freePort } from './helpers/ports.js';
import { useCleanups } from './helpers/cleanups.js';
import { startRedis } from './helpers/redis.js';
import { ACCEPT_BOTH, HttpTestClient, send } from './helpers/http-client.js';
import { StdioTestClient } from './helpers/stdio-client.js';
import { WsTestClient } from './helpers/ws-client.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/.bin/tsx', import.meta.url));
const read = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

/** Each document's examples, in the order it shows them. */
const EXAMPLES: Record<string, string[]> = {
  'README.md': ['first-server', 'typed-tools', 'events', 'client'],
  'docs/api.md': [],
  'docs/architecture.md': [],
  'docs/client.md': [],
  'docs/comparison.md': [],
  'docs/elicitation.md': ['elicitation', 'both-eras'],
  'docs/extensions.md': ['skills', 'tasks'],
  'docs/performance.md': [],
  'docs/production.md': ['production'],
  'docs/reliability.md': [],
  'docs/scale-out.md': ['scale-out'],
  'docs/telemetry.md': ['telemetry'],
  'docs/transports.md': ['http-server', 'express', 'fastify', 'quickstart', 'shared-port', 'stdio-server'],
};
const cleanups = useCleanups();

/** Start an example that prints a line on listening; resolve with the process and that line. */
function startListening(file: string, pattern: RegExp, env: Record<string, string> = {}) {
  const child = spawn(tsx, [file], { cwd: root, env: { ...process.env, PORT: '0', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const line = new Promise<RegExpExecArray>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = pattern.exec(out);
      if (match) resolve(match);
    });
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}: ${out}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, line, stop, output: () => out };
}

describe('README and docs/ examples', () => {
  it.each(Object.entries(EXAMPLES))('%s shows its examples, each exactly as its file in examples/', (document, names) => {
    const blocks = [...read(document).matchAll(/```ts\n\/\/ (examples\/[\w-]+\.ts)\n([\s\S]*?)```/g)];
    expect(blocks.map((b) => b[1])).toEqual(names.map((name) => `examples/${name}.ts`));
    for (const [, file, code] of blocks) expect(code, file).toBe(read(file!));
  });

  it('lists every document of docs/, and shows every file of examples/ in one of them', () => {
    const docs = readdirSync(new URL('../docs/', import.meta.url)).filter((name) => name.endsWith('.md'));
    expect(Object.keys(EXAMPLES).filter((document) => document.startsWith('docs/'))).toEqual(docs.sort().map((name) => `docs/${name}`));
    const examples = readdirSync(new URL('../examples/', import.meta.url)).map((name) => name.replace(/\.ts$/, ''));
    expect(Object.values(EXAMPLES).flat().sort()).toEqual(examples.sort());
  });

  it('first-server asks how many copies with its form and orders them, in both eras over one URL', async () => {
    const example = startListening('examples/first-server.ts', /listening on (http:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const rounds: [era: 'legacy' | 'modern', content: Record<string, number | boolean>, text: string][] = [
        ['legacy', { copies: 2 }, 'Ordered 2 of Dune.'],
        ['modern', { copies: 3, giftWrap: true }, 'Ordered 3 of Dune, gift-wrapped.'],
      ];
      for (const [era, content, text] of rounds) {
        const asked: unknown[] = [];
        const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era });
        client.onElicitation((params) => {
          asked.push(params);
          return { action: 'accept', content };
        });
        await client.connect(url!);
        expect(client.protocolVersion).toBe(era === 'legacy' ? '2025-11-25' : '2026-07-28');
        expect((await client.callTool('order_book', { title: 'Dune' })).content).toEqual([{ type: 'text', text }]);
        expect(asked).toEqual([
          {
            message: 'How many copies of Dune?',
            requestedSchema: {
              type: 'object',
              properties: {
                copies: { type: 'integer', title: 'Copies', minimum: 1, maximum: 5, default: 1 },
                giftWrap: { type: 'boolean', title: 'Gift-wrap them?', default: false },
              },
              required: ['copies'],
            },
          },
        ]);
        await client.close();
      }
    } finally {
      await example.stop();
    }
  });

  it('quickstart serves get_weather over WebSocket', async () => {
    const example = startListening('examples/quickstart.ts', /listening on (ws:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const { client } = await WsTestClient.initialized(url);
      expect((await client.request('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' } }, 1)).result).toEqual({
        content: [{ type: 'text', text: 'It is sunny in Oslo.' }],
      });
      await client.close();
    } finally {
      await example.stop();
    }
  });

  it('stdio-server serves its resource and exits when stdin closes', async () => {
    const client = StdioTestClient.spawn('examples/stdio-server.ts');
    await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } });
    client.notify('notifications/initialized');
    expect((await client.request('resources/read', { uri: 'notes://today' })).result).toEqual({
      contents: [{ uri: 'notes://today', mimeType: 'text/plain', text: 'Nothing planned.' }],
    });
    expect(await client.end()).toEqual({ code: 0, signal: null });
    expect(client.strayStdout).toEqual([]);
  });

  it('shared-port keeps the application routes and serves MCP on /mcp', async () => {
    const example = startListening('examples/shared-port.ts', /listening on http:\/\/127\.0\.0\.1:(\d+)/);
    try {
      const port = Number((await example.line)[1]);
      expect((await fetch(`http://127.0.0.1:${port}/health`)).status).toBe(200);
      const { client, result } = await WsTestClient.initialized(`ws://127.0.0.1:${port}/mcp`);
      expect(result.serverInfo).toEqual({ name: 'app', version: '1.0.0' });
      await client.close();
    } finally {
      await example.stop();
    }
  });

  it('typed-tools books a trip through its typed client: the zod default applied, the literal-typed tool answered', async () => {
    const child = spawn(tsx, ['examples/typed-tools.ts'], { cwd: root, env: { ...process.env, PORT: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups.push(() => child.kill());
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect({ code, out }).toEqual({ code: 0, out: '1 nights in Lisbon, economy\nSunny in Lisbon for 3 days.\n' });
  });

  it('events answers a tool with no handler and adjusts initialize per client', async () => {
    const client = StdioTestClient.spawn('examples/events.ts');
    const init = await client.request('initialize', { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'legacy-client', version: '1' } });
    expect(init.result.instructions).toBe('Keep answers short.');
    client.notify('notifications/initialized');
    const ping = await client.waitFor((m) => m.method === 'ping');
    client.send({ jsonrpc: '2.0', id: ping.id, result: {} });
    expect((await client.request('tools/call', { name: 'whoami', arguments: {} })).result).toEqual({
      content: [{ type: 'text', text: 'You are legacy-client.' }],
    });
    expect((await client.request('tools/call', { name: 'nothing' })).error).toEqual({ code: -32602, message: 'Unknown tool: nothing' });
    await client.end();
  });

  it('client plans a trip with the elicitation example: it answers the form, and the defaults fill the rest', async () => {
    const server = startListening('examples/elicitation.ts', /listening on (ws:\/\/\S+)/);
    try {
      const [, url] = await server.line;
      const child = spawn(tsx, ['examples/client.ts', url], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => void (out += chunk));
      const code = await new Promise((resolve) => child.once('exit', resolve));
      expect({ code, out }).toEqual({
        code: 0,
        out: [
          'connected to travel over protocol 2026-07-28',
          'tools: plan_trip, cancel_booking',
          'the server asks: Where to?',
          'Planned 3 nights in Lisbon.',
          '',
        ].join('\n'),
      });
    } finally {
      await server.stop();
    }
  });

  it('elicitation asks on initialized, plans a trip with a form, and gates cancel_booking', async () => {
    const example = startListening('examples/elicitation.ts', /listening on (ws:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const { client } = await WsTestClient.initialized(url, { capabilities: { elicitation: {} } });
      const hello = await client.nextMessage('elicitation/create');
      expect(hello.params).toEqual({
        message: 'What should I call you?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      });
      client.respond(hello.id, { action: 'accept', content: { name: 'Ada' } });

      const trip = client.request('tools/call', { name: 'plan_trip', arguments: {} }, 'trip');
      const ask = await client.nextMessage('elicitation/create');
      expect(ask.params.message).toBe('Where to?');
      client.respond(ask.id, { action: 'accept', content: { city: 'Lisbon', nights: 4, cabin: 'business' } });
      expect((await trip).result).toEqual({ content: [{ type: 'text', text: 'Planned 4 nights in Lisbon.' }] });

      const cancel = client.request('tools/call', { name: 'cancel_booking', arguments: { id: 'B7' } }, 'cancel');
      const confirmAsk = await client.nextMessage('elicitation/create');
      expect(confirmAsk.params.message).toBe('Cancel booking B7?');
      client.respond(confirmAsk.id, { action: 'cancel' });
      expect((await cancel).result.isError).toBe(true);
      await client.close();
      await expect.poll(() => example.output()).toContain('elicitation 0: accept {"name":"Ada"}');
      await expect.poll(() => example.output()).toContain('elicitation 2: cancel {}');
    } finally {
      await example.stop();
    }
  });

  it('http-server answers /health, wants its token, and confirms before placing an order', async () => {
    const example = startListening('examples/http-server.ts', /listening on (http:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      expect((await fetch(url.replace(/\/mcp$/, '/health'))).status).toBe(200);
      const anonymous = new HttpTestClient(url);
      await expect(anonymous.initialize()).rejects.toThrow('initialize failed: 401');

      const client = new HttpTestClient(url);
      await client.initialize({ capabilities: { elicitation: {} } }, { authorization: 'Bearer dev-token' });
      const call = await client.request('tools/call', { name: 'place_order', arguments: { item: 'lamp' } }, 'order', { authorization: 'Bearer dev-token' });
      const ask = await call.nextMessage({ method: 'elicitation/create' });
      expect(ask.params.message).toBe('Order one lamp?');
      expect((await client.post({ jsonrpc: '2.0', id: ask.id, result: { action: 'accept' } }, { authorization: 'Bearer dev-token' })).status).toBe(204);
      expect((await call.nextMessage({ id: 'order' })).result).toEqual({ content: [{ type: 'text', text: 'Ordered one lamp.' }] });

      await expect(WsTestClient.connect(url.replace(/^http/, 'ws'))).rejects.toThrow('HTTP 401');
      const ws = await WsTestClient.connect(url.replace(/^http/, 'ws'), { headers: { authorization: 'Bearer dev-token' } });
      expect((await ws.request('ping', undefined, 1)).result).toEqual({});
      await ws.close();
    } finally {
      await example.stop();
    }
  });

  it('both-eras serves one handler to a legacy-era session over WebSocket and to 2026-07-28 requests over HTTP', async () => {
    const example = startListening('examples/both-eras.ts', /listening on (http:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const { client } = await WsTestClient.initialized(url.replace(/^http/, 'ws'), { capabilities: { elicitation: {} } });
      const booked = client.request('tools/call', { name: 'book', arguments: {} }, 'book');
      client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { day: '2026-12-24' } });
      expect((await booked).result).toEqual({ content: [{ type: 'text', text: 'Booked for 2026-12-24.' }] });
      const survey = client.request('tools/call', { name: 'survey', arguments: {} }, 'survey');
      client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { likes: true } });
      expect((await survey).result).toEqual({ content: [{ type: 'text', text: 'Thanks! likes=true, started number' }] });
      await client.close();

      const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
      const call = async (params: Record<string, unknown>) => {
        const res = await send(
          url,
          'POST',
          { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'book' },
          {
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'book', arguments: {}, ...params, _meta: meta },
          },
        );
        return (await res.json()).result;
      };
      const first = await call({});
      expect(first).toMatchObject({
        resultType: 'input_required',
        inputRequests: { 'elicit-1': { method: 'elicitation/create', params: { message: 'Which day?' } } },
      });
      expect(await call({ requestState: first.requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { day: '2026-12-31' } } } })).toEqual({
        resultType: 'complete',
        content: [{ type: 'text', text: 'Booked for 2026-12-31.' }],
      });
    } finally {
      await example.stop();
    }
  });

  it.each(['examples/express.ts', 'examples/fastify.ts'])('%s serves MCP on /mcp to McpClient in both eras', async (file) => {
    const example = startListening(file, /listening on (http:\/\/\S+\/mcp)/);
    try {
      const [, url] = await example.line;
      for (const era of ['legacy', 'modern'] as const) {
        const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era });
        await client.connect(url);
        expect(client.protocolVersion).toBe(era === 'legacy' ? '2025-11-25' : '2026-07-28');
        expect((await client.callTool('stock', { item: 'lamps' })).content).toEqual([{ type: 'text', text: '3 lamps in stock.' }]);
        await client.close();
      }
    } finally {
      await example.stop();
    }
  });

  it('scale-out: two instances sharing a Redis serve the rounds of one 2026-07-28 call between them', async () => {
    const redis = await startRedis();
    const started = [0, 1].map(() => startListening('examples/scale-out.ts', /listening on (http:\/\/\S+)/, { REDIS_URL: redis.url }));
    try {
      const urls = await Promise.all(started.map(async (example) => (await example.line)[1]!));
      let turn = 0;
      const alternate = (_input: URL, init: RequestInit) => fetch(urls[turn++ % 2]!, init);
      const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era: 'modern' });
      client.onElicitation(() => ({ action: 'accept', content: { item: 'tea' } }));
      await client.connect(new StreamableHttpClientTransport(urls[0]!, { fetch: alternate }));
      expect((await client.callTool('order')).content).toEqual([{ type: 'text', text: 'Ordered: tea.' }]);
      await client.close();
    } finally {
      await Promise.all(started.map((example) => example.stop()));
      await redis.stop();
    }
  });

  it('tasks runs export_report as a task that asks halfway, and deploy asks before its task exists', async () => {
    const example = startListening('examples/tasks.ts', /listening on (http:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const asked: string[] = [];
      const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era: 'modern', tasks: true });
      client.onElicitation((params, ctx) => {
        asked.push(`${params.message} ${ctx.taskId === undefined ? 'on the call' : 'in the task'}`);
        const content: Record<string, string> = params.message === 'Which format?' ? { format: 'csv' } : { env: 'production' };
        return { action: 'accept', content };
      });
      await client.connect(url!);
      const messages: string[] = [];
      const report = await client.callTool('export_report', {}, { onTask: (task) => void (task.statusMessage && messages.push(task.statusMessage)) });
      expect(report).toEqual({ content: [{ type: 'text', text: 'Exported as csv.' }] });
      expect(messages[0]).toBe('Gathering figures');
      expect(await client.callTool('deploy')).toEqual({ content: [{ type: 'text', text: 'Deployed to production.' }] });
      expect(asked).toEqual(['Which format? in the task', 'Deploy where? on the call']);
      await client.close();
      // The example logs each task's end.
      await expect.poll(() => example.output().match(/task [0-9a-f]{8} completed/g)?.length).toBe(2);
    } finally {
      await example.stop();
    }
  });

  it('production is a resource server: 401 with its metadata, the principal in the tool, step-up, health, and a drain on SIGTERM', async () => {
    const issuer = await testIssuer(cleanups);
    const port = await freePort();
    const resource = `http://127.0.0.1:${port}/mcp`;
    const example = startListening('examples/production.ts', /listening on (http:\/\/\S+)/, {
      PORT: String(port),
      ISSUER: issuer.issuer,
      RESOURCE: resource,
      JWKS_URI: issuer.jwksUri,
    });
    try {
      const [, url] = await example.line;
      expect(url).toBe(resource);
      const anonymous = await fetch(url!, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH }, body: '{}' });
      expect(anonymous.status).toBe(401);
      const metadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
      expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${metadataUrl}", scope="mcp:use"`);
      expect(await (await fetch(metadataUrl)).json()).toEqual({
        resource,
        authorization_servers: [issuer.issuer],
        scopes_supported: ['mcp:use'],
        bearer_methods_supported: ['header'],
      });
      const token = await issuer.token({ audience: resource });
      const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era: 'modern' });
      await client.connect(new StreamableHttpClientTransport(url!, { headers: { authorization: `Bearer ${token}` } }));
      expect(await client.callTool('whoami')).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'alice (mcp:use)' }] });
      // 403 with the step-up challenge: the client reports the server's reason.
      await expect(client.callTool('purge_cache')).rejects.toThrow('Tool purge_cache needs the scope cache:admin');
      await client.close();
      expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
      const exited = new Promise((resolve) => example.child.once('exit', resolve));
      example.child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      await example.stop();
    }
  });

  it('telemetry prints the tools/call span under the traceparent the client sent, and the span the tool starts under it', async () => {
    const example = startListening('examples/telemetry.ts', /listening on (ws:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const { client } = await WsTestClient.initialized(url);
      const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
      const reply = await client.request('tools/call', { name: 'get_weather', arguments: { city: 'Oslo' }, _meta: { traceparent } });
      expect(reply.result).toEqual({ content: [{ type: 'text', text: 'It is sunny in Oslo.' }] });
      await client.close();
      // ConsoleSpanExporter prints each span as it ends: the tool's first, then the server's.
      await vi.waitFor(() => expect(example.output()).toContain("name: 'tools/call get_weather'"));
      const printed = example.output();
      expect(printed).toContain("name: 'forecast lookup'");
      // Both spans are in the client's trace: each prints the trace id twice, its own and its parent's.
      expect(printed.match(/traceId: '4bf92f3577b34da6a3ce929d0e0e4736'/g)).toHaveLength(4);
      expect(printed).toContain("'gen_ai.tool.name': 'get_weather'");
    } finally {
      await example.stop();
    }
  });

  it('skills serves its skill: skills/list, and the file as a resource', async () => {
    const example = startListening('examples/skills.ts', /listening on (http:\/\/\S+)/);
    try {
      const [, url] = await example.line;
      const client = new McpClient({ name: 'readme-test', version: '1.0.0' }, { era: 'modern' });
      await client.connect(url!);
      const listed = (await client.request('skills/list')) as { skills: { uri: string; frontmatter: { name: string } }[] };
      expect(listed.skills.map((skill) => [skill.uri, skill.frontmatter.name])).toEqual([['skill://pdf-processing/SKILL.md', 'pdf-processing']]);
      expect((await client.readResource('skill://pdf-processing/references/FORMS.md')).contents).toEqual([
        { uri: 'skill://pdf-processing/references/FORMS.md', mimeType: 'text/markdown', text: '# Filling PDF forms\n' },
      ]);
      await client.close();
    } finally {
      await example.stop();
    }
  });
});
