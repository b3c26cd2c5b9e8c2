/** A requestTool listener, sgc style, asks for input through the request event: in both eras. */
import { afterEach, describe, expect, it } from 'vitest';
import { McpServer, StreamableHttpTransport, WebSocketTransport, type ToolRequestEvent } from '../../src/index.js';
import { modernCall } from '../helpers/modern.js';
import { WsTestClient } from '../helpers/ws-client.js';

let server: McpServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server whose `greet` tool exists only as a listener that asks for a name. */
function listeningServer(): McpServer {
  server = new McpServer({ name: 'listener', version: '1.0.0' }, { requestState: { keys: ['listener-input-tests-request-state-key'] } });
  server.on('requestTool', (_session, request: ToolRequestEvent) => {
    if (request.params.name !== 'greet') return;
    const answer = request.inputResponses?.who as { content?: { name?: string } } | undefined;
    if (answer) return request.respond(`Hello, ${answer.content?.name}!`);
    request.inputRequired.addElicitation('who', {
      message: 'Who is there?',
      requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
    });
    request.respond('asking');
  });
  return server;
}

describe('a requestTool listener asking for input', () => {
  it('answers input-required on 2026-07-28, and the retry reaches the listener with the answer', async () => {
    const { url } = await new StreamableHttpTransport(listeningServer()).listen({ host: '127.0.0.1', port: 0 });
    const meta = { 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
    const first = (await modernCall(url, 'tools/call', { name: 'greet', arguments: {} }, { meta })).result;
    expect(first).toEqual({
      resultType: 'input_required',
      inputRequests: {
        who: {
          method: 'elicitation/create',
          params: { message: 'Who is there?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
        },
      },
      requestState: expect.any(String),
    });
    const retry = { name: 'greet', arguments: {}, requestState: first.requestState, inputResponses: { who: { action: 'accept', content: { name: 'Ada' } } } };
    expect((await modernCall(url, 'tools/call', retry, { meta })).result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada!' }] });
  });

  it('on a legacy-era session has the runtime push the question and run the listener again', async () => {
    const { url } = await new WebSocketTransport(listeningServer()).listen({ host: '127.0.0.1', port: 0 });
    const { client } = await WsTestClient.initialized(url, { capabilities: { elicitation: {} } });
    const call = client.request('tools/call', { name: 'greet', arguments: {} }, 'greet');
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.params).toEqual({ message: 'Who is there?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } });
    client.respond(ask.id, { action: 'accept', content: { name: 'Grace' } });
    expect((await call).result).toEqual({ content: [{ type: 'text', text: 'Hello, Grace!' }] });
    await client.close();
  });
});
