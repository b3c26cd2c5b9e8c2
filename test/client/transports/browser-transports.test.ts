/**
 * The transports a browser uses, run here on Node's own fetch and WebSocket (the global WebSocket is behind
 * --experimental-websocket on Node 20, which the test config sets): BrowserWebSocketClientTransport against
 * the repo's server and raw ws peers, and McpClient over it and over fetch-based Streamable HTTP in both eras.
 */
import { describe, expect, it } from 'vitest';
import { WebSocketServer, type WebSocket as ServerSocket } from 'ws';
import { BrowserWebSocketClientTransport, McpClient, type McpClientOptions, StreamableHttpClientTransport } from '../../../src/index.js';
import { RecordingSink } from '../../helpers/recording-sink.js';
import { useCleanups } from '../../helpers/cleanups.js';
import { startHttpAndWebSocket } from '../../helpers/servers.js';

const cleanups = useCleanups();

const FORM = {
  message: 'Who is coming?',
  requestedSchema: {
    type: 'object' as const,
    properties: { name: { type: 'string' as const }, guests: { type: 'integer' as const, default: 2 } },
    required: ['name'],
  },
};

/** One McpServer on 127.0.0.1: Streamable HTTP and WebSocket on the same port, with a tool that asks a form. */
async function serve() {
  const running = await startHttpAndWebSocket(cleanups, (server) =>
    server.registerTool('book', {}, async (_args, ctx) => JSON.stringify(await ctx.elicit(FORM))),
  );
  return { server: running.server, http: running.url, ws: running.wsUrl };
}

async function rawPeer(onConnection: (socket: ServerSocket) => void, protocol: string | false = 'mcp') {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: () => protocol });
  wss.on('connection', onConnection);
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  cleanups.push(async () => {
    for (const ws of wss.clients) ws.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  });
  return `ws://127.0.0.1:${(wss.address() as { port: number }).port}/mcp`;
}

function client(options: McpClientOptions) {
  const made = new McpClient({ name: 'browser-client', version: '1.0.0' }, options);
  made.onElicitation(() => ({ action: 'accept', content: { name: 'Ada' } }));
  cleanups.push(() => made.close());
  return made;
}

describe('McpClient on the browser transports', () => {
  it.each([
    ['BrowserWebSocketClientTransport', 'legacy'],
    ['BrowserWebSocketClientTransport', 'modern'],
    ['StreamableHttpClientTransport over fetch', 'legacy'],
    ['StreamableHttpClientTransport over fetch', 'modern'],
  ] as const)('%s, %s era: connects, and answers a form with its defaults merged', async (kind, era) => {
    const urls = await serve();
    const transport =
      kind === 'BrowserWebSocketClientTransport'
        ? new BrowserWebSocketClientTransport(urls.ws)
        : new StreamableHttpClientTransport(urls.http, { fetch: globalThis.fetch });
    const c = client({ era });
    await c.connect(transport);
    expect(c.protocolVersion).toBe(era === 'legacy' ? '2025-11-25' : '2026-07-28');
    const result = await c.callTool('book');
    expect(result.content).toEqual([{ type: 'text', text: JSON.stringify({ action: 'accept', content: { name: 'Ada', guests: 2 } }) }]);
  });
});

describe('BrowserWebSocketClientTransport', () => {
  it('delivers text frames, reports a binary one, and says how the server closed', async () => {
    const url = await rawPeer((socket) => {
      socket.send('{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}');
      socket.send(Buffer.from([1, 2, 3]), { binary: true });
      setTimeout(() => socket.close(4000, 'bye'), 20);
    });
    const transport = new BrowserWebSocketClientTransport(url);
    const sink = new RecordingSink();
    await transport.start(sink);
    await sink.until(() => sink.closedReasons.length === 1);
    expect(sink.messages).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'hi' } }]);
    expect(sink.errors.map((e) => e.message)).toEqual(['The server sent a binary WebSocket frame; MCP messages travel as UTF-8 text frames']);
    expect(sink.closedReasons).toEqual(['websocket closed (4000: bye)']);
    await expect(transport.send({ jsonrpc: '2.0', method: 'ping', id: 1 })).rejects.toThrow('Cannot send: the WebSocket is closed');
  });

  it('fails start() when the server does not select subprotocol mcp', async () => {
    const url = await rawPeer(() => {}, false);
    await expect(new BrowserWebSocketClientTransport(url).start(new RecordingSink())).rejects.toThrow(`WebSocket connection to ${url} failed`);
  });

  it('fails start() with where it tried when nothing listens', async () => {
    const url = 'ws://127.0.0.1:9/mcp';
    await expect(new BrowserWebSocketClientTransport(url).start(new RecordingSink())).rejects.toThrow(`WebSocket connection to ${url} failed`);
  });

  it('close() sends 1000 "client closed" and resolves once the server has closed', async () => {
    const closed = new Promise<[number, string]>((resolve) => {
      void rawPeer((socket) => socket.on('close', (code, reason) => resolve([code, reason.toString()]))).then(async (url) => {
        const transport = new BrowserWebSocketClientTransport(url);
        await transport.start(new RecordingSink());
        await transport.close();
      });
    });
    expect(await closed).toEqual([1000, 'client closed']);
  });

  it('checks its options at construction', () => {
    expect(() => new BrowserWebSocketClientTransport('http://127.0.0.1/mcp')).toThrow(
      new TypeError('BrowserWebSocketClientTransport url must have scheme ws: or wss:; got "http:"'),
    );
    expect(() => new BrowserWebSocketClientTransport('ws://127.0.0.1/mcp', { connectTimeoutMs: 0 })).toThrow(TypeError);
    expect(() => new BrowserWebSocketClientTransport('ws://127.0.0.1/mcp', { WebSocket: 5 as never })).toThrow(
      new TypeError('BrowserWebSocketClientTransport needs a global WebSocket, or options.WebSocket'),
    );
  });
});
