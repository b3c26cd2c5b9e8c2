/**
 * `npm start`: the demo server. MCP on 127.0.0.1:PORT/mcp over WebSocket and Streamable HTTP, both eras
 * (default port 3000), and the console at / : a page that connects to it with McpClient, calls its
 * tools, shows each elicitation as a form, and logs the protocol messages and the server's events.
 */
import { McpServer, StreamableHttpTransport, WebSocketTransport } from '../src/index.js';
import { DEMO_INSTRUCTIONS, registerDemoCatalog } from './catalog.js';
import { buildConsole } from './console/bundle.js';
import { ServerEventFeed } from './console/events.js';
import { handleConnectPage, registerElicitationDemo } from './elicitation.js';
import { registerTaskDemo } from './tasks.js';

const server = new McpServer(
  { name: 'switchboard-demo', version: '0.1.0', title: 'Switchboard demo', instructions: DEMO_INSTRUCTIONS },
  { defaultLogLevel: 'info' },
);
let port = 0;
const baseUrl = () => `http://127.0.0.1:${port}`;

registerDemoCatalog(server);
registerElicitationDemo(server, baseUrl);
const tasks = registerTaskDemo(server);

const consoleFiles = await buildConsole();
const feed = new ServerEventFeed(server, tasks);

// The transport's own server: /mcp is MCP; the console, its event feed and the connect pages come first; any other path gets 404.
const http = new StreamableHttpTransport(server);
http.on('httpRequest', (req, res, control) => {
  if (req.method !== 'GET') return;
  const path = (req.url ?? '/').split('?')[0];
  const file = consoleFiles.get(path);
  if (file) {
    res.writeHead(200, { 'content-type': file.type, 'cache-control': 'no-store' }).end(file.body);
    control.handled = true;
  } else if (path === '/events') {
    feed.watch(res);
    control.handled = true;
  } else if (handleConnectPage(server, path, res)) control.handled = true;
});
server.on('sessionNew', (s) => console.log(`session ${s.id} started: ${s.clientInfo?.name} ${s.clientInfo?.version}, protocol ${s.protocolVersion}`));
server.on('sessionEnd', (s, reason) => console.log(`session ${s.id} ended: ${reason}`));
server.on('responseElicitationCreate', (s, request, response) => {
  console.log(
    `session ${s.id}: elicitation ${request.id} ended: ${response.isError ? `error ${response.errorCode} ${response.errorMessage}` : response.action}`,
  );
});
server.on('error', (err) => console.error('error:', err.message));

({ port } = await http.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 3000), health: true }));
new WebSocketTransport(server).attach(http.httpServer!);
console.log(`Switchboard console: http://127.0.0.1:${port}/`);
console.log(
  `MCP: ws://127.0.0.1:${port}/mcp (WebSocket, subprotocol "mcp") and http://127.0.0.1:${port}/mcp (Streamable HTTP), both protocol eras. Press Ctrl+C to stop.`,
);

// Drain on SIGTERM and SIGINT: nothing new is taken, what is under way gets up to 10 s to finish.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    console.log(`${signal}: draining (up to 10 s), then stopping`);
    void server.close({ drainMs: 10_000 }).then(() => {
      feed.close();
      process.exit(0);
    });
  });
}
