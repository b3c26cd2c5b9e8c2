/**
 * The benchmarked Switchboard server: Streamable HTTP and WebSocket on one port, with the benchmarked tools.
 * The package comes from SWITCHBOARD_DIR (a build directory, or a package root with a package.json), so a
 * build of another commit can be measured beside this one; by default, this checkout's dist/.
 */
import { z } from 'zod';
import { importSwitchboard } from './import-switchboard.mjs';
import { elicitSchema, serveBenchControl } from './shared.mjs';

/** Serve the bench's tools; `options` are merged into the McpServer options (the telemetry variants add theirs). */
export async function serveSwitchboard(options = {}) {
  const { McpServer, StreamableHttpTransport, WebSocketTransport } = await importSwitchboard();
  const server = new McpServer(
    { name: 'bench-switchboard', version: '1.0.0' },
    { requestState: { keys: ['bench-request-state-key-of-32-bytes!'] }, ...options },
  );
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } }, ({ text }) => String(text));
  // The same tool typed by zod (a dev dependency): its arguments are checked by zod's ~standard.validate, not ajv.
  server.registerTool('echo_zod', { inputSchema: z.object({ text: z.string() }) }, ({ text }) => text);
  server.registerTool('ask', {}, async (_args, ctx) => {
    // A fresh schema object per call, as application code with an inline schema makes.
    const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: elicitSchema() });
    return `${answer.action}:${answer.content?.name}`;
  });
  // The same handler serves 2026-07-28: ctx.elicit answers input-required, and the retry replays it.
  server.registerTool('ask_stateless', {}, async (_args, ctx) => {
    const answer = await ctx.elicit({ message: 'Who are you?', requestedSchema: elicitSchema() }, { key: 'name' });
    return `${answer.action}:${answer.content?.name}`;
  });
  const http = new StreamableHttpTransport(server);
  // The whole load comes from one address: it may hold every connection, as a proxy in front would.
  const { port } = await http.listen({ host: '127.0.0.1', port: 0, maxConnectionsPerClient: 1024 });
  new WebSocketTransport(server).attach(http.httpServer);
  serveBenchControl(port);
}
