/**
 * The official TypeScript SDK v1 (1.32.2) on Streamable HTTP: stateful sessions on /mcp, and its
 * documented stateless mode (a new server and transport per request) on /stateless.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { elicitSchema, serveBenchControl } from './shared.mjs';

function createSdkServer() {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('ask', {}, async (extra) => {
    const params = { message: 'Who are you?', requestedSchema: elicitSchema() };
    const answer = await extra.sendRequest({ method: 'elicitation/create', params }, ElicitResultSchema);
    return { content: [{ type: 'text', text: `${answer.action}:${answer.content?.name}` }] };
  });
  return server;
}

const sessions = new Map();

async function stateful(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? sessions.get(sessionId) : undefined;
  if (!transport) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, transport),
    });
    transport.onclose = () => sessions.delete(transport.sessionId);
    await createSdkServer().connect(transport);
  }
  await transport.handleRequest(req, res);
}

async function stateless(req, res) {
  const server = createSdkServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => void (req.url === '/stateless' ? stateless(req, res) : stateful(req, res)));
http.listen(0, '127.0.0.1', () => serveBenchControl(http.address().port));
