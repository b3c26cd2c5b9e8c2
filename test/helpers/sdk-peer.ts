/**
 * The official SDK v1 client as a test peer over a real WebSocket: connect it to a running Switchboard
 * server, get hold of its server-side session, answer elicitations; closed after each test.
 */
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { WebSocketClientTransport } from '@modelcontextprotocol/sdk/client/websocket.js';
import { ElicitRequestSchema, type ElicitRequest, type ElicitResult as SdkElicitResult } from '@modelcontextprotocol/sdk/types.js';
import type { ElicitParams, McpServer, McpSession } from '../../src/index.js';
import { nextEvent } from './server-events.js';
import type { RunningServer } from './servers.js';
import type { Cleanups } from './cleanups.js';

/** The inputSchema of a tool without arguments. */
export const NO_ARGS = { type: 'object', properties: {} } as const;

export interface SdkPeer {
  client: Client;
  /** The server-side session of this client. */
  session: McpSession;
}

export interface SdkPeers {
  /**
   * An SDK client that completed initialize, with `setup` run before connecting (register request and
   * notification handlers there). Resolves once the server has handled `notifications/initialized`.
   */
  connect(running: RunningServer, options?: ClientOptions, setup?: (client: Client) => void): Promise<SdkPeer>;
}

/** Pass the file's `useCleanups()`, so clients close before the servers they talk to. */
export function useSdkPeers(cleanups: Cleanups): SdkPeers {
  return {
    async connect(running, options = {}, setup) {
      const client = new Client({ name: 'sdk-v1-peer', version: '1.0.0' }, options);
      setup?.(client);
      const started = nextEvent<[McpSession]>(running.server, 'sessionNew');
      const initialized = nextEvent<[McpSession]>(running.server, 'initialized');
      cleanups.push(() => client.close());
      await client.connect(new WebSocketClientTransport(new URL(running.url)));
      const [session] = await started;
      const [readySession] = await initialized;
      if (readySession !== session) throw new Error('another session initialized at the same time');
      return { client, session };
    },
  };
}

/** Register an SDK elicitation handler that answers `answer` and records the params it was given. */
export function answerElicitations(answer: SdkElicitResult): { seen: ElicitRequest['params'][]; setup: (client: Client) => void } {
  const seen: ElicitRequest['params'][] = [];
  return {
    seen,
    setup: (client) =>
      client.setRequestHandler(ElicitRequestSchema, async (request) => {
        seen.push(request.params);
        return answer;
      }),
  };
}

/** A tool (no arguments) that elicits `params` and answers with `action=… content=…`. */
export function elicitingTool(name: string, params: ElicitParams) {
  return (server: McpServer) =>
    server.registerTool(name, { description: `Elicits for ${name}`, inputSchema: NO_ARGS }, async (_args, ctx) => {
      const answer = await ctx.elicit(params);
      return `action=${answer.action} content=${JSON.stringify(answer.content ?? null)}`;
    });
}
