/**
 * The soak's server: Switchboard from its build, Streamable HTTP and WebSocket on one port of 127.0.0.1,
 * with the tools the clients call. Over IPC it reports its memory, its `error` events and its counters.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpServer, StreamableHttpTransport, WebSocketTransport } from 'switchboard-mcp';
import { serveBenchControl } from '../bench/servers/shared.mjs';

// A collection before the baseline and the final reading, so that heap figures compare live objects.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc');

/** Short enough that abandoned elicitations and sessions are reaped within a soak. */
const TIMEOUTS = { elicitationTimeoutMs: 10_000, sessionIdleTimeoutMs: 10_000 };

const server = new McpServer(
  { name: 'soak', version: '1.0.0' },
  { elicitationTimeoutMs: TIMEOUTS.elicitationTimeoutMs, requestState: { keys: ['soak-request-state-key-of-32-bytes!!'] } },
);
const object = (properties, required = Object.keys(properties)) => ({ type: 'object', properties, required });

server.registerTool('echo', { inputSchema: object({ text: { type: 'string' } }) }, ({ text }) => text);
server.registerTool('ask', { inputSchema: object({}) }, async (_args, ctx) => {
  const answer = await ctx.elicit({
    message: 'Who are you?',
    requestedSchema: object(
      { name: { type: 'string', minLength: 1 }, age: { type: 'integer', minimum: 0 }, plan: { type: 'string', enum: ['free', 'pro'], default: 'free' } },
      ['name'],
    ),
  });
  return answer.action === 'accept' ? `accept:${answer.content.name}:${answer.content.plan ?? 'none'}` : answer.action;
});
server.registerTool(
  'progress',
  { inputSchema: object({ steps: { type: 'integer', minimum: 1, maximum: 20 }, delayMs: { type: 'integer', minimum: 0, maximum: 1000 } }) },
  async ({ steps, delayMs }, ctx) => {
    for (let step = 1; step <= steps; step++) {
      await sleep(delayMs);
      ctx.progress(step, steps, `step ${step}`);
      ctx.log('info', { step }, 'soak');
    }
    return `done:${steps}`;
  },
);
server.registerTool('fail', { inputSchema: object({ code: { type: 'integer' } }) }, ({ code }) => {
  throw new Error(`failed on purpose (${code})`);
});

// Every session hears once that server-initiated messages can reach it (the GET stream on HTTP).
server.on('backChannelOpen', (session) => session.log('info', 'back channel open', 'soak'));

const counters = { errors: 0, notifications: 0, sessionsOpened: 0, sessionsEnded: 0 };
/** Error texts by shape (numbers taken out), each with its count and first example; past 50 shapes, one key takes the rest. */
const errorShapes = new Map();
server.on('error', (error, session) => {
  counters.errors++;
  const text = `${error?.message ?? String(error)}${session ? ` (${session.transport} session)` : ''}`;
  const shape = text.replace(/\d+/g, '#');
  const key = errorShapes.has(shape) || errorShapes.size < 50 ? shape : '(more shapes)';
  const group = errorShapes.get(key) ?? { count: 0, example: text };
  group.count++;
  errorShapes.set(key, group);
});
server.on('notification', (_session, method) => {
  if (method === 'notifications/soak/tick') counters.notifications++;
});
server.on('sessionNew', () => counters.sessionsOpened++);
server.on('sessionEnd', () => counters.sessionsEnded++);

const http = new StreamableHttpTransport(server, { sessionIdleTimeoutMs: TIMEOUTS.sessionIdleTimeoutMs });
// The whole load comes from one address: it may hold every connection, as a proxy in front would.
const { port } = await http.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 1024 });
new WebSocketTransport(server).attach(http.httpServer);

// How late the event loop ran, between two reports: what a latency spike on the server's side looks like.
const lag = monitorEventLoopDelay({ resolution: 1 });
lag.enable();

process.on('message', (message) => {
  if (message?.report === undefined) return;
  const lagMs = { p99: lag.percentile(99) / 1e6, max: lag.max / 1e6 };
  if (message.gc) gc();
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  // After the collection, so that a forced one is not charged to the next window.
  lag.reset();
  process.send({
    report: message.report,
    memory: { rss, heapUsed, heapTotal, external, arrayBuffers },
    lagMs,
    ...counters,
    errorShapes: Object.fromEntries(errorShapes),
    timeouts: TIMEOUTS,
    sessions: server.sessions.size,
    stats: { ...server.stats },
  });
});
// Ctrl-C reaches the whole process group: the driver stops this server over IPC once its clients have left.
process.on('SIGINT', () => {});
serveBenchControl(port);
