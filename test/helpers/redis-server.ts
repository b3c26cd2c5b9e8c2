/**
 * A real redis-server (Debian's package; `.ci/run` installs it) on 127.0.0.1 and a free port, for a test
 * file: started by the test, stopped after it, restartable on the same port to test recovery. It keeps
 * nothing on disk unless told to persist, as a production Redis does (append-only file, fsync per write).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';

const REDIS = '/usr/bin/redis-server';

export interface RunningRedis {
  url: string;
  port: number;
  /** Stop the server (SIGTERM), and resolve once it has exited. */
  stop(): Promise<void>;
  /** Start it again on the same port: empty, or with every write it acknowledged when started with `persist`. */
  restart(): Promise<void>;
  /** With `persist`: the directory of its append-only file, which `stop()` leaves for a `restart()`; remove it when done. */
  dataDir?: string;
}

export interface StartRedisOptions {
  /**
   * Keep the data across `restart()`: `--appendonly yes --appendfsync always` in a temporary
   * directory (`dataDir`). Default false: nothing is saved, a restarted server is empty.
   */
  persist?: boolean;
}

export function redisAvailable(): boolean {
  try {
    execFileSync(REDIS, ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function launch(port: number, dataDir: string | undefined): Promise<ChildProcess> {
  const persistence = dataDir === undefined ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', dataDir];
  const child = spawn(REDIS, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', ...persistence, '--protected-mode', 'no'], {
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
export async function startRedis(options: StartRedisOptions = {}): Promise<RunningRedis> {
  if (!redisAvailable()) throw new Error(`${REDIS} is missing: .ci/run installs Debian's redis-server (apt-get install redis-server)`);
  const port = await freePort();
  const dataDir = options.persist ? await mkdtemp(join(tmpdir(), 'switchboard-redis-')) : undefined;
  let child: ChildProcess | undefined;
  try {
    child = await launch(port, dataDir);
  } catch (err) {
    if (dataDir !== undefined) await rm(dataDir, { recursive: true, force: true });
    throw err;
  }
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
      child = await launch(port, dataDir);
    },
    ...(dataDir === undefined ? {} : { dataDir }),
  };
}
