/** Transports are built on an McpServer, and nothing else: they reach it only through its port. */
import { describe, expect, it } from 'vitest';
import { McpServer, StdioTransport, StreamableHttpTransport, WebSocketTransport } from '../../src/index.js';

const TRANSPORTS = [
  ['WebSocketTransport', (server: never) => new WebSocketTransport(server)],
  ['StreamableHttpTransport', (server: never) => new StreamableHttpTransport(server)],
  ['StdioTransport', (server: never) => new StdioTransport(server)],
] as const;

describe('a transport given something other than an McpServer', () => {
  it.each(TRANSPORTS)('%s throws a TypeError that says what it needs', (name, make) => {
    for (const notAServer of [{}, { info: { name: 'x', version: '1' }, close: async () => {} }, null, undefined]) {
      expect(() => make(notAServer as never)).toThrow(new TypeError(`${name} needs an McpServer: new ${name}(server, options)`));
    }
  });

  it.each(TRANSPORTS)('%s takes an McpServer', async (_name, make) => {
    const server = new McpServer({ name: 's', version: '1' });
    expect(() => make(server as never)).not.toThrow();
    await server.close();
  });
});
