/**
 * A real redis-server (Debian's package; `.ci/run` installs it) on 127.0.0.1 and a free port, for a test
 * file: started by the test, stopped after it, restartable on the same port to test recovery.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { freePort } from './ports.js';

const REDIS = '/usr/bin/redis-server';

export interface RunningRedis {
  url: string;
  port: number;
  /** Stop the server (SIGTERM), and resolve once it has exited. */
  stop(): Promise<void>;
  /** Start it again on the same port (empty: nothing is saved). */
  restart(): Promise<void>;
}

export function redisAvailable(): boolean {
  try {
    execFileSync(REDIS, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function launch(port: number): Promise<ChildProcess> {
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start on port ${port} within 5 s: ${out}`)), 5000);
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}: ${out}`));
    });
  });
}

/** Start redis-server; throws, saying `.ci/run` installs it, when it is not there. */
export async function startRedis(): Promise<RunningRedis> {
  if (!redisAvailable()) throw new Error(`${REDIS} is missing: .ci/run installs Debian's redis-server (apt-get install redis-server)`);
  const port = await freePort();
  let child: ChildProcess | undefined = await launch(port);
  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    stop,
    async restart() {
      await stop();
      child = await launch(port);
    },
  };
}
