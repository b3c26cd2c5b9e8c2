/**
 * The official SDK servers on Streamable HTTP at 127.0.0.1 (port 0), closed after each test: SDK v1 with
 * stateful sessions, as its README wires it, and SDK v2's fetch-shaped `createMcpHandler` behind a small
 * node:http adapter (what `@modelcontextprotocol/node` does), serving 2026-07-28 and 2025 stateless.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { createMcpHandler } from '@modelcontextprotocol/server';
import { sdkV1Server, sdkV2Server } from '../fixtures/sdk-peer-servers.js';
import { useCleanups } from './cleanups.js';

export interface RunningSdkServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** Errors the SDK reported while serving. */
  errors: Error[];
}

/** Call once at the top level of a test file. */
export function useSdkServers() {
  const cleanups = useCleanups();
  const listen = async (http: HttpServer, close: () => Promise<unknown>): Promise<string> => {
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(async () => {
      await close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    return `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  };

  return {
    /** SDK v1 1.32 with a session per initialize (a server and a transport each). */
    async v1(): Promise<RunningSdkServer> {
      const errors: Error[] = [];
      const sessions = new Map<string, StreamableHTTPServerTransport>();
      const http = createServer(async (req, res) => {
        const id = req.headers['mcp-session-id'];
        let transport = typeof id === 'string' ? sessions.get(id) : undefined;
        if (!transport) {
          const created = new StreamableHTTPServerTransport({
            sessionIdGenerator: () => randomUUID(),
            onsessioninitialized: (sessionId) => void sessions.set(sessionId, created),
          });
          created.onclose = () => void (created.sessionId && sessions.delete(created.sessionId));
          const server = sdkV1Server();
          server.onerror = (err) => void errors.push(err);
          await server.connect(created);
          transport = created;
        }
        await transport.handleRequest(req, res);
      });
      const url = await listen(http, () => Promise.all([...sessions.values()].map((transport) => transport.close())));
      return { url, errors };
    },

    /** SDK v2 2.4: `createMcpHandler`, a fresh server per request, 2025 traffic served stateless. */
    async v2(): Promise<RunningSdkServer> {
      const errors: Error[] = [];
      const handler = createMcpHandler(() => sdkV2Server(), { onerror: (err) => void errors.push(err) });
      const http = createServer((req, res) => void toFetch(handler.fetch, req, res));
      const url = await listen(http, () => handler.close());
      return { url, errors };
    },
  };
}

/** Serve one node:http request through a fetch-shaped handler, streaming the response body as it comes. */
async function toFetch(fetch: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const aborted = new AbortController();
  res.on('close', () => aborted.abort());
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const body = Buffer.concat(chunks);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const request = new Request(`http://${req.headers.host}${req.url}`, {
    method: req.method,
    headers,
    body: body.length > 0 ? body : undefined,
    signal: aborted.signal,
  });
  try {
    const response = await fetch(request);
    res.writeHead(response.status, [...response.headers].flat());
    if (response.body) for await (const chunk of response.body) res.write(chunk);
  } catch {
    if (!res.headersSent) res.writeHead(500);
  }
  res.end();
}
