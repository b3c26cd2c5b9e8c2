/**
 * `npm run bench`: tools/call and elicitation round trips over Streamable HTTP on 127.0.0.1, for
 * Switchboard, the official SDK v1 and a bare node:http responder, each in its own process, in one run.
 * Reports round trips per second (one client, one request at a time) and server CPU per operation.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const ROUNDS = {
  warmup: 300,
  toolsCall: Number(process.env.BENCH_CALLS ?? 3000),
  elicitation: Number(process.env.BENCH_ELICITATIONS ?? 1500),
};

type Op = 'toolsCall' | 'elicitation' | 'statelessCall' | 'mrtrRound';
const OPS: Record<Op, { title: string; rounds: () => number }> = {
  toolsCall: { title: 'tools/call, session', rounds: () => ROUNDS.toolsCall },
  elicitation: { title: 'elicitation round trip, session', rounds: () => ROUNDS.elicitation },
  statelessCall: { title: 'tools/call, stateless', rounds: () => ROUNDS.toolsCall },
  mrtrRound: { title: 'MRTR round (2 requests)', rounds: () => ROUNDS.elicitation },
};

const SERVERS: { name: string; entry: string; ops: Op[] }[] = [
  { name: 'bare node:http', entry: 'servers/bare.ts', ops: ['toolsCall', 'elicitation', 'statelessCall', 'mrtrRound'] },
  { name: 'Switchboard', entry: 'servers/switchboard.ts', ops: ['toolsCall', 'elicitation', 'statelessCall', 'mrtrRound'] },
  { name: 'SDK v1 1.32.2', entry: 'servers/sdk-v1.ts', ops: ['toolsCall', 'elicitation'] },
  { name: 'SDK v1 stateless', entry: 'servers/sdk-v1-stateless.ts', ops: ['statelessCall'] },
];

const agent = new Agent({ keepAlive: true, maxSockets: 4 });
type Json = Record<string, any>;

interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** JSON-RPC messages in the body (one for JSON, each event's data for SSE). */
  messages: Json[];
}

/** POST one message; `onMessage` sees each SSE message as it arrives (to answer an elicitation mid-stream). */
function post(port: number, body: Json, headers: Record<string, string>, onMessage?: (m: Json) => void): Promise<Reply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const messages: Json[] = [];
        const sse = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          if (!sse) return;
          let end: number;
          while ((end = buffer.indexOf('\n\n')) !== -1) {
            const block = buffer.slice(0, end);
            buffer = buffer.slice(end + 2);
            const data = block
              .split('\n')
              .filter((l) => l.startsWith('data:'))
              .map((l) => l.slice(5).trim())
              .join('');
            if (!data) continue;
            const message = JSON.parse(data);
            messages.push(message);
            onMessage?.(message);
          }
        });
        res.on('end', () => {
          if (!sse && buffer) messages.push(JSON.parse(buffer));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, messages });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function openSession(port: number): Promise<Record<string, string>> {
  const init = await post(
    port,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'bench', version: '1' } },
    },
    {},
  );
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}`);
  const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
  await post(port, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}

let nextId = 1;

async function toolsCall(port: number, headers: Record<string, string>): Promise<void> {
  const id = nextId++;
  const reply = await post(port, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } }, headers);
  const result = reply.messages.find((m) => m.id === id)?.result;
  if (result?.content?.[0]?.text !== 'hello') throw new Error(`unexpected tools/call reply: ${JSON.stringify(reply.messages)}`);
}

async function elicitationRoundTrip(port: number, headers: Record<string, string>): Promise<void> {
  const id = nextId++;
  const answered: Promise<Reply>[] = [];
  const reply = await post(port, { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {} } }, headers, (m) => {
    if (m.method === 'elicitation/create')
      answered.push(post(port, { jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } } }, headers));
  });
  const statuses = (await Promise.all(answered)).map((r) => r.status);
  const result = reply.messages.find((m) => m.id === id && !m.method)?.result;
  if (result?.content?.[0]?.text !== 'accept:Ada' || statuses.length !== 1 || statuses[0] >= 300) {
    throw new Error(`unexpected elicitation round trip: ${JSON.stringify(reply.messages)} reply statuses ${statuses}`);
  }
}

/** A 2026-07-28 request: the _meta envelope and the headers that must match it. */
function modernPost(port: number, id: number, params: Json, name: string): Promise<Reply> {
  const body = {
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: {
      ...params,
      name,
      _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } },
    },
  };
  return post(port, body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
}

/** Stateless tools/call: 2026-07-28 for servers that speak it, a sessionless legacy call for the SDK's stateless mode. */
async function statelessCall(port: number, modern: boolean): Promise<void> {
  const id = nextId++;
  const reply = modern
    ? await modernPost(port, id, { arguments: { text: 'hello' } }, 'echo')
    : await post(
        port,
        { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } },
        { 'mcp-protocol-version': '2025-11-25' },
      );
  if (reply.messages[0]?.result?.content?.[0]?.text !== 'hello')
    throw new Error(`unexpected stateless tools/call reply: ${reply.status} ${JSON.stringify(reply.messages)}`);
}

/** One MRTR round: the call answers input-required, the retry carries the answer and the requestState. */
async function mrtrRound(port: number): Promise<void> {
  const first = (await modernPost(port, nextId++, { arguments: {} }, 'ask_stateless')).messages[0]?.result;
  if (first?.resultType !== 'input_required') throw new Error(`expected input_required, got ${JSON.stringify(first)}`);
  const [key] = Object.keys(first.inputRequests);
  const retry = {
    arguments: {},
    inputResponses: { [key]: { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } } },
    requestState: first.requestState,
  };
  const done = (await modernPost(port, nextId++, retry, 'ask_stateless')).messages[0]?.result;
  if (done?.content?.[0]?.text !== 'accept:Ada') throw new Error(`unexpected MRTR retry result: ${JSON.stringify(done)}`);
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: any) =>
      resolve(process.env.BENCH_CPU === 'user' ? m.cpu.user : process.env.BENCH_CPU === 'system' ? m.cpu.system : m.cpu.user + m.cpu.system),
    );
    child.send('cpu');
  });
}

async function measure(child: ChildProcess, rounds: number, op: () => Promise<void>) {
  const cpuBefore = await cpuOf(child);
  const start = process.hrtime.bigint();
  for (let i = 0; i < rounds; i++) await op();
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const cpu = (await cpuOf(child)) - cpuBefore;
  return { opsPerSecond: Math.round(rounds / seconds), serverCpuMicrosPerOp: Math.round((cpu / rounds) * 10) / 10 };
}

const here = fileURLToPath(new URL('.', import.meta.url));
const tsx = fileURLToPath(new URL('../node_modules/tsx/dist/loader.mjs', import.meta.url));
const results: Json[] = [];
const deadline = setTimeout(() => {
  console.error('bench: gave up after 10 minutes');
  process.exit(1);
}, 10 * 60_000);

for (const target of SERVERS) {
  // BENCH_PROFILE=dir writes a V8 CPU profile of each server there.
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [];
  const child = fork(here + target.entry, [], { execArgv: [...profile, '--import', tsx], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`${target.name} exited with ${code}`)));
  });
  try {
    const headers = target.ops.includes('toolsCall') ? await openSession(port) : {};
    const modern = target.name !== 'SDK v1 stateless';
    const run: Record<Op, () => Promise<void>> = {
      toolsCall: () => toolsCall(port, headers),
      elicitation: () => elicitationRoundTrip(port, headers),
      statelessCall: () => statelessCall(port, modern),
      mrtrRound: () => mrtrRound(port),
    };
    const row: Json = { server: target.name };
    for (const op of target.ops) {
      for (let i = 0; i < ROUNDS.warmup; i++) await run[op]();
      row[op] = await measure(child, OPS[op].rounds(), run[op]);
    }
    results.push(row);
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
clearTimeout(deadline);
agent.destroy();

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(
  `\nStreamable HTTP on 127.0.0.1, one client, one request at a time (Node ${process.version}); server CPU is user + system time of the server process`,
);
console.log(`${'operation'.padEnd(34)}${'server'.padEnd(20)}${pad('ops/s', 8)}${pad('CPU µs/op', 12)}`);
for (const op of Object.keys(OPS) as Op[]) {
  for (const r of results) {
    if (!r[op]) continue;
    console.log(`${OPS[op].title.padEnd(34)}${r.server.padEnd(20)}${pad(r[op].opsPerSecond, 8)}${pad(r[op].serverCpuMicrosPerOp, 12)}`);
  }
}
mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(
  new URL(`results/http-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url),
  JSON.stringify({ node: process.version, rounds: ROUNDS, results }, null, 2),
);
