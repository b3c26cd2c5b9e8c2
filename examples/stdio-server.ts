import { McpServer, StdioTransport } from 'switchboard-mcp';

const server = new McpServer({ name: 'notes', version: '1.0.0' });
server.registerResource('notes://today', { name: 'today', mimeType: 'text/plain' }, () => 'Nothing planned.');
server.on('disconnect', () => void server.close().then(() => process.exit(0)));
new StdioTransport(server).start(); // MCP on stdout; write logs with console.error
