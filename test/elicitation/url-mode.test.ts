/**
 * URL-mode elicitation (2025-11-25, SEP-1036): generated elicitationIds, capability gating,
 * notifications/elicitation/complete, and the -32042 URLElicitationRequiredError.
 *
 * The client is McpClient, answering through onElicitation. The raw WebSocket peer stays for replies
 * McpClient never sends (content on a URL-mode accept) and for a bare `elicitation: {}` declaration,
 * which McpClient sends as `{form: {}}`.
 */
import { describe, expect, it } from 'vitest';
import { ElicitationNotSupportedError, type ElicitParams, type JsonRpcNotification, McpError, UrlElicitationRequiredError } from '../../src/index.js';
import { CAPS, errorOf, expectMcpError, responseLog, thrownBy, UUID, succeeded } from '../helpers/client-requests.js';
import { type Ask, elicitationPeer, rpcError, useMcpClients, expectPeerQuietAndAlive } from '../helpers/mcp-clients.js';
import { expectQuietAndAlive, useWsSessions } from '../helpers/ws-sessions.js';
import { capture } from '../helpers/outcome.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

const CONNECT: ElicitParams = { mode: 'url', message: 'Connect your Example Co account', url: 'https://auth.example.com/connect?flow=1' };

/**
 * An McpClient on `running` (legacy era, WebSocket) declaring `capabilities`, with an elicitation handler
 * that holds each answer until the test calls `ask.answer`.
 */
/** The request id the server gave an elicitation, and its params as sent. */
function sent(ask: Ask): { id: unknown; params: Json } {
  return { id: ask.id, params: ask.params };
}

async function urlSession(capabilities: Record<string, unknown> = CAPS.formAndUrl) {
  const running = await startWebSocket(cleanups);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const peer = await elicitationPeer(clients, running, { capabilities });
  return { running, server: running.server, log, peer, session: peer.session };
}

/** urlSession with the raw WebSocket peer: for replies McpClient never sends, and for a bare `elicitation: {}`. */
async function rawUrlSession(capabilities: Record<string, unknown> = CAPS.formAndUrl) {
  const running = await startWebSocket(cleanups);
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, log, client, session };
}

describe('URL-mode elicitation/create', () => {
  it('generates a UUID elicitationId, sends it, and reports it in the event request', async () => {
    const { server, log, peer, session } = await urlSession();
    const id = server.requestElicitationCreate(session, CONNECT);
    expect(id).toBe(0);
    const ask = await peer.asks.next();
    expect(sent(ask)).toEqual({
      id: 0,
      params: {
        mode: 'url',
        message: 'Connect your Example Co account',
        url: 'https://auth.example.com/connect?flow=1',
        elicitationId: expect.stringMatching(UUID),
      },
    });
    ask.answer({ action: 'accept' });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual({ jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ask.params });
    expect(request.params.elicitationId).toBe(ask.params.elicitationId);
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
    await expectPeerQuietAndAlive(peer, { asked: [ask.params] });
  });

  it('does not change the params object it was given', async () => {
    const { server, peer, session } = await urlSession();
    const params = { ...CONNECT };
    server.requestElicitationCreate(session, params);
    await peer.asks.next();
    expect(params).toEqual(CONNECT);
    expect('elicitationId' in params).toBe(false);
  });

  it('generates a different elicitationId for each request', async () => {
    const { server, peer, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    server.requestElicitationCreate(session, CONNECT);
    const a = await peer.asks.next();
    const b = await peer.asks.next();
    expect(a.params.elicitationId).toMatch(UUID);
    expect(b.params.elicitationId).toMatch(UUID);
    expect(a.params.elicitationId).not.toBe(b.params.elicitationId);
  });

  it('keeps an elicitationId the caller gives', async () => {
    const { server, log, peer, session } = await urlSession();
    server.requestElicitationCreate(session, { ...CONNECT, elicitationId: 'elic-42' });
    const ask = await peer.asks.next();
    expect(sent(ask)).toEqual({
      id: 0,
      params: { mode: 'url', message: 'Connect your Example Co account', url: 'https://auth.example.com/connect?flow=1', elicitationId: 'elic-42' },
    });
    ask.answer({ action: 'decline' });
    const [, request, response] = await log.next();
    expect(request.params.elicitationId).toBe('elic-42');
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'decline' }));
  });

  it('reports accept without content, even when the client sends content', async () => {
    const { server, log, client, session } = await rawUrlSession();
    server.requestElicitationCreate(session, CONNECT);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: { token: 'secret' } });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
    expect(server.stats.invalidResults).toBe(0);
  });

  it('treats content that is not an object as irrelevant in URL mode', async () => {
    const { server, log, client, session } = await rawUrlSession();
    server.requestElicitationCreate(session, CONNECT);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: 'ignored' });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
  });

  it.each(['decline', 'cancel'] as const)('reports %s', async (action) => {
    const { server, log, peer, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    (await peer.asks.next()).answer({ action });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action }));
  });

  it('is sent to a client that declared only elicitation.url', async () => {
    const { server, log, peer, session } = await urlSession(CAPS.url);
    server.requestElicitationCreate(session, { ...CONNECT, elicitationId: 'only-url' });
    const ask = await peer.asks.next();
    expect(ask.params).toEqual({ ...CONNECT, elicitationId: 'only-url' });
    ask.answer({ action: 'cancel' });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'cancel' }));
  });

  it('session.elicit resolves with {action: "accept"} and no content, and fires the event', async () => {
    const { log, client, session } = await rawUrlSession();
    const p = capture(session.elicit(CONNECT));
    const sent = await client.nextMessage('elicitation/create');
    client.respond(sent.id, { action: 'accept', content: { x: 1 } });
    const outcome = await p.outcome;
    expect(outcome.ok).toBe(true);
    expect(outcome.ok && outcome.value).toStrictEqual({ action: 'accept' });
    expect(log.all).toHaveLength(1);
    expect(log.all[0][1].params.elicitationId).toBe(sent.params.elicitationId);
  });

  it('ctx.elicit in URL mode sends the generated id from inside a tool', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('link', {}, async (_args, ctx) => {
        const answer = await ctx.elicit(CONNECT);
        return answer.action;
      }),
    );
    const peer = await elicitationPeer(clients, running, { capabilities: CAPS.url });
    const call = peer.client.callTool('link');
    const ask = await peer.asks.next();
    expect(ask.params).toEqual({ ...CONNECT, elicitationId: expect.stringMatching(UUID) });
    ask.answer({ action: 'accept' });
    expect(await call).toEqual({ content: [{ type: 'text', text: 'accept' }] });
  });
});

describe('URL mode needs the client to have declared it', () => {
  const URL_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare url-mode elicitation (capabilities.elicitation.url); ask another way, or use form mode if it declared that',
    data: { requiredCapabilities: { elicitation: { url: {} } } },
  };

  // McpClient declares `elicitation: {}` as `{form: {}}`: the bare form needs the raw peer.
  it.each([['elicitation: {} (form only)', CAPS.legacyElicitation]])(
    'throws ElicitationNotSupportedError for a client with %s and sends nothing',
    async (_name, capabilities) => {
      const { server, log, client, session } = await rawUrlSession(capabilities);
      const error = thrownBy(() => server.requestElicitationCreate(session, CONNECT));
      expectMcpError(error, ElicitationNotSupportedError, URL_NOT_DECLARED);
      expect((error as ElicitationNotSupportedError).mode).toBe('url');
      await expectQuietAndAlive(client);
      expect(log.all).toHaveLength(0);
    },
  );

  it.each([
    ['elicitation: {form: {}}', CAPS.form],
    ['no elicitation at all', CAPS.none],
  ])('throws ElicitationNotSupportedError for a client with %s and sends nothing', async (_name, capabilities) => {
    const { server, log, peer, session } = await urlSession(capabilities);
    const error = thrownBy(() => server.requestElicitationCreate(session, CONNECT));
    expectMcpError(error, ElicitationNotSupportedError, URL_NOT_DECLARED);
    expect((error as ElicitationNotSupportedError).mode).toBe('url');
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
  });

  it('makes session.elicit reject with ElicitationNotSupportedError for a form-only client', async () => {
    const { client, session } = await rawUrlSession(CAPS.legacyElicitation);
    expectMcpError(errorOf(await capture(session.elicit(CONNECT)).outcome), ElicitationNotSupportedError, URL_NOT_DECLARED);
    await expectQuietAndAlive(client);
  });
});

describe('invalid URL-mode params throw a TypeError and send nothing', () => {
  it.each([
    ['a relative url', { url: '/connect' }, 'URL elicitation needs a valid absolute url; got "/connect"'],
    ['text that is not a url', { url: 'not a url' }, 'URL elicitation needs a valid absolute url; got "not a url"'],
    ['a missing url', { url: undefined }, 'URL elicitation needs a valid absolute url; got undefined'],
    ['a numeric url', { url: 42 }, 'URL elicitation needs a valid absolute url; got 42'],
    ['a numeric elicitationId', { elicitationId: 7 }, 'elicitationId must be a string'],
  ])('for %s', async (_name, patch, message) => {
    const { server, log, peer, session } = await urlSession();
    const error = thrownBy(() => server.requestElicitationCreate(session, { ...CONNECT, ...patch } as unknown as ElicitParams));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(message);
    await expectPeerQuietAndAlive(peer);
    expect(log.all).toHaveLength(0);
  });
});

describe('sendElicitationComplete', () => {
  it('sends exactly notifications/elicitation/complete with the elicitationId', async () => {
    const { server, peer, session } = await urlSession();
    expect(server.sendElicitationComplete(session, '550e8400-e29b-41d4-a716-446655440000')).toBe(true);
    const complete: JsonRpcNotification = {
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: '550e8400-e29b-41d4-a716-446655440000' },
    };
    expect(await peer.notifications.next()).toStrictEqual(complete);
    await expectPeerQuietAndAlive(peer, { notifications: [complete] });
  });

  it('accepts a session id and tells only that session', async () => {
    const { running, server, peer, session } = await urlSession();
    const other = await elicitationPeer(clients, running, { capabilities: CAPS.formAndUrl });
    expect(server.sendElicitationComplete(session.id, 'e-1')).toBe(true);
    const complete: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/elicitation/complete', params: { elicitationId: 'e-1' } };
    expect(await peer.notifications.next()).toStrictEqual(complete);
    await expectPeerQuietAndAlive(peer, { notifications: [complete] });
    await expectPeerQuietAndAlive(other);
  });

  it('completes the id that was generated for an elicitation', async () => {
    const { server, log, peer, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    const ask = await peer.asks.next();
    ask.answer({ action: 'accept' });
    const [, request] = await log.next();
    server.sendElicitationComplete(session, request.params.elicitationId as string);
    expect((await peer.notifications.next()).params).toEqual({ elicitationId: ask.params.elicitationId });
    // The client matches the completion to the request it answered.
    expect(await peer.completions.next()).toEqual([ask.params.elicitationId, ask.params]);
  });

  it('returns false for a session that has ended and throws for an unknown session id', async () => {
    const { server, session } = await urlSession();
    session.close();
    expect(server.sendElicitationComplete(session, 'e-2')).toBe(false);
    expect(() => server.sendElicitationComplete('no-such-session', 'e-2')).toThrow('No session with id no-such-session');
  });
});

describe('UrlElicitationRequiredError thrown by a tool', () => {
  it('is answered with JSON-RPC error -32042 listing URL elicitations with generated ids', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('files', {}, () => {
        throw new UrlElicitationRequiredError([
          { message: 'Authorize access to your files', url: 'https://auth.example.com/files' },
          { message: 'Accept the terms', url: 'https://example.com/terms' },
        ]);
      }),
    );
    const peer = await elicitationPeer(clients, running, { capabilities: CAPS.url });
    const error = await rpcError(peer.client.callTool('files'));
    expect(error).toEqual({
      code: -32042,
      message: 'This request requires more information: complete the linked page(s), then retry.',
      data: {
        elicitations: [
          { mode: 'url', message: 'Authorize access to your files', url: 'https://auth.example.com/files', elicitationId: expect.stringMatching(UUID) },
          { mode: 'url', message: 'Accept the terms', url: 'https://example.com/terms', elicitationId: expect.stringMatching(UUID) },
        ],
      },
    });
    const { elicitations } = error.data as { elicitations: { elicitationId: string }[] };
    expect(elicitations[0].elicitationId).not.toBe(elicitations[1].elicitationId);
    await expectPeerQuietAndAlive(peer);
  });

  it('keeps a given elicitationId and a custom message', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('pay', {}, async () => {
        throw new UrlElicitationRequiredError([{ message: 'Pay first', url: 'https://pay.example.com/x', elicitationId: 'pay-1' }], 'Payment needed.');
      }),
    );
    const peer = await elicitationPeer(clients, running, { capabilities: CAPS.url });
    expect(await rpcError(peer.client.callTool('pay'))).toEqual({
      code: -32042,
      message: 'Payment needed.',
      data: { elicitations: [{ mode: 'url', message: 'Pay first', url: 'https://pay.example.com/x', elicitationId: 'pay-1' }] },
    });
  });

  it('builds the elicitations on the error object itself', () => {
    const error = new UrlElicitationRequiredError([{ message: 'm', url: 'https://example.com/' }]);
    expect(error).toBeInstanceOf(McpError);
    expect(error.code).toBe(-32042);
    expect(error.elicitations).toEqual([{ mode: 'url', message: 'm', url: 'https://example.com/', elicitationId: expect.stringMatching(UUID) }]);
    expect(error.toJSON()).toEqual({ code: -32042, message: error.message, data: { elicitations: error.elicitations } });
  });
});
