/**
 * One Switchboard instance of several sharing REDIS_URL: sessions routed (requests forwarded to their
 * owner, or with SERVE_WHERE_THEY_LAND=1 those that only read a session served where they land), the benchmarked tools.
 */
import { importSwitchboard } from './import-switchboard.mjs';
import { elicitSchema, serveBenchControl } from './shared.mjs';

const { connectRedisScale, McpServer, StreamableHttpTransport } = await importSwitchboard();

const scale = await connectRedisScale(process.env.REDIS_URL, { prefix: 'bench' });
const server = new McpServer({ name: 'bench-switchboard-scale', version: '1.0.0' }, { scale });
server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => String(text));
server.registerTool('ask', {}, async (_args, ctx) => {
  const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: elicitSchema() });
  return `${answer.action}:${answer.content?.name}`;
});
const http = new StreamableHttpTransport(server, { router: scale.sessionRouter(), serveWhereTheyLand: process.env.SERVE_WHERE_THEY_LAND === '1' });
// The whole load comes from one address: it may hold every connection, as a proxy in front would.
const { port } = await http.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 1024 });
serveBenchControl(port);
