/** The official SDK v1 (1.32.2) in its documented stateless mode: a new server and transport per request. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { serveBenchControl } from './shared.js';

const http = createServer(async (req, res) => {
  const server = new McpServer({ name: 'bench-sdk-stateless', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => serveBenchControl((http.address() as AddressInfo).port));
