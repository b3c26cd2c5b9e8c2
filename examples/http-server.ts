import type { IncomingMessage } from 'node:http';
import { McpServer, StreamableHttpTransport, WebSocketTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'orders', version: '1.0.0' });
server.registerTool(
  'place_order',
  {
    inputSchema: { type: 'object', properties: { item: { type: 'string' } }, required: ['item'] },
    confirm: ({ item }) => `Order one ${item}?`,
  },
  ({ item }) => `Ordered one ${item}.`,
);

// The principal is kept on session.principal; a request without it gets 401.
const auth = (req: IncomingMessage) => (req.headers.authorization === `Bearer ${process.env.TOKEN ?? 'dev-token'}` ? { id: 'dev' } : undefined);

const http = new StreamableHttpTransport(server, { auth, sessionIdleTimeoutMs: 10 * 60_000 });

// Health checks and custom routes, before MCP sees the request.
http.on('httpRequest', (req, res, control) => {
  if (req.url === '/health') {
    res.writeHead(200).end('ok');
    control.handled = true;
  }
});
const { url } = await http.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
new WebSocketTransport(server, { auth }).attach(http.httpServer!); // WebSocket on the same port and path
console.log(`listening on ${url}`);
