/**
 * `npm run fixture -- --port N [--redis URL] [--auth-issuer ISS --auth-audience AUD --auth-jwks URL]`:
 * the conformance fixture server on 127.0.0.1:N, path /mcp, serving Streamable HTTP and the WebSocket
 * upgrade on the same port and path. With `--redis`, it shares state through that Redis: fixtures started
 * with the same URL share the requestState key ring, a requestState is used once across all of them, and
 * a legacy-era session's requests are forwarded to the fixture that holds it, and tasks are kept in Redis
 * (any of them answers tasks/get and tasks/cancel for a task another created). With the three `--auth-*` flags
 * it is an OAuth resource server: every request needs a JWT from ISS for AUD, checked against the keys at
 * the JWKS URL, and the Protected Resource Metadata is served at /.well-known/oauth-protected-resource/mcp.
 * `--health` serves /healthz and /readyz (without auth).
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
  },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number; got ${values.port}`);
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
if (values.redis !== undefined) {
  try {
    const scale = await connectRedisScale(values.redis);
    options = { scale, requestState: { singleUse: true } };
    router = scale.sessionRouter();
    taskStore = scale.taskStore();
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
registerFixtureTasks(server, taskStore);
server.on('error', (err) => console.error('error:', err.message));

const http = new StreamableHttpTransport(server, { ...(router ? { router } : {}), ...(auth ? { auth } : {}) });
const { url } = await http.listen({ host: values.host, port, health: values.health });
new WebSocketTransport(server, auth ? { auth } : {}).attach(http.httpServer!);
console.log(`Switchboard conformance fixture on ${url} (WebSocket at ${url.replace(/^http/, 'ws')})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
