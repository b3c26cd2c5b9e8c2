/** Drive an MCP server running as a child process over stdio: newline-delimited JSON both ways. */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Json } from './ws-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));

export class StdioTestClient {
  readonly received: Json[] = [];
  /** Every stdout line that was not JSON (must stay empty: stdout carries only MCP). */
  readonly strayStdout: string[] = [];
  stderr = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private waiters: { match: (m: Json) => boolean; resolve: (m: Json) => void }[] = [];
  private buffer = '';
  private nextId = 1;

  private constructor(readonly child: ChildProcessWithoutNullStreams) {
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      this.buffer += chunk;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) !== -1) {
        const line = this.buffer.slice(0, nl);
        this.buffer = this.buffer.slice(nl + 1);
        let message: Json;
        try {
          message = JSON.parse(line);
        } catch {
          this.strayStdout.push(line);
          continue;
        }
        const waiter = this.waiters.find((w) => w.match(message));
        if (waiter) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve(message);
        } else this.received.push(message);
      }
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => (this.stderr += chunk));
    this.exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  }

  /** Spawn `script` (a .ts file, path relative to the repo root) with tsx. */
  static spawn(script: string, args: string[] = []): StdioTestClient {
    const child = spawn(tsx, [script, ...args], { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    return new StdioTestClient(child);
  }

  sendLine(line: string): void {
    this.child.stdin.write(`${line}\n`);
  }

  send(message: Json): void {
    this.sendLine(JSON.stringify(message));
  }

  request(method: string, params?: Json, id: string | number = this.nextId++): Promise<Json> {
    const reply = this.waitFor((m) => m.id === id && !('method' in m));
    this.send(params === undefined ? { jsonrpc: '2.0', id, method } : { jsonrpc: '2.0', id, method, params });
    return reply;
  }

  notify(method: string, params?: Json): void {
    this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params });
  }

  waitFor(match: (m: Json) => boolean, timeoutMs = 10_000): Promise<Json> {
    const seen = this.received.find(match);
    if (seen) {
      this.received.splice(this.received.indexOf(seen), 1);
      return Promise.resolve(seen);
    }
    return new Promise((resolve, reject) => {
      const waiter = { match, resolve: (m: Json) => (clearTimeout(timer), resolve(m)) };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`no matching message within ${timeoutMs} ms; stderr: ${this.stderr}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Close stdin (the MCP way to stop a stdio server) and wait for the process to exit. */
  async end(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }
}
