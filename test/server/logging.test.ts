import { describe, expect, it } from 'vitest';
import type { LoggingLevel, McpServer, McpSession } from '../../src/index.js';
import { nextEvent } from '../helpers/servers.js';
import { flush, recordMessages, useHarness } from '../helpers/session-harness.js';
import type { WsTestClient } from '../helpers/ws-client.js';

const h = useHarness();

/** The server-side session of the client that connected `index`-th (sessions are kept in connection order). */
function sessionAt(server: McpServer, index: number): McpSession {
  return [...server.sessions.values()][index];
}

function logMessage(level: LoggingLevel, data: unknown, logger?: string) {
  return { jsonrpc: '2.0', method: 'notifications/message', params: logger === undefined ? { level, data } : { level, logger, data } };
}

async function logsOf(client: WsTestClient) {
  await flush(client);
  return client.messages('notifications/message');
}

describe('logging/setLevel', () => {
  it('sets the session log level, answers {} and emits loggingSetLevel', async () => {
    const { url, server } = await h.start();
    const client = await h.ready(url);
    const session = sessionAt(server, 0);
    expect(session.logLevel).toBeUndefined();
    const event = nextEvent<[McpSession, LoggingLevel]>(server, 'loggingSetLevel');

    expect(await client.request('logging/setLevel', { level: 'warning' }, 'l')).toEqual({ jsonrpc: '2.0', id: 'l', result: {} });

    const [eventSession, level] = await event;
    expect(eventSession).toBe(session);
    expect(level).toBe('warning');
    expect(session.logLevel).toBe('warning');
  });

  it.each([['loud'], ['WARNING'], [3], [undefined]])('answers -32602 for the invalid level %j and keeps the old one', async (level) => {
    const { url, server } = await h.start();
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
    expect(sessionAt(server, 0).logLevel).toBe('error');
    expect(fired).toBe(0);
  });
});

describe('server.sendLogMessage', () => {
  it('reaches only the sessions whose level lets it through, with the exact notification', async () => {
    const { url, server } = await h.start();
    const byDefault = await h.ready(url); // threshold: info (the default)
    const strict = await h.ready(url);
    await strict.request('logging/setLevel', { level: 'error' });
    const verbose = await h.ready(url);
    await verbose.request('logging/setLevel', { level: 'debug' });

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
    const { url, server } = await h.start();
    const client = await h.ready(url);

    expect(server.sendLogMessage('debug', 'hidden')).toBe(0);
    expect(server.sendLogMessage('info', 'shown')).toBe(1);

    expect(await logsOf(client)).toEqual([logMessage('info', 'shown')]);
  });

  it('uses options.defaultLogLevel for sessions that never set a level', async () => {
    const { url, server } = await h.start(undefined, { server: { defaultLogLevel: 'error' } });
    const unset = await h.ready(url);
    const lowered = await h.ready(url);
    await lowered.request('logging/setLevel', { level: 'info' });

    expect(server.sendLogMessage('warning', 'w')).toBe(1);
    expect(server.sendLogMessage('error', 'e')).toBe(2);

    expect(await logsOf(unset)).toEqual([logMessage('error', 'e')]);
    expect(await logsOf(lowered)).toEqual([logMessage('warning', 'w'), logMessage('error', 'e')]);
  });

  it('sends to one session given as an object or by id, and to no one for an unknown id', async () => {
    const { url, server } = await h.start();
    const first = await h.ready(url);
    const second = await h.ready(url);
    const [firstSession, secondSession] = [sessionAt(server, 0), sessionAt(server, 1)];

    expect(server.sendLogMessage('info', 'to first', { session: firstSession, logger: 'direct' })).toBe(1);
    expect(server.sendLogMessage('notice', 'to second', { session: secondSession.id })).toBe(1);
    expect(server.sendLogMessage('info', 'to nobody', { session: 'no-such-session' })).toBe(0);
    expect(server.sendLogMessage('debug', 'below the level', { session: firstSession })).toBe(0);

    expect(await logsOf(first)).toEqual([logMessage('info', 'to first', 'direct')]);
    expect(await logsOf(second)).toEqual([logMessage('notice', 'to second')]);
  });

  it('returns 0 and sends nothing when no session exists', async () => {
    const { server } = await h.start();

    expect(server.sendLogMessage('emergency', 'anyone?')).toBe(0);
  });
});

describe('ctx.log', () => {
  it('sends notifications/message from inside a tool before the tool result, filtered by the session level', async () => {
    const { url } = await h.start((server) =>
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
    const { url } = await h.start((server) =>
      server.registerTool('work', {}, (_args, ctx) => {
        ctx.log('debug', 'detail');
        return 'done';
      }),
    );
    const client = await h.ready(url);
    await client.request('logging/setLevel', { level: 'debug' });
    const log = recordMessages(client);

    await client.request('tools/call', { name: 'work' }, 'w');

    expect(log).toEqual([logMessage('debug', 'detail'), { jsonrpc: '2.0', id: 'w', result: { content: [{ type: 'text', text: 'done' }] } }]);
  });
});
