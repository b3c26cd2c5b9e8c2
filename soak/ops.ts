/**
 * The operations each client loops over, the same on every transport, each checking its answer to the
 * letter: a wrong or missing message throws an error saying what was expected.
 */
import type { Json } from '../bench/http-client.js';
import { expectEqual, expectThat } from './check.js';
import { CACHE_HINTS, DISCOVERY, ELICITATION, TOOLS } from './expected.js';
import type { Random } from './random.js';
import type { Era, Exchange, Transport } from './transport.js';

export const KINDS = ['echo', 'elicit', 'progress', 'fail', 'list', 'ping', 'notify', 'abrupt'] as const;
export type Kind = (typeof KINDS)[number];

/** How often each kind comes up: mostly calls; now and then a client vanishes mid-call and comes back with a new session. */
export const WEIGHTS: Record<Kind, number> = { echo: 25, elicit: 15, progress: 15, fail: 10, list: 10, ping: 10, notify: 10, abrupt: 0.05 };

const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
const notification = (method: string, params: Json) => ({ jsonrpc: '2.0', method, params });

/** `exchange` answered `result` (in its era's words), after exactly the `related` messages. */
function expectResult(era: Era, exchange: Exchange, result: Json, what: string, related: Json[] = []): void {
  expectEqual(exchange.related, related, `${what}: the messages before the response`);
  const worded = era === 'modern' ? { resultType: 'complete', ...result } : result;
  expectEqual(exchange.response, { jsonrpc: '2.0', id: exchange.response.id, result: worded }, `${what}: the response`);
}

/** A person's answer to the elicitation, and what the tool says back to it. */
function answerFor(rng: Random): { answer: Json; reply: string } {
  const roll = rng.next();
  if (roll < 0.2) return { answer: { action: 'decline' }, reply: 'decline' };
  if (roll < 0.4) return { answer: { action: 'cancel' }, reply: 'cancel' };
  const name = `user-${rng.int(1e6)}`;
  const plan = [undefined, 'free', 'pro'][rng.int(3)];
  return { answer: { action: 'accept', content: plan ? { name, plan, age: rng.int(100) } : { name } }, reply: `accept:${name}:${plan ?? 'none'}` };
}

/** Legacy-era sessions: the server pushes elicitation/create on the call's stream and the client answers it. */
async function elicitPushed(t: Transport, rng: Random): Promise<void> {
  const { answer, reply } = answerFor(rng);
  const exchange = await t.request('tools/call', { name: 'ask', arguments: {} }, (m) => (m.method === 'elicitation/create' ? answer : undefined));
  const asked = { jsonrpc: '2.0', id: exchange.related[0]?.id, method: 'elicitation/create', params: ELICITATION };
  expectResult(t.era, exchange, text(reply), 'an elicitation round trip', [asked]);
}

/** 2026-07-28: the call answers input_required; the retry carries the answer and the requestState. */
async function elicitRetried(t: Transport, rng: Random): Promise<void> {
  const { answer, reply } = answerFor(rng);
  const first = await t.request('tools/call', { name: 'ask', arguments: {} });
  const requestState = first.response.result?.requestState;
  expectThat(typeof requestState === 'string' && requestState.length > 0, 'the first round of an elicitation: expected a requestState', first.response);
  const inputRequired = { resultType: 'input_required', inputRequests: { 'elicit-1': { method: 'elicitation/create', params: ELICITATION } }, requestState };
  expectEqual(first, { response: { jsonrpc: '2.0', id: first.response.id, result: inputRequired }, related: [] }, 'the first round of an elicitation');
  const retry = await t.request('tools/call', { name: 'ask', arguments: {}, inputResponses: { 'elicit-1': answer }, requestState });
  expectResult(t.era, retry, text(reply), 'the retry of an elicitation');
}

export const OPS: Record<Exclude<Kind, 'abrupt'>, (t: Transport, rng: Random, tag: string) => Promise<void>> = {
  async echo(t, rng, tag) {
    const value = `${tag} says ${rng.int(1e9)}`;
    expectResult(t.era, await t.request('tools/call', { name: 'echo', arguments: { text: value } }), text(value), 'the echo tool');
  },
  elicit: (t, rng) => (t.era === 'modern' ? elicitRetried(t, rng) : elicitPushed(t, rng)),
  async progress(t, rng, tag) {
    const steps = 1 + rng.int(4);
    const progressToken = `${tag}:${rng.int(1e9)}`;
    const exchange = await t.request('tools/call', { name: 'progress', arguments: { steps, delayMs: rng.int(3) }, _meta: { progressToken } });
    const expected = Array.from({ length: steps }, (_, i) => [
      notification('notifications/progress', { progressToken, progress: i + 1, total: steps, message: `step ${i + 1}` }),
      notification('notifications/message', { level: 'info', data: { step: i + 1 }, logger: 'soak' }),
    ]).flat();
    expectResult(t.era, exchange, text(`done:${steps}`), 'the progress tool', expected);
  },
  async fail(t, rng) {
    const code = rng.int(1000);
    const exchange = await t.request('tools/call', { name: 'fail', arguments: { code } });
    expectResult(t.era, exchange, { ...text(`failed on purpose (${code})`), isError: true }, 'the failing tool');
  },
  async list(t) {
    expectResult(t.era, await t.request('tools/list', {}), { tools: TOOLS, ...(t.era === 'modern' ? CACHE_HINTS : {}) }, 'tools/list');
  },
  /** 2026-07-28 has no ping: its clients ask server/discover instead. */
  async ping(t) {
    if (t.era === 'legacy') expectResult(t.era, await t.request('ping', {}), {}, 'ping');
    else expectResult(t.era, await t.request('server/discover', {}), { ...DISCOVERY, ...CACHE_HINTS }, 'server/discover');
  },
  notify: (t, rng) => t.notify('notifications/soak/tick', { n: rng.int(1e9) }),
};

/**
 * Start a call and vanish at its first sign of life: drop every connection while an elicitation waits
 * for an answer, or while a slow tool reports progress. The call must fail on the client's side.
 */
export async function vanishMidCall(t: Transport, rng: Random): Promise<void> {
  const ask = t.era === 'legacy' && rng.next() < 0.5;
  const params = ask ? { name: 'ask', arguments: {} } : { name: 'progress', arguments: { steps: 5, delayMs: 20 }, _meta: { progressToken: 'vanishing' } };
  const answered = await t
    .request('tools/call', params, () => void t.drop())
    .then(
      (exchange) => exchange,
      () => undefined,
    );
  expectThat(answered === undefined, 'a call whose connections were dropped mid-way: expected it to fail on the client side', answered);
}
