/**
 * Names removed before the first release, with no alias left behind: the old spellings are in no type,
 * and nothing answers to them at run time (listen() says what a removed option is now: http-limits.test.ts).
 */
import { describe, expect, it } from 'vitest';
import * as api from '../src/index.js';
import {
  McpServer,
  StdioClientTransport,
  StdioTransport,
  StreamableHttpClientTransport,
  StreamableHttpTransport,
  WebSocketClientTransport,
  WebSocketTransport,
  type CompletionRequestEvent,
} from '../src/index.js';
import { startWebSocket } from './helpers/servers.js';
import { useWsSessions } from './helpers/ws-sessions.js';
import { useCleanups } from './helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const COMPLETE = { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'a', value: 'c' } };

describe('removed names', () => {
  it('exports no UserCanceledError, and McpServer has no notifyElicitationComplete', async () => {
    expect('UserCanceledError' in api).toBe(false);
    const server = new McpServer({ name: 'removed', version: '1.0.0' });
    expect('notifyElicitationComplete' in server).toBe(false);
    await server.close();
  });

  it('calls a completionComplete listener for nothing: completion/complete is the requestCompletion event only', async () => {
    const seen: string[] = [];
    const running = await startWebSocket(cleanups, (server) => server.registerPrompt('p', { arguments: [{ name: 'a' }] }, () => ({ messages: [] })));
    const old = (_session: unknown, request: CompletionRequestEvent) => {
      seen.push('completionComplete');
      request.respond(['cats']);
    };
    // @ts-expect-error completionComplete is requestCompletion
    running.server.on('completionComplete', old);
    running.server.on('requestCompletion', () => void seen.push('requestCompletion'));
    const { client } = await h.open(running);
    expect((await client.request('completion/complete', COMPLETE, 1)).result).toEqual({ completion: { values: [], hasMore: false } });
    expect(seen).toEqual(['requestCompletion']);
  });

  it('types none of the old option names', async () => {
    const server = new McpServer({ name: 'removed', version: '1.0.0' });
    // @ts-expect-error validateElicitationResponses is validateElicitation
    new McpServer({ name: 'removed', version: '1.0.0' }, { validateElicitationResponses: false });
    // @ts-expect-error requestState.maxRounds is the server's maxRounds
    new McpServer({ name: 'removed', version: '1.0.0' }, { requestState: { maxRounds: 2 } });
    // @ts-expect-error maxBodyBytes is maxMessageBytes
    new StreamableHttpTransport(server, { maxBodyBytes: 1024 });
    // @ts-expect-error maxPayload is maxMessageBytes
    new WebSocketTransport(server, { maxPayload: 1024 });
    // @ts-expect-error idleTimeoutMs is sessionIdleTimeoutMs
    new WebSocketTransport(server, { idleTimeoutMs: 1000 });
    // @ts-expect-error maxMessageSize is maxMessageBytes
    new StdioTransport(server, { maxMessageSize: 1024 });
    // @ts-expect-error maxMessageSize is maxMessageBytes
    new StreamableHttpClientTransport('http://127.0.0.1/mcp', { maxMessageSize: 1024 });
    // @ts-expect-error maxPayload is maxMessageBytes
    new WebSocketClientTransport('ws://127.0.0.1/mcp', { maxPayload: 1024 });
    // @ts-expect-error maxMessageSize is maxMessageBytes
    new StdioClientTransport({ command: 'node', maxMessageSize: 1024 });
    // @ts-expect-error a task tool is registered with tasks.registerTool
    expect(() => server.registerTool('t', { execution: { taskSupport: 'optional' } }, () => 'x')).toThrow(TypeError);
    await server.close();
  });
});
