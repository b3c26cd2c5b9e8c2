/**
 * Accepted elicitation content keeps only the fields the form asked for: a handler never sees keys the
 * user was not asked about, whether the answer came as the reply to a pushed elicitation/create (handshake
 * era, WebSocket) or in the inputResponses of a 2026-07-28 retry (HTTP). With validateElicitation
 * false the content is passed on exactly as the client sent it.
 */
import { describe, expect, it } from 'vitest';
import type { ElicitParams, McpServer, McpServerOptions } from '../../src/index.js';
import { CAPS, callTool, NAME_Q, responseLog, textResult } from '../helpers/client-requests.js';
import { MODERN_CAPS, ModernClient } from '../helpers/modern.js';
import { pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

/** Name and age asked; the client adds fields nobody asked about. */
const PROFILE_Q = {
  message: 'Who are you?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
} as unknown as ElicitParams;

const SENT = { name: 'Ada', age: 36, admin: true, role: 'owner' };
const ASKED = { name: 'Ada', age: 36 };

/** A tool that elicits PROFILE_Q and answers with the result it got, as JSON. */
function profileTool(server: McpServer): void {
  server.registerTool('profile', {}, async (_args, ctx) => JSON.stringify(await ctx.elicit(PROFILE_Q)));
}

describe('legacy era over WebSocket: the reply to a pushed elicitation/create', () => {
  async function run(serverOptions: McpServerOptions): Promise<string> {
    const running = await startWebSocket(cleanups, profileTool, { server: serverOptions });
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'profile');
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.params).toEqual(PROFILE_Q);
    client.respond(ask.id, { action: 'accept', content: SENT });
    const reply = await call;
    return reply.result.content[0].text;
  }

  it('gives ctx.elicit only the fields the form asked for, dropping the extra keys', async () => {
    expect(JSON.parse(await run({}))).toEqual({ action: 'accept', content: ASKED });
  });

  it('passes the content on as sent when validateElicitation is false', async () => {
    expect(JSON.parse(await run({ validateElicitation: false }))).toEqual({ action: 'accept', content: SENT });
  });

  it('keeps only the asked fields in the responseElicitationCreate event of server.requestElicitationCreate', async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client, session } = await h.open(running, { capabilities: CAPS.form });
    const id = running.server.requestElicitationCreate(session, PROFILE_Q);
    const ask = await client.nextMessage('elicitation/create');
    expect(ask.id).toBe(id);
    client.respond(ask.id, { action: 'accept', content: { name: 'Ada', nickname: 'Countess' } });
    const [, request, response] = await log.next();
    expect(request.id).toBe(id);
    expect(response).toEqual({ isError: false, action: 'accept', content: { name: 'Ada' } });
    await pingOk(client);
  });

  it('keeps only the asked fields when the runtime pushes an explicit input-required on a legacy-era session', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('explicit', {}, (_args, ctx) => {
        const answer = ctx.inputResponses?.who as { action: string; content?: unknown } | undefined;
        if (answer) return JSON.stringify(answer);
        ctx.inputRequired.addElicitation('who', NAME_Q);
        return 'unreachable';
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'explicit', {}, 'x');
    const ask = await client.nextMessage('elicitation/create');
    client.respond(ask.id, { action: 'accept', content: { name: 'Ada', isAdmin: true } });
    expect(await call).toEqual(textResult('x', JSON.stringify({ action: 'accept', content: { name: 'Ada' } })));
  });
});

describe('2026-07-28 over HTTP: the answer in a retry', () => {
  async function roundTrip(serverOptions: McpServerOptions): Promise<unknown> {
    const { url } = await startHttp(cleanups, profileTool, { server: serverOptions });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('profile');
    expect(first.body.result).toMatchObject({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': { method: 'elicitation/create', params: PROFILE_Q } },
    });
    const retry = await client.callTool(
      'profile',
      {},
      { requestState: first.body.result.requestState, inputResponses: { 'elicit-1': { action: 'accept', content: SENT } } },
    );
    expect(retry.status).toBe(200);
    expect(retry.body.result.resultType).toBe('complete');
    return JSON.parse(retry.body.result.content[0].text);
  }

  it('gives the handler only the fields the form asked for, dropping the extra keys', async () => {
    expect(await roundTrip({})).toEqual({ action: 'accept', content: ASKED });
  });

  it('passes the content on as sent when validateElicitation is false', async () => {
    expect(await roundTrip({ validateElicitation: false })).toEqual({ action: 'accept', content: SENT });
  });

  it('also drops extra keys from an answer sent ahead, without requestState', async () => {
    const { url } = await startHttp(cleanups, profileTool);
    const client = new ModernClient(url, MODERN_CAPS.form);
    const reply = await client.callTool('profile', {}, { inputResponses: { 'elicit-1': { action: 'accept', content: SENT } } });
    expect(JSON.parse(reply.body.result.content[0].text)).toEqual({ action: 'accept', content: ASKED });
  });

  it('keeps the filtered answer in requestState: a later round sees only the asked fields too', async () => {
    const seen: unknown[] = [];
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('two', {}, async (_args, ctx) => {
        const who = await ctx.elicit(PROFILE_Q);
        seen.push(who.content);
        const seat = await ctx.elicit({
          message: 'Seat?',
          requestedSchema: { type: 'object', properties: { seat: { type: 'string' } } },
        } as unknown as ElicitParams);
        return JSON.stringify([who.content, seat.content]);
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('two');
    const second = await client.callTool(
      'two',
      {},
      { requestState: first.body.result.requestState, inputResponses: { 'elicit-1': { action: 'accept', content: SENT } } },
    );
    expect(second.body.result.resultType).toBe('input_required');
    const third = await client.callTool(
      'two',
      {},
      { requestState: second.body.result.requestState, inputResponses: { 'elicit-2': { action: 'accept', content: { seat: '12A', upgrade: true } } } },
    );
    expect(JSON.parse(third.body.result.content[0].text)).toEqual([ASKED, { seat: '12A' }]);
    expect(seen).toEqual([ASKED, ASKED]);
  });
});
