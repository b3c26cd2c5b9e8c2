/** The official TypeScript SDK v1 (1.32.2) on its Streamable HTTP transport, stateful, with the same two tools. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ElicitResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ELICIT_SCHEMA, serveBenchControl } from './shared.js';

const transports = new Map<string, StreamableHTTPServerTransport>();

function createSdkServer(): McpServer {
  const server = new McpServer({ name: 'bench-sdk', version: '1.0.0' });
  server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
  server.registerTool('ask', {}, async (extra) => {
    const answer = await extra.sendRequest(
      { method: 'elicitation/create', params: { message: 'Who are you?', requestedSchema: structuredClone(ELICIT_SCHEMA) as never } },
      ElicitResultSchema,
    );
    return { content: [{ type: 'text', text: `${answer.action}:${(answer.content as { name?: string } | undefined)?.name}` }] };
  });
  return server;
}

const http = createServer(async (req, res) => {
  const sessionId = req.headers['mcp-session-id'] as string | undefined;
  let transport = sessionId ? transports.get(sessionId) : undefined;
  if (!transport) {
    transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void transports.set(id, transport!),
    });
    await createSdkServer().connect(transport);
  }
  await transport.handleRequest(req, res);
});
http.listen(0, '127.0.0.1', () => serveBenchControl((http.address() as AddressInfo).port));
