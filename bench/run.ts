/**
 * `npm run bench [-- --quick]`: server CPU per operation at 16 and 64 concurrent clients, for Switchboard,
 * bare node:http / ws responders (the floor) and its peers (SDK v1, SDK v2 stateful and stateless,
 * fastmcp), over Streamable HTTP and WebSocket on 127.0.0.1. The load generator is this process, on raw
 * sockets, pinned to one core and the servers to the other; a cell where it passes GENERATOR_LIMIT of its
 * core while the server is short of SERVER_SATURATED of its own is refused. Within a cell the servers take
 * turns in short windows (--windows, 5 by default), and repetitions interleave them too, so that each ratio
 * pairs measurements taken moments apart; the report gives medians over repetitions.
 *
 * Options: --quick, --reps N (6 by default, 12 with --scale, 3 with --quick), --windows N, --concurrency
 * 16,64, --case ws-echo,ws-elicit (a variant case such as ws-echo-zod brings the case it varies along),
 * --server bare,switchboard,sdk-v2, --switchboard DIR (the package under test: a build directory or a
 * package root; default dist/), --before DIR (another build, measured beside it as `before`), --profile
 * DIR (a V8 CPU profile of each server process, written when it exits). `--server` may also name `otel`
 * (Switchboard with the telemetry option on the bare OpenTelemetry API) and `otel-sdk` (recording with the
 * SDK), which run only when named. --rate N paces each cell's clients to N operations per second in all
 * (wrk2's constant throughput) instead of running them back to back, so that every server is measured at
 * the same throughput: a cell whose server keeps less than RATE_KEPT of it is refused. --scale runs the
 * scale-out benchmark instead (bench/scale.ts: three processes sharing a redis-server; --case names its
 * cases there). Idle CPUs are kept polling for the load bench (keepCpusAwake); --idle sleep leaves them as
 * the machine has them.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CASES, type CaseId, type Client, type Endpoint } from './cases.js';
import { runWindow, sampleOf, type Timing, type Window } from './load.js';
import { describeMachine, machine } from './machine.js';
import { ON_REQUEST, ROLES, type Role, type ServerSpec, serverSpecs } from './peers.js';
import {
  CONTENDED,
  CORE_CONTENDED,
  GENERATOR_LIMIT,
  type Measured,
  printOtherLoad,
  printSummary,
  printTable,
  RATE_KEPT,
  SERVER_SATURATED,
  summarize,
  writeJson,
} from './report.js';
import { switchboardEntry } from './servers/import-switchboard.mjs';
import { keepCpusAwake, pinCpus, type Running, startServer, stopServers } from './servers.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    reps: { type: 'string' },
    windows: { type: 'string' },
    concurrency: { type: 'string' },
    case: { type: 'string' },
    server: { type: 'string' },
    switchboard: { type: 'string', default: fileURLToPath(new URL('../dist/', import.meta.url)) },
    before: { type: 'string' },
    profile: { type: 'string' },
    scale: { type: 'boolean', default: false },
    rate: { type: 'string' },
    idle: { type: 'string' },
  },
});
/** How long a server's clients run again, unmeasured, before each of its windows after the first. */
const REWARM_MS = 100;
const list = (value: string | undefined) => value?.split(',').map((s) => s.trim());
const settings = {
  // The scale bench takes twice the repetitions: its servers, Redis and the generator share both cores
  // unpinned, so one repetition's ratio ranges about twice as wide as in the pinned load bench.
  reps: Number(args.reps ?? (args.quick ? 3 : args.scale ? 12 : 6)),
  concurrency: (list(args.concurrency) ?? (args.quick ? ['16'] : ['16', '64'])).map(Number),
  cases: (list(args.case) ?? Object.keys(CASES)) as CaseId[],
  timing: {
    ...(args.quick ? { warmupMs: 150, measureMs: 500, maxMeasureMs: 1500 } : { warmupMs: 500, measureMs: 1500, maxMeasureMs: 5000 }),
    rate: args.rate === undefined ? undefined : Number(args.rate),
  },
  // Each server's window in a cell is cut into this many, taken in turn with the other servers'.
  windows: Number(args.windows ?? (args.quick ? 2 : 5)),
  // Before the first repetition, every server runs every case once unmeasured, so no repetition pays for compiling.
  primeMs: args.quick ? 250 : 1000,
  deadlineSeconds: args.quick ? 115 : 1500,
  switchboard: resolve(args.switchboard!),
  before: args.before && resolve(args.before),
};
const { rate } = settings.timing;
for (const dir of [settings.switchboard, settings.before]) {
  if (dir && !existsSync(switchboardEntry(dir))) throw new Error(`no Switchboard build in ${dir} (looked for ${switchboardEntry(dir)}); run npm run build`);
}
for (const n of [settings.reps, settings.windows, ...settings.concurrency])
  if (!Number.isInteger(n) || n < 1) throw new Error('--reps, --windows and --concurrency take positive integers');
if (rate !== undefined && !(rate > 0)) throw new Error('--rate takes a positive number of operations per second');
if (rate !== undefined && args.scale) throw new Error('--rate is for the load bench; --scale runs its clients back to back');
if (args.idle !== undefined && args.scale) throw new Error('--idle is for the load bench; the scale bench leaves idle CPUs as the machine has them');
if (args.idle !== undefined && args.idle !== 'poll' && args.idle !== 'sleep')
  throw new Error('--idle takes poll (hold idle CPUs awake, the default) or sleep (leave them as the machine has them)');
if (args.scale) {
  // The scale servers inherit it: they are Switchboard from the same package directory.
  process.env.SWITCHBOARD_DIR = settings.switchboard;
  const { runScale } = await import('./scale.js');
  await runScale({ reps: settings.reps, timing: settings.timing, windows: settings.windows, profileDir: args.profile, cases: list(args.case) });
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
const named = list(args.server);
for (const role of named ?? []) if (!ROLES.includes(role as Role)) throw new Error(`unknown server ${role}; servers: ${ROLES.join(', ')}`);
// `before` comes with Switchboard: it exists only when --before names a build.
const wanted = (role: Role) =>
  named ? named.includes(role) || (role === 'before' && named.includes('switchboard')) : !ON_REQUEST.includes(role) || role === 'before';
const servers = serverSpecs(settings.switchboard, settings.before).filter((s) => wanted(s.role) && settings.cases.some((id) => s.cases[id]));

const deadline = setTimeout(() => {
  console.error(`bench: not done after ${settings.deadlineSeconds} s, giving up`);
  process.exit(2);
}, settings.deadlineSeconds * 1000);

const host = machine();
const pinning = pinCpus();
const idle = args.idle !== 'sleep' ? keepCpusAwake().note : 'idle CPUs as the machine has them (--idle sleep)';
const setup = `${describeMachine(host)}; ${pinning.note}; ${idle}`;
console.log(setup);
console.log(`Switchboard from ${settings.switchboard}${settings.before ? `, before from ${settings.before}` : ''}`);
const started = new Map<ServerSpec, Running>();
for (const spec of servers) started.set(spec, await startServer(spec.entry, pinning.serverCpu, args.profile, spec.env));
const cpuSource = [...started.values()][0].cpu.source;
console.log(
  `server CPU: ${cpuSource}; ${settings.reps} reps; per measurement, warm-up ${settings.timing.warmupMs} ms, then ${settings.windows} windows of ${settings.timing.measureMs / settings.windows} ms taken in turn with the other servers' (${REWARM_MS} ms warm-up before each after the first)`,
);

/** Open the clients, load the server through warm-up and window, close the clients. */
async function measure(spec: ServerSpec, caseId: CaseId, concurrency: number, timing: Timing = settings.timing) {
  return (await measureTogether([spec], caseId, concurrency, timing, 1))[0]!;
}

/**
 * Open the clients of every server in `order`, then measure them in turn, `windows` times, each
 * server's share of `timing.measureMs` cut into that many windows (a warm-up first, a short one after
 * that): the servers of a pair are measured moments apart, many times over, so a machine whose speed
 * drifts from one second to the next changes both alike. Each server's windows add up to one Sample.
 */
async function measureTogether(order: ServerSpec[], caseId: CaseId, concurrency: number, timing: Timing, windows: number) {
  const clients = new Map<ServerSpec, Client[]>();
  const seen = new Map<ServerSpec, Window[]>(order.map((spec) => [spec, []]));
  try {
    for (const spec of order) {
      const endpoint: Endpoint = { port: started.get(spec)!.port, path: '/mcp', ...spec.cases[caseId] };
      clients.set(spec, await Promise.all(Array.from({ length: concurrency }, () => CASES[caseId].connect(endpoint))));
    }
    for (let w = 0; w < windows; w++) {
      const turn = order.map((_, i) => order[(i + w) % order.length]!);
      for (const spec of turn) {
        // A slow server's cell is extended, as one window would be, until it has seen an operation per client.
        const taken = seen.get(spec)!;
        const ops = taken.reduce((n, each) => n + each.ops, 0);
        const spentMs = taken.reduce((ms, each) => ms + each.micros / 1000, 0);
        const window = {
          warmupMs: w === 0 ? timing.warmupMs : REWARM_MS,
          measureMs: timing.measureMs / windows,
          maxMeasureMs: Math.max((timing.maxMeasureMs ?? 0) - spentMs, 0),
          minOps: Math.max(concurrency - ops, 0),
          rate: timing.rate,
        };
        try {
          taken.push(await runWindow(clients.get(spec)!, window, started.get(spec)!.cpu.read, pinning.serverCpu));
        } catch (err) {
          throw new Error(`${spec.name}, ${caseId}, ${concurrency} clients: ${(err as Error).message}`);
        }
      }
    }
    return order.map((spec) => sampleOf(seen.get(spec)!));
  } finally {
    await Promise.all([...clients.values()].flat().map((c) => c.close()));
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
        const measured = await measureTogether(order, caseId, concurrency, settings.timing, settings.windows);
        for (const [i, spec] of order.entries()) samples.push({ rep, caseId, concurrency, role: spec.role, server: spec.name, ...measured[i]! });
      }
    }
  }
  console.log(`rep ${rep}/${settings.reps} done at ${elapsed()}`);
}
await stopServers();
clearTimeout(deadline);

const rows = summarize(samples, CASES, rate).sort(
  (a, b) => settings.cases.indexOf(a.caseId) - settings.cases.indexOf(b.caseId) || a.concurrency - b.concurrency,
);
console.log(`\n${setup}`);
console.log(
  `medians over the reps in which other processes took at most ${CONTENDED * 100}% of a CPU and ${CORE_CONTENDED * 100}% of the server's core (all reps if none did);`,
);
console.log("±reps: half the range of CPU µs/op over those reps; gen: the load generator's share of its core, srv: the server's");
if (rate === undefined) {
  console.log(`(a cell is invalid when gen passes ${GENERATOR_LIMIT * 100}% and srv is under ${SERVER_SATURATED * 100}%: then the generator set the pace);`);
} else {
  console.log(`clients paced to ${rate} operations per second in all (a cell is invalid below ${RATE_KEPT * 100}% of it: then the server set the pace);`);
}
console.log("other: CPU taken by other processes (100% = one CPU), core: other work on the server's core;");
console.log('ratio: median of per-rep CPU ratios');
console.log('against bare (pairs counted), and for a variant case (", zod") each server against itself on the case it varies;');
console.log('/SB: a peer or a telemetry variant against Switchboard, paired the same way');
printTable(rows);
console.log(`\nCPU per operation against bare (! marks a cell with a problem, listed above):`);
printSummary(rows);
printOtherLoad(samples);
const file = writeJson({ machine: host, pinning: pinning.note, idle, cpuSource, settings, rows, samples });
console.log(`\nwrote ${file}`);
