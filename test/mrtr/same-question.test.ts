/**
 * MRTR (2026-07-28): an answer kept in requestState under key K stands only for the question it answered
 * (the same method and, for a form, the same schema). When a later round asks a different question under
 * K, the client is asked again, instead of the handler getting the answer to the old question.
 */
import { describe, expect, it } from 'vitest';
import type { ElicitParams } from '../../src/index.js';
import { ADA, NAME_Q, SEAT_Q } from '../helpers/client-requests.js';
import { MODERN_CAPS, ModernClient, SIGNED_STATE, type Reply } from '../helpers/modern.js';
import type { Json } from '../helpers/ws-client.js';
import { startHttp } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

/** A form Ada's answer to NAME_Q fits too, but a different question (another schema). */
const FULL_NAME_Q = {
  message: 'Your full name, as on your passport?',
  requestedSchema: { type: 'object', properties: { name: { type: 'string', description: 'As on the passport' } }, required: ['name'] },
} as unknown as ElicitParams;

function asks(key: string, params: unknown): Json {
  return { resultType: 'input_required', inputRequests: { [key]: { method: 'elicitation/create', params } }, requestState: SIGNED_STATE };
}

function stateOf(reply: Reply): string {
  const state = reply.body.result?.requestState;
  if (typeof state !== 'string') throw new Error(`no requestState in ${JSON.stringify(reply.body)}`);
  return state;
}

function textOf(reply: Reply): string {
  const result = reply.body.result;
  if (result?.resultType !== 'complete') throw new Error(`not complete: ${JSON.stringify(reply.body)}`);
  return result.content[0].text;
}

describe('an earlier answer under the same key stands only for the same question', () => {
  it('asks again when the next round asks another form under the key, rather than handing over the answer to the first form', async () => {
    let runs = 0;
    const seen: unknown[] = [];
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('book', {}, async (_args, ctx) => {
        runs++;
        const answer = await ctx.elicit(runs === 1 ? NAME_Q : SEAT_Q, { key: 'q' });
        seen.push(answer.content);
        return `seat ${answer.content?.seat}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book');
    expect(first.body.result).toEqual(asks('q', NAME_Q));
    const second = await client.callTool('book', {}, { requestState: stateOf(first), inputResponses: { q: ADA } });
    expect(second).toEqual({ status: 200, body: { jsonrpc: '2.0', id: 2, result: asks('q', SEAT_Q) } });
    expect(seen).toEqual([]);
    const third = await client.callTool('book', {}, { requestState: stateOf(second), inputResponses: { q: { action: 'accept', content: { seat: '12A' } } } });
    expect(textOf(third)).toBe('seat 12A');
    expect(seen).toEqual([{ seat: '12A' }]);
  });

  it('asks again when a later round asks another schema under a key answered two rounds before (the answer only in requestState), even one the old answer would fit', async () => {
    let runs = 0;
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('travel', {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit(runs >= 3 ? FULL_NAME_Q : NAME_Q, { key: 'who' });
        const seat = await ctx.elicit(SEAT_Q, { key: 'seat' });
        return `${who.content?.name} in ${seat.content?.seat}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const round1 = await client.callTool('travel');
    expect(round1.body.result).toEqual(asks('who', NAME_Q));
    const round2 = await client.callTool('travel', {}, { requestState: stateOf(round1), inputResponses: { who: ADA } });
    expect(round2.body.result).toEqual(asks('seat', SEAT_Q));
    // Round 3 brings only the seat; `who` rides in requestState, but the handler now asks another form under it.
    const round3 = await client.callTool(
      'travel',
      {},
      { requestState: stateOf(round2), inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } } },
    );
    expect(round3.body.result).toEqual(asks('who', FULL_NAME_Q));
    // The seat answer was to the same question, so it stands.
    const round4 = await client.callTool(
      'travel',
      {},
      { requestState: stateOf(round3), inputResponses: { who: { action: 'accept', content: { name: 'Augusta Ada King' } } } },
    );
    expect(textOf(round4)).toBe('Augusta Ada King in 12A');
    expect(runs).toBe(4);
  });

  it('reuses the answer kept in requestState when the later round asks the very same question under the key', async () => {
    let runs = 0;
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('travel', {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit(NAME_Q, { key: 'who' });
        const seat = await ctx.elicit(SEAT_Q, { key: 'seat' });
        return `${who.content?.name} in ${seat.content?.seat}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const round1 = await client.callTool('travel');
    const round2 = await client.callTool('travel', {}, { requestState: stateOf(round1), inputResponses: { who: ADA } });
    const round3 = await client.callTool(
      'travel',
      {},
      { requestState: stateOf(round2), inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } } },
    );
    expect(textOf(round3)).toBe('Ada in 12A');
    expect(runs).toBe(3);
  });
});
