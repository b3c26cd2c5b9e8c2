/**
 * `npm run fixture -- --port N [--redis URL] [--auth-issuer ISS --auth-audience AUD --auth-jwks URL]`:
 * the conformance fixture server on 127.0.0.1:N, path /mcp, serving Streamable HTTP and the WebSocket
 * upgrade on the same port and path. With `--redis`, it shares state through that Redis: fixtures started
 * with the same URL share the requestState key ring, a requestState is used once across all of them, and
 * a legacy-era session's requests are forwarded to the fixture that holds it (and taken over, with its
 * stored events, when that one is gone), and tasks are kept in Redis (any of them answers tasks/get,
 * tasks/update and tasks/cancel for a task another created). With the three `--auth-*` flags
 * it is an OAuth resource server: every request needs a JWT from ISS for AUD, checked against the keys at
 * the JWKS URL, and the Protected Resource Metadata is served at /.well-known/oauth-protected-resource/mcp.
 * `--health` serves /healthz and /readyz (without auth).
 *
 * For the chaos test (test/scale/chaos.test.ts), each off by default:
 * - `--drain-ms N`: on SIGTERM or SIGINT, `server.close({ drainMs: N })` (requests and tasks under way
 *   may finish for up to N ms), then exit 0. Default 0: close at once.
 * - `--task-lease-ms N`: with `--redis`, the Tasks extension's `leaseMs` (default its own, 20 000).
 * - `--serve-where-they-land`: with `--redis`, the transport's `serveWhereTheyLand` (a request that only
 *   reads a session another fixture holds is served here, from the session's record).
 * - `--report-events`: one line on stdout per event the test counts: `session-new <session id>` and
 *   `session-adopted <session id>` (a legacy-era session made or taken over here), and
 *   `response-event <session id> <request id> <action> <message as JSON>` per `responseElicitationCreate`
 *   (the action is `error:<code>` for a request that ended without an answer).
 */
import { parseArgs } from 'node:util';
import {
  type AuthOption,
  bearer,
  connectRedisScale,
  McpServer,
  type McpServerOptions,
  type SessionRouter,
  StreamableHttpTransport,
  type EventStore,
  type TaskStore,
  WebSocketTransport,
} from '../src/index.js';
import { registerFixtureCatalog } from './fixture-catalog.js';
import { registerModernFixtures } from './fixture-modern.js';
import { registerFixtureSkills } from './fixture-skills.js';
import { registerFixtureTasks } from './fixture-tasks.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '3100' },
    host: { type: 'string', default: '127.0.0.1' },
    redis: { type: 'string' },
    'auth-issuer': { type: 'string' },
    'auth-audience': { type: 'string' },
    'auth-jwks': { type: 'string' },
    health: { type: 'boolean', default: false },
    'drain-ms': { type: 'string', default: '0' },
    'serve-where-they-land': { type: 'boolean', default: false },
    'task-lease-ms': { type: 'string' },
    'report-events': { type: 'boolean', default: false },
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number; got ${values.port}`);
  process.exit(2);
}

const drainMs = Number(values['drain-ms']);
if (!Number.isInteger(drainMs) || drainMs < 0) {
  console.error(`--drain-ms must be a non-negative integer of milliseconds; got ${values['drain-ms']}`);
  process.exit(2);
}
const leaseMs = values['task-lease-ms'] === undefined ? undefined : Number(values['task-lease-ms']);
if (leaseMs !== undefined && (!Number.isInteger(leaseMs) || leaseMs <= 0)) {
  console.error(`--task-lease-ms must be a positive integer of milliseconds; got ${values['task-lease-ms']}`);
  process.exit(2);
}

const authFlags = [values['auth-issuer'], values['auth-audience'], values['auth-jwks']];
if (authFlags.some((flag) => flag !== undefined) && !authFlags.every((flag) => flag !== undefined)) {
  console.error('--auth-issuer, --auth-audience and --auth-jwks go together: give all three');
  process.exit(2);
}
let auth: AuthOption | undefined;
if (values['auth-jwks'] !== undefined) {
  try {
    auth = bearer({ issuer: values['auth-issuer'], audience: values['auth-audience'], jwksUri: values['auth-jwks'] });
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
}

// Several processes may serve one URL: they share the key ring in Redis, or else a fixed requestState key.
let options: McpServerOptions;
let router: SessionRouter | undefined;
let taskStore: TaskStore | undefined;
let eventStore: EventStore | undefined;
if (values.redis !== undefined) {
  try {
    const scale = await connectRedisScale(values.redis);
    options = { scale, requestState: { singleUse: true } };
    router = scale.sessionRouter();
    taskStore = scale.taskStore();
    eventStore = scale.eventStore();
  } catch (err) {
    console.error((err as Error).message);
    process.exit(2);
  }
} else {
  options = { requestState: { keys: [process.env.REQUEST_STATE_KEY ?? 'switchboard-conformance-fixture-request-state-key'] } };
}
const server = new McpServer({ name: 'switchboard-conformance-fixture', version: '1.0.0' }, options);
registerFixtureCatalog(server);
registerModernFixtures(server);
registerFixtureSkills(server);
registerFixtureTasks(server, taskStore, leaseMs === undefined ? {} : { leaseMs });
server.on('error', (err) => console.error('error:', err.message));
if (values['report-events']) {
  server.on('sessionNew', (session) => console.log(`session-new ${session.id}`));
  server.on('sessionAdopted', (session) => console.log(`session-adopted ${session.id}`));
  server.on('responseElicitationCreate', (session, request, response) =>
    console.log(
      `response-event ${session.id} ${String(request.id)} ${response.isError ? `error:${response.errorCode}` : response.action} ${JSON.stringify(request.params.message)}`,
    ),
  );
}

const http = new StreamableHttpTransport(server, {
  ...(router ? { router, eventStore, serveWhereTheyLand: values['serve-where-they-land'] } : {}),
  ...(auth ? { auth } : {}),
});
const { url } = await http.listen({ host: values.host, port, health: values.health });
new WebSocketTransport(server, auth ? { auth } : {}).attach(http.httpServer!);
console.log(`Switchboard conformance fixture on ${url} (WebSocket at ${url.replace(/^http/, 'ws')})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close({ drainMs }).then(() => process.exit(0)));
}
