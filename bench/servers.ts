/**
 * Server processes: plain `node` on the built JavaScript, pinned to one CPU while the load generator
 * (this process) is pinned to another, so neither steals the other's core.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { openSync, writeSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { cpuReader } from './measure.js';

export interface Running {
  child: ChildProcess;
  port: number;
  cpu: { source: string; read: () => Promise<number> };
}

const running = new Set<ChildProcess>();
// Whatever way the driver ends (deadline, failure), no server outlives it.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

/** CPUs this process may run on, from `taskset -p` ("0,1" or "0-3"). */
function allowedCpus(): number[] {
  const list = execFileSync('taskset', ['-c', '-p', String(process.pid)], { encoding: 'utf8' })
    .split(':')
    .pop()!
    .trim();
  return list.split(',').flatMap((part) => {
    const [from, to = from] = part.split('-').map(Number);
    return Array.from({ length: to - from + 1 }, (_, i) => from + i);
  });
}

/** Pin this process (all its threads) to one CPU and pick another for the servers; a note says what was done. */
export function pinCpus(): { serverCpu?: number; note: string } {
  if (availableParallelism() < 2) return { note: 'not pinned: fewer than 2 CPUs' };
  try {
    const [serverCpu, loadCpu] = allowedCpus();
    execFileSync('taskset', ['-a', '-c', '-p', String(loadCpu), String(process.pid)], { stdio: 'ignore' });
    return { serverCpu, note: `server pinned to CPU ${serverCpu}, load generator to CPU ${loadCpu} (taskset)` };
  } catch {
    return { note: 'not pinned: taskset is not available' };
  }
}

/** Linux's PM QoS request for the whole machine: while a process holds it open with 0, idle CPUs poll instead of sleeping. */
export const CPU_LATENCY_DEVICE = '/dev/cpu_dma_latency';

/**
 * Keep idle CPUs from sleeping while this process runs (tuned's latency-performance does the same). On a
 * virtual machine a sleeping CPU is woken by the hypervisor, and whoever wakes it pays: a server whose
 * reply finds the load generator's core asleep pays for the wake-up in its `writev`, and a slower server
 * finds it asleep more often, so its CPU per operation rises with its slowness. Polling idle CPUs take
 * that cost out of every server's figure. The request lasts as long as the file stays open, so it ends
 * with this process; where the device is missing or not writable, nothing changes and the note says why.
 */
export function keepCpusAwake(device = CPU_LATENCY_DEVICE): { held: boolean; note: string } {
  try {
    const fd = openSync(device, 'w');
    // The request is a 32-bit latency in microseconds: 0 allows no idle state but polling.
    writeSync(fd, Buffer.alloc(4));
    return { held: true, note: `idle CPUs poll (${device} held at 0 µs)` };
  } catch (err) {
    return { held: false, note: `idle CPUs may sleep (${device}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
}

/** `entry` names a file in bench/servers/, or is the URL of a server script elsewhere; `env` is added to this process's. */
export async function startServer(entry: string | URL, serverCpu: number | undefined, profileDir?: string, env?: Record<string, string>): Promise<Running> {
  const file = fileURLToPath(typeof entry === 'string' ? new URL(`servers/${entry}`, import.meta.url) : entry);
  const nodeArgs = [...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), file];
  const [command, args] = serverCpu === undefined ? [process.execPath, nodeArgs] : ['taskset', ['-c', String(serverCpu), process.execPath, ...nodeArgs]];
  // taskset execs node in place, so the pid, the IPC channel and /proc/PID/stat are the server's own.
  const child = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, ...env } });
  running.add(child);
  child.once('exit', () => running.delete(child));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: any) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`${entry} exited with ${code} before listening`)));
  });
  return { child, port, cpu: cpuReader(child) };
}

/** Ask every server to exit; a server that has not within 5 s is killed. */
export async function stopServers(): Promise<void> {
  await Promise.all(
    [...running].map(
      (child) =>
        new Promise<void>((resolve) => {
          const kill = setTimeout(() => child.kill('SIGKILL'), 5000);
          child.once('exit', () => {
            clearTimeout(kill);
            resolve();
          });
          child.send('stop');
        }),
    ),
  );
}
