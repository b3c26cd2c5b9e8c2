import Fastify from 'fastify';
import { McpServer, StreamableHttpTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'shop', version: '1.0.0' });
server.registerTool('stock', { inputSchema: { type: 'object', properties: { item: { type: 'string' } } } }, ({ item }) => `3 ${item} in stock.`);

const mcp = new StreamableHttpTransport(server);
const app = Fastify();
app.all('/mcp', (request, reply) => {
  reply.hijack(); // Switchboard writes the response (JSON or an SSE stream) itself
  (request.raw as { body?: unknown }).body = request.body; // the body fastify already parsed
  mcp.handler(request.raw, reply.raw);
});
const address = await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${address}/mcp`);
