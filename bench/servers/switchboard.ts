/** Switchboard on Streamable HTTP with the two benchmarked tools. */
import { McpServer, StreamableHttpTransport } from '../../src/index.js';
import { ELICIT_SCHEMA, serveBenchControl } from './shared.js';

const server = new McpServer({ name: 'bench-switchboard', version: '1.0.0' }, { requestState: { keys: ['bench-request-state-key-of-32-bytes!'] } });
server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => String(text));
server.registerTool('ask', {}, async (_args, ctx) => {
  // An inline schema object per call, as application code writes it: compiled once, cached by content.
  const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: structuredClone(ELICIT_SCHEMA) as never });
  return `${answer.action}:${answer.content?.name}`;
});
// The same handler serves 2026-07-28: ctx.elicit answers input-required, and the retry replays it.
server.registerTool('ask_stateless', {}, async (_args, ctx) => {
  const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: structuredClone(ELICIT_SCHEMA) as never }, { key: 'name' });
  return `${answer.action}:${answer.content?.name}`;
});
const { port } = await new StreamableHttpTransport(server).listen({ host: '127.0.0.1', port: 0 });
serveBenchControl(port);
