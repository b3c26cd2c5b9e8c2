/**
 * `npm run bench -- --scale [--quick]`: three Switchboard processes sharing a redis-server. What a request
 * costs when it lands on an instance that does not hold its session, served there (`serveWhereTheyLand`)
 * or forwarded to the owner, against the same request on the owner; and echo throughput with the clients
 * spread over two processes against one. Nothing is pinned: the two servers, Redis and the load generator share this machine's cores, as
 * they would on one host, so the figures say what forwarding and a second process buy here, not more.
 */
import { startRedis } from '../test/helpers/redis-server.js';
import type { Client } from './cases.js';
import { agent, type HttpEndpoint, type Json, openSession, post, send } from './http-client.js';
import { runLoad, runWindow, type Sample, sampleOf, type Timing } from './load.js';
import { writeJson } from './report.js';
import { type Running, startServer, stopServers } from './servers.js';

interface Settings {
  reps: number;
  timing: { warmupMs: number; measureMs: number };
  /** Each case's measurement is cut into this many windows, taken in turn with the other cases'. */
  windows: number;
  /** A V8 CPU profile of each server process, written there when it exits. */
  profileDir?: string;
  /** The cases to run, by id (all when undefined). */
  cases?: string[] | undefined;
}

/** How long a case's clients run again, unmeasured, before each of its windows after the first. */
const REWARM_MS = 100;

const ANSWER = { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } };
const endpoint = (server: Running): HttpEndpoint => ({ port: server.port, path: '/mcp' });
const resultOf = (messages: Json[], id: number) => messages.find((m) => m.id === id && m.method === undefined)?.result;

function check(ok: boolean, what: string, got: unknown): void {
  if (!ok) throw new Error(`unexpected ${what}: ${JSON.stringify(got)}`);
}

/** A session opened on `owner`; each elicitation round trip (the call, and the answer) is sent to `via`. */
async function elicitClient(owner: HttpEndpoint, via: HttpEndpoint): Promise<Client> {
  const headers = await openSession(owner);
  let id = 1;
  return {
    async op() {
      const callId = id++;
      const answered: Promise<{ status: number }>[] = [];
      const call = { jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: 'ask', arguments: {} } };
      const reply = await post(via, call, headers, (m) => {
        if (m.method === 'elicitation/create') answered.push(post(via, { jsonrpc: '2.0', id: m.id, result: ANSWER }, headers));
      });
      const statuses = (await Promise.all(answered)).map((r) => r.status);
      check(resultOf(reply.messages, callId)?.content?.[0]?.text === 'accept:Ada', 'elicitation round trip', reply.messages);
      check(statuses.length === 1 && statuses[0]! < 300, 'answer status', statuses);
    },
    close: async () => void (await send(owner, 'DELETE', undefined, headers)),
  };
}

/** A session on `server`, calling echo on it. */
async function echoClient(server: HttpEndpoint): Promise<Client> {
  const headers = await openSession(server);
  let id = 1;
  return {
    async op() {
      const callId = id++;
      const reply = await post(server, { jsonrpc: '2.0', id: callId, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hello' } } }, headers);
      check(resultOf(reply.messages, callId)?.content?.[0]?.text === 'hello', 'echo reply', reply.messages);
    },
    close: async () => void (await send(server, 'DELETE', undefined, headers)),
  };
}

interface Case {
  id: string;
  title: string;
  /** a holds the sessions; b serves where requests land; c forwards them to their owner. */
  clients(a: HttpEndpoint, b: HttpEndpoint, c: HttpEndpoint): Promise<Client>[];
}

const CASES: Case[] = [
  { id: 'elicit-same', title: 'elicitation, on the owner (16 clients)', clients: (a) => Array.from({ length: 16 }, () => elicitClient(a, a)) },
  {
    id: 'elicit-served',
    title: 'elicitation, served where it lands (16 clients)',
    clients: (a, b) => Array.from({ length: 16 }, () => elicitClient(a, b)),
  },
  {
    id: 'elicit-forwarded',
    title: 'elicitation, forwarded to the owner (16 clients)',
    clients: (a, _b, c) => Array.from({ length: 16 }, () => elicitClient(a, c)),
  },
  { id: 'echo-one', title: 'echo, 32 clients on 1 process', clients: (a) => Array.from({ length: 32 }, () => echoClient(a)) },
  { id: 'echo-two', title: 'echo, 32 clients over 2 processes', clients: (a, b) => Array.from({ length: 32 }, (_, i) => echoClient(i % 2 ? b : a)) },
];

interface Row {
  case: string;
  opsPerSecond: number;
  p50Micros: number;
  p99Micros: number;
  cpuMicrosPerOp: number;
  cpuMicrosPerOpA: number;
  cpuMicrosPerOpB: number;
  cpuMicrosPerOpC: number;
  cpuSpread: number;
}

export async function runScale(settings: Settings): Promise<void> {
  const unknown = settings.cases?.filter((id) => !CASES.some((c) => c.id === id));
  if (unknown?.length) throw new Error(`unknown scale case ${unknown.join(', ')}; cases: ${CASES.map((c) => c.id).join(', ')}`);
  const cases = settings.cases ? CASES.filter((c) => settings.cases!.includes(c.id)) : CASES;
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const guests = { SERVE_WHERE_THEY_LAND: '1' };
  const [a, b, c] = [
    await startServer('switchboard-scale.mjs', undefined, settings.profileDir, guests),
    await startServer('switchboard-scale.mjs', undefined, settings.profileDir, guests),
    await startServer('switchboard-scale.mjs', undefined, settings.profileDir),
  ];
  // The servers' CPU, summed; each one's is kept too, so that a sample can say which process spent it.
  let reads: number[][] = [];
  const cpu = async () => {
    const each = [await a!.cpu.read(), await b!.cpu.read(), await c!.cpu.read()];
    reads.push(each);
    return each[0]! + each[1]! + each[2]!;
  };
  /** One window of `clients`; it says what each process (a: the owner, b, c: the others) spent in it. */
  const window = async (clients: Client[], timing: Timing) => {
    reads = [];
    const seen = await runWindow(clients, timing, cpu);
    const [before, after] = [reads[0]!, reads[reads.length - 1]!];
    return { ...seen, each: [0, 1, 2].map((i) => after[i]! - before[i]!) };
  };
  const samples: (Sample & { rep: number; caseId: string; cpuMicrosPerOpA: number; cpuMicrosPerOpB: number; cpuMicrosPerOpC: number })[] = [];
  try {
    for (const kase of cases) {
      const clients = await Promise.all(kase.clients(endpoint(a!), endpoint(b!), endpoint(c!)));
      await runLoad(clients, { warmupMs: settings.timing.warmupMs, measureMs: 100 }, cpu);
      await Promise.all(clients.map((client) => client.close()));
    }
    for (let rep = 1; rep <= settings.reps; rep++) {
      // Every case's clients are connected at once, and the cases take turns in short windows (a different
      // one first each time), so that a ratio pairs measurements taken moments apart, as the load bench does.
      const order = cases.map((_, i) => cases[(i + rep - 1) % cases.length]!);
      const clients = new Map<Case, Client[]>();
      const seen = new Map<Case, Awaited<ReturnType<typeof window>>[]>(order.map((kase) => [kase, []]));
      try {
        for (const kase of order) clients.set(kase, await Promise.all(kase.clients(endpoint(a!), endpoint(b!), endpoint(c!))));
        for (let w = 0; w < settings.windows; w++) {
          for (const kase of order.map((_, i) => order[(i + w) % order.length]!)) {
            const timing = { warmupMs: w === 0 ? settings.timing.warmupMs : REWARM_MS, measureMs: settings.timing.measureMs / settings.windows };
            seen.get(kase)!.push(await window(clients.get(kase)!, timing));
          }
        }
      } finally {
        await Promise.all([...clients.values()].flat().map((client) => client.close()));
      }
      for (const kase of order) {
        const windows = seen.get(kase)!;
        const sample = sampleOf(windows);
        const per = (i: number) => windows.reduce((sum, w) => sum + w.each[i]!, 0) / sample.ops;
        samples.push({ rep, caseId: kase.id, ...sample, cpuMicrosPerOpA: per(0), cpuMicrosPerOpB: per(1), cpuMicrosPerOpC: per(2) });
      }
      console.log(`rep ${rep}/${settings.reps} done`);
    }
  } finally {
    await stopServers();
    agent.destroy();
    await redis.stop();
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const rows = cases.map((c): Row => {
    const mine = samples.filter((s) => s.caseId === c.id);
    return {
      case: c.title,
      opsPerSecond: median(mine.map((s) => s.opsPerSecond)),
      p50Micros: median(mine.map((s) => s.p50Micros)),
      p99Micros: median(mine.map((s) => s.p99Micros)),
      cpuMicrosPerOp: median(mine.map((s) => s.cpuMicrosPerOp)),
      cpuMicrosPerOpA: median(mine.map((s) => s.cpuMicrosPerOpA)),
      cpuMicrosPerOpB: median(mine.map((s) => s.cpuMicrosPerOpB)),
      cpuMicrosPerOpC: median(mine.map((s) => s.cpuMicrosPerOpC)),
      cpuSpread: (Math.max(...mine.map((s) => s.cpuMicrosPerOp)) - Math.min(...mine.map((s) => s.cpuMicrosPerOp))) / 2,
    };
  });
  console.log(
    `\nmedians over ${settings.reps} reps, each case measured in ${settings.windows} windows taken in turn with the others'; CPU µs/op is the servers' together (Redis and the load generator not counted),`,
  );
  console.log('±: half its range over the reps; A: the instance holding the sessions, B: one serving where requests land, C: one forwarding them');
  console.log(
    `${'case'.padEnd(48)}${'ops/s'.padStart(9)}${'p50 µs'.padStart(10)}${'p99 µs'.padStart(10)}${'CPU µs/op'.padStart(11)}${'±'.padStart(7)}${'A'.padStart(8)}${'B'.padStart(8)}${'C'.padStart(8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.case.padEnd(48)}${row.opsPerSecond.toFixed(0).padStart(9)}${row.p50Micros.toFixed(0).padStart(10)}${row.p99Micros.toFixed(0).padStart(10)}${row.cpuMicrosPerOp.toFixed(1).padStart(11)}${row.cpuSpread.toFixed(1).padStart(7)}${row.cpuMicrosPerOpA.toFixed(1).padStart(8)}${row.cpuMicrosPerOpB.toFixed(1).padStart(8)}${row.cpuMicrosPerOpC.toFixed(1).padStart(8)}`,
    );
  }
  // The comparisons of the cases that ran: the median of the per-rep ratios, each pairing windows taken in turn.
  const ran = (id: string) => cases.some((c) => c.id === id);
  const paired = (of: string, to: string, field: 'p50Micros' | 'cpuMicrosPerOp' | 'opsPerSecond') => {
    const ratios = [];
    for (let rep = 1; rep <= settings.reps; rep++) {
      const [x, y] = [of, to].map((id) => samples.find((s) => s.rep === rep && s.caseId === id)![field]);
      ratios.push(x! / y!);
    }
    const sorted = [...ratios].sort((x, y) => x - y);
    return { median: median(ratios), low: sorted[0]!, high: sorted[sorted.length - 1]! };
  };
  const shown = (r: ReturnType<typeof paired>) => `${r.median.toFixed(2)}× (reps ${r.low.toFixed(2)}–${r.high.toFixed(2)})`;
  const against = (id: string) =>
    `${shown(paired(id, 'elicit-same', 'p50Micros'))} p50 latency, ${shown(paired(id, 'elicit-same', 'cpuMicrosPerOp'))} server CPU`;
  if (ran('elicit-same') && ran('elicit-served')) console.log(`\nserved where it lands / on the owner: ${against('elicit-served')}`);
  if (ran('elicit-same') && ran('elicit-forwarded')) console.log(`forwarded / on the owner: ${against('elicit-forwarded')}`);
  if (ran('echo-one') && ran('echo-two')) console.log(`2 processes / 1: ${shown(paired('echo-two', 'echo-one', 'opsPerSecond'))} echo throughput`);
  console.log(`\nwrote ${writeJson({ node: process.version, kind: 'scale', settings, rows, samples })}`);
}
