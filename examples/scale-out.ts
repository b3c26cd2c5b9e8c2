import { connectRedisScale, McpServer, StreamableHttpTransport } from 'switchboard-mcp';

// Every instance behind the load balancer runs this, with the same Redis.
const scale = await connectRedisScale(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const server = new McpServer({ name: 'shop', version: '1.0.0' }, { scale, requestState: { singleUse: true } });

server.registerTool('order', {}, async (_args, ctx) => {
  // On 2026-07-28 each answer comes back in a retry, which any instance may serve.
  const { content } = await ctx.elicit({ message: 'What would you like?', requestedSchema: { type: 'object', properties: { item: { type: 'string' } } } });
  return `Ordered: ${content?.item}.`;
});

// A legacy-era session's requests that reach another instance are forwarded to the one holding it.
// With serveWhereTheyLand, one that only reads it (a tool call, a prompt) is served where it lands.
const http = new StreamableHttpTransport(server, { router: scale.sessionRouter(), serveWhereTheyLand: true });
const { url } = await http.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000) });
console.log(`listening on ${url}`);
