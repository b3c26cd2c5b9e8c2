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
  const [a, b] = [await startServer('switchboard-scale.mjs', undefined), await startServer('switchboard-scale.mjs', undefined)];
  const cpu = async () => (await a!.cpu.read()) + (await b!.cpu.read());
  const samples: (Sample & { rep: number; caseId: string })[] = [];
  try {
    for (const c of CASES) {
      const clients = await Promise.all(c.clients(endpoint(a!), endpoint(b!)));
      await runLoad(clients, { warmupMs: settings.timing.warmupMs, measureMs: 100 }, cpu);
      await Promise.all(clients.map((client) => client.close()));
    }
    for (let rep = 1; rep <= settings.reps; rep++) {
      for (const c of CASES) {
        const clients = await Promise.all(c.clients(endpoint(a!), endpoint(b!)));
        samples.push({ rep, caseId: c.id, ...(await runLoad(clients, settings.timing, cpu)) });
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
    };
  });
  console.log(`\nmedians over ${settings.reps} reps; CPU µs/op is both servers' together (Redis and the load generator not counted)`);
  console.log(`${'case'.padEnd(48)}${'ops/s'.padStart(9)}${'p50 µs'.padStart(10)}${'p99 µs'.padStart(10)}${'CPU µs/op'.padStart(11)}`);
  for (const row of rows) {
    console.log(
      `${row.case.padEnd(48)}${row.opsPerSecond.toFixed(0).padStart(9)}${row.p50Micros.toFixed(0).padStart(10)}${row.p99Micros.toFixed(0).padStart(10)}${row.cpuMicrosPerOp.toFixed(1).padStart(11)}`,
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
