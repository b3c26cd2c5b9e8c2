/**
 * URL-mode elicitation (2025-11-25, SEP-1036): generated elicitationIds, capability gating,
 * notifications/elicitation/complete, and the -32042 URLElicitationRequiredError.
 */
import { describe, expect, it } from 'vitest';
import { ElicitationNotSupportedError, McpError, UrlElicitationRequiredError, type ElicitParams } from '../../src/index.js';
import { CAPS, callTool, errorOf, expectMcpError, responseLog, thrownBy, UUID, succeeded } from '../helpers/client-requests.js';
import { expectQuietAndAlive, useHarness } from '../helpers/session-harness.js';
import { capture } from '../helpers/util.js';

const h = useHarness();

const CONNECT: ElicitParams = { mode: 'url', message: 'Connect your Example Co account', url: 'https://auth.example.com/connect?flow=1' };

async function urlSession(capabilities: Record<string, unknown> = CAPS.formAndUrl) {
  const running = await h.start();
  const log = responseLog(running.server, 'responseElicitationCreate');
  const { client, session } = await h.open(running, { capabilities });
  return { running, server: running.server, log, client, session };
}

describe('URL-mode elicitation/create', () => {
  it('generates a UUID elicitationId, sends it, and reports it in the event request', async () => {
    const { server, log, client, session } = await urlSession();
    const id = server.requestElicitationCreate(session, CONNECT);
    expect(id).toBe(0);
    const sent = await client.nextMessage('elicitation/create');
    expect(sent).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'elicitation/create',
      params: {
        mode: 'url',
        message: 'Connect your Example Co account',
        url: 'https://auth.example.com/connect?flow=1',
        elicitationId: expect.stringMatching(UUID),
      },
    });
    client.respond(0, { action: 'accept' });
    const [eventSession, request, response] = await log.next();
    expect(eventSession).toBe(session);
    expect(request).toEqual(sent);
    expect(request.params.elicitationId).toBe(sent.params.elicitationId);
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
    await expectQuietAndAlive(client);
  });

  it('does not change the params object it was given', async () => {
    const { server, client, session } = await urlSession();
    const params = { ...CONNECT };
    server.requestElicitationCreate(session, params);
    await client.nextMessage('elicitation/create');
    expect(params).toEqual(CONNECT);
    expect('elicitationId' in params).toBe(false);
  });

  it('generates a different elicitationId for each request', async () => {
    const { server, client, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    server.requestElicitationCreate(session, CONNECT);
    const a = await client.nextMessage('elicitation/create');
    const b = await client.nextMessage('elicitation/create');
    expect(a.params.elicitationId).toMatch(UUID);
    expect(b.params.elicitationId).toMatch(UUID);
    expect(a.params.elicitationId).not.toBe(b.params.elicitationId);
  });

  it('keeps an elicitationId the caller gives', async () => {
    const { server, log, client, session } = await urlSession();
    server.requestElicitationCreate(session, { ...CONNECT, elicitationId: 'elic-42' });
    const sent = await client.nextMessage('elicitation/create');
    expect(sent).toEqual({
      jsonrpc: '2.0',
      id: 0,
      method: 'elicitation/create',
      params: { mode: 'url', message: 'Connect your Example Co account', url: 'https://auth.example.com/connect?flow=1', elicitationId: 'elic-42' },
    });
    client.respond(0, { action: 'decline' });
    const [, request, response] = await log.next();
    expect(request.params.elicitationId).toBe('elic-42');
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'decline' }));
  });

  it('reports accept without content, even when the client sends content', async () => {
    const { server, log, client, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: { token: 'secret' } });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
    expect(server.stats.invalidResults).toBe(0);
  });

  it('treats content that is not an object as irrelevant in URL mode', async () => {
    const { server, log, client, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action: 'accept', content: 'ignored' });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'accept' }));
  });

  it.each(['decline', 'cancel'] as const)('reports %s', async (action) => {
    const { server, log, client, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    await client.nextMessage('elicitation/create');
    client.respond(0, { action });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action }));
  });

  it('is sent to a client that declared only elicitation.url', async () => {
    const { server, log, client, session } = await urlSession(CAPS.url);
    server.requestElicitationCreate(session, { ...CONNECT, elicitationId: 'only-url' });
    expect((await client.nextMessage('elicitation/create')).params).toEqual({ ...CONNECT, elicitationId: 'only-url' });
    client.respond(0, { action: 'cancel' });
    expect((await log.next())[2]).toStrictEqual(succeeded('elicitation', { action: 'cancel' }));
  });

  it('session.elicit resolves with {action: "accept"} and no content, and fires the event', async () => {
    const { log, client, session } = await urlSession();
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
    const running = await h.start((server) =>
      server.registerTool('link', {}, async (_args, ctx) => {
        const answer = await ctx.elicit(CONNECT);
        return answer.action;
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.url });
    const call = callTool(client, 'link');
    const sent = await client.nextMessage('elicitation/create');
    expect(sent.params).toEqual({ ...CONNECT, elicitationId: expect.stringMatching(UUID) });
    client.respond(sent.id, { action: 'accept' });
    expect(await call).toEqual({ jsonrpc: '2.0', id: 'call-link', result: { content: [{ type: 'text', text: 'accept' }] } });
  });
});

describe('URL mode needs the client to have declared it', () => {
  const URL_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare url-mode elicitation (capabilities.elicitation.url); ask another way, or use form mode if it declared that',
    data: { requiredCapabilities: { elicitation: { url: {} } } },
  };

  it.each([
    ['elicitation: {} (form only)', CAPS.legacyElicitation],
    ['elicitation: {form: {}}', CAPS.form],
    ['no elicitation at all', CAPS.none],
  ])('throws ElicitationNotSupportedError for a client with %s and sends nothing', async (_name, capabilities) => {
    const { server, log, client, session } = await urlSession(capabilities);
    const error = thrownBy(() => server.requestElicitationCreate(session, CONNECT));
    expectMcpError(error, ElicitationNotSupportedError, URL_NOT_DECLARED);
    expect((error as ElicitationNotSupportedError).mode).toBe('url');
    await expectQuietAndAlive(client);
    expect(log.all).toHaveLength(0);
  });

  it('makes session.elicit reject with ElicitationNotSupportedError for a form-only client', async () => {
    const { client, session } = await urlSession(CAPS.legacyElicitation);
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
    const { server, log, client, session } = await urlSession();
    const error = thrownBy(() => server.requestElicitationCreate(session, { ...CONNECT, ...patch } as unknown as ElicitParams));
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(message);
    await expectQuietAndAlive(client);
    expect(log.all).toHaveLength(0);
  });
});

describe('notifyElicitationComplete', () => {
  it('sends exactly notifications/elicitation/complete with the elicitationId', async () => {
    const { server, client, session } = await urlSession();
    expect(server.notifyElicitationComplete(session, '550e8400-e29b-41d4-a716-446655440000')).toBe(true);
    expect(await client.nextMessage('notifications/elicitation/complete')).toStrictEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: '550e8400-e29b-41d4-a716-446655440000' },
    });
    await expectQuietAndAlive(client);
  });

  it('accepts a session id and tells only that session', async () => {
    const { running, server, client, session } = await urlSession();
    const other = await h.open(running, { capabilities: CAPS.formAndUrl });
    expect(server.notifyElicitationComplete(session.id, 'e-1')).toBe(true);
    expect(await client.nextMessage('notifications/elicitation/complete')).toStrictEqual({
      jsonrpc: '2.0',
      method: 'notifications/elicitation/complete',
      params: { elicitationId: 'e-1' },
    });
    await expectQuietAndAlive(client);
    await expectQuietAndAlive(other.client);
  });

  it('completes the id that was generated for an elicitation', async () => {
    const { server, log, client, session } = await urlSession();
    server.requestElicitationCreate(session, CONNECT);
    const sent = await client.nextMessage('elicitation/create');
    client.respond(sent.id, { action: 'accept' });
    const [, request] = await log.next();
    server.notifyElicitationComplete(session, request.params.elicitationId as string);
    expect((await client.nextMessage('notifications/elicitation/complete')).params).toEqual({ elicitationId: sent.params.elicitationId });
  });

  it('returns false for a session that has ended and throws for an unknown session id', async () => {
    const { server, session } = await urlSession();
    session.close();
    expect(server.notifyElicitationComplete(session, 'e-2')).toBe(false);
    expect(() => server.notifyElicitationComplete('no-such-session', 'e-2')).toThrow('No session with id no-such-session');
  });
});

describe('UrlElicitationRequiredError thrown by a tool', () => {
  it('is answered with JSON-RPC error -32042 listing URL elicitations with generated ids', async () => {
    const running = await h.start((server) =>
      server.registerTool('files', {}, () => {
        throw new UrlElicitationRequiredError([
          { message: 'Authorize access to your files', url: 'https://auth.example.com/files' },
          { message: 'Accept the terms', url: 'https://example.com/terms' },
        ]);
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.url });
    const reply = await callTool(client, 'files');
    expect(reply).toEqual({
      jsonrpc: '2.0',
      id: 'call-files',
      error: {
        code: -32042,
        message: 'This request requires more information: complete the linked page(s), then retry.',
        data: {
          elicitations: [
            { mode: 'url', message: 'Authorize access to your files', url: 'https://auth.example.com/files', elicitationId: expect.stringMatching(UUID) },
            { mode: 'url', message: 'Accept the terms', url: 'https://example.com/terms', elicitationId: expect.stringMatching(UUID) },
          ],
        },
      },
    });
    expect(reply.error.data.elicitations[0].elicitationId).not.toBe(reply.error.data.elicitations[1].elicitationId);
    expect('result' in reply).toBe(false);
    await expectQuietAndAlive(client);
  });

  it('keeps a given elicitationId and a custom message', async () => {
    const running = await h.start((server) =>
      server.registerTool('pay', {}, async () => {
        throw new UrlElicitationRequiredError([{ message: 'Pay first', url: 'https://pay.example.com/x', elicitationId: 'pay-1' }], 'Payment needed.');
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.url });
    expect(await callTool(client, 'pay')).toEqual({
      jsonrpc: '2.0',
      id: 'call-pay',
      error: {
        code: -32042,
        message: 'Payment needed.',
        data: { elicitations: [{ mode: 'url', message: 'Pay first', url: 'https://pay.example.com/x', elicitationId: 'pay-1' }] },
      },
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
