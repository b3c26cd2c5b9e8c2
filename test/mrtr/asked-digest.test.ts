/**
 * MRTR (2026-07-28): requestState keeps a digest of each form `ctx.elicit` asked, not its schema and
 * message, for the replayed handler asks it again and its answer is read then. An answer to a form the
 * replay did not ask rides along unread until one does; one never asked again is told as not read.
 */
import { describe, expect, it } from 'vitest';
import type { McpServer, McpSession } from '../../src/index.js';
import { ADA, NAME_Q, SEAT_Q } from '../helpers/client-requests.js';
import { useCleanups } from '../helpers/cleanups.js';
import { META_KEYS, MODERN_CAPS, modernCall } from '../helpers/modern.js';
import { startHttp } from '../helpers/servers.js';
import type { Json } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const SEAT_12A = { action: 'accept', content: { seat: '12A' } };

type Told = [id: unknown, response: Record<string, unknown>];

function told(server: McpServer): Told[] {
  const seen: Told[] = [];
  (server.on as (e: string, fn: (s: McpSession, request: { id: unknown }, response: Record<string, unknown>) => void) => unknown)(
    'responseElicitationCreate',
    (_session, request, response) => seen.push([request.id, { ...response }]),
  );
  return seen;
}

async function call(url: string, id: number, params: Json = {}): Promise<Json> {
  const reply = await modernCall(
    url,
    'tools/call',
    { name: 'book', arguments: {}, ...params },
    { meta: { [META_KEYS.clientCapabilities]: MODERN_CAPS.form }, id },
  );
  return reply.result;
}

/** A signed state's payload, which whoever holds the token can read. */
function payloadOf(requestState: string): Json {
  return JSON.parse(Buffer.from(requestState.split('.')[2]!, 'base64url').toString('utf8'));
}

describe('requestState keeps a digest of each form ctx.elicit asked', () => {
  it('holds the binding, the round, what was asked by digest, the keys asked last and the expiry: no schema, message, id or empty answers', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('book', {}, async (_args, ctx) => (await ctx.elicit(NAME_Q, { key: 'who' })).content?.name as string),
    );
    const first = await call(url, 1);
    expect(first.inputRequests).toEqual({ who: { method: 'elicitation/create', params: NAME_Q } });
    expect(payloadOf(first.requestState)).toEqual({
      binding: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
      round: 1,
      asked: { who: { method: 'elicitation/create', form: expect.stringMatching(/^[A-Za-z0-9_-]{16}$/) } },
      last: ['who'],
      expiresAt: expect.any(Number),
    });
    expect(first.requestState.length).toBeLessThan(300);
  });

  it('carries an answer the replay did not ask for again, and reads it when a later replay asks that form', async () => {
    let runs = 0;
    let seen: Told[] = [];
    const { url } = await startHttp(cleanups, (server) => {
      seen = told(server);
      server.registerTool('book', {}, async (_args, ctx) => {
        runs++;
        // The second run asks the seat first: the name it was just given waits, unread.
        const seat = runs === 2 ? await ctx.elicit(SEAT_Q, { key: 'seat' }) : undefined;
        const who = await ctx.elicit(NAME_Q, { key: 'who' });
        const again = seat ?? (await ctx.elicit(SEAT_Q, { key: 'seat' }));
        return `${who.content?.name} in ${again.content?.seat}`;
      });
    });
    const round1 = await call(url, 1);
    const round2 = await call(url, 2, { requestState: round1.requestState, inputResponses: { who: ADA } });
    expect(round2.inputRequests).toEqual({ seat: { method: 'elicitation/create', params: SEAT_Q } });
    expect(payloadOf(round2.requestState).unread).toEqual({ who: ADA });
    expect(seen).toEqual([]);
    const round3 = await call(url, 3, { requestState: round2.requestState, inputResponses: { seat: SEAT_12A } });
    expect(round3).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'Ada in 12A' }] });
    expect(seen.map(([id, response]) => [id, response.action, response.isError])).toEqual([
      ['who', 'accept', false],
      ['seat', 'accept', false],
    ]);
  });

  it('drops a carried answer when a later replay asks another form under its key, and asks that form', async () => {
    let runs = 0;
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('book', {}, async (_args, ctx) => {
        runs++;
        if (runs === 2) await ctx.elicit(SEAT_Q, { key: 'seat' });
        const who = await ctx.elicit(runs === 1 ? NAME_Q : SEAT_Q, { key: 'who' });
        return JSON.stringify(who.content);
      }),
    );
    const round1 = await call(url, 1);
    const round2 = await call(url, 2, { requestState: round1.requestState, inputResponses: { who: ADA } });
    const round3 = await call(url, 3, { requestState: round2.requestState, inputResponses: { seat: SEAT_12A } });
    expect(round3.inputRequests).toEqual({ who: { method: 'elicitation/create', params: SEAT_Q } });
  });

  it('tells an answer to a form the handler never asks again as not read when the request completes', async () => {
    let runs = 0;
    let seen: Told[] = [];
    const { url } = await startHttp(cleanups, (server) => {
      seen = told(server);
      server.registerTool('book', {}, async (_args, ctx) => {
        runs++;
        if (runs === 1) await ctx.elicit(NAME_Q, { key: 'who' });
        return 'no name needed';
      });
    });
    const round1 = await call(url, 1);
    const round2 = await call(url, 2, { requestState: round1.requestState, inputResponses: { who: ADA } });
    expect(round2).toMatchObject({ resultType: 'complete', content: [{ type: 'text', text: 'no name needed' }] });
    expect(seen).toEqual([
      ['who', expect.objectContaining({ isError: true, action: undefined, errorMessage: expect.stringContaining('the handler did not ask it again') })],
    ]);
  });
});
