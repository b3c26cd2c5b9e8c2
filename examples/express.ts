import express from 'express';
import { McpServer, StreamableHttpTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'shop', version: '1.0.0' });
server.registerTool('stock', { inputSchema: { type: 'object', properties: { item: { type: 'string' } } } }, ({ item }) => `3 ${item} in stock.`);

const mcp = new StreamableHttpTransport(server); // no listen(): express owns the port
const app = express();
app.use(express.json()); // a parsed body is used as it is
app.get('/health', (_req, res) => void res.send('ok'));
app.all('/mcp', mcp.handler); // both eras, sessions, SSE streams, GET and DELETE
const listener = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
  const { port } = listener.address() as { port: number };
  console.log(`listening on http://127.0.0.1:${port}/mcp`);
});
