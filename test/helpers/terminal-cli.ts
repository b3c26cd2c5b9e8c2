/**
 * The terminal client (cli/terminal-client.ts) as a child process with piped stdin and stdout, driven as a
 * person would: wait for a prompt on stdout, then type the answer. Children are killed after each test.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Cleanups } from './cleanups.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The terminal client running as a child: its output so far, and answers written as prompts appear. */
export class Cli {
  readonly child: ChildProcessWithoutNullStreams;
  stdout = '';
  stderr = '';
  /** Where the next `waitFor` starts looking: what it matched before is used up. */
  private cursor = 0;
  readonly exited: Promise<number | null>;

  constructor(args: string[]) {
    this.child = spawn(process.execPath, ['--import', 'tsx', 'cli/terminal-client.ts', ...args], {
      cwd: ROOT,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1', NODE_OPTIONS: '' },
    });
    this.child.stdout.setEncoding('utf8').on('data', (chunk: string) => (this.stdout += chunk));
    this.child.stderr.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    // The child may exit before all answers are written.
    this.child.stdin.on('error', () => {});
    this.exited = new Promise((resolve) => this.child.on('close', (code) => resolve(code)));
  }

  /** Wait until stdout, after what earlier waits matched, matches `pattern`; the match is used up. */
  waitFor(pattern: RegExp, timeoutMs = 10_000): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const match = pattern.exec(this.stdout.slice(this.cursor));
        if (!match) return false;
        this.cursor += match.index + match[0].length;
        done();
        resolve(match);
        return true;
      };
      const onExit = () => {
        if (check()) return;
        done();
        reject(new Error(`the client exited before ${pattern}; stdout after the last match:\n${this.stdout.slice(this.cursor)}\nstderr:\n${this.stderr}`));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no ${pattern} within ${timeoutMs} ms; stdout after the last match:\n${this.stdout.slice(this.cursor)}\nstderr:\n${this.stderr}`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        this.child.stdout.off('data', onData);
        this.child.off('close', onExit);
      };
      const onData = () => void check();
      this.child.stdout.on('data', onData);
      this.child.on('close', onExit);
      if (this.child.exitCode !== null) onExit();
      else check();
    });
  }

  /** Wait for `pattern`, then type `line`. */
  async answer(pattern: RegExp, line: string): Promise<void> {
    await this.waitFor(pattern);
    this.child.stdin.write(`${line}\n`);
  }

  /**
   * Answer a field once its prompt is up: `shown` is what it shows from the heading on (title or name,
   * ` *`, ...), as far as the test cares; the prompt line ends in `): ` or `]: `.
   */
  field(shown: string, line: string): Promise<void> {
    return this.answer(new RegExp(`${escapeRegExp(shown)}(?:[^]*?[)\\]])?: `), line);
  }

  /** Answer the same field again after the reason it was refused. */
  retry(reason: string, line: string): Promise<void> {
    return this.answer(new RegExp(`✗ ${escapeRegExp(reason)}[^\\n]*\\n  \\([^\\n]*\\)(?: \\[[^\\n]*\\])?: `), line);
  }

  /** Pick a tool at the menu. */
  tool(choice: string): Promise<void> {
    return this.answer(/Tool to call \([^\n]*\): /, choice);
  }

  /** End of input. */
  end(): void {
    this.child.stdin.end();
  }

  /** The exit code, within a bound. */
  exitCode(timeoutMs = 10_000): Promise<number | null> {
    return Promise.race([
      this.exited,
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the client did not exit within ${timeoutMs} ms:\n${this.stdout}`)), timeoutMs)),
    ]);
  }
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Pass the file's `useCleanups()`: `run` starts the client with these arguments; each is ended (killed if still running) after the test. */
export function useTerminalClients(cleanups: Cleanups): { run(...args: string[]): Cli } {
  return {
    run(...args) {
      const cli = new Cli(args);
      cleanups.push(async () => {
        if (cli.child.exitCode === null && cli.child.signalCode === null) {
          cli.child.kill('SIGKILL');
          await cli.exited;
        }
      });
      return cli;
    },
  };
}
