/** The WebSocket transport's auth hook, checked on the upgrade request. */
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { WsTestClient } from '../../helpers/ws-client.js';
import { startWebSocket } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const byToken = (req: IncomingMessage) => (req.headers.authorization === 'Bearer good' ? { id: 'alice' } : undefined);

describe('WebSocketTransport auth', () => {
  it('refuses an upgrade without credentials with 401', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { auth: byToken } });
    await expect(WsTestClient.connect(running.url)).rejects.toThrow('HTTP 401');
    await expect(WsTestClient.connect(running.url, { headers: { authorization: 'Bearer bad' } })).rejects.toThrow('HTTP 401');
  });

  it('keeps the principal the hook returned on the session', async () => {
    const running = await startWebSocket(cleanups, undefined, { transport: { auth: async (req) => byToken(req) } });
    const sessions: unknown[] = [];
    running.server.on('sessionNew', (session) => void sessions.push(session.principal));
    const client = await WsTestClient.connect(running.url, { headers: { authorization: 'Bearer good' } });
    await client.initialize();
    expect(sessions).toEqual([{ id: 'alice' }]);
    await client.close();
  });

  it('answers 500 and reports the error when the hook throws', async () => {
    const running = await startWebSocket(cleanups, undefined, {
      transport: {
        auth: () => {
          throw new Error('directory unreachable');
        },
      },
    });
    const errors: string[] = [];
    running.server.on('error', (err) => void errors.push(err.message));
    await expect(WsTestClient.connect(running.url)).rejects.toThrow('HTTP 500');
    expect(errors).toEqual(['directory unreachable']);
  });

  it('rejects an auth option that is not a function at construction', async () => {
    await expect(startWebSocket(cleanups, undefined, { transport: { auth: 'token' as never } })).rejects.toThrow(
      'Option auth must be a function (req) => principal',
    );
  });
});
