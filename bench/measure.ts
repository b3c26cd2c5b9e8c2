/** Server CPU time and the statistics the report is made of. */
import { execFileSync, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** The unit of /proc/PID/stat and /proc/stat: 1 / USER_HZ seconds (10 ms nearly everywhere). */
const MICROS_PER_TICK = (() => {
  try {
    return 1e6 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);
  } catch {
    return 1e4;
  }
})();

/** The run time of every thread of `pid` in µs, from each /proc/PID/task/TID/schedstat (ns, not ticks); undefined where it is missing. */
function schedstatMicros(pid: number): number | undefined {
  try {
    let ns = 0;
    for (const task of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${task}/schedstat`, 'utf8').split(' ')[0]);
    return ns / 1000;
  } catch {
    return undefined;
  }
}

/**
 * Reads the CPU time of a server process in µs, all its threads (GC threads included), without asking
 * the server: schedstat's nanoseconds where there are, else /proc/PID/stat's utime + stime; elsewhere
 * the server answers process.cpuUsage() over IPC.
 */
export function cpuReader(child: ChildProcess): { source: string; read: () => Promise<number> } {
  const pid = child.pid!;
  if (schedstatMicros(pid) !== undefined) {
    return { source: '/proc/PID/task/TID/schedstat (ns)', read: async () => schedstatMicros(pid) ?? Number.NaN };
  }
  const stat = `/proc/${pid}/stat`;
  try {
    readFileSync(stat);
  } catch {
    return {
      source: 'process.cpuUsage() over IPC',
      read: () =>
        new Promise((resolve) => {
          child.once('message', (m: any) => resolve(m.cpu.user + m.cpu.system));
          child.send('cpu');
        }),
    };
  }
  return {
    source: `/proc/PID/stat utime+stime (${MICROS_PER_TICK / 1000} ms ticks)`,
    read: async () => {
      // The command name may hold spaces and parentheses; the fields after the last ')' start at field 3.
      const line = readFileSync(stat, 'utf8');
      const fields = line.slice(line.lastIndexOf(')') + 2).split(' ');
      return (Number(fields[11]) + Number(fields[12])) * MICROS_PER_TICK;
    },
  };
}

/** Nearest-rank percentile of ascending values. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/**
 * Busy time of all CPUs together, and of each (indexed by CPU number), in µs, from /proc/stat (steal
 * included); NaN and empty off Linux. The kernel samples it at each tick, so it is rough: a load that
 * sleeps between short bursts can be under-counted by a tenth of a CPU or more, which per-process times are not.
 */
function machineBusy(): { all: number; byCpu: number[] } {
  try {
    const byCpu: number[] = [];
    let all = Number.NaN;
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      if (!line.startsWith('cpu')) break;
      const [name, user, nice, system, , , irq, softirq, steal] = line.split(/\s+/);
      const busy = (Number(user) + Number(nice) + Number(system) + Number(irq) + Number(softirq) + Number(steal)) * MICROS_PER_TICK;
      if (name === 'cpu') all = busy;
      else byCpu[Number(name.slice(3))] = busy;
    }
    return { all, byCpu };
  } catch {
    return { all: Number.NaN, byCpu: [] };
  }
}

export interface CpuTimes {
  server: number;
  /** This process: the load generator. */
  self: number;
  machine: number;
  /** Each CPU's busy time (NaN-free only on Linux). */
  byCpu: number[];
}

/** A snapshot of the CPU times a window is judged by, in µs. */
export async function cpuTimes(server: () => Promise<number>): Promise<CpuTimes> {
  const self = process.cpuUsage();
  const { all, byCpu } = machineBusy();
  return { server: await server(), self: self.user + self.system, machine: all, byCpu };
}
