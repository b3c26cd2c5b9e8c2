/** `npm start`: the demo server over WebSocket and Streamable HTTP on 127.0.0.1:PORT/mcp (default port 3000). */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, StreamableHttpTransport, WebSocketTransport } from '../src/index.js';
import { registerDemoCatalog } from './catalog.js';
import { handleConnectPage, registerElicitationDemo } from './elicitation.js';

const server = new McpServer(
  { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo', instructions: 'Try the echo, add and count_slowly tools.' },
  { defaultLogLevel: 'info' },
);

const streamableHttp = new StreamableHttpTransport(server);
const http = createServer((req, res) => {
  const path = new URL(req.url ?? '/', 'http://localhost').pathname;
  if (path === '/mcp') return streamableHttp.handler(req, res);
  if (req.method === 'GET' && handleConnectPage(server, path, res)) return;
  res.writeHead(404, { 'content-type': 'text/plain' }).end('The MCP endpoint is /mcp (Streamable HTTP, or WebSocket with subprotocol "mcp")\n');
});
const baseUrl = () => `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

registerDemoCatalog(server);
registerElicitationDemo(server, baseUrl);

server.on('sessionNew', (s) => console.log(`session ${s.id} started: ${s.clientInfo?.name} ${s.clientInfo?.version}, protocol ${s.protocolVersion}`));
server.on('sessionEnd', (s, reason) => console.log(`session ${s.id} ended: ${reason}`));
server.on('responseElicitationCreate', (s, request, response) => {
  console.log(
    `session ${s.id}: elicitation ${request.id} ended: ${response.isError ? `error ${response.errorCode} ${response.errorMessage}` : response.action}`,
  );
});
server.on('error', (err) => console.error('error:', err.message));

new WebSocketTransport(server).attach(http);
http.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = http.address() as AddressInfo;
  console.log(
    `Switchboard demo listening on ws://127.0.0.1:${port}/mcp (WebSocket, subprotocol "mcp") and http://127.0.0.1:${port}/mcp (Streamable HTTP). Press Ctrl+C to stop.`,
  );
});

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => http.close(() => process.exit(0))));
}
