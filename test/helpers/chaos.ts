/**
 * The chaos test's peers: fixture processes (conformance/fixture-server.ts with `--report-events`) whose
 * output lines are parsed as they come, a round-robin load balancer over the live ones, the windows of
 * time in which the test broke something, and why a failed call failed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { ErrorCode, McpError } from '../../src/index.js';
import { modernHeaders, withEnvelope } from './modern.js';
import { within } from './waits.js';
import type { Json } from './ws-client.js';

/** One `responseElicitationCreate`, as a fixture printed it. */
export interface ResponseEvent {
  process: string;
  sessionId: string;
  requestId: string;
  action: string;
  /** The elicitation's message: the chaos test makes each one unique. */
  message: string;
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** A fixture process: its URL once it listens, what it printed, and how it ended. */
export class Fixture {
  readonly responseEvents: ResponseEvent[] = [];
  /** `new` or `adopted`, per legacy-era session made or taken over here. */
  readonly sessions: { kind: 'new' | 'adopted'; sessionId: string; at: number }[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<Exit>;
  /** How the test ended it; undefined while it runs, or when it exited by itself. */
  stoppedBy: 'drain' | 'kill' | undefined;
  exit: Exit | undefined;
  /** It exited before the test stopped it: a crash. */
  exitedUnasked = false;
  url = '';

  private constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.exitedUnasked = this.stoppedBy === undefined;
        resolve(this.exit);
      });
    });
  }

  /** Spawn `conformance/fixture-server.ts --port 0 ...args` in `cwd`; resolves once it listens (within 30 s), rejects with its output if it exits first. */
  static start(name: string, args: string[], cwd: string): Promise<Fixture> {
    const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/fixture-server.ts', '--port', '0', ...args], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const fixture = new Fixture(name, child);
    let listening: (url: string) => void = () => {};
    const started = new Promise<string>((resolve) => {
      listening = resolve;
    });
    fixture.readLines(child.stdout!, (line) => {
      const url = /conformance fixture on (http:\/\/\S+)/.exec(line)?.[1];
      if (url) listening(url);
      else fixture.heard(line);
    });
    fixture.readLines(child.stderr!, (line) => void fixture.stderr.push(line));
    const exitedFirst = fixture.exited.then((exit) => {
      throw new Error(`fixture ${name} exited (${exit.code ?? exit.signal}) before it listened: ${fixture.stderr.join('\n')}`);
    });
    return within(Promise.race([started, exitedFirst]), 30_000, `fixture ${name} to listen`).then(
      (url) => {
        fixture.url = url;
        return fixture;
      },
      (err: unknown) => {
        child.kill('SIGKILL');
        throw err;
      },
    );
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** SIGTERM (the fixture drains for its `--drain-ms`, then exits 0); resolves with its exit, within 20 s. */
  async drain(): Promise<Exit> {
    this.stoppedBy = 'drain';
    this.child.kill('SIGTERM');
    return within(this.exited, 20_000, `fixture ${this.name} to exit after SIGTERM`);
  }

  /** SIGKILL: it dies at once, answering nothing more. */
  async kill(): Promise<Exit> {
    this.stoppedBy = 'kill';
    this.child.kill('SIGKILL');
    return within(this.exited, 5000, `fixture ${this.name} to die of SIGKILL`);
  }

  /** Whether /readyz says ready (the fixture runs with `--health`): not while draining, nor while Redis is unreachable. */
  async ready(): Promise<boolean> {
    const res = await fetch(new URL('/readyz', this.url), { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status === 200;
  }

  private heard(line: string): void {
    const [kind, sessionId, requestId, action, ...rest] = line.split(' ');
    if (kind === 'response-event' && sessionId && requestId && action) {
      this.responseEvents.push({ process: this.name, sessionId, requestId, action, message: JSON.parse(rest.join(' ')) as string });
    } else if ((kind === 'session-new' || kind === 'session-adopted') && sessionId) {
      this.sessions.push({ kind: kind === 'session-new' ? 'new' : 'adopted', sessionId, at: Date.now() });
    }
  }

  private readLines(stream: NodeJS.ReadableStream, each: (line: string) => void): void {
    let pending = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      pending += chunk;
      const lines = pending.split('\n');
      pending = lines.pop()!;
      for (const line of lines) if (line.length > 0) each(line);
    });
  }
}

/** A round-robin load balancer over the live fixtures: every HTTP request of every client goes to the next one. */
export class Balancer {
  private readonly live: Fixture[];
  private turn = 0;

  constructor(fixtures: Fixture[]) {
    this.live = [...fixtures];
  }

  get fixtures(): readonly Fixture[] {
    return this.live;
  }

  add(fixture: Fixture): void {
    this.live.push(fixture);
  }

  /** Taken out of the rotation (as a load balancer does with a draining or dead backend). */
  remove(fixture: Fixture): void {
    const at = this.live.indexOf(fixture);
    if (at >= 0) this.live.splice(at, 1);
  }

  pick(): Fixture {
    if (this.live.length === 0) throw new Error('the balancer has no live fixture');
    return this.live[this.turn++ % this.live.length]!;
  }
}

/** What the test broke and when: a call failing for a reason that fits a window it overlaps is explained by it. */
export interface Window {
  kind: 'drain' | 'kill' | 'redis';
  what: string;
  start: number;
  end: number;
}

/** Why a call failed, as far as the client can tell. */
export type Reason = 'instance went' | 'owner draining' | 'redis down' | `unexplained: ${string}`;

/** Which windows explain a reason. */
export const EXPLAINED_BY: Record<string, Window['kind'][]> = {
  'instance went': ['drain', 'kill'],
  'owner draining': ['drain'],
  'redis down': ['redis'],
};

/** The reason of an error a call failed with (McpClient's, or `rpc`'s). */
export function reasonOf(err: unknown): Reason {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof McpError) {
    // The connection to the instance (or, through it, to the owner) failed or broke off: it went.
    if (err.code === ErrorCode.ConnectionClosed) return 'instance went';
    if (err.code === ErrorCode.ShuttingDown) return 'owner draining';
    if (err.code === ErrorCode.TransportRefused && /cannot find which instance holds this session/.test(message)) return 'redis down';
    if (err.code === ErrorCode.InternalError && /unreachable/.test(message)) return 'redis down';
  }
  // fetch's own: the instance refused the connection, or the body broke off as it died.
  if (err instanceof TypeError && /fetch failed|terminated/.test(message)) return 'instance went';
  const data = err instanceof McpError && err.data !== undefined ? ` ${JSON.stringify(err.data)}` : '';
  return `unexplained: ${err instanceof McpError ? `${err.code} ` : ''}${message}${data}`;
}

/** One 2026-07-28 request, as a raw client sends it (the Tasks extension and form elicitation declared), to `url`. */
export async function rpc(url: string, id: number, method: string, params: Json, capabilities: Json): Promise<Json> {
  const res = await fetch(url, {
    method: 'POST',
    headers: modernHeaders(method, params),
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params: withEnvelope(params, capabilities) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await res.text();
  const messages = (res.headers.get('content-type') ?? '').startsWith('text/event-stream')
    ? text
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice('data: '.length)) as Json)
    : [JSON.parse(text) as Json];
  const answer = messages.find((message) => message.id === id);
  if (!answer) throw new McpError(ErrorCode.ConnectionClosed, `no answer to ${method} (HTTP ${res.status}): ${text.slice(0, 200)}`);
  if (answer.error) throw new McpError(answer.error.code, answer.error.message, answer.error.data);
  return answer.result;
}
