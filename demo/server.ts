/** `npm start`: the demo server over WebSocket and Streamable HTTP on 127.0.0.1:PORT/mcp (default port 3000). */
import { McpServer, StreamableHttpTransport, WebSocketTransport } from '../src/index.js';
import { registerDemoCatalog } from './catalog.js';
import { handleConnectPage, registerElicitationDemo } from './elicitation.js';

const server = new McpServer(
  { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo', instructions: 'Try the echo, add and count_slowly tools.' },
  { defaultLogLevel: 'info' },
);

// The transport's own server: /mcp is MCP, the connect pages come first, and any other path gets 404.
const http = new StreamableHttpTransport(server);
http.on('httpRequest', (req, res, control) => {
  if (req.method === 'GET' && handleConnectPage(server, (req.url ?? '/').split('?')[0], res)) control.handled = true;
});
let port = 0;
const baseUrl = () => `http://127.0.0.1:${port}`;

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

({ port } = await http.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) }));
new WebSocketTransport(server).attach(http.httpServer!);
console.log(
  `Switchboard demo listening on ws://127.0.0.1:${port}/mcp (WebSocket, subprotocol "mcp") and http://127.0.0.1:${port}/mcp (Streamable HTTP). Press Ctrl+C to stop.`,
);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close().then(() => process.exit(0)));
}
