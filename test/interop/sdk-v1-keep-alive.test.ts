/**
 * Keep-alive progress against the official SDK v1 client, over Streamable HTTP and WebSocket: the
 * client times a tools/call out after 300 ms unless it hears progress, and its elicitation handler
 * answers only after a second. With `resetTimeoutOnProgress`, the server's keep-alive notifications
 * carry the call through; without it, or with the keep-alive off, the SDK's own timeout ends the call.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ElicitRequestSchema, McpError as SdkMcpError, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { McpServer, McpSession, ProgressToken } from '../../src/index.js';
import { NAME_Q, toolText } from '../helpers/client-requests.js';
import { NO_ARGS, useSdkPeers } from '../helpers/sdk-peer.js';
import { recordOutgoing } from '../helpers/server-events.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';
import { useHttpSessions } from '../helpers/http-streams.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const http = useHttpSessions(cleanups);
const ws = useSdkPeers(cleanups);

/** The client's timeout, the server's keep-alive period, and how long the person takes to answer. */
const CLIENT_TIMEOUT_MS = 300;
const KEEP_ALIVE_MS = 100;
const ANSWER_AFTER_MS = 1000;
const STEP = 2 ** -30;

interface Connected {
  client: Client;
  server: McpServer;
  session: McpSession;
}

/** A server with a tool that asks for a name (its request's progress token goes to `tokens`), and an SDK client that answers after a second. */
async function connect(over: 'Streamable HTTP' | 'WebSocket', progressKeepAliveMs: number, tokens: (ProgressToken | undefined)[]): Promise<Connected> {
  const setup = (server: McpServer) =>
    server.registerTool('ask_name', { inputSchema: NO_ARGS }, async (_args, ctx) => {
      tokens.push(ctx.progressToken);
      const answer = await ctx.elicit(NAME_Q);
      return `hello ${String(answer.content?.name)}`;
    });
  const answerLate = (client: Client) =>
    client.setRequestHandler(ElicitRequestSchema, async () => {
      await sleep(ANSWER_AFTER_MS);
      return { action: 'accept', content: { name: 'Ada' } };
    });
  const options = { capabilities: { elicitation: {} } };
  if (over === 'Streamable HTTP') {
    const running = await startHttp(cleanups, setup, { server: { progressKeepAliveMs } });
    const { client, session } = await http.sdk(running, options, answerLate);
    return { client, server: running.server, session };
  }
  const running = await startWebSocket(cleanups, setup, { server: { progressKeepAliveMs } });
  const { client, session } = await ws.connect(running, options, answerLate);
  return { client, server: running.server, session };
}

function progressSent(log: Record<string, unknown>[]): unknown[] {
  return log.filter((m) => m.method === 'notifications/progress').map((m) => m.params);
}

describe.each(['Streamable HTTP', 'WebSocket'] as const)('over %s', (over) => {
  it('a call whose elicitation is answered after several client timeouts succeeds, kept alive by progress with the question', async () => {
    const tokens: (ProgressToken | undefined)[] = [];
    const { client, server, session } = await connect(over, KEEP_ALIVE_MS, tokens);
    const sent = recordOutgoing(server, session);
    const heard: Progress[] = [];

    const result = await client.callTool({ name: 'ask_name' }, CallToolResultSchema, {
      timeout: CLIENT_TIMEOUT_MS,
      resetTimeoutOnProgress: true,
      onprogress: (progress) => void heard.push(progress),
    });

    expect(result).toEqual(toolText('hello Ada'));
    // The call outlived its 300 ms timeout three times over: only progress can have reset it.
    expect(heard.length).toBeGreaterThanOrEqual(Math.floor(ANSWER_AFTER_MS / CLIENT_TIMEOUT_MS));
    expect(heard).toEqual(heard.map((_, k) => ({ progress: k * STEP, message: 'What is your name?' })));
    const [token] = tokens;
    expect(token).toEqual(expect.any(Number));
    expect(progressSent(sent)).toEqual(heard.map((_, k) => ({ progressToken: token, progress: k * STEP, message: 'What is your name?' })));

    // Nothing more once the question is answered.
    const count = progressSent(sent).length;
    await sleep(3 * KEEP_ALIVE_MS);
    expect(progressSent(sent)).toHaveLength(count);
    expect(session.pendingRequests).toBe(0);
  });

  it('the same call fails with the SDK timeout when the client does not reset its timeout on progress', async () => {
    const { client } = await connect(over, KEEP_ALIVE_MS, []);
    const failed = await client.callTool({ name: 'ask_name' }, CallToolResultSchema, { timeout: CLIENT_TIMEOUT_MS, onprogress: () => {} }).catch((e) => e);
    expect(failed).toBeInstanceOf(SdkMcpError);
    expect({ code: failed.code, message: failed.message, data: failed.data }).toEqual({
      code: -32001,
      message: 'MCP error -32001: Request timed out',
      data: { timeout: CLIENT_TIMEOUT_MS },
    });
  });

  it('the same call fails with the SDK timeout when the keep-alive is off (progressKeepAliveMs 0)', async () => {
    const { client, server, session } = await connect(over, 0, []);
    const sent = recordOutgoing(server, session);
    const heard: Progress[] = [];
    const failed = await client
      .callTool({ name: 'ask_name' }, CallToolResultSchema, {
        timeout: CLIENT_TIMEOUT_MS,
        resetTimeoutOnProgress: true,
        onprogress: (progress) => void heard.push(progress),
      })
      .catch((e) => e);
    expect(failed).toBeInstanceOf(SdkMcpError);
    expect({ code: failed.code, message: failed.message, data: failed.data }).toEqual({
      code: -32001,
      message: 'MCP error -32001: Request timed out',
      data: { timeout: CLIENT_TIMEOUT_MS },
    });
    expect(heard).toEqual([]);
    expect(progressSent(sent)).toEqual([]);
  });
});
