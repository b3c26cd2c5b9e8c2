/**
 * `npm run fixture -- --port N`: the conformance fixture server on 127.0.0.1:N, path /mcp, serving
 * Streamable HTTP and the WebSocket upgrade on the same port and path.
 */
import { parseArgs } from 'node:util';
import { McpServer, StreamableHttpTransport, WebSocketTransport } from '../src/index.js';
import { registerFixtureCatalog } from './fixture-catalog.js';
import { registerModernFixtures } from './fixture-modern.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3100' }, host: { type: 'string', default: '127.0.0.1' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number; got ${values.port}`);
  process.exit(2);
}

// A fixed requestState key: the fixture may run as several processes behind one URL.
const server = new McpServer(
  { name: 'switchboard-conformance-fixture', version: '1.0.0' },
  { requestState: { keys: [process.env.REQUEST_STATE_KEY ?? 'switchboard-conformance-fixture-request-state-key'] } },
);
registerFixtureCatalog(server);
registerModernFixtures(server);
server.on('error', (err) => console.error('error:', err.message));

const http = new StreamableHttpTransport(server);
const { url } = await http.listen({ host: values.host, port });
new WebSocketTransport(server).attach(http.httpServer!);
console.log(`Switchboard conformance fixture on ${url} (WebSocket at ${url.replace(/^http/, 'ws')})`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
