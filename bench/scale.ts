/**
 * `npm run bench -- --scale [--quick]`: two Switchboard processes sharing a redis-server. What a request
 * costs when it lands on the instance that does not hold its session (forwarded to the owner), against
 * the same request on the owner; and echo throughput with the clients spread over two processes against
 * one. Nothing is pinned: the two servers, Redis and the load generator share this machine's cores, as
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
  clients(a: HttpEndpoint, b: HttpEndpoint): Promise<Client>[];
}

const CASES: Case[] = [
  { id: 'elicit-same', title: 'elicitation, on the owner (16 clients)', clients: (a) => Array.from({ length: 16 }, () => elicitClient(a, a)) },
  {
    id: 'elicit-forwarded',
    title: 'elicitation, via the other instance (16 clients)',
    clients: (a, b) => Array.from({ length: 16 }, () => elicitClient(a, b)),
  },
  { id: 'echo-one', title: 'echo, 32 clients on 1 process', clients: (a) => Array.from({ length: 32 }, () => echoClient(a)) },
  { id: 'echo-two', title: 'echo, 32 clients over 2 processes', clients: (a, b) => Array.from({ length: 32 }, (_, i) => echoClient(i % 2 ? b : a)) },
];

export async function runScale(settings: Settings): Promise<void> {
  const redis = await startRedis();
  process.env.REDIS_URL = redis.url;
  const [a, b] = [
    await startServer('switchboard-scale.mjs', undefined, settings.profileDir),
    await startServer('switchboard-scale.mjs', undefined, settings.profileDir),
  ];
  // Both servers' CPU, summed; each one's is kept too, so that a sample can say which process spent it.
  let reads: [number, number][] = [];
  const cpu = async () => {
    const both: [number, number] = [await a!.cpu.read(), await b!.cpu.read()];
    reads.push(both);
    return both[0] + both[1];
  };
  /** Load `clients` with `timing`; the sample says what each process (a: the owner, b: the other) spent per operation. */
  const measure = async (clients: Client[], timing: Settings['timing']) => {
    reads = [];
    const sample = await runLoad(clients, timing, cpu);
    const [before, after] = [reads[0]!, reads[reads.length - 1]!];
    return { ...sample, cpuMicrosPerOpA: (after[0] - before[0]) / sample.ops, cpuMicrosPerOpB: (after[1] - before[1]) / sample.ops };
  };
  const samples: (Sample & { rep: number; caseId: string; cpuMicrosPerOpA: number; cpuMicrosPerOpB: number })[] = [];
  try {
    for (const c of CASES) {
      const clients = await Promise.all(c.clients(endpoint(a!), endpoint(b!)));
      await runLoad(clients, { warmupMs: settings.timing.warmupMs, measureMs: 100 }, cpu);
      await Promise.all(clients.map((client) => client.close()));
    }
    for (let rep = 1; rep <= settings.reps; rep++) {
      for (const c of CASES) {
        const clients = await Promise.all(c.clients(endpoint(a!), endpoint(b!)));
        samples.push({ rep, caseId: c.id, ...(await measure(clients, settings.timing)) });
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
  const rows = CASES.map((c) => {
    const mine = samples.filter((s) => s.caseId === c.id);
    return {
      case: c.title,
      opsPerSecond: median(mine.map((s) => s.opsPerSecond)),
      p50Micros: median(mine.map((s) => s.p50Micros)),
      p99Micros: median(mine.map((s) => s.p99Micros)),
      cpuMicrosPerOp: median(mine.map((s) => s.cpuMicrosPerOp)),
      cpuMicrosPerOpA: median(mine.map((s) => s.cpuMicrosPerOpA)),
      cpuMicrosPerOpB: median(mine.map((s) => s.cpuMicrosPerOpB)),
      cpuSpread: (Math.max(...mine.map((s) => s.cpuMicrosPerOp)) - Math.min(...mine.map((s) => s.cpuMicrosPerOp))) / 2,
    };
  });
  console.log(`\nmedians over ${settings.reps} reps; CPU µs/op is both servers' together (Redis and the load generator not counted),`);
  console.log('±: half its range over the reps; A: the instance holding the sessions, B: the other one');
  console.log(
    `${'case'.padEnd(48)}${'ops/s'.padStart(9)}${'p50 µs'.padStart(10)}${'p99 µs'.padStart(10)}${'CPU µs/op'.padStart(11)}${'±'.padStart(7)}${'A'.padStart(8)}${'B'.padStart(8)}`,
  );
  for (const row of rows) {
    console.log(
      `${row.case.padEnd(48)}${row.opsPerSecond.toFixed(0).padStart(9)}${row.p50Micros.toFixed(0).padStart(10)}${row.p99Micros.toFixed(0).padStart(10)}${row.cpuMicrosPerOp.toFixed(1).padStart(11)}${row.cpuSpread.toFixed(1).padStart(7)}${row.cpuMicrosPerOpA.toFixed(1).padStart(8)}${row.cpuMicrosPerOpB.toFixed(1).padStart(8)}`,
    );
  }
  const same = rows[0]!;
  const forwarded = rows[1]!;
  const one = rows[2]!;
  const two = rows[3]!;
  console.log(
    `\nforwarded / on the owner: ${(forwarded.p50Micros / same.p50Micros).toFixed(2)}× p50 latency, ${(forwarded.cpuMicrosPerOp / same.cpuMicrosPerOp).toFixed(2)}× server CPU`,
  );
  console.log(`2 processes / 1: ${(two.opsPerSecond / one.opsPerSecond).toFixed(2)}× echo throughput`);
  console.log(`\nwrote ${writeJson({ node: process.version, kind: 'scale', settings, rows, samples })}`);
}
