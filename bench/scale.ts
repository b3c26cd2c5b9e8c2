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
import { runLoad, type Sample } from './load.js';
import { writeJson } from './report.js';
import { type Running, startServer, stopServers } from './servers.js';

interface Settings {
  reps: number;
  timing: { warmupMs: number; measureMs: number };
  /** A V8 CPU profile of each server process, written there when it exits. */
  profileDir?: string;
}

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
  /** Load `clients` with `timing`; the sample says what each process (a: the owner, b, c: the others) spent per operation. */
  const measure = async (clients: Client[], timing: Settings['timing']) => {
    reads = [];
    const sample = await runLoad(clients, timing, cpu);
    const [before, after] = [reads[0]!, reads[reads.length - 1]!];
    const per = (i: number) => (after[i]! - before[i]!) / sample.ops;
    return { ...sample, cpuMicrosPerOpA: per(0), cpuMicrosPerOpB: per(1), cpuMicrosPerOpC: per(2) };
  };
  const samples: (Sample & { rep: number; caseId: string; cpuMicrosPerOpA: number; cpuMicrosPerOpB: number; cpuMicrosPerOpC: number })[] = [];
  try {
    for (const kase of CASES) {
      const clients = await Promise.all(kase.clients(endpoint(a!), endpoint(b!), endpoint(c!)));
      await runLoad(clients, { warmupMs: settings.timing.warmupMs, measureMs: 100 }, cpu);
      await Promise.all(clients.map((client) => client.close()));
    }
    for (let rep = 1; rep <= settings.reps; rep++) {
      for (const kase of CASES) {
        const clients = await Promise.all(kase.clients(endpoint(a!), endpoint(b!), endpoint(c!)));
        samples.push({ rep, caseId: kase.id, ...(await measure(clients, settings.timing)) });
        await Promise.all(clients.map((client) => client.close()));
      }
      console.log(`rep ${rep}/${settings.reps} done`);
    }
  } finally {
    await stopServers();
    agent.destroy();
    await redis.stop();
  }
  const median = (values: number[]) => values.sort((x, y) => x - y)[Math.floor(values.length / 2)]!;
  const rows = CASES.map((c): Row => {
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
  console.log(`\nmedians over ${settings.reps} reps; CPU µs/op is the servers' together (Redis and the load generator not counted),`);
  console.log('±: half its range over the reps; A: the instance holding the sessions, B: one serving where requests land, C: one forwarding them');
  console.log(
    `${'case'.padEnd(48)}${'ops/s'.padStart(9)}${'p50 µs'.padStart(10)}${'p99 µs'.padStart(10)}${'CPU µs/op'.padStart(11)}${'±'.padStart(7)}${'A'.padStart(8)}${'B'.padStart(8)}${'C'.padStart(8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.case.padEnd(48)}${row.opsPerSecond.toFixed(0).padStart(9)}${row.p50Micros.toFixed(0).padStart(10)}${row.p99Micros.toFixed(0).padStart(10)}${row.cpuMicrosPerOp.toFixed(1).padStart(11)}${row.cpuSpread.toFixed(1).padStart(7)}${row.cpuMicrosPerOpA.toFixed(1).padStart(8)}${row.cpuMicrosPerOpB.toFixed(1).padStart(8)}${row.cpuMicrosPerOpC.toFixed(1).padStart(8)}`,
    );
  }
  const [same, served, forwarded, one, two] = rows as [Row, Row, Row, Row, Row];
  const against = (row: Row) =>
    `${(row.p50Micros / same.p50Micros).toFixed(2)}× p50 latency, ${(row.cpuMicrosPerOp / same.cpuMicrosPerOp).toFixed(2)}× server CPU`;
  console.log(`\nserved where it lands / on the owner: ${against(served)}`);
  console.log(`forwarded / on the owner: ${against(forwarded)}`);
  console.log(`2 processes / 1: ${(two.opsPerSecond / one.opsPerSecond).toFixed(2)}× echo throughput`);
  console.log(`\nwrote ${writeJson({ node: process.version, kind: 'scale', settings, rows, samples })}`);
}
