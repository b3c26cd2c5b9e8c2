import { describe, expect, it } from 'vitest';
import type { JsonRpcNotification, LoggingLevel, McpClient, McpSession } from '../../src/index.js';
import { useMcpClients } from '../helpers/mcp-clients.js';
import { nextEvent } from '../helpers/server-events.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { recordMessages, useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

function logMessage(level: LoggingLevel, data: unknown, logger?: string) {
  return { jsonrpc: '2.0', method: 'notifications/message', params: logger === undefined ? { level, data } : { level, logger, data } };
}

interface Listener {
  client: McpClient;
  session: McpSession;
  /** Every notification the client received since it connected, in order. */
  notifications: JsonRpcNotification[];
}

/** An McpClient on `running` that records every notification it receives from the start. */
async function listener(running: RunningServer): Promise<Listener> {
  const notifications: JsonRpcNotification[] = [];
  const { client, session } = await clients.connect(running, {}, (c) => c.on('notification', (n) => void notifications.push(n)));
  return { client, session, notifications };
}

/** The log messages the client has received, once everything the server sent before a ping round trip is in. */
async function logsOf({ client, notifications }: Listener) {
  await client.ping();
  return notifications.filter((n) => n.method === 'notifications/message');
}

describe('logging/setLevel', () => {
  it('sets the session log level, answers {} and emits loggingSetLevel', async () => {
    const running = await startWebSocket(cleanups);
    const { client, session } = await clients.connect(running);
    expect(session.logLevel).toBeUndefined();
    const event = nextEvent<[McpSession, LoggingLevel]>(running.server, 'loggingSetLevel');

    // request() rather than setLogLevel(), which drops the result: it must be exactly {}.
    expect(await client.request('logging/setLevel', { level: 'warning' })).toEqual({});

    const [eventSession, level] = await event;
    expect(eventSession).toBe(session);
    expect(level).toBe('warning');
    expect(session.logLevel).toBe('warning');
  });

  // Levels that are no LoggingLevel are malformed input McpClient never sends: raw peer.
  it.each([['loud'], ['WARNING'], [3], [undefined]])('answers -32602 for the invalid level %j and keeps the old one', async (level) => {
    const { url, server } = await startWebSocket(cleanups);
    const client = await h.ready(url);
    await client.request('logging/setLevel', { level: 'error' });
    let fired = 0;
    server.on('loggingSetLevel', () => fired++);

    expect(await client.request('logging/setLevel', { level }, 'bad')).toEqual({
      jsonrpc: '2.0',
      id: 'bad',
      error: {
        code: -32602,
        message: `Invalid log level ${JSON.stringify(level)}: use debug, info, notice, warning, error, critical, alert or emergency`,
      },
    });
    expect([...server.sessions.values()][0].logLevel).toBe('error');
    expect(fired).toBe(0);
  });
});

describe('server.sendLogMessage', () => {
  it('reaches only the sessions whose level lets it through, with the exact notification', async () => {
    const running = await startWebSocket(cleanups);
    const { server } = running;
    const byDefault = await listener(running); // threshold: info (the default)
    const strict = await listener(running);
    await strict.client.setLogLevel('error');
    const verbose = await listener(running);
    await verbose.client.setLogLevel('debug');

    expect(server.sendLogMessage('warning', { disk: '91%' }, { logger: 'storage' })).toBe(2);
    expect(server.sendLogMessage('debug', 'cache miss', { logger: 'cache' })).toBe(1);
    expect(server.sendLogMessage('emergency', 'on fire')).toBe(3);

    expect(await logsOf(byDefault)).toEqual([logMessage('warning', { disk: '91%' }, 'storage'), logMessage('emergency', 'on fire')]);
    expect(await logsOf(strict)).toEqual([logMessage('emergency', 'on fire')]);
    expect(await logsOf(verbose)).toEqual([
      logMessage('warning', { disk: '91%' }, 'storage'),
      logMessage('debug', 'cache miss', 'cache'),
      logMessage('emergency', 'on fire'),
    ]);
  });

  it('lets info through by default and holds debug back', async () => {
    const running = await startWebSocket(cleanups);
    const client = await listener(running);

    expect(running.server.sendLogMessage('debug', 'hidden')).toBe(0);
    expect(running.server.sendLogMessage('info', 'shown')).toBe(1);

    expect(await logsOf(client)).toEqual([logMessage('info', 'shown')]);
  });

  it('uses options.defaultLogLevel for sessions that never set a level', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { defaultLogLevel: 'error' } });
    const unset = await listener(running);
    const lowered = await listener(running);
    await lowered.client.setLogLevel('info');

    expect(running.server.sendLogMessage('warning', 'w')).toBe(1);
    expect(running.server.sendLogMessage('error', 'e')).toBe(2);

    expect(await logsOf(unset)).toEqual([logMessage('error', 'e')]);
    expect(await logsOf(lowered)).toEqual([logMessage('warning', 'w'), logMessage('error', 'e')]);
  });

  it('sends to one session given as an object or by id, and to no one for an unknown id', async () => {
    const running = await startWebSocket(cleanups);
    const { server } = running;
    const first = await listener(running);
    const second = await listener(running);

    expect(server.sendLogMessage('info', 'to first', { session: first.session, logger: 'direct' })).toBe(1);
    expect(server.sendLogMessage('notice', 'to second', { session: second.session.id })).toBe(1);
    expect(server.sendLogMessage('info', 'to nobody', { session: 'no-such-session' })).toBe(0);
    expect(server.sendLogMessage('debug', 'below the level', { session: first.session })).toBe(0);

    expect(await logsOf(first)).toEqual([logMessage('info', 'to first', 'direct')]);
    expect(await logsOf(second)).toEqual([logMessage('notice', 'to second')]);
  });

  it('returns 0 and sends nothing when no session exists', async () => {
    const { server } = await startWebSocket(cleanups);

    expect(server.sendLogMessage('emergency', 'anyone?')).toBe(0);
  });
});

describe('ctx.log', () => {
  // The subject is the order of frames on the socket (log messages before the result): raw peer.
  it('sends notifications/message from inside a tool before the tool result, filtered by the session level', async () => {
    const { url } = await startWebSocket(cleanups, (server) =>
      server.registerTool('work', {}, (_args, ctx) => {
        ctx.log('debug', 'step 0 (hidden)', 'worker');
        ctx.log('info', { step: 1 }, 'worker');
        ctx.log('warning', 'step 2');
        return 'done';
      }),
    );
    const client = await h.ready(url);
    const log = recordMessages(client);

    const reply = await client.request('tools/call', { name: 'work' }, 'w');

    expect(log).toEqual([
      logMessage('info', { step: 1 }, 'worker'),
      logMessage('warning', 'step 2'),
      { jsonrpc: '2.0', id: 'w', result: { content: [{ type: 'text', text: 'done' }] } },
    ]);
    expect(reply).toEqual(log[2]);
  });

  it('follows a level set with logging/setLevel', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('work', {}, (_args, ctx) => {
        ctx.log('debug', 'detail');
        return 'done';
      }),
    );
    const client = await listener(running);
    await client.client.setLogLevel('debug');

    expect(await client.client.callTool('work')).toEqual({ content: [{ type: 'text', text: 'done' }] });
    expect(client.notifications).toEqual([logMessage('debug', 'detail')]);
  });
});
