/**
 * `npm run bench`: tools/call and elicitation round trips over Streamable HTTP on 127.0.0.1, for
 * Switchboard, the official SDK v1 and a bare node:http responder, each in its own process, in one run.
 * Reports round trips per second (one client, one request at a time) and server CPU per operation.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const ROUNDS = { warmup: 300, toolsCall: Number(process.env.BENCH_CALLS ?? 3000), elicitation: Number(process.env.BENCH_ELICITATIONS ?? 1500) };
const SERVERS = [
  { name: 'bare node:http', entry: 'servers/bare.ts' },
  { name: 'Switchboard', entry: 'servers/switchboard.ts' },
  { name: 'SDK v1 1.32.2', entry: 'servers/sdk-v1.ts' },
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
      { host: '127.0.0.1', port, path: '/mcp', method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'content-length': Buffer.byteLength(payload) } },
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
            const data = block.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('');
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
  const init = await post(port, { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'bench', version: '1' } } }, {});
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
    if (m.method === 'elicitation/create') answered.push(post(port, { jsonrpc: '2.0', id: m.id, result: { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } } }, headers));
  });
  const statuses = (await Promise.all(answered)).map((r) => r.status);
  const result = reply.messages.find((m) => m.id === id && !m.method)?.result;
  if (result?.content?.[0]?.text !== 'accept:Ada' || statuses.length !== 1 || statuses[0] >= 300) {
    throw new Error(`unexpected elicitation round trip: ${JSON.stringify(reply.messages)} reply statuses ${statuses}`);
  }
}

function cpuOf(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once('message', (m: any) => resolve(process.env.BENCH_CPU === 'user' ? m.cpu.user : process.env.BENCH_CPU === 'system' ? m.cpu.system : m.cpu.user + m.cpu.system));
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
    const headers = await openSession(port);
    for (let i = 0; i < ROUNDS.warmup; i++) await toolsCall(port, headers);
    for (let i = 0; i < ROUNDS.warmup; i++) await elicitationRoundTrip(port, headers);
    const calls = await measure(child, ROUNDS.toolsCall, () => toolsCall(port, headers));
    const elicitations = await measure(child, ROUNDS.elicitation, () => elicitationRoundTrip(port, headers));
    results.push({ server: target.name, toolsCall: calls, elicitation: elicitations });
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
clearTimeout(deadline);
agent.destroy();

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`\nStreamable HTTP on 127.0.0.1, one client, one request at a time (${ROUNDS.toolsCall} calls, ${ROUNDS.elicitation} elicitations; Node ${process.version})`);
console.log(`${'server'.padEnd(16)}${pad('tools/call /s', 16)}${pad('CPU µs/call', 14)}${pad('elicit /s', 12)}${pad('CPU µs/elicit', 15)}`);
for (const r of results) {
  console.log(
    `${r.server.padEnd(16)}${pad(r.toolsCall.opsPerSecond, 16)}${pad(r.toolsCall.serverCpuMicrosPerOp, 14)}${pad(r.elicitation.opsPerSecond, 12)}${pad(r.elicitation.serverCpuMicrosPerOp, 15)}`,
  );
}
mkdirSync(new URL('results/', import.meta.url), { recursive: true });
writeFileSync(new URL(`results/http-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, import.meta.url), JSON.stringify({ node: process.version, rounds: ROUNDS, results }, null, 2));
