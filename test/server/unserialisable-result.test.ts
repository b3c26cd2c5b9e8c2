/** A handler result that cannot be serialised becomes a -32603 error: the client is never left waiting. */
import { describe, expect, it } from 'vitest';
import type { McpServer } from '../../src/index.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { modernCall } from '../helpers/modern.js';
import { WsTestClient } from '../helpers/ws-client.js';
import { startHttp, startWebSocket } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

const register = (server: McpServer) =>
  server.registerTool('big', {}, () => ({ content: [{ type: 'text', text: 'n' }], structuredContent: { n: 1n as unknown as number } }));

describe('an unserialisable result', () => {
  it('answers -32603 over WebSocket, reports the error, and the session goes on', async () => {
    const running = await startWebSocket(cleanups, register);
    const errors: string[] = [];
    running.server.on('error', (err) => void errors.push(err.message));
    const { client } = await WsTestClient.initialized(running.url);
    expect(await client.request('tools/call', { name: 'big', arguments: {} }, 'big')).toEqual({
      jsonrpc: '2.0',
      id: 'big',
      error: { code: -32603, message: 'Internal error: the result could not be serialised' },
    });
    expect(errors).toEqual(['Do not know how to serialize a BigInt']);
    expect((await client.request('ping', undefined, 'after')).result).toEqual({});
    await client.close();
  });

  it('answers -32603 over Streamable HTTP instead of leaving the POST open', async () => {
    const { url } = await startHttp(cleanups, register);
    const client = new HttpTestClient(url);
    await client.initialize();
    expect(await client.call('tools/call', { name: 'big', arguments: {} }, 7)).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32603, message: 'Internal error: the result could not be serialised' },
    });
  });

  it('answers -32603 to a 2026-07-28 request too', async () => {
    const { url } = await startHttp(cleanups, register);
    const reply = await modernCall(url, 'tools/call', { name: 'big', arguments: {} }, { id: 8 });
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 8,
      error: { code: -32603, message: 'Internal error: the result could not be serialised' },
    });
  });

  it('says why only with exposeErrors: a toJSON of the handler may throw anything', async () => {
    const secret = {
      toJSON: () => {
        throw new Error("ENOENT: open '/srv/secret/x'");
      },
    };
    const tool = (server: McpServer) => server.registerTool('leaky', {}, () => ({ content: [{ type: 'text', text: 'x' }], _meta: { secret } }));
    let running = await startWebSocket(cleanups, tool);
    const { client } = await WsTestClient.initialized(running.url);
    expect(await client.request('tools/call', { name: 'leaky', arguments: {} }, 1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: 'Internal error: the result could not be serialised' },
    });
    await client.close();
    await running.close();
    running = await startWebSocket(cleanups, tool, { server: { exposeErrors: true } });
    const exposed = await WsTestClient.initialized(running.url);
    expect(await exposed.client.request('tools/call', { name: 'leaky', arguments: {} }, 2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: "Internal error: the result could not be serialised (ENOENT: open '/srv/secret/x')" },
    });
    await exposed.client.close();
  });
});
