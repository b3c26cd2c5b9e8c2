/**
 * `npx tsx bench/walk.ts [--json]`: the src files whose code runs for one `tools/call` whose handler
 * elicits, over Streamable HTTP, on a 2025-11-25 session (the call up to its `elicitation/create`, then
 * the POST of the answer) and on 2026-07-28 (the first round, then the retry). V8's precise coverage is
 * taken around each leg, after warm-up rounds, so start-up and lazy set-up do not count; the client is
 * raw `node:http`, so no client file counts either. docs/architecture.md gives the figures.
 */
import { request } from 'node:http';
import { Session } from 'node:inspector/promises';
import { fileURLToPath } from 'node:url';
import { McpServer, StreamableHttpTransport } from '../src/index.js';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

function post(url: URL, body: unknown, headers: Record<string, string>, untilMessage = false): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text });
        res.on('data', (chunk: string) => {
          text += chunk;
          // The call's stream stays open while the question waits: stop at its first message.
          if (untilMessage && /data: \{/.test(text) && text.endsWith('\n\n')) done();
        });
        res.on('end', done);
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** The JSON-RPC message of a reply, plain JSON or the first SSE event that carries one. */
function messageOf(reply: Reply): Record<string, unknown> {
  const json = reply.text.startsWith('{') ? reply.text : /data: (\{.*)/.exec(reply.text)?.[1];
  if (json === undefined) throw new Error(`no JSON-RPC message in the reply (${reply.status}): ${reply.text.slice(0, 200)}`);
  return JSON.parse(json) as Record<string, unknown>;
}

const server = new McpServer({ name: 'walk', version: '1.0.0' }, { requestState: { keys: ['walk-key-0123456789abcdef0123456789abcdef'] } });
const form = { type: 'object', properties: { copies: { type: 'integer', minimum: 1 } }, required: ['copies'] } as const;
server.registerTool(
  'order',
  { description: 'Orders copies', inputSchema: { type: 'object', properties: { title: { type: 'string' } } } },
  async ({ title }, ctx) => {
    const answer = await ctx.elicit({ message: `How many copies of ${title}?`, requestedSchema: form });
    return answer.action === 'accept' ? `Ordered ${answer.content.copies}` : 'Nothing ordered';
  },
);
const transport = new StreamableHttpTransport(server);
const url = new URL((await transport.listen({ host: '127.0.0.1', port: 0 })).url);

const inspector = new Session();
inspector.connect();
await inspector.post('Profiler.enable');
await inspector.post('Profiler.startPreciseCoverage', { callCount: true, detailed: false });

/** The src files (relative to src/) in which at least one function ran during `leg`. */
async function filesRunBy(leg: () => Promise<unknown>): Promise<string[]> {
  await inspector.post('Profiler.takePreciseCoverage'); // resets the counts
  await leg();
  await new Promise((resolve) => setTimeout(resolve, 50)); // what the leg set off (a 202's end, a stream's close)
  const { result } = await inspector.post('Profiler.takePreciseCoverage');
  const files: string[] = [];
  for (const script of result) {
    const path = script.url.startsWith('file://') ? fileURLToPath(script.url) : script.url;
    if (path.startsWith(SRC) && script.functions.some((f) => f.ranges[0]?.count)) files.push(path.slice(SRC.length));
  }
  return files.sort();
}

const call = (id: number, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'order', arguments: { title: 'Dune' }, ...extra },
});
const accept = { action: 'accept', content: { copies: 2 } };
const walks: Record<string, Record<string, string[]>> = {};

{
  const version = '2025-11-25';
  const init = await post(
    url,
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: { elicitation: {} }, clientInfo: { name: 'walk', version: '1' } },
    },
    {},
  );
  const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': version };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  const round = async (id: number) => {
    const question = messageOf(await post(url, call(id), headers, true));
    await post(url, { jsonrpc: '2.0', id: question.id, result: accept }, headers);
  };
  for (let i = 0; i < 3; i++) await round(100 + i);
  let question: Record<string, unknown> = {};
  walks[version] = {
    'tools/call to elicitation/create': await filesRunBy(async () => {
      question = messageOf(await post(url, call(2), headers, true));
    }),
    'the answer': await filesRunBy(() => post(url, { jsonrpc: '2.0', id: question.id, result: accept }, headers)),
  };
}

{
  const version = '2026-07-28';
  const _meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: {} },
    'io.modelcontextprotocol/clientInfo': { name: 'walk', version: '1' },
  };
  const headers = { 'mcp-protocol-version': version, 'mcp-method': 'tools/call', 'mcp-name': 'order' };
  const retryOf = (id: number, first: Record<string, unknown>) => {
    const result = first.result as { inputRequests: Record<string, unknown>; requestState: string };
    const [key] = Object.keys(result.inputRequests);
    return call(id, { _meta, inputResponses: { [key as string]: accept }, requestState: result.requestState });
  };
  for (let i = 0; i < 3; i++) await post(url, retryOf(20 + i, messageOf(await post(url, call(10 + i, { _meta }), headers))), headers);
  let first: Record<string, unknown> = {};
  walks[version] = {
    'first round': await filesRunBy(async () => {
      first = messageOf(await post(url, call(30, { _meta }), headers));
    }),
    retry: await filesRunBy(() => post(url, retryOf(31, first), headers)),
  };
}

await transport.close();
await server.close();
inspector.disconnect();

if (process.argv.includes('--json')) console.log(JSON.stringify(walks, null, 2));
else {
  for (const [version, legs] of Object.entries(walks)) {
    for (const [leg, files] of Object.entries(legs)) console.log(`${version}, ${leg}: ${files.length} files\n  ${files.join('\n  ')}`);
  }
}
