import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer, WebSocketTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'app', version: '1.0.0' });
const http = createServer((req, res) => {
  res.writeHead(req.url === '/health' ? 200 : 404).end();
});
new WebSocketTransport(server, { path: '/mcp', allowedOrigins: ['https://app.example.com'] }).attach(http);
http.listen(Number(process.env.PORT ?? 8080), '127.0.0.1', () => {
  const { port } = http.address() as AddressInfo;
  console.log(`listening on http://127.0.0.1:${port}, MCP at ws://127.0.0.1:${port}/mcp`);
});
