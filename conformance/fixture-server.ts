/**
 * `npm run fixture -- --port N`: the conformance fixture server on 127.0.0.1:N, path /mcp.
 * It serves the WebSocket transport on that path.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { McpServer, WebSocketTransport } from '../src/index.js';
import { registerFixtureCatalog } from './fixture-catalog.js';

const { values } = parseArgs({ options: { port: { type: 'string', default: '3100' }, host: { type: 'string', default: '127.0.0.1' } } });
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a port number; got ${values.port}`);
  process.exit(2);
}

const server = new McpServer({ name: 'switchboard-conformance-fixture', version: '1.0.0' });
registerFixtureCatalog(server);
server.on('error', (err) => console.error('error:', err.message));

const http = createServer((_req, res) => {
  res.writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' }).end('Connect with WebSocket (subprotocol "mcp") at /mcp\n');
});
new WebSocketTransport(server).attach(http);
http.listen(port, values.host, () => {
  const address = http.address() as { port: number };
  console.log(`Switchboard conformance fixture on http://${values.host}:${address.port}/mcp (WebSocket at ws://${values.host}:${address.port}/mcp)`);
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => http.close(() => process.exit(0))));
}
