/**
 * `npm run bench [-- --quick]`: server CPU per operation, latency and throughput at 1, 16 and 64
 * concurrent clients, for Switchboard, bare node:http / ws responders and the official SDK v1, over
 * Streamable HTTP and WebSocket on 127.0.0.1. Repetitions interleave the servers so that each ratio
 * pairs measurements taken moments apart; the report gives medians over repetitions.
 *
 * Options: --quick, --reps N, --concurrency 1,16, --case ws-echo,ws-elicit (a variant case such as
 * ws-echo-zod brings the case it varies along), --server switchboard,
 * --profile DIR (a V8 CPU profile of each server process, written when it exits). `--server` may also name
 * `otel` (Switchboard with the telemetry option on the bare OpenTelemetry API) and `otel-sdk` (recording
 * with the SDK), which run only when named: `--server bare,switchboard,otel`. --scale runs the
 * scale-out benchmark instead (bench/scale.ts: two processes sharing a redis-server).
 */
import { parseArgs } from 'node:util';
import { CASES, type CaseId, type Client, type Endpoint } from './cases.js';
import { agent } from './http-client.js';
import { runLoad } from './load.js';
import { CONTENDED, type Measured, printOtherLoad, printTable, type Role, summarize, writeJson } from './report.js';
import { pinCpus, type Running, startServer, stopServers } from './servers.js';

interface ServerSpec {
  role: Role;
  name: string;
  entry: string;
  /** The cases it serves, with the endpoint details that differ from POST /mcp. */
  cases: Partial<Record<CaseId, Partial<Endpoint>>>;
}

// The zod variants only Switchboard serves: they are compared with its own JSON Schema echo, not with bare.
const SWITCHBOARD_CASES: ServerSpec['cases'] = {
  'http-echo': {},
  'http-echo-zod': {},
  'stateless-echo': {},
  'http-elicit': {},
  'mrtr-round': {},
  'ws-echo': {},
  'ws-echo-zod': {},
  'ws-elicit': {},
};
/** Variants that run only when `--server` names them. */
const ON_REQUEST: readonly Role[] = ['otel', 'otel-sdk'];

const SERVERS: ServerSpec[] = [
  { role: 'bare', name: 'bare node:http', entry: 'bare-http.mjs', cases: { 'http-echo': {}, 'stateless-echo': {}, 'http-elicit': {}, 'mrtr-round': {} } },
  { role: 'bare', name: 'bare ws', entry: 'bare-ws.mjs', cases: { 'ws-echo': {}, 'ws-elicit': {} } },
  {
    role: 'switchboard',
    name: 'Switchboard',
    entry: 'switchboard.mjs',
    cases: SWITCHBOARD_CASES,
  },
  { role: 'otel', name: 'SB otel no-op', entry: 'switchboard-otel.mjs', cases: SWITCHBOARD_CASES },
  { role: 'otel-sdk', name: 'SB otel SDK', entry: 'switchboard-otel-sdk.mjs', cases: SWITCHBOARD_CASES },
  // SDK v1 has no 2026-07-28: its stateless mode gets sessionless 2025-11-25 calls.
  {
    role: 'sdk',
    name: 'SDK v1 1.32.2',
    entry: 'sdk-v1.mjs',
    cases: { 'http-echo': {}, 'http-elicit': {}, 'stateless-echo': { path: '/stateless', legacy: true } },
  },
];

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    reps: { type: 'string' },
    concurrency: { type: 'string' },
    case: { type: 'string' },
    server: { type: 'string' },
    profile: { type: 'string' },
    scale: { type: 'boolean', default: false },
  },
});
const list = (value: string | undefined) => value?.split(',').map((s) => s.trim());
const settings = {
  reps: Number(args.reps ?? (args.quick ? 3 : 5)),
  concurrency: (list(args.concurrency) ?? (args.quick ? ['16'] : ['1', '16', '64'])).map(Number),
  cases: (list(args.case) ?? Object.keys(CASES)) as CaseId[],
  timing: args.quick ? { warmupMs: 400, measureMs: 1000 } : { warmupMs: 500, measureMs: 1500 },
  // Before the first repetition, every server runs every case once unmeasured, so no repetition pays for compiling.
  primeMs: args.quick ? 600 : 1000,
  deadlineSeconds: args.quick ? 110 : 660,
};
if (args.scale) {
  const { runScale } = await import('./scale.js');
  await runScale({ reps: settings.reps, timing: settings.timing });
  process.exit(0);
}
for (const id of settings.cases) if (!CASES[id]) throw new Error(`unknown case ${id}; cases: ${Object.keys(CASES).join(', ')}`);
// A variant's ratio is to the case it varies: that case runs too, and the two are measured together.
settings.cases = [...new Set(settings.cases.flatMap((id) => [CASES[id].variantOf ?? id, id]))];
const groups: CaseId[][] = [];
for (const id of settings.cases) {
  const group = groups.find((g) => g[0] === CASES[id].variantOf);
  if (group) group.push(id);
  else groups.push([id]);
}
for (const n of [settings.reps, ...settings.concurrency]) if (!Number.isInteger(n) || n < 1) throw new Error('--reps and --concurrency take positive integers');
const servers = SERVERS.filter((s) => (args.server ? list(args.server)!.includes(s.role) : !ON_REQUEST.includes(s.role)));

const deadline = setTimeout(() => {
  console.error(`bench: not done after ${settings.deadlineSeconds} s, giving up`);
  process.exit(2);
}, settings.deadlineSeconds * 1000);

const pinning = pinCpus();
console.log(`Node ${process.version}; ${pinning.note}`);
const started = new Map<ServerSpec, Running>();
for (const spec of servers) started.set(spec, await startServer(spec.entry, pinning.serverCpu, args.profile));
const cpuSource = [...started.values()][0].cpu.source;
console.log(`server CPU: ${cpuSource}; ${settings.reps} reps, warm-up ${settings.timing.warmupMs} ms + window ${settings.timing.measureMs} ms per measurement`);

/** Open the clients, load the server through warm-up and window, close the clients. */
async function measure(spec: ServerSpec, caseId: CaseId, concurrency: number, timing = settings.timing) {
  const server = started.get(spec)!;
  const endpoint: Endpoint = { port: server.port, path: '/mcp', ...spec.cases[caseId] };
  const clients: Client[] = await Promise.all(Array.from({ length: concurrency }, () => CASES[caseId].connect(endpoint)));
  try {
    return await runLoad(clients, timing, server.cpu.read);
  } finally {
    await Promise.all(clients.map((c) => c.close()));
  }
}

const begun = performance.now();
const elapsed = () => `${((performance.now() - begun) / 1000).toFixed(0)} s`;
for (const caseId of settings.cases) {
  for (const spec of servers.filter((s) => s.cases[caseId])) await measure(spec, caseId, 16, { warmupMs: settings.primeMs, measureMs: 100 });
}
console.log(`primed at ${elapsed()}`);
const samples: Measured[] = [];
for (let rep = 1; rep <= settings.reps; rep++) {
  for (const group of groups) {
    // A case and its variants take turns at going first, as the servers do: running second is not free (the first one's garbage).
    const cases = group.map((_, i) => group[(i + rep - 1) % group.length]);
    for (const concurrency of settings.concurrency) {
      for (const caseId of cases) {
        const serving = servers.filter((s) => s.cases[caseId]);
        // Each repetition starts with another server, so no server always runs first or last.
        const order = serving.map((_, i) => serving[(i + rep - 1) % serving.length]);
        for (const spec of order) {
          const sample = await measure(spec, caseId, concurrency);
          samples.push({ rep, caseId, concurrency, role: spec.role, server: spec.name, ...sample });
        }
      }
    }
  }
  console.log(`rep ${rep}/${settings.reps} done at ${elapsed()}`);
}
await stopServers();
agent.destroy();
clearTimeout(deadline);

const rows = summarize(samples, CASES).sort((a, b) => settings.cases.indexOf(a.caseId) - settings.cases.indexOf(b.caseId) || a.concurrency - b.concurrency);
console.log(`\nmedians over the reps in which other processes took at most ${CONTENDED * 100}% of a CPU (all reps if none did);`);
console.log("±reps: half the range of CPU µs/op over those reps; client: the load generator's share of its core;");
console.log('other: CPU taken by other processes (100% = one CPU); ratio: median of per-rep CPU ratios, Switchboard/bare, SDK/Switchboard, otel/Switchboard,');
console.log('and for a variant case (", zod"), each server against itself on the case it varies');
printTable(rows);
printOtherLoad(samples);
const file = writeJson({ node: process.version, pinning: pinning.note, cpuSource, settings, rows, samples });
console.log(`\nwrote ${file}`);
