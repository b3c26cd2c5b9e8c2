/** Switchboard from its build, Streamable HTTP and WebSocket on one port, with the benchmarked tools. */
import { McpServer, StreamableHttpTransport, WebSocketTransport } from 'switchboard-mcp';
import { ELICIT_SCHEMA, serveBenchControl } from './shared.mjs';

const server = new McpServer({ name: 'bench-switchboard', version: '1.0.0' }, { requestState: { keys: ['bench-request-state-key-of-32-bytes!'] } });
server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => String(text));
server.registerTool('ask', {}, async (_args, ctx) => {
  // An inline schema object per call, as application code writes it.
  const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: structuredClone(ELICIT_SCHEMA) });
  return `${answer.action}:${answer.content?.name}`;
});
// The same handler serves 2026-07-28: ctx.elicit answers input-required, and the retry replays it.
server.registerTool('ask_stateless', {}, async (_args, ctx) => {
  const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: structuredClone(ELICIT_SCHEMA) }, { key: 'name' });
  return `${answer.action}:${answer.content?.name}`;
});
const http = new StreamableHttpTransport(server);
const { port } = await http.listen({ host: '127.0.0.1', port: 0 });
new WebSocketTransport(server).attach(http.httpServer);
serveBenchControl(port);
