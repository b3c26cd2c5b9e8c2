/** The official SDK v2 (2.4.0) with its Node adapter, stateful: a server and a transport per 2025-11-25 session, as its README wires it. */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { sdkV2Server } from './sdk-v2-tools.mjs';
import { serveBenchControl } from './shared.mjs';

const sessions = new Map();

async function serve(req, res) {
  const sessionId = req.headers['mcp-session-id'];
  let transport = sessionId ? sessions.get(sessionId) : undefined;
  if (!transport) {
    const created = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, created),
    });
    created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId));
    await sdkV2Server().connect(created);
    transport = created;
  }
  await transport.handleRequest(req, res);
}

const http = createServer((req, res) => void serve(req, res));
http.listen(0, '127.0.0.1', () => serveBenchControl(http.address().port));
