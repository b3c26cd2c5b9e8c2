/**
 * Commands a test runs as a user would type them (git, npm, npx), each in a process group of its own: a run to
 * its end within a bound, or a long-running one started, read until a line, and stopped. Stopping signals the
 * whole group, because npx does not pass a signal on to the program it started.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CommandOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
}

/** The test runner's environment, without the loader options it may pass to its own children. */
export const PLAIN_ENV: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));

const POSIX = process.platform !== 'win32';

function spawnCommand(command: string, args: string[], { cwd, env = PLAIN_ENV }: CommandOptions): ChildProcess {
  // On Windows npm and npx are .cmd files, which only a shell starts.
  return spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: POSIX, shell: !POSIX });
}

/** Signal the command and whatever it started: the group outlives its leader while a member (tsx under npx) runs. */
function signalGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (POSIX && child.pid !== undefined) process.kill(-child.pid, signal);
    else child.kill(signal);
  } catch {
    child.kill(signal);
  }
}

/** Run a command to its end; past `timeoutMs` its group is killed, and it ends with signal SIGKILL. */
export function run(command: string, args: string[], options: CommandOptions & { timeoutMs: number }): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawnCommand(command, args, options);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    // 'close': every member that held the pipes has ended, not only the leader.
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Run, and throw with the command's output unless it exited 0. */
export async function succeed(command: string, args: string[], options: CommandOptions & { timeoutMs: number }): Promise<Ran> {
  const ran = await run(command, args, options);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} ended with ${ran.code ?? ran.signal}\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

export interface Started {
  /** The first match of `pattern` in stdout; rejects if the command ends first or `timeoutMs` passes. */
  line(pattern: RegExp, timeoutMs: number): Promise<RegExpExecArray>;
  /** Signal the group, and resolve once the command has ended; still running after `graceMs`, the group is killed. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<Ran>;
}

/** Start a command that runs until stopped. */
export function start(command: string, args: string[], options: CommandOptions): Started {
  const child = spawnCommand(command, args, options);
  const ran: Ran = { code: null, signal: null, stdout: '', stderr: '' };
  const waiting = new Set<() => void>();
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    ran.stdout += chunk;
    for (const check of waiting) check();
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (ran.stderr += chunk));
  const ended = new Promise<Ran>((resolve) => {
    child.once('error', (error) => {
      ran.stderr += String(error);
      resolve(ran);
    });
    child.once('close', (code, signal) => {
      Object.assign(ran, { code, signal });
      resolve(ran);
    });
  });
  let done = false;
  void ended.then(() => {
    done = true;
    for (const check of waiting) check();
  });

  return {
    line(pattern, timeoutMs) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const match = pattern.exec(ran.stdout);
          if (!match && !done) return;
          clearTimeout(timer);
          waiting.delete(check);
          if (match) resolve(match);
          else reject(new Error(`${command} ${args.join(' ')} ended with ${ran.code ?? ran.signal} before printing ${pattern}\n${ran.stdout}\n${ran.stderr}`));
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`${command} ${args.join(' ')} printed no ${pattern} within ${timeoutMs} ms\n${ran.stdout}\n${ran.stderr}`));
        }, timeoutMs);
        waiting.add(check);
        check();
      });
    },
    async stop(signal = 'SIGTERM', graceMs = 5_000) {
      if (done) return ran;
      signalGroup(child, signal);
      const timer = setTimeout(() => signalGroup(child, 'SIGKILL'), graceMs);
      await ended;
      clearTimeout(timer);
      return ran;
    },
  };
}
