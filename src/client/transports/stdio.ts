/**
 * The client side of stdio: the server is a child process; newline-delimited JSON on its stdin and stdout,
 * its stderr carries logs (2025-11-25 basic/transports, stdio). Shutdown: end stdin, then SIGTERM, then SIGKILL.
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { PassThrough, type Readable } from 'node:stream';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { positiveInteger } from '../../protocol/option-checks.js';
import type { ClientSink, ClientTransport } from '../transport.js';
import { deliverText, guardSink } from './deliver.js';
import { settlesWithin } from '../../rpc/settles-within.js';
import { LineSplitter } from '../../protocol/lines.js';

export interface StdioClientTransportOptions {
  /** The server's executable, run without a shell. */
  command: string;
  args?: string[];
  cwd?: string;
  /**
   * Variables added to the few the child inherits (HOME, LOGNAME, PATH, SHELL, TERM, USER; their Windows
   * counterparts there): the rest of this process's environment, secrets included, stays out of the child.
   */
  env?: Record<string, string>;
  /** What becomes of the child's stderr (its logs). `pipe`: read it from `transport.stderr`. Default `inherit`. */
  stderr?: 'inherit' | 'pipe' | 'ignore';
  /** The largest message read, in bytes of UTF-8 (one line); a longer line is discarded unread, with an error. Default 4 MiB. */
  maxMessageBytes?: number;
}

/** The environment the official SDK's stdio client passes on by default, so servers find what they find there. */
const INHERITED_ENV =
  process.platform === 'win32'
    ? [
        'APPDATA',
        'HOMEDRIVE',
        'HOMEPATH',
        'LOCALAPPDATA',
        'PATH',
        'PROCESSOR_ARCHITECTURE',
        'SYSTEMDRIVE',
        'SYSTEMROOT',
        'TEMP',
        'USERNAME',
        'USERPROFILE',
        'PROGRAMFILES',
      ]
    : ['HOME', 'LOGNAME', 'PATH', 'SHELL', 'TERM', 'USER'];

/** How long the child has to exit after stdin ends, and again after SIGTERM, before the next step. */
const EXIT_GRACE_MS = 2000;

type Exit = { code: number | null; signal: NodeJS.Signals | null };

export class StdioClientTransport implements ClientTransport {
  readonly kind = 'stdio';
  readonly cancelsByClosingStream = false;
  private readonly options: Required<Omit<StdioClientTransportOptions, 'cwd'>> & Pick<StdioClientTransportOptions, 'cwd'>;
  private readonly stderrStream: PassThrough | undefined;
  private child: ChildProcessWithoutNullStreams | undefined;
  private sink: ClientSink | undefined;
  /** Settles when the child has exited and its stdout is read to the end. */
  private done: Promise<Exit> | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private exited = false;
  private readonly lines: LineSplitter;

  constructor(options: StdioClientTransportOptions) {
    if (typeof options !== 'object' || options === null)
      throw new TypeError('StdioClientTransport needs options: { command, args?, cwd?, env?, stderr?, maxMessageBytes? }');
    const { command, args = [], cwd, env = {}, stderr = 'inherit', maxMessageBytes = 4 * 1024 * 1024 } = options;
    if (typeof command !== 'string' || command.length === 0) throw new TypeError(`Option command must be a non-empty string; got ${JSON.stringify(command)}`);
    if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string')) throw new TypeError('Option args must be an array of strings');
    if (cwd !== undefined && typeof cwd !== 'string') throw new TypeError(`Option cwd must be a string; got ${typeof cwd}`);
    if (typeof env !== 'object' || env === null || Object.values(env).some((value) => typeof value !== 'string')) {
      throw new TypeError('Option env must be an object of variable names to string values');
    }
    if (!['inherit', 'pipe', 'ignore'].includes(stderr))
      throw new TypeError(`Option stderr must be 'inherit', 'pipe' or 'ignore'; got ${JSON.stringify(stderr)}`);
    positiveInteger('maxMessageBytes', maxMessageBytes);
    this.options = { command, args: [...args], cwd, env: { ...env }, stderr, maxMessageBytes };
    this.lines = new LineSplitter(
      maxMessageBytes,
      (bytes) => this.line(bytes),
      () => this.tooLong(),
    );
    // Made now, so that a caller can listen before start() and miss nothing the child says first.
    if (stderr === 'pipe') this.stderrStream = new PassThrough();
  }

  /**
   * The child's stderr with `stderr: 'pipe'` (null otherwise), available before `start()`. Read it: once
   * its buffers are full, a child that keeps writing to stderr blocks.
   */
  get stderr(): Readable | null {
    return this.stderrStream ?? null;
  }

  /** The child's process id, once started. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  start(sink: ClientSink): Promise<void> {
    if (this.starting) return Promise.reject(new Error('StdioClientTransport is already started; create another transport for another process'));
    if (this.closing) return Promise.reject(new Error('StdioClientTransport is closed'));
    const { command, args, cwd, env, stderr } = this.options;
    const child = spawn(command, args, {
      cwd,
      env: { ...inheritedEnv(), ...env },
      stdio: ['pipe', 'pipe', stderr],
      shell: false,
      windowsHide: true,
    }) as ChildProcessWithoutNullStreams;
    const guarded = guardSink(sink);
    this.starting = new Promise<void>((resolve, reject) => {
      child.once('error', (err) => reject(new Error(`Could not start the server process ${JSON.stringify(command)}: ${err.message}`, { cause: err })));
      child.once('spawn', () => {
        this.child = child;
        this.sink = guarded;
        this.done = new Promise((settle) => child.once('close', (code, signal) => settle({ code, signal })));
        void this.done.then(({ code, signal }) => guarded.closed(`the server process exited (${signal ? `signal ${signal}` : `code ${code}`})`));
        // After the spawn, an error (a kill that failed, a broken pipe) ends nothing by itself: 'close' reports the end.
        child.on('error', (err) => guarded.error(err));
        child.stdout.on('error', (err) => guarded.error(err));
        resolve();
      });
      child.once('exit', () => (this.exited = true));
      // Writing to a child that has gone raises EPIPE on stdin; its exit is reported through 'close'.
      child.stdin.on('error', () => {});
      child.stdout.on('data', (chunk: Buffer) => this.lines.push(chunk));
      if (this.stderrStream) child.stderr.pipe(this.stderrStream);
    });
    return this.starting;
  }

  async send(message: JsonRpcMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exited || stdin.destroyed || stdin.writableEnded)
      throw new Error(`Cannot send: the server process is ${this.child ? 'not running' : 'not started'}`);
    const line = `${JSON.stringify(message)}\n`;
    // A child that does not read its stdin: the caller waits for it rather than queue without bound.
    if (!stdin.write(line))
      await new Promise<void>((resolve) => {
        const done = () => {
          stdin.off('drain', done);
          stdin.off('close', done);
          resolve();
        };
        stdin.on('drain', done);
        stdin.on('close', done);
      });
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      // A child still being spawned is waited for, then stopped like any other.
      const spawned = await this.starting?.then(
        () => true,
        () => false,
      );
      if (!spawned) return;
      const child = this.child!;
      const done = this.done!;
      child.stdin.end();
      if (await settlesWithin(done, EXIT_GRACE_MS)) return;
      if (running(child)) child.kill('SIGTERM');
      if (await settlesWithin(done, EXIT_GRACE_MS)) return;
      if (running(child)) child.kill('SIGKILL');
      // Exited, yet a process it started may still hold stdout open: stop waiting for it.
      if (!(await settlesWithin(done, EXIT_GRACE_MS))) {
        child.stdout.destroy();
        child.stderr?.destroy();
      }
      await done;
    })();
    return this.closing;
  }

  private line(bytes: Uint8Array): void {
    const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    if (text.trim().length === 0) return;
    if (this.sink) deliverText(this.sink, text, 'stdout line');
  }

  private tooLong(): void {
    this.sink?.error(new Error(`The server sent a stdout line longer than maxMessageBytes (${this.options.maxMessageBytes} bytes); it was discarded`));
  }
}

function running(child: ChildProcessWithoutNullStreams): boolean {
  return child.exitCode === null && child.signalCode === null;
}

function inheritedEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_ENV) {
    const value = process.env[name];
    // A value starting with `()` is a shell function (Shellshock): not passed on.
    if (value !== undefined && !value.startsWith('()')) env[name] = value;
  }
  return env;
}
