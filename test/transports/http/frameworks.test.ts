/** StreamableHttpTransport.handler mounts in express and fastify as a plain (req, res) function. */
import express from 'express';
import Fastify from 'fastify';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { McpServer, StreamableHttpTransport } from '../../../src/index.js';
import { HttpTestClient } from '../../helpers/http-client.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

function mcpServer(): { server: McpServer; transport: StreamableHttpTransport } {
  const server = new McpServer({ name: 'mounted', version: '1.0.0' });
  server.registerTool(
    'ask',
    {},
    async (_args, ctx) =>
      (await ctx.elicit({ message: 'Name?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } } } })).content?.name as string,
  );
  const transport = new StreamableHttpTransport(server);
  cleanups.push(() => server.close());
  return { server, transport };
}

/** A whole session through the mounted handler: initialize, an elicitation on the call's SSE stream, the 204 reply, DELETE. */
async function exercise(url: string): Promise<void> {
  const client = new HttpTestClient(url);
  expect((await client.initialize({ capabilities: { elicitation: {} } })).serverInfo).toEqual({ name: 'mounted', version: '1.0.0' });
  const call = await client.request('tools/call', { name: 'ask', arguments: {} }, 'ask');
  expect(call.headers['content-type']).toBe('text/event-stream');
  const ask = await call.nextMessage({ method: 'elicitation/create' });
  expect((await client.reply(ask.id, { action: 'accept', content: { name: 'Ada' } })).status).toBe(204);
  expect(await call.nextMessage({ id: 'ask' })).toEqual({ jsonrpc: '2.0', id: 'ask', result: { content: [{ type: 'text', text: 'Ada' }] } });
  expect((await client.delete()).status).toBe(200);
}

describe('mounted in frameworks', () => {
  it('works in express, after express.json() has parsed the body, next to other routes', async () => {
    const { transport } = mcpServer();
    const app = express();
    app.use(express.json());
    app.get('/health', (_req, res) => void res.send('ok'));
    app.all('/mcp', transport.handler);
    const http: Server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    cleanups.push(() => new Promise((resolve) => http.close(resolve)));
    const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    expect(await (await fetch(`${base}/health`)).text()).toBe('ok');
    await exercise(`${base}/mcp`);
  });

  it('works in fastify on the raw request and response, with the parsed body handed over', async () => {
    const { transport } = mcpServer();
    const app = Fastify();
    app.all('/mcp', (request, reply) => {
      reply.hijack();
      (request.raw as { body?: unknown }).body = request.body;
      transport.handler(request.raw, reply.raw);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    cleanups.push(() => app.close());
    await exercise(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}/mcp`);
  });
});
