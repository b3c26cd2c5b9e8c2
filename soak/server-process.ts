/** The server under soak in a child process of its own (soak/server.mjs, plain node on the build), and what it reports over IPC. */
import { type Running, startServer, stopServers } from '../bench/servers.js';
import { within } from './check.js';
import type { ErrorGroup } from './recorder.js';

export interface ServerReport {
  memory: { rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number };
  /** Event-loop delay since the previous report, p99 and max, in ms. */
  lagMs: { p99: number; max: number };
  /** The server's `error` events so far, and their texts by shape. */
  errors: number;
  errorShapes: Record<string, ErrorGroup>;
  /** `notifications/soak/tick` notifications it took in. */
  notifications: number;
  sessionsOpened: number;
  sessionsEnded: number;
  /** Initialized sessions now. */
  sessions: number;
  stats: Record<string, number>;
  timeouts: { elicitationTimeoutMs: number; sessionIdleTimeoutMs: number };
}

export class SoakServer {
  private readonly waiting = new Map<number, (report: ServerReport) => void>();
  private nextReport = 1;
  /** Settles when the process ends, with how. */
  readonly exited: Promise<string>;

  private constructor(private readonly running: Running) {
    running.child.on('message', (message: { report?: number } & ServerReport) => {
      if (message.report === undefined) return;
      this.waiting.get(message.report)?.(message);
      this.waiting.delete(message.report);
    });
    this.exited = new Promise((resolve) => running.child.once('exit', (code, signal) => resolve(`the server exited (${signal ?? code})`)));
  }

  static async start(): Promise<SoakServer> {
    return new SoakServer(await startServer(new URL('./server.mjs', import.meta.url), undefined));
  }

  get port(): number {
    return this.running.port;
  }

  /** Server CPU time so far, in µs. */
  cpuMicros(): Promise<number> {
    return this.running.cpu.read();
  }

  /** Its memory and counters now; `gc` collects garbage first, so that heap figures compare live objects. */
  report(gc = false): Promise<ServerReport> {
    const id = this.nextReport++;
    const reply = new Promise<ServerReport>((resolve) => {
      this.waiting.set(id, resolve);
      this.running.child.send({ report: id, gc });
    });
    return within(5000, "the server's report", reply);
  }

  stop(): Promise<void> {
    return stopServers();
  }
}
