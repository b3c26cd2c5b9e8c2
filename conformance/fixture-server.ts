/**
 * `npm run fixture -- --port N [--redis URL]`: the conformance fixture server on 127.0.0.1:N, path /mcp,
 * serving Streamable HTTP and the WebSocket upgrade on the same port and path. With `--redis`, it shares
 * state through that Redis: fixtures started with the same URL share the requestState key ring, a
 * requestState is used once across all of them, and a 2025 session's requests are forwarded to the
 * fixture that holds it.
 */
import { parseArgs } from 'node:util';
import { connectRedisScale, McpServer, type McpServerOptions, type SessionRouter, StreamableHttpTransport, WebSocketTransport } from '../src/index.js';
import { registerFixtureCatalog } from './fixture-catalog.js';
import { registerModernFixtures } from './fixture-modern.js';
import { registerFixtureSkills } from './fixture-skills.js';
import { registerFixtureTasks } from './fixture-tasks.js';

const { values } = parseArgs({
  options: { port: { type: 'string', default: '3100' }, host: { type: 'string', default: '127.0.0.1' }, redis: { type: 'string' } },
});
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number; got ${values.port}`);
  process.exit(2);
}

// Several processes may serve one URL: they share the key ring in Redis, or else a fixed requestState key.
let options: McpServerOptions;
let router: SessionRouter | undefined;
if (values.redis !== undefined) {
  try {
    const scale = await connectRedisScale(values.redis);
    options = { scale, requestState: { singleUse: true } };
    router = scale.sessionRouter();
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
registerFixtureTasks(server);
server.on('error', (err) => console.error('error:', err.message));

const http = new StreamableHttpTransport(server, router ? { router } : {});
const { url } = await http.listen({ host: values.host, port });
new WebSocketTransport(server).attach(http.httpServer!);
console.log(`Switchboard conformance fixture on ${url} (WebSocket at ${url.replace(/^http/, 'ws')})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
