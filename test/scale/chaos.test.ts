/**
 * Chaos: three fixture processes share one redis-server (append-only, fsync per write, so a restart keeps
 * its data, as a production Redis does) behind a round-robin balancer that sends every HTTP request to the
 * next live instance, under a mixed load: 2025 sessions calling an eliciting tool in a loop, 2026-07-28
 * multi-round (MRTR) calls, and `slow_compute` tasks polled to their end through any instance. Meanwhile
 * the test (a) drains and replaces each instance in turn, (b) kills one and replaces it, (c) restarts Redis.
 * The scenario runs once, in `beforeAll`; each `it` checks one promise of docs/scale-out.md against what it
 * recorded, and `afterAll` prints the run's figures in one line.
 */
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type ElicitResult, McpClient, StreamableHttpClientTransport } from '../../src/index.js';
import { Balancer, EXPLAINED_BY, Fixture, type Reason, reasonOf, rpc, type Window } from '../helpers/chaos.js';
import { type RunningRedis, startRedis } from '../helpers/redis-server.js';
import { DECLARES } from '../helpers/tasks.js';
import { until, within } from '../helpers/waits.js';
import type { Json } from '../helpers/ws-client.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const DRAIN_MS = 2000;
/** Short enough that a killed runner's tasks fail within the test (1.25 leases), long enough that a Redis restart (well under a second) does not lapse a live one. */
const LEASE_MS = 3000;
const FIXTURE_ARGS = ['--drain-ms', String(DRAIN_MS), '--task-lease-ms', String(LEASE_MS), '--report-events', '--health', '--serve-where-they-land'];
const SESSIONS = ['s1', 's2', 's3', 's4'];
const MRTR_LOOPS = ['m1', 'm2'];
/** Task durations in turn: some end within a drain, some outlast it. */
const TASK_SECONDS = [0.3, 0.8, 1.5, 2.5];
/** Tasks made at most: under the Tasks extension's maxTasksPerPrincipal (100; all clients here are 127.0.0.1), past which the oldest finished ones are evicted. */
const MAX_TASKS = 80;
/** The pause between one client's calls: a steady load that leaves the two cores room for the chaos. */
const PACE_MS = 60;
/** A window of chaos closes this long after the instance exited (or Redis was ready again): a call failing meanwhile still learns of it then. */
const GRACE_MS = 1000;
/** How long the load may take to go on after each blow. */
const RECOVERY_MS = 20_000;
const STOPPED_SERVER = /^The server running this task stopped before the task finished \((its lease lapsed|it was shut down)\); call the tool again$/;
const TERMINAL = new Set(['completed', 'failed', 'cancelled']);

interface Call {
  client: string;
  kind: 'legacy' | 'mrtr' | 'task-create' | 'task-poll';
  start: number;
  end: number;
  ok: boolean;
  reason?: Reason;
  /** The 2025 session the call ran in. */
  sessionId?: string;
  /** The elicitations the client answered during the call (legacy): the server's request id and the unique message. */
  elicitations: { requestId: string; message: string }[];
}

interface TaskRecord {
  taskId: string;
  label: string;
  seconds: number;
  /** As the last tasks/get showed it. */
  status?: string;
  error?: { code: number; message: string };
  result?: Json;
  /** What a last tasks/get, after the load stopped, answered. */
  final?: string;
}

const run = {
  started: 0,
  finished: 0,
  stopping: false,
  windows: [] as Window[],
  calls: [] as Call[],
  tasks: [] as TaskRecord[],
  fixtures: [] as Fixture[],
  clientErrors: [] as { client: string; at: number; message: string }[],
  sessions: [] as LegacySession[],
  mrtr: [] as MrtrLoop[],
};
let redis: RunningRedis | undefined;
let balancer: Balancer;
let nextFixture = 1;

async function startFixture(): Promise<Fixture> {
  const fixture = await Fixture.start(`f${nextFixture++}`, ['--redis', redis!.url, ...FIXTURE_ARGS], root);
  run.fixtures.push(fixture);
  return fixture;
}

/** A fetch for one client's transport: every request to the balancer's next pick; `seen` sees each request body and response. */
function balanced(seen: (body: string, res?: Response) => void) {
  return async (_input: URL | RequestInfo, init?: RequestInit) => {
    const body = typeof init?.body === 'string' ? init.body : '';
    seen(body);
    const res = await fetch(balancer.pick().url, init);
    seen('', res);
    return res;
  };
}

/** A 2025 session (McpClient era legacy) calling `test_elicitation` in a loop, each call with a message of its own. */
class LegacySession {
  initializes = 0;
  readonly sessionIds = new Set<string>();
  /** Why the client's connection ended, each time it did before the test closed it (a 404: the session was lost). */
  readonly ends: string[] = [];
  /** When the last call that succeeded started. */
  lastOk = 0;
  sessionId = '';
  private client: McpClient | undefined;
  private current: Call | undefined;
  private calls = 0;

  constructor(readonly label: string) {}

  async connect(): Promise<void> {
    const client = new McpClient({ name: this.label, version: '1.0.0' }, { era: 'legacy', requestTimeoutMs: 10_000 });
    client.onElicitation((params, ctx): ElicitResult => {
      this.current?.elicitations.push({ requestId: String(ctx.requestId), message: params.message });
      return { action: 'accept', content: { username: this.label, email: `${this.label}@example.com` } };
    });
    client.on('close', (reason) => void (run.stopping ? undefined : this.ends.push(reason)));
    client.on('error', (err) => void run.clientErrors.push({ client: this.label, at: Date.now(), message: err.message }));
    const fetchVia = balanced((body, res) => {
      if (body && (JSON.parse(body) as Json).method === 'initialize') this.initializes++;
      const id = res?.headers.get('mcp-session-id');
      if (id) {
        this.sessionIds.add(id);
        this.sessionId = id;
      }
    });
    await client.connect(new StreamableHttpClientTransport(balancer.fixtures[0]!.url, { fetch: fetchVia }));
    this.client = client;
  }

  async loop(): Promise<void> {
    while (!run.stopping) {
      // A connection the server ended (404) is a session lost: the client initializes anew, which the test counts.
      if (this.ends.length > 0 && this.ends.length >= this.initializes) await this.connect();
      const call: Call = { client: this.label, kind: 'legacy', start: Date.now(), end: 0, ok: false, elicitations: [] };
      this.current = call;
      const message = `chaos-${this.label}-${++this.calls}`;
      const ended = this.ends.length;
      try {
        const result = await this.client!.callTool('test_elicitation', { message });
        const expected = `User response: action=accept, content={"username":"${this.label}","email":"${this.label}@example.com"}`;
        if (JSON.stringify(result.content) !== JSON.stringify([{ type: 'text', text: expected }])) throw new Error(`wrong result: ${JSON.stringify(result)}`);
        call.ok = true;
        this.lastOk = call.start;
      } catch (err) {
        call.reason = this.ends.length > ended ? `unexplained: the session ended (${this.ends.at(-1)})` : reasonOf(err);
        if (call.reason.startsWith('unexplained: -32001 ') && this.replyRefusedSince(call.start)) {
          call.reason = 'unexplained: its elicitation answer was refused with 503 (Redis down) and dropped by the client; the call waited out its timeout';
        }
      }
      call.end = Date.now();
      call.sessionId = this.sessionId;
      this.current = undefined;
      run.calls.push(call);
      await sleep(PACE_MS);
    }
  }

  /** The client dropped its answer to an elicitation that the instance it reached could not route (503 while Redis was down). */
  private replyRefusedSince(start: number): boolean {
    return run.clientErrors.some(
      (e) => e.client === this.label && e.at >= start && /^The server refused the POST of the reply to request .*: HTTP 503 /.test(e.message),
    );
  }

  close(): Promise<void> {
    return this.client?.close() ?? Promise.resolve();
  }
}

/** A 2026-07-28 client (McpClient era modern) calling the two-round MRTR tool in a loop. */
class MrtrLoop {
  lastOk = 0;
  answers = 0;
  private client: McpClient | undefined;

  constructor(readonly label: string) {}

  async connect(): Promise<void> {
    const client = new McpClient({ name: this.label, version: '1.0.0' }, { era: 'modern', requestTimeoutMs: 10_000 });
    client.onElicitation((params): ElicitResult => {
      this.answers++;
      return { action: 'accept', content: params.message.startsWith('Step 1') ? { name: 'Ada' } : { color: 'teal' } };
    });
    client.on('error', (err) => void run.clientErrors.push({ client: this.label, at: Date.now(), message: err.message }));
    await client.connect(new StreamableHttpClientTransport(balancer.fixtures[0]!.url, { fetch: balanced(() => {}) }));
    this.client = client;
  }

  async loop(): Promise<void> {
    while (!run.stopping) {
      const call: Call = { client: this.label, kind: 'mrtr', start: Date.now(), end: 0, ok: false, elicitations: [] };
      try {
        const result = await this.client!.callTool('test_input_required_result_multi_round');
        if (JSON.stringify(result.content) !== JSON.stringify([{ type: 'text', text: 'Ada likes teal.' }]))
          throw new Error(`wrong result: ${JSON.stringify(result)}`);
        call.ok = true;
        this.lastOk = call.start;
      } catch (err) {
        call.reason = reasonOf(err);
      }
      call.end = Date.now();
      run.calls.push(call);
      await sleep(PACE_MS);
    }
  }

  close(): Promise<void> {
    return this.client?.close() ?? Promise.resolve();
  }
}

let rpcId = 0;

/** One tasks/get or tools/call on the balancer's next pick, recorded as a call. */
async function recorded<T>(kind: Call['kind'], what: () => Promise<T>): Promise<T | undefined> {
  const call: Call = { client: 'tasks', kind, start: Date.now(), end: 0, ok: false, elicitations: [] };
  try {
    const value = await what();
    call.ok = true;
    return value;
  } catch (err) {
    call.reason = reasonOf(err);
    return undefined;
  } finally {
    call.end = Date.now();
    run.calls.push(call);
  }
}

/** Poll the task through the balancer until it ends, for as long as it may take with a lease to lapse. */
async function follow(task: TaskRecord): Promise<void> {
  const deadline = Date.now() + task.seconds * 1000 + 2 * LEASE_MS + 15_000;
  while (Date.now() < deadline) {
    await sleep(250);
    const got = await recorded('task-poll', () => rpc(balancer.pick().url, ++rpcId, 'tasks/get', { taskId: task.taskId }, DECLARES));
    if (!got) continue;
    Object.assign(task, { status: got.status, error: got.error, result: got.result });
    if (TERMINAL.has(got.status)) return;
  }
}

/** Create a `slow_compute` task every few hundred ms, each followed to its end. */
async function taskLoop(): Promise<void> {
  const followers: Promise<void>[] = [];
  for (let n = 0; !run.stopping && n < MAX_TASKS; n++) {
    const seconds = TASK_SECONDS[n % TASK_SECONDS.length]!;
    const created = await recorded('task-create', async () => {
      const result = await rpc(balancer.pick().url, ++rpcId, 'tools/call', { name: 'slow_compute', arguments: { seconds, label: `t${n}` } }, DECLARES);
      if (result.resultType !== 'task') throw new Error(`expected a task; got ${JSON.stringify(result)}`);
      return result;
    });
    if (created) {
      const task: TaskRecord = { taskId: created.taskId, label: `t${n}`, seconds, status: created.status };
      run.tasks.push(task);
      followers.push(follow(task));
    }
    await sleep(300);
  }
  await Promise.all(followers);
}

/** Every 2025 session and MRTR loop completed a call that started after `since` (so each blow is struck after the last one's window closed). */
function recovered(since: number, after: string): Promise<unknown> {
  return until(
    () => [...run.sessions, ...run.mrtr].filter((client) => client.lastOk <= since).map((client) => client.label),
    `every client to complete a call again after ${after}`,
    (behind) => behind.length === 0,
    RECOVERY_MS,
  );
}

/** The live fixture holding the most 2025 sessions (by the session-new and session-adopted lines). */
function busiestOwner(): Fixture {
  const owner = new Map<string, { fixture: Fixture; at: number }>();
  for (const fixture of run.fixtures) {
    for (const { sessionId, at } of fixture.sessions) if ((owner.get(sessionId)?.at ?? -1) <= at) owner.set(sessionId, { fixture, at });
  }
  const held = (fixture: Fixture) => [...owner.values()].filter((entry) => entry.fixture === fixture).length;
  return [...balancer.fixtures].sort((x, y) => held(y) - held(x))[0]!;
}

function openWindow(kind: Window['kind'], what: string): Window {
  const window = { kind, what, start: Date.now(), end: Number.POSITIVE_INFINITY };
  run.windows.push(window);
  return window;
}

async function chaos(): Promise<void> {
  // (a) A rolling restart: each instance is replaced, taken out of the rotation, and drained.
  for (const old of [...balancer.fixtures]) {
    balancer.add(await startFixture());
    const window = openWindow('drain', old.name);
    balancer.remove(old);
    await old.drain();
    window.end = Date.now() + GRACE_MS;
    await recovered(window.end, `draining ${old.name}`);
  }
  // (b) The instance holding the most sessions dies.
  const victim = busiestOwner();
  const killed = openWindow('kill', victim.name);
  await victim.kill();
  balancer.remove(victim);
  balancer.add(await startFixture());
  killed.end = Date.now() + GRACE_MS;
  await recovered(killed.end, `killing ${victim.name}`);
  // (c) Redis restarts with its data; the instances reconnect by themselves.
  const restarted = openWindow('redis', 'restart');
  await redis!.restart();
  await until(
    () => Promise.all(balancer.fixtures.map((fixture) => fixture.ready())),
    'every fixture to be ready after the Redis restart',
    (ready) => ready.every(Boolean),
    RECOVERY_MS,
  );
  restarted.end = Date.now() + GRACE_MS;
  await recovered(restarted.end, 'the Redis restart');
}

function fixtureErrors(): string {
  return run.fixtures.map((fixture) => fixture.stderr.map((line) => `${fixture.name}: ${line}`).join('\n')).join('\n');
}

async function scenario(): Promise<void> {
  redis = await startRedis({ persist: true });
  run.started = Date.now();
  balancer = new Balancer(await Promise.all([startFixture(), startFixture(), startFixture()]));
  run.sessions = SESSIONS.map((label) => new LegacySession(label));
  run.mrtr = MRTR_LOOPS.map((label) => new MrtrLoop(label));
  for (const client of [...run.sessions, ...run.mrtr]) await client.connect();
  const load = [...run.sessions.map((session) => session.loop()), ...run.mrtr.map((loop) => loop.loop()), taskLoop()];
  await recovered(run.started, 'the start');
  await chaos();
  run.stopping = true;
  await within(Promise.all(load), 2 * LEASE_MS + 30_000, 'the load to stop and every task to be followed to its end');
  for (const task of run.tasks) {
    task.final = await rpc(balancer.pick().url, ++rpcId, 'tasks/get', { taskId: task.taskId }, DECLARES).then(
      (got) => got.status as string,
      (err: Error) => err.message,
    );
  }
  // CHAOS_DUMP=file.json writes what the run recorded, to study a failure after it.
  if (process.env.CHAOS_DUMP) {
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      process.env.CHAOS_DUMP,
      JSON.stringify(
        {
          ...run,
          sessions: run.sessions.map((s) => ({ ...s, sessionIds: [...s.sessionIds] })),
          fixtures: run.fixtures.map((f) => ({
            name: f.name,
            url: f.url,
            sessions: f.sessions,
            responseEvents: f.responseEvents,
            stderr: f.stderr,
            exit: f.exit,
          })),
        },
        (k, v) => (k === 'client' && typeof v === 'object' ? undefined : v),
      ),
    );
  }
  await Promise.all([...run.sessions, ...run.mrtr].map((client) => client.close()));
  await Promise.all(balancer.fixtures.map((fixture) => fixture.drain()));
  run.finished = Date.now();
}

beforeAll(async () => {
  try {
    await scenario();
  } catch (err) {
    console.error(`the chaos scenario failed; the fixtures' stderr:\n${fixtureErrors()}`);
    throw err;
  }
}, 150_000);

afterAll(async () => {
  run.stopping = true;
  for (const fixture of run.fixtures) if (fixture.running) await fixture.kill();
  await redis?.stop();
  if (redis?.dataDir) await rm(redis.dataDir, { recursive: true, force: true });
  if (run.finished > 0) console.log(summary());
});

beforeEach(({ onTestFailed }) => {
  onTestFailed(() => console.error(`the fixtures' stderr:\n${fixtureErrors()}`));
});

const at = (time: number) => ((time - run.started) / 1000).toFixed(2);

function explained(call: Call): boolean {
  const kinds = EXPLAINED_BY[call.reason ?? ''];
  return kinds !== undefined && run.windows.some((w) => kinds.includes(w.kind) && call.start <= w.end && call.end >= w.start);
}

function legacyEvents() {
  return run.fixtures.flatMap((fixture) => fixture.responseEvents).filter((event) => event.message.startsWith('chaos-'));
}

/** The 2025 response events fired by a fixture that never held their session: its guest asked (`--serve-where-they-land`). */
function guestEvents() {
  return legacyEvents().filter((event) => !run.fixtures.some((f) => f.name === event.process && f.sessions.some((s) => s.sessionId === event.sessionId)));
}

function summary(): string {
  const calls = run.calls.filter((call) => call.kind !== 'task-poll');
  const polls = run.calls.filter((call) => call.kind === 'task-poll');
  const byReason = new Map<string, number>();
  for (const call of calls) if (!call.ok) byReason.set(call.reason!, (byReason.get(call.reason!) ?? 0) + 1);
  const kept = run.sessions.filter((session) => session.initializes === 1 && session.sessionIds.size === 1 && session.ends.length === 0).length;
  const extraInitializes = run.sessions.reduce((sum, session) => sum + session.initializes - 1, 0);
  const completed = run.tasks.filter((task) => task.status === 'completed').length;
  const shutDown = run.tasks.filter((task) => task.status === 'failed' && /shut down/.test(task.error?.message ?? '')).length;
  const lapsed = run.tasks.filter((task) => task.status === 'failed' && /lease lapsed/.test(task.error?.message ?? '')).length;
  const answers = run.calls.reduce((sum, call) => sum + call.elicitations.length, 0);
  const mrtrEvents = run.fixtures.flatMap((fixture) => fixture.responseEvents).length - legacyEvents().length;
  const takeovers = run.fixtures.reduce((sum, fixture) => sum + fixture.sessions.filter((s) => s.kind === 'adopted').length, 0);
  const reasons = [...byReason].map(([reason, count]) => `${reason} ${count}`).join(', ');
  return (
    `chaos: sessions kept ${kept}/${run.sessions.length}, initializes beyond the first ${extraInitializes}, takeovers ${takeovers}; ` +
    `calls ok ${calls.filter((call) => call.ok).length} / failed ${calls.filter((call) => !call.ok).length}${reasons ? ` (${reasons})` : ''}; ` +
    `task polls ok ${polls.filter((call) => call.ok).length} / failed ${polls.filter((call) => !call.ok).length}; ` +
    `tasks ${run.tasks.length}: completed ${completed} / failed-stopped ${shutDown + lapsed} (shut down ${shutDown}, lease lapsed ${lapsed}) / other ${run.tasks.length - completed - shutDown - lapsed}; ` +
    `2025 elicitation answers ${answers} vs response events ${legacyEvents().length} (${guestEvents().length} where the call landed, by a guest); ` +
    `MRTR answers ${run.mrtr.reduce((sum, loop) => sum + loop.answers, 0)} vs response events ${mrtrEvents}; ` +
    `duration ${((run.finished - run.started) / 1000).toFixed(1)} s`
  );
}

describe('chaos: three instances and one Redis, drained, killed and restarted under a mixed load', () => {
  it('keeps every 2025 session: one initialize and one Mcp-Session-Id each, never ended by the server', () => {
    expect(run.sessions.map((s) => ({ label: s.label, initializes: s.initializes, sessionIds: s.sessionIds.size, ends: s.ends }))).toEqual(
      SESSIONS.map((label) => ({ label, initializes: 1, sessionIds: 1, ends: [] })),
    );
  });

  it('fails a call only when the chaos struck while it ran, for a reason that fits the blow', () => {
    const unexplained = run.calls
      .filter((call) => !call.ok && !explained(call))
      .map((call) => `${call.client} ${call.kind} ${at(call.start)}-${at(call.end)} s: ${call.reason}`)
      .slice(0, 20);
    const windows = run.windows.map((w) => `${w.kind} ${w.what} ${at(w.start)}-${at(w.end)} s`);
    expect({ unexplained, windows }).toEqual({ unexplained: [], windows });
  });

  it('ends every task: completed with its result, or failed with a stopped-server error; none left working', () => {
    const ended = (task: TaskRecord) =>
      (task.status === 'completed' &&
        JSON.stringify(task.result) === JSON.stringify({ content: [{ type: 'text', text: `Computed ${task.label} after ${task.seconds}s` }] })) ||
      (task.status === 'failed' && task.error?.code === -32603 && STOPPED_SERVER.test(task.error.message));
    const left = run.tasks.filter((task) => !ended(task) || task.final !== task.status);
    expect(left).toEqual([]);
    expect(run.tasks.length).toBeGreaterThan(0);
  });

  it('fires one response event, on one process, for each elicitation the client answered', () => {
    const events = legacyEvents();
    const problems: string[] = [];
    const answered = new Set<string>();
    for (const session of run.sessions) {
      for (const call of run.calls.filter((c) => c.client === session.label)) {
        const { sessionId } = call;
        for (const { requestId, message } of call.elicitations) {
          answered.add(message);
          const fired = events.filter((event) => event.message === message);
          // An answer is one accept event; a request that ended unanswered (its call failed) may fire one error event instead.
          const right = fired.filter((event) => event.sessionId === sessionId && event.requestId === requestId && (event.action === 'accept' || !call.ok));
          if (fired.length !== right.length) problems.push(`${message}: events ${JSON.stringify(fired)} for request ${requestId} of ${sessionId}`);
          if (call.ok ? fired.length !== 1 : fired.length > 1) problems.push(`${message} (call ${call.ok ? 'ok' : call.reason}): ${fired.length} events`);
        }
      }
    }
    for (const event of events)
      if (event.action === 'accept' && !answered.has(event.message)) problems.push(`an event for an elicitation never answered: ${JSON.stringify(event)}`);
    expect({ count: problems.length, first: problems.slice(0, 10) }).toEqual({ count: 0, first: [] });
  });

  it('serves 2025 reads where they land: guests on instances that do not hold the session asked some elicitations', () => {
    expect(guestEvents().length).toBeGreaterThan(0);
  });

  it('fires one response event per MRTR answer at most, and one per answer of each call that succeeded at least', () => {
    const events = run.fixtures.flatMap((fixture) => fixture.responseEvents).length - legacyEvents().length;
    const okCalls = run.calls.filter((call) => call.kind === 'mrtr' && call.ok).length;
    const answers = run.mrtr.reduce((sum, loop) => sum + loop.answers, 0);
    expect(events).toBeGreaterThanOrEqual(2 * okCalls);
    expect(events).toBeLessThanOrEqual(answers);
  });

  it('ends only the processes it stopped: 0 after SIGTERM, SIGKILL for the one it killed, nothing on stderr but error: lines', () => {
    expect(run.fixtures.map((f) => ({ name: f.name, stoppedBy: f.stoppedBy, exitedUnasked: f.exitedUnasked, exit: f.exit }))).toEqual(
      run.fixtures.map((f) => ({
        name: f.name,
        stoppedBy: f.stoppedBy ?? 'drain',
        exitedUnasked: false,
        exit: f.stoppedBy === 'kill' ? { code: null, signal: 'SIGKILL' } : { code: 0, signal: null },
      })),
    );
    const crashes = run.fixtures.flatMap((f) =>
      f.stderr.filter((line) => !line.startsWith('error: ') || /Unhandled|TypeError|ReferenceError|RangeError/.test(line)),
    );
    expect(crashes).toEqual([]);
  });
});
