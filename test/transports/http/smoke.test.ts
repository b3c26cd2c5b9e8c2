import { afterEach, expect, it } from 'vitest';
import { McpServer, StreamableHttpTransport } from '../../../src/index.js';
import { HttpTestClient } from '../../helpers/http-client.js';

let server: McpServer;
afterEach(() => server.close());

it('answers a tool call as JSON and an eliciting one as SSE on the same session', async () => {
  server = new McpServer({ name: 's', version: '1' });
  server.registerTool('plain', {}, () => 'plain');
  server.registerTool(
    'ask',
    {},
    async (_a, ctx) => (await ctx.elicit({ message: 'q', requestedSchema: { type: 'object', properties: { a: { type: 'string' } } } })).action,
  );
  const { url } = await new StreamableHttpTransport(server).listen();
  const client = new HttpTestClient(url);
  await client.initialize({ capabilities: { elicitation: {} } });
  const plain = await client.request('tools/call', { name: 'plain' }, 1);
  expect(plain.status).toBe(200);
  expect(plain.headers['content-type']).toBe('application/json');
  expect(await plain.json()).toEqual({ jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'plain' }] } });

  const ask = await client.request('tools/call', { name: 'ask' }, 2);
  expect(ask.headers['content-type']).toBe('text/event-stream');
  // Stream ids count the session's POST streams: initialize was 1, the plain call 2.
  expect(await ask.nextEvent((e) => e.data === '')).toEqual({ id: '3_0', retry: 1000, data: '' });
  const elicit = await ask.nextMessage({ method: 'elicitation/create' });
  const reply = await client.reply(elicit.id, { action: 'decline' });
  expect(reply.status).toBe(204);
  expect(await ask.nextMessage({ id: 2 })).toEqual({ jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'decline' }] } });
  await ask.ended;
});
