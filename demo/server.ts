/** `npm start`: the demo server over WebSocket on 127.0.0.1. Set PORT to pick the port (default 3000). */
import { McpServer, WebSocketTransport } from '../src/index.js';
import { registerDemoCatalog } from './catalog.js';

const server = new McpServer(
  { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo', instructions: 'Try the echo, add and count_slowly tools.' },
  { defaultLogLevel: 'info' },
);
registerDemoCatalog(server);

server.on('sessionNew', (s) => console.log(`session ${s.id} started: ${s.clientInfo?.name} ${s.clientInfo?.version}, protocol ${s.protocolVersion}`));
server.on('sessionEnd', (s, reason) => console.log(`session ${s.id} ended: ${reason}`));
server.on('error', (err) => console.error('error:', err.message));

const transport = new WebSocketTransport(server);
const { url } = await transport.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`Switchboard demo listening on ${url} (WebSocket, subprotocol "mcp"). Press Ctrl+C to stop.`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
