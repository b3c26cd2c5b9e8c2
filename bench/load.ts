/**
 * Closed-loop load: every client runs its operation back to back, one at a time. Clients run through
 * the warm-up into the measured window and past it, so the window sees steady state, not ramps.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from './cases.js';
import { cpuTimes, percentile } from './measure.js';

export interface Sample {
  ops: number;
  opsPerSecond: number;
  cpuMicrosPerOp: number;
  p50Micros: number;
  p99Micros: number;
  /** Share of its core the load generator used: near 1, throughput and latency are the client's limit. */
  loadGenBusy: number;
  /** CPUs' worth of time the server used (all its threads, on its one core when pinned): near 1, it set the pace. */
  serverBusy: number;
  /** CPUs' worth of time used by everything but the server and the load generator (other processes, steal). */
  otherBusy: number;
  /**
   * Share of the server's core used by anything but the server (NaN when it is not pinned): other work
   * there evicts its caches, and CPU per operation rises with it.
   */
  serverCoreOther: number;
}

export interface Timing {
  warmupMs: number;
  measureMs: number;
  /**
   * A window is extended, up to this long in all, until every client has finished an operation in it: a
   * server that takes a second per operation is measured over some operations, not none.
   */
  maxMeasureMs?: number;
}

export async function runLoad(clients: Client[], timing: Timing, serverCpu: () => Promise<number>, serverCore?: number): Promise<Sample> {
  let measuring = false;
  let stopped = false;
  const latencies: number[] = [];
  const loops = Promise.all(
    clients.map(async (client) => {
      while (!stopped) {
        const start = performance.now();
        await client.op();
        // Only operations that end inside the window count, and each of them once.
        if (measuring && !stopped) latencies.push(performance.now() - start);
      }
    }),
  );
  try {
    // The loops end only when stopped, or early when an operation fails: then the race throws.
    await Promise.race([sleep(timing.warmupMs), loops]);
    const before = await cpuTimes(serverCpu);
    const start = performance.now();
    measuring = true;
    await Promise.race([sleep(timing.measureMs), loops]);
    while (latencies.length < clients.length && performance.now() - start < (timing.maxMeasureMs ?? 0)) await Promise.race([sleep(50), loops]);
    stopped = true;
    const micros = (performance.now() - start) * 1000;
    const after = await cpuTimes(serverCpu);
    await loops;
    const server = after.server - before.server;
    const self = after.self - before.self;
    const sorted = Float64Array.from(latencies).sort();
    return {
      ops: latencies.length,
      opsPerSecond: (latencies.length * 1e6) / micros,
      cpuMicrosPerOp: latencies.length ? server / latencies.length : Number.NaN,
      p50Micros: percentile(sorted, 50) * 1000,
      p99Micros: percentile(sorted, 99) * 1000,
      loadGenBusy: self / micros,
      serverBusy: server / micros,
      otherBusy: (after.machine - before.machine - server - self) / micros,
      serverCoreOther:
        serverCore === undefined ? Number.NaN : ((after.byCpu[serverCore] ?? Number.NaN) - (before.byCpu[serverCore] ?? Number.NaN) - server) / micros,
    };
  } finally {
    stopped = true;
  }
}
