/**
 * Closed-loop load: every client runs its operation back to back, one at a time. Clients run through
 * the warm-up into the measured window and past it, so the window sees steady state, not ramps. With a
 * rate, each client paces itself to its share of it instead (one operation per period, staggered).
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
  /** How many operations the window waits for, up to maxMeasureMs (default: one per client; fewer when earlier windows of the cell saw them). */
  minOps?: number;
  /** Operations per second for all the clients together, paced; undefined: back to back. */
  rate?: number;
}

/** What one measured window saw, as raw totals: windows of one cell are added up before they are rates. */
export interface Window {
  ops: number;
  /** The window's length, and the CPU time (µs) of the server, the load generator, the whole machine and the server's core in it. */
  micros: number;
  server: number;
  self: number;
  machine: number;
  /** Time on the server's core that was not the server's (NaN when it is not pinned). */
  coreOther: number;
  /** The latency (ms) of each operation that ended in the window. */
  latencies: number[];
}

/**
 * Load `clients` through a warm-up and one measured window, then stop them (they stay connected, and
 * may run again: a cell's windows alternate between the servers measured together).
 */
export async function runWindow(clients: Client[], timing: Timing, serverCpu: () => Promise<number>, serverCore?: number): Promise<Window> {
  let measuring = false;
  let stopped = false;
  const latencies: number[] = [];
  // Each client's period (its first start is its share of one, so the clients' starts are spread over it).
  const period = timing.rate ? (clients.length * 1000) / timing.rate : 0;
  const loops = Promise.all(
    clients.map(async (client, k) => {
      let next = performance.now() + (period * k) / clients.length;
      while (!stopped) {
        if (period) {
          // A client more than a period behind starts at once and drops what it missed: the server gets no bursts.
          const wait = next - performance.now();
          if (wait > 0) await sleep(wait);
          next = Math.max(next, performance.now() - period) + period;
          if (stopped) break;
        }
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
    while (latencies.length < (timing.minOps ?? clients.length) && performance.now() - start < (timing.maxMeasureMs ?? 0))
      await Promise.race([sleep(50), loops]);
    stopped = true;
    const micros = (performance.now() - start) * 1000;
    const after = await cpuTimes(serverCpu);
    await loops;
    const server = after.server - before.server;
    return {
      ops: latencies.length,
      micros,
      server,
      self: after.self - before.self,
      machine: after.machine - before.machine,
      coreOther: serverCore === undefined ? Number.NaN : (after.byCpu[serverCore] ?? Number.NaN) - (before.byCpu[serverCore] ?? Number.NaN) - server,
      latencies,
    };
  } finally {
    stopped = true;
  }
}

/** The windows of one server in one cell, added up: CPU per operation is their CPU over their operations. */
export function sampleOf(windows: readonly Window[]): Sample {
  const sum = (f: (w: Window) => number) => windows.reduce((total, w) => total + f(w), 0);
  const [ops, micros, server, self] = [sum((w) => w.ops), sum((w) => w.micros), sum((w) => w.server), sum((w) => w.self)];
  const sorted = Float64Array.from(windows.flatMap((w) => w.latencies)).sort();
  return {
    ops,
    opsPerSecond: (ops * 1e6) / micros,
    cpuMicrosPerOp: ops ? server / ops : Number.NaN,
    p50Micros: percentile(sorted, 50) * 1000,
    p99Micros: percentile(sorted, 99) * 1000,
    loadGenBusy: self / micros,
    serverBusy: server / micros,
    otherBusy: (sum((w) => w.machine) - server - self) / micros,
    serverCoreOther: sum((w) => w.coreOther) / micros,
  };
}

/** One warm-up and one window: a Sample. */
export async function runLoad(clients: Client[], timing: Timing, serverCpu: () => Promise<number>, serverCore?: number): Promise<Sample> {
  return sampleOf([await runWindow(clients, timing, serverCpu, serverCore)]);
}
