/** The demo server over stdio: MCP on stdout, logs on stderr. Exits when stdin closes. */
import { McpServer, StdioTransport } from '../src/index.js';
import { registerDemoCatalog } from './catalog.js';

const server = new McpServer({ name: 'switchboard-demo', version: '0.1.0' });
registerDemoCatalog(server);
server.on('error', (err) => console.error('error:', err.message));
server.on('disconnect', () => void server.close().then(() => process.exit(0)));
new StdioTransport(server).start();
console.error('switchboard demo on stdio');
