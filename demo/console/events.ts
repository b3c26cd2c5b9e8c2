/**
 * The server's events, as the console's live log shows them: `GET /events` is a text/event-stream of
 * `{event, at, session, detail}` objects, one per McpServer (or Tasks) event worth watching, for every console open.
 */
import type { ServerResponse } from 'node:http';
import type { DetailedTask, McpServer, McpSession, Tasks } from '../../src/index.js';

/** One record of the feed, as JSON carries it: what is unknown is null (the console's log reads the same type). */
export interface ServerEventRecord {
  event: string;
  /** ISO time. */
  at: string;
  session: { id: string; era: string; protocolVersion: string | null; client: string | null } | null;
  detail: Record<string, unknown>;
}

/** Consoles watching at once; more are turned away with 503. */
const MAX_WATCHERS = 32;
const HEARTBEAT_MS = 15_000;

export class ServerEventFeed {
  private readonly watchers = new Set<ServerResponse>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(server: McpServer, tasks: Tasks) {
    // Events by name, with arguments as each one has them: the feed only reads them.
    type Listener = (...args: never[]) => unknown;
    const on = server.on.bind(server) as unknown as (event: string, listener: Listener) => unknown;
    const forward = <A extends unknown[]>(event: string, detail: (...args: A) => Record<string, unknown>) =>
      on(event, ((session: McpSession | undefined, ...rest: A) => this.publish(event, session, detail(...rest))) as Listener);
    forward('sessionNew', () => ({}));
    forward('initialized', () => ({}));
    forward('sessionEnd', (reason: string) => ({ reason }));
    forward('requestTool', (request: { id: unknown; params: { name: string; arguments: unknown } }) => ({
      id: request.id,
      name: request.params.name,
      arguments: request.params.arguments,
    }));
    forward('progress', (params: unknown) => ({ params }));
    forward('cancelled', (params: unknown) => ({ params }));
    forward('loggingSetLevel', (level: string) => ({ level }));
    for (const event of ['responseElicitationCreate', 'responseSamplingCreateMessage', 'responseRootsList']) {
      forward(event, (request: { id: unknown; method: string; params: Record<string, unknown> }, response: Record<string, unknown>) => ({
        requestId: request.id,
        ...(request.params.mode === 'url' ? { mode: 'url', url: request.params.url } : {}),
        ...(typeof request.params.message === 'string' ? { message: request.params.message } : {}),
        ...response,
      }));
    }
    // Tasks outlive the request that made them: only their creation names a session.
    const taskDetail = (task: DetailedTask) => ({
      taskId: task.taskId,
      status: task.status,
      ...(task.statusMessage === undefined ? {} : { statusMessage: task.statusMessage }),
      ...(task.inputRequests === undefined ? {} : { inputRequests: Object.keys(task.inputRequests) }),
    });
    tasks.on('taskCreated', (task, session) => this.publish('taskCreated', session, taskDetail(task)));
    tasks.on('taskStatus', (task) => this.publish('taskStatus', undefined, taskDetail(task)));
    on('error', (error: Error, session?: McpSession) => this.publish('error', session, { message: error.message }));
    this.heartbeat = setInterval(() => {
      for (const res of this.watchers) res.write(': heartbeat\n\n');
    }, HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** Serve `GET /events`: the stream stays open until the console goes. */
  watch(res: ServerResponse): void {
    if (this.watchers.size >= MAX_WATCHERS) {
      res.writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '5' }).end('Too many consoles are watching; try again later.\n');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' });
    res.write('retry: 2000\n\n');
    this.watchers.add(res);
    res.on('close', () => this.watchers.delete(res));
  }

  close(): void {
    clearInterval(this.heartbeat);
    for (const res of this.watchers) res.end();
    this.watchers.clear();
  }

  private publish(event: string, session: McpSession | undefined, detail: Record<string, unknown>): void {
    if (this.watchers.size === 0) return;
    const record: ServerEventRecord = {
      event,
      at: new Date().toISOString(),
      session: session
        ? { id: session.id, era: session.era, protocolVersion: session.protocolVersion ?? null, client: session.clientInfo?.name ?? null }
        : null,
      detail,
    };
    const frame = `data: ${JSON.stringify(record, (_key, value) => (value === undefined ? null : value))}\n\n`;
    for (const res of this.watchers) res.write(frame);
  }
}
