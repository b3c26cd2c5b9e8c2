/**
 * Multi Round-Trip Requests on 2026-07-28 over real Streamable HTTP: the era-portable replay form
 * (ctx.elicit / createMessage / listRoots), the explicit form (inputRequired, ctx.inputRequired),
 * answer validation, the requestState codec end to end, capability gating, prompts and resources,
 * the round cap, URL elicitation conversion and the confirm option.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  inputRequired,
  UrlElicitationRequiredError,
  type ElicitParams,
  type ElicitResult,
  type CreateMessageParams,
  type CreateMessageResult,
  type HandlerContext,
  type ListRootsResult,
  type McpServer,
  type RequestContext,
} from '../../src/index.js';
import { registerModernFixtures } from '../../conformance/fixture-modern.js';
import { ADA, NAME_Q, NAME_SCHEMA, PARIS, ROOTS, SAMPLE_Q, SEAT_Q, textOf } from '../helpers/client-requests.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { MODERN_CAPS, ModernClient, readSignedState, SEALED_STATE, SIGNED_STATE, type Reply } from '../helpers/modern.js';
import type { Json } from '../helpers/ws-client.js';
import { startHttp, type RunningHttp, TEST_STATE_KEY } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const mcp = useMcpClients(cleanups);

afterEach(() => {
  vi.restoreAllMocks();
});

/** A JSON-RPC result as it arrives over HTTP 200. */
function ok(id: number, result: Json): Reply {
  return { status: 200, body: { jsonrpc: '2.0', id, result } };
}

/** A JSON-RPC error as it arrives over HTTP. */
function failed(id: number, status: number, error: Json): Reply {
  return { status, body: { jsonrpc: '2.0', id, error } };
}

/** An input_required result with these requests and a signed requestState. */
function asks(inputRequests: Json, requestState: unknown = SIGNED_STATE): Json {
  return { resultType: 'input_required', inputRequests, requestState };
}

/** A complete tools/call result with one text block. */
function done(text: string, isError?: true): Json {
  return isError ? { resultType: 'complete', content: [{ type: 'text', text }], isError } : { resultType: 'complete', content: [{ type: 'text', text }] };
}

function elicitation(params: unknown): Json {
  return { method: 'elicitation/create', params };
}

const INVALID_STATE = (reason: string) => ({ code: -32602, message: 'Invalid or expired requestState', data: { reason } });

function stateOf(reply: Reply): string {
  const state = reply.body.result?.requestState;
  if (typeof state !== 'string') throw new Error(`no requestState in ${JSON.stringify(reply.body)}`);
  return state;
}

/** How the client's handlers answer; by default with ADA, PARIS and ROOTS. */
interface Answers {
  elicitation?: (params: ElicitParams, ctx: HandlerContext) => ElicitResult | Promise<ElicitResult>;
  sampling?: (params: CreateMessageParams, ctx: HandlerContext) => CreateMessageResult | Promise<CreateMessageResult>;
  roots?: (ctx: HandlerContext) => ListRootsResult | Promise<ListRootsResult>;
}

/** The methods whose requests may answer input_required. */
const INPUT_METHODS = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * An McpClient speaking 2026-07-28 to `running` over Streamable HTTP, declaring `capabilities`. It follows
 * input_required rounds by itself; its handlers record every input request they are given (`asked`) with the
 * round it came in (how many tools/call, prompts/get and resources/read requests the server had received),
 * and answer it.
 */
async function connect(running: RunningHttp, capabilities: Json, answers: Answers = {}) {
  let requests = 0;
  running.server.on('message', (_session, direction, message) => {
    if (direction === 'in' && INPUT_METHODS.has((message as { method?: string }).method ?? '')) requests++;
  });
  const asked: Json[] = [];
  const record = (method: string, ctx: HandlerContext, params?: unknown) =>
    void asked.push({ round: requests, era: ctx.era, inputKey: ctx.inputKey, method, ...(params === undefined ? {} : { params }) });
  const { client, errors } = await mcp.connectUrl(running.url, { era: 'modern', capabilities }, (c) => {
    c.onElicitation((params, ctx) => (record('elicitation/create', ctx, params), answers.elicitation?.(params, ctx) ?? (ADA as ElicitResult)));
    c.onSampling((params, ctx) => (record('sampling/createMessage', ctx, params), answers.sampling?.(params, ctx) ?? (PARIS as CreateMessageResult)));
    // A roots handler is given no params.
    c.onRoots((ctx) => (record('roots/list', ctx), answers.roots?.(ctx) ?? ROOTS));
  });
  return { client, asked, errors };
}

/** An input request as the client's handler got it, in round `round`. */
function input(round: number, inputKey: string, method: string, params?: unknown): Json {
  return { round, era: 'modern', inputKey, method, ...(params === undefined ? {} : { params }) };
}

function elicited(round: number, inputKey: string, params: unknown): Json {
  return input(round, inputKey, 'elicitation/create', params);
}

/** An elicitation answer by input key. */
function byKey(answers: Record<string, unknown>) {
  return (_params: ElicitParams, ctx: HandlerContext) => answers[ctx.inputKey!] as ElicitResult;
}

/** A tool `greet` that counts its runs (`log`) before and after asking for a name with ctx.elicit. */
function greeter(log: string[], options: { key?: string } = {}) {
  return (server: McpServer) =>
    server.registerTool('greet', {}, async (_args, ctx) => {
      log.push('before');
      const answer = await ctx.elicit(NAME_Q, options);
      log.push(`after:${answer.action}`);
      return answer.action === 'accept' ? `Hello, ${answer.content?.name}!` : `No name (${answer.action})`;
    });
}

describe('era-portable handlers: ctx.elicit, ctx.createMessage and ctx.listRoots on 2026-07-28', () => {
  it('answer a tools/call that asks with ctx.elicit with input_required: the question under elicit-1 and a signed requestState, without caching hints', async () => {
    const log: string[] = [];
    const { url } = await startHttp(cleanups, greeter(log));
    const client = new ModernClient(url, MODERN_CAPS.form);
    expect(await client.callTool('greet')).toEqual(ok(1, asks({ 'elicit-1': elicitation(NAME_Q) })));
    expect(log).toEqual(['before']);
  });

  it('replay the handler from the start on the retry, so side effects before the ask run again, and resolve the ask with the answer', async () => {
    const log: string[] = [];
    const running = await startHttp(cleanups, greeter(log));
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await client.callTool('greet')).toEqual(done('Hello, Ada!'));
    expect(asked).toEqual([elicited(1, 'elicit-1', NAME_Q)]);
    expect(log).toEqual(['before', 'before', 'after:accept']);
  });

  it('use an explicit key given with { key }', async () => {
    const log: string[] = [];
    const running = await startHttp(cleanups, greeter(log, { key: 'user_name' }));
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await client.callTool('greet')).toEqual(done('Hello, Ada!'));
    expect(asked).toEqual([elicited(1, 'user_name', NAME_Q)]);
  });

  it('number default keys in call order (elicit-1, sample-2, roots-3), one round per sequential ask, and accumulate the answers across rounds', async () => {
    let runs = 0;
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('survey', {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit(NAME_Q);
        const reply = await ctx.createMessage(SAMPLE_Q);
        const { roots } = await ctx.listRoots();
        return `${who.content?.name} / ${textOf(reply)} / ${roots.map((r) => r.uri).join(' ')}`;
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.all);
    // Each retry carries only the answers of the round before (McpClient sends no others): earlier ones ride in requestState.
    expect(await client.callTool('survey')).toEqual(done('Ada / Paris / file:///work file:///home'));
    expect(asked).toEqual([elicited(1, 'elicit-1', NAME_Q), input(2, 'sample-2', 'sampling/createMessage', SAMPLE_Q), input(3, 'roots-3', 'roots/list')]);
    expect(runs).toBe(4);
  });

  it('keep an answer from an earlier round even when a later retry sends that key again with another value', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('two', {}, async (_args, ctx) => {
        const who = await ctx.elicit(NAME_Q);
        const reply = await ctx.createMessage(SAMPLE_Q);
        return `${who.content?.name} / ${textOf(reply)}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.all);
    const r1 = await client.callTool('two');
    const r2 = await client.callTool('two', {}, { inputResponses: { 'elicit-1': ADA }, requestState: stateOf(r1) });
    const r3 = await client.callTool(
      'two',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Mallory' } }, 'sample-2': PARIS }, requestState: stateOf(r2) },
    );
    expect(r3).toEqual(ok(3, done('Ada / Paris')));
  });

  it('ask questions made together (Promise.all) in one round', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('pair', {}, async (_args, ctx) => {
        const [who, seat] = await Promise.all([ctx.elicit(NAME_Q), ctx.elicit(SEAT_Q)]);
        return `${who.content?.name} in ${seat.content?.seat}`;
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form, {
      elicitation: byKey({ 'elicit-1': ADA, 'elicit-2': { action: 'accept', content: { seat: '12A' } } }),
    });
    expect(await client.callTool('pair')).toEqual(done('Ada in 12A'));
    expect(asked).toEqual([elicited(1, 'elicit-1', NAME_Q), elicited(1, 'elicit-2', SEAT_Q)]);
  });

  it('still answer input_required when the handler catches the ask and returns something else', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('swallow', {}, async (_args, ctx) => {
        try {
          await ctx.elicit(NAME_Q);
        } catch {
          return 'swallowed';
        }
        return 'answered';
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await client.callTool('swallow')).toEqual(done('answered'));
    expect(asked).toEqual([elicited(1, 'elicit-1', NAME_Q)]);
  });

  it('accept an answer sent without requestState when it fits the question the handler asks now', async () => {
    const log: string[] = [];
    const { url } = await startHttp(cleanups, greeter(log));
    const client = new ModernClient(url, MODERN_CAPS.form);
    expect(await client.callTool('greet', {}, { inputResponses: { 'elicit-1': ADA } })).toEqual(ok(1, done('Hello, Ada!')));
    expect(log).toEqual(['before', 'after:accept']);
  });

  it('ask again when an answer sent without requestState does not fit the question asked now', async () => {
    const log: string[] = [];
    const { url } = await startHttp(cleanups, greeter(log));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const reply = await client.callTool('greet', {}, { inputResponses: { 'elicit-1': { action: 'accept', content: { name: 42 } } } });
    expect(reply).toEqual(ok(1, asks({ 'elicit-1': elicitation(NAME_Q) })));
    expect(log).toEqual(['before']);
  });

  it('hand a decline to the handler as { action: "decline" }, without any content the client sent along', async () => {
    const answers: unknown[] = [];
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('greet', {}, async (_args, ctx) => {
        const answer = await ctx.elicit(NAME_Q);
        answers.push(answer);
        return answer.action;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('greet');
    const reply = await client.callTool(
      'greet',
      {},
      { inputResponses: { 'elicit-1': { action: 'decline', content: { name: 'x' } } }, requestState: stateOf(first) },
    );
    expect(reply).toEqual(ok(2, done('decline')));
    expect(answers).toEqual([{ action: 'decline' }]);
  });

  it('hand sampling and roots answers to the handler as the client sent them', async () => {
    const seen: unknown[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('both', {}, async (_args, ctx) => {
        const [reply, roots] = await Promise.all([ctx.createMessage(SAMPLE_Q, { key: 'q' }), ctx.listRoots({ key: 'r' })]);
        seen.push(reply, roots);
        return 'ok';
      }),
    );
    const { client, asked } = await connect(running, { sampling: {}, roots: {} });
    expect(await client.callTool('both')).toEqual(done('ok'));
    expect(asked).toEqual([input(1, 'q', 'sampling/createMessage', SAMPLE_Q), input(1, 'r', 'roots/list')]);
    expect(seen).toEqual([PARIS, ROOTS]);
  });
});

describe('the explicit form: inputRequired() and ctx.inputRequired', () => {
  /** A tool `book` that returns inputRequired until it has a seat, recording what it saw each run. */
  function booking(seen: Json[]) {
    return (server: McpServer) =>
      server.registerTool('book', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, (args, ctx) => {
        seen.push({ inputResponses: ctx.inputResponses, requestState: ctx.requestState });
        const seat = ctx.inputResponses?.seat as { content?: { seat?: string } } | undefined;
        if (!seat) return inputRequired({ state: { city: args.city, step: 'seat' } }).addElicitation('seat', SEAT_Q);
        return `Booked ${seat.content?.seat} to ${(ctx.requestState as { city: string }).city}`;
      });
  }

  it('returns input_required with the requests a handler adds; the retry gives ctx.inputResponses the answers and ctx.requestState the state', async () => {
    const seen: Json[] = [];
    const running = await startHttp(cleanups, booking(seen));
    const seat = { action: 'accept', content: { seat: '12A' } };
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: () => seat as ElicitResult });
    expect(await client.callTool('book', { city: 'Paris' })).toEqual(done('Booked 12A to Paris'));
    expect(asked).toEqual([elicited(1, 'seat', SEAT_Q)]);
    expect(seen).toEqual([
      { inputResponses: {}, requestState: undefined },
      { inputResponses: { seat }, requestState: { city: 'Paris', step: 'seat' } },
    ]);
  });

  it('ignores answers under keys the last round did not ask', async () => {
    const seen: Json[] = [];
    const { url } = await startHttp(cleanups, booking(seen));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book', { city: 'Paris' });
    const seat = { action: 'accept', content: { seat: '3C' } };
    const inputResponses = { seat, extra: { action: 'accept', content: { anything: true } }, 'elicit-1': ADA };
    expect(await client.callTool('book', { city: 'Paris' }, { inputResponses, requestState: stateOf(first) })).toEqual(ok(2, done('Booked 3C to Paris')));
    expect(seen[1]).toEqual({ inputResponses: { seat }, requestState: { city: 'Paris', step: 'seat' } });
  });

  it('asks what a handler adds to ctx.inputRequired, whatever it returns', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('greeting', {}, (_args, ctx) => {
        const greeting = ctx.inputResponses?.greeting;
        if (!greeting) {
          ctx.inputRequired.addSampling('greeting', SAMPLE_Q).setState({ attempt: 1 });
          return 'this result is not sent';
        }
        return `${textOf(greeting)} (state ${JSON.stringify(ctx.requestState)})`;
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.sampling);
    expect(await client.callTool('greeting')).toEqual(done('Paris (state {"attempt":1})'));
    expect(asked).toEqual([input(1, 'greeting', 'sampling/createMessage', SAMPLE_Q)]);
  });

  it('sends an input_required with state only (no inputRequests) when the handler returns state alone, and the retry gets the state', async () => {
    const states: unknown[] = [];
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('poll', {}, (_args, ctx) => {
        states.push(ctx.requestState);
        return ctx.requestState === undefined ? inputRequired({ state: { ticket: 'T-1' } }) : `ticket ${(ctx.requestState as { ticket: string }).ticket} done`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.none);
    const first = await client.callTool('poll');
    expect(first).toEqual(ok(1, { resultType: 'input_required', requestState: SIGNED_STATE }));
    expect(await client.callTool('poll', {}, { requestState: stateOf(first) })).toEqual(ok(2, done('ticket T-1 done')));
    expect(states).toEqual([undefined, { ticket: 'T-1' }]);
  });

  it('answers -32603 when a handler returns an input-required with neither requests nor state', async () => {
    const running = await startHttp(cleanups, (server) => server.registerTool('empty', {}, () => inputRequired()));
    const { client, asked } = await connect(running, MODERN_CAPS.all);
    expect(await rpcError(client.callTool('empty'))).toEqual({
      code: -32603,
      message: 'tools/call empty returned an input-required with neither input requests nor state',
    });
    expect(asked).toEqual([]);
  });

  it('keeps the earlier state when a later round adds requests without state', async () => {
    const states: unknown[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('two', {}, (_args, ctx) => {
        states.push(ctx.requestState);
        if (ctx.requestState === undefined) return inputRequired({ state: { from: 'round 1' } }).addElicitation('a', NAME_Q);
        if (!ctx.inputResponses?.b) return inputRequired().addElicitation('b', SEAT_Q);
        return 'finished';
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: byKey({ a: ADA, b: { action: 'accept', content: { seat: '1A' } } }) });
    expect(await client.callTool('two')).toEqual(done('finished'));
    expect(asked).toEqual([elicited(1, 'a', NAME_Q), elicited(2, 'b', SEAT_Q)]);
    expect(states).toEqual([undefined, { from: 'round 1' }, { from: 'round 1' }]);
  });

  it('gives ctx.inputResponses the answers of every round so far', async () => {
    const seen: unknown[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('steps', {}, (_args, ctx) => {
        seen.push(ctx.inputResponses);
        if (!ctx.inputResponses?.a) return inputRequired().addElicitation('a', NAME_Q);
        if (!ctx.inputResponses?.b) return inputRequired().addElicitation('b', SEAT_Q);
        return 'both';
      }),
    );
    const seat = { action: 'accept', content: { seat: '2B' } };
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: byKey({ a: ADA, b: seat }) });
    expect(await client.callTool('steps')).toEqual(done('both'));
    expect(asked).toEqual([elicited(1, 'a', NAME_Q), elicited(2, 'b', SEAT_Q)]);
    expect(seen).toEqual([{}, { a: ADA }, { a: ADA, b: seat }]);
  });

  it('runs the multi-round fixture: one question per round, state carried between them', async () => {
    const running = await startHttp(cleanups, registerModernFixtures);
    const { client, asked } = await connect(running, MODERN_CAPS.form, {
      elicitation: byKey({ step1: ADA, step2: { action: 'accept', content: { color: 'green' } } }),
    });
    expect(await client.callTool('test_input_required_result_multi_round')).toEqual(done('Ada likes green.'));
    const colorSchema = { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] };
    expect(asked).toEqual([
      elicited(1, 'step1', { message: 'Step 1: What is your name?', requestedSchema: NAME_SCHEMA }),
      elicited(2, 'step2', { message: 'Step 2: What is your favorite color?', requestedSchema: colorSchema }),
    ]);
  });

  it('runs the multiple-inputs fixture: three kinds in one round, answered in one retry', async () => {
    const running = await startHttp(cleanups, registerModernFixtures);
    const { client, asked } = await connect(running, MODERN_CAPS.all, {
      sampling: () => ({ ...PARIS, content: { type: 'text', text: 'Bonjour' } }) as CreateMessageResult,
    });
    expect(await client.callTool('test_input_required_result_multiple_inputs')).toEqual(done('Bonjour Ada; 2 root(s)'));
    expect(asked).toEqual([
      elicited(1, 'user_name', { message: 'What is your name?', requestedSchema: NAME_SCHEMA }),
      input(1, 'greeting', 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
      input(1, 'client_roots', 'roots/list'),
    ]);
  });
});

describe('answer validation', () => {
  /** A tool `greet` that returns inputRequired until it has a valid name answer; `runs` counts completions. */
  async function explicitGreeter() {
    const completed: unknown[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('greet', {}, (_args, ctx) => {
        const answer = ctx.inputResponses?.name;
        if (!answer) return inputRequired({ state: { asked: 'name' } }).addElicitation('name', NAME_Q);
        completed.push(answer);
        return `answered ${JSON.stringify(answer)}`;
      }),
    );
    return { ...running, completed };
  }

  it.each([
    ['an action outside accept/decline/cancel', { name: { action: 'maybe' } }],
    ['accepted content that does not fit the schema (wrong type)', { name: { action: 'accept', content: { name: 42 } } }],
    ['accepted content missing a required property', { name: { action: 'accept', content: {} } }],
    ['an accept with no content where a property is required', { name: { action: 'accept' } }],
    ['accepted content that is not an object', { name: { action: 'accept', content: 'Ada' } }],
    ['an answer that is not an object', { name: 'accept' }],
    ['a missing key (no answers)', {}],
    ['an answer under the wrong key', { nom: ADA }],
  ])('asks again with a new input_required, not an error, for %s', async (_what, inputResponses) => {
    const { url, completed } = await explicitGreeter();
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('greet');
    const again = await client.callTool('greet', {}, { inputResponses, requestState: stateOf(first) });
    expect(again).toEqual(ok(2, asks({ name: elicitation(NAME_Q) })));
    expect(stateOf(again)).not.toBe(stateOf(first));
    expect(completed).toEqual([]);
    // The new requestState works: a fitting answer completes.
    const third = await client.callTool('greet', {}, { inputResponses: { name: ADA }, requestState: stateOf(again) });
    expect(third).toEqual(ok(3, done(`answered ${JSON.stringify(ADA)}`)));
  });

  it('asks again when inputResponses is not an object', async () => {
    const { url } = await explicitGreeter();
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('greet');
    expect(await client.callTool('greet', {}, { inputResponses: [ADA], requestState: stateOf(first) })).toEqual(ok(2, asks({ name: elicitation(NAME_Q) })));
  });

  it.each([
    ['accept', { action: 'accept', content: { name: 'Ada' } }, { action: 'accept', content: { name: 'Ada' } }],
    ['decline', { action: 'decline' }, { action: 'decline' }],
    ['cancel', { action: 'cancel', content: { name: 'ignored' } }, { action: 'cancel' }],
  ])('accepts a %s answer', async (_action, answer, handed) => {
    const { url, completed } = await explicitGreeter();
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('greet');
    expect(await client.callTool('greet', {}, { inputResponses: { name: answer }, requestState: stateOf(first) })).toEqual(
      ok(2, done(`answered ${JSON.stringify(handed)}`)),
    );
    expect(completed).toEqual([handed]);
  });

  it('validates content against the schema that was asked, with formats', async () => {
    const emailQ = {
      message: 'Email?',
      requestedSchema: { type: 'object', properties: { email: { type: 'string', format: 'email' } }, required: ['email'] },
    } as unknown as ElicitParams;
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('mail', {}, async (_args, ctx) => {
        const answer = await ctx.elicit(emailQ);
        return String(answer.content?.email);
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('mail');
    const bad = await client.callTool(
      'mail',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { email: 'not an email' } } }, requestState: stateOf(first) },
    );
    expect(bad).toEqual(ok(2, asks({ 'elicit-1': elicitation(emailQ) })));
    const good = await client.callTool(
      'mail',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { email: 'ada@example.com' } } }, requestState: stateOf(bad) },
    );
    expect(good).toEqual(ok(3, done('ada@example.com')));
  });

  it.each([
    ['a role other than user or assistant', { ...PARIS, role: 'system' }],
    ['no content', { role: 'assistant', model: 'm' }],
    ['no model', { role: 'assistant', content: { type: 'text', text: 'Paris' } }],
    ['a model that is not a string', { ...PARIS, model: 7 }],
  ])('asks a sampling question again for an answer with %s', async (_what, answer) => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx) => textOf(await ctx.createMessage(SAMPLE_Q, { key: 'q' }))),
    );
    const client = new ModernClient(url, MODERN_CAPS.sampling);
    const first = await client.callTool('ask');
    const again = await client.callTool('ask', {}, { inputResponses: { q: answer }, requestState: stateOf(first) });
    expect(again).toEqual(ok(2, asks({ q: { method: 'sampling/createMessage', params: SAMPLE_Q } })));
  });

  it('accepts a sampling answer whose content is an array of blocks', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('ask', {}, async (_args, ctx) => JSON.stringify((await ctx.createMessage(SAMPLE_Q, { key: 'q' })).content)),
    );
    const blocks = [
      { type: 'text', text: 'Pa' },
      { type: 'text', text: 'ris' },
    ];
    const { client, asked } = await connect(running, MODERN_CAPS.sampling, { sampling: () => ({ role: 'assistant', content: blocks, model: 'm' }) });
    expect(await client.callTool('ask')).toEqual(done(JSON.stringify(blocks)));
    expect(asked).toEqual([input(1, 'q', 'sampling/createMessage', SAMPLE_Q)]);
  });

  it.each([
    ['roots that is not an array', { roots: 'file:///work' }],
    ['a root without a uri', { roots: [{ name: 'Work' }] }],
    ['a root whose uri is not a string', { roots: [{ uri: 7 }] }],
    ['no roots at all', {}],
  ])('asks a roots question again for an answer with %s', async (_what, answer) => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('where', {}, async (_args, ctx) => String((await ctx.listRoots({ key: 'r' })).roots.length)),
    );
    const client = new ModernClient(url, MODERN_CAPS.roots);
    const first = await client.callTool('where');
    const again = await client.callTool('where', {}, { inputResponses: { r: answer }, requestState: stateOf(first) });
    expect(again).toEqual(ok(2, asks({ r: { method: 'roots/list', params: {} } })));
    expect(await client.callTool('where', {}, { inputResponses: { r: { roots: [] } }, requestState: stateOf(again) })).toEqual(ok(3, done('0')));
  });
});

describe('requestState end to end', () => {
  /** A tool `book` (arguments from, to) that asks for a seat, and counts its runs. */
  function seatTool(server: McpServer, runs: { count: number }, name = 'book') {
    server.registerTool(name, { inputSchema: { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } } }, async (args, ctx) => {
      runs.count++;
      const seat = await ctx.elicit(SEAT_Q, { key: 'seat' });
      return `${args.from}-${args.to} seat ${seat.content?.seat} (state ${JSON.stringify(ctx.requestState)})`;
    });
  }
  const SEAT = { inputResponses: { seat: { action: 'accept', content: { seat: '7F' } } } };
  const TRIP = { from: 'LHR', to: 'JFK' };

  it('refuses a tampered requestState with HTTP 400 and -32602 "Invalid or expired requestState", without running the handler', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', TRIP));
    const [version, kid, payload, mac] = state.split('.');
    const forged = { ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')), answers: SEAT.inputResponses };
    const tampered = [version, kid, Buffer.from(JSON.stringify(forged)).toString('base64url'), mac].join('.');
    expect(await client.callTool('book', TRIP, { requestState: tampered })).toEqual(failed(2, 400, INVALID_STATE('bad signature')));
    expect(runs.count).toBe(1);
  });

  it('refuses a requestState that is not a string, or was never issued', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs));
    const client = new ModernClient(url, MODERN_CAPS.form);
    expect(await client.callTool('book', TRIP, { requestState: { round: 1 } })).toEqual(failed(1, 400, INVALID_STATE('not a requestState this server issued')));
    expect(await client.callTool('book', TRIP, { requestState: 'eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0' })).toEqual(failed(2, 400, INVALID_STATE('unknown key')));
    expect(runs.count).toBe(0);
  });

  it('refuses a requestState presented to another tool', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => {
      seatTool(server, runs, 'book');
      seatTool(server, runs, 'rebook');
    });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', TRIP));
    expect(await client.callTool('rebook', TRIP, { ...SEAT, requestState: state })).toEqual(failed(2, 400, INVALID_STATE('issued for another request')));
  });

  it('refuses a tools/call requestState presented to prompts/get of the same name', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => {
      seatTool(server, runs, 'book');
      server.registerPrompt('book', {}, () => ({ messages: [] }));
    });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', {}));
    expect(await client.getPrompt('book', {}, { requestState: state })).toEqual(failed(2, 400, INVALID_STATE('issued for another request')));
  });

  it('refuses a requestState presented with other argument values', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', TRIP));
    expect(await client.callTool('book', { from: 'LHR', to: 'SFO' }, { ...SEAT, requestState: state })).toEqual(
      failed(2, 400, INVALID_STATE('issued for another request')),
    );
    expect(await client.callTool('book', { from: 'LHR' }, { ...SEAT, requestState: state })).toEqual(
      failed(3, 400, INVALID_STATE('issued for another request')),
    );
  });

  it('accepts a requestState presented with the same arguments in another key order', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', { from: 'LHR', to: 'JFK' }));
    expect(await client.callTool('book', { to: 'JFK', from: 'LHR' }, { ...SEAT, requestState: state })).toEqual(
      ok(2, done('LHR-JFK seat 7F (state undefined)')),
    );
  });

  it('refuses a requestState minted for another authenticated principal', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs), {
      transport: { auth: (req) => (typeof req.headers['x-user'] === 'string' ? { id: req.headers['x-user'] } : undefined) },
    });
    const alice = new ModernClient(url, MODERN_CAPS.form, { 'x-user': 'alice' });
    const bob = new ModernClient(url, MODERN_CAPS.form, { 'x-user': 'bob' });
    const state = stateOf(await alice.callTool('book', TRIP));
    expect(await bob.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(failed(1, 400, INVALID_STATE('issued for another request')));
    expect(await alice.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(ok(2, done('LHR-JFK seat 7F (state undefined)')));
  });

  it('refuses a requestState once its TTL has passed', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs), { server: { requestState: { keys: [TEST_STATE_KEY], ttlMs: 60_000 } } });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', TRIP));
    const { expiresAt } = readSignedState(state);
    vi.spyOn(Date, 'now').mockReturnValue(expiresAt);
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(failed(2, 400, INVALID_STATE('expired')));
    vi.mocked(Date.now).mockReturnValue(expiresAt - 1);
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(ok(3, done('LHR-JFK seat 7F (state undefined)')));
  });

  it('accepts a requestState minted with an old key on a server that still verifies it, and refuses it on one that dropped the key', async () => {
    const oldKey = 'old-request-state-key-0123456789abcdef';
    const newKey = 'new-request-state-key-0123456789abcdef';
    const runs = { count: 0 };
    const before = await startHttp(cleanups, (server) => seatTool(server, runs), { server: { requestState: { keys: [oldKey] } } });
    const rotating = await startHttp(cleanups, (server) => seatTool(server, runs), { server: { requestState: { keys: [newKey, oldKey] } } });
    const after = await startHttp(cleanups, (server) => seatTool(server, runs), { server: { requestState: { keys: [newKey] } } });
    const state = stateOf(await new ModernClient(before.url, MODERN_CAPS.form).callTool('book', TRIP));
    expect(await new ModernClient(rotating.url, MODERN_CAPS.form).callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(
      ok(1, done('LHR-JFK seat 7F (state undefined)')),
    );
    expect(await new ModernClient(after.url, MODERN_CAPS.form).callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(
      failed(1, 400, INVALID_STATE('unknown key')),
    );
  });

  it('with seal: true sends a requestState whose payload cannot be read, and it still works', async () => {
    const { url } = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('vault', {}, (_args, ctx) => {
          if (!ctx.inputResponses?.pin) return inputRequired({ state: { vault: 'vault-secret-4242' } }).addElicitation('pin', NAME_Q);
          return `opened ${(ctx.requestState as { vault: string }).vault}`;
        }),
      { server: { requestState: { keys: [TEST_STATE_KEY], seal: true } } },
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('vault');
    expect(first).toEqual(ok(1, asks({ pin: elicitation(NAME_Q) }, SEALED_STATE)));
    const body = Buffer.from(stateOf(first).split('.')[2], 'base64url').toString('latin1');
    expect(body).not.toContain('vault-secret-4242');
    expect(body).not.toContain('"asked"');
    expect(await client.callTool('vault', {}, { inputResponses: { pin: ADA }, requestState: stateOf(first) })).toEqual(ok(2, done('opened vault-secret-4242')));
  });

  it('a signed-only requestState can be read by the client (seal is off by default)', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('vault', {}, () => inputRequired({ state: { vault: 'vault-secret-4242' } }).addElicitation('pin', NAME_Q)),
    );
    const state = stateOf(await new ModernClient(url, MODERN_CAPS.form).callTool('vault'));
    expect(readSignedState(state).state).toEqual({ vault: 'vault-secret-4242' });
  });

  it('refuses a reused requestState when the consume hook says it was seen', async () => {
    const runs = { count: 0 };
    const seen = new Set<string>();
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs), {
      server: { requestState: { keys: [TEST_STATE_KEY], consume: (id) => !seen.has(id) && !!seen.add(id) } },
    });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const state = stateOf(await client.callTool('book', TRIP));
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(ok(2, done('LHR-JFK seat 7F (state undefined)')));
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: state })).toEqual(failed(3, 400, INVALID_STATE('already used')));
    expect(runs.count).toBe(2);
  });

  it('with no keys configured emits the SWITCHBOARD_EPHEMERAL_STATE_KEY warning once, and its states still work', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => seatTool(server, runs), { server: { requestState: undefined } });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book', TRIP);
    const second = await client.callTool('book', TRIP);
    // Without single use a state carries no id, so two minted in the same millisecond may be equal: each must open.
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: stateOf(second) })).toEqual(ok(3, done('LHR-JFK seat 7F (state undefined)')));
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: stateOf(first) })).toEqual(ok(4, done('LHR-JFK seat 7F (state undefined)')));
    const ours = warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === 'SWITCHBOARD_EPHEMERAL_STATE_KEY');
    expect(ours).toEqual([
      [
        'requestState is signed with a random per-process key: set requestState.keys when several instances serve one endpoint, or retries will fail',
        { code: 'SWITCHBOARD_EPHEMERAL_STATE_KEY' },
      ],
    ]);
  });

  it('with keys configured emits no ephemeral-key warning', async () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const runs = { count: 0 };
    const running = await startHttp(cleanups, (server) => seatTool(server, runs));
    const { client } = await connect(running, MODERN_CAPS.form, { elicitation: () => SEAT.inputResponses.seat as ElicitResult });
    expect(await client.callTool('book', TRIP)).toEqual(done('LHR-JFK seat 7F (state undefined)'));
    expect(warn.mock.calls.filter(([, options]) => (options as { code?: string } | undefined)?.code === 'SWITCHBOARD_EPHEMERAL_STATE_KEY')).toEqual([]);
  });
});

describe('the round cap', () => {
  /** A tool that asks one more question every round, however it is answered. */
  function insatiable(server: McpServer, runs: { count: number }) {
    server.registerTool('insatiable', {}, (_args, ctx) => {
      runs.count++;
      const round = ((ctx.requestState as number | undefined) ?? 0) + 1;
      return inputRequired({ state: round }).addElicitation(`q${round}`, NAME_Q);
    });
  }

  it('answers -32602 (HTTP 400) once a request has taken 8 input rounds by default', async () => {
    const runs = { count: 0 };
    const { url } = await startHttp(cleanups, (server) => insatiable(server, runs));
    const client = new ModernClient(url, MODERN_CAPS.form);
    let reply = await client.callTool('insatiable');
    for (let round = 1; round <= 8; round++) {
      expect(reply).toEqual(ok(round, asks({ [`q${round}`]: elicitation(NAME_Q) })));
      expect(readSignedState(stateOf(reply)).round).toBe(round);
      reply = await client.callTool('insatiable', {}, { inputResponses: { [`q${round}`]: ADA }, requestState: stateOf(reply) });
    }
    expect(reply).toEqual(
      failed(9, 400, {
        code: -32602,
        message: "tools/call insatiable asked for input 8 times without finishing; answer every input request in one retry, or raise the server's maxRounds",
      }),
    );
    expect(runs.count).toBe(9);
  });

  it("honours the server's maxRounds", async () => {
    const runs = { count: 0 };
    const running = await startHttp(cleanups, (server) => insatiable(server, runs), { server: { requestState: { keys: [TEST_STATE_KEY] }, maxRounds: 2 } });
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await rpcError(client.callTool('insatiable'))).toEqual({
      code: -32602,
      message: "tools/call insatiable asked for input 2 times without finishing; answer every input request in one retry, or raise the server's maxRounds",
    });
    expect(asked).toEqual([elicited(1, 'q1', NAME_Q), elicited(2, 'q2', NAME_Q)]);
    expect(runs.count).toBe(3);
  });

  it('counts rounds that asked again because an answer did not fit', async () => {
    const log: string[] = [];
    const { url } = await startHttp(cleanups, greeter(log), { server: { requestState: { keys: [TEST_STATE_KEY] }, maxRounds: 2 } });
    const client = new ModernClient(url, MODERN_CAPS.form);
    const bad = { 'elicit-1': { action: 'accept', content: {} } };
    const r1 = await client.callTool('greet');
    const r2 = await client.callTool('greet', {}, { inputResponses: bad, requestState: stateOf(r1) });
    expect(r2).toEqual(ok(2, asks({ 'elicit-1': elicitation(NAME_Q) })));
    expect((await client.callTool('greet', {}, { inputResponses: bad, requestState: stateOf(r2) })).body.error).toEqual({
      code: -32602,
      message: "tools/call greet asked for input 2 times without finishing; answer every input request in one retry, or raise the server's maxRounds",
    });
  });
});

describe('capability gating', () => {
  const FORM_MISSING = {
    code: -32021,
    message: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
    data: { requiredCapabilities: { elicitation: { form: {} } } },
  };
  const URL_MISSING = {
    code: -32021,
    message: 'The client did not declare url-mode elicitation (capabilities.elicitation.url); ask another way, or use form mode if it declared that',
    data: { requiredCapabilities: { elicitation: { url: {} } } },
  };
  const SAMPLING_MISSING = {
    code: -32021,
    message: 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage',
    data: { requiredCapabilities: { sampling: {} } },
  };
  const ROOTS_MISSING = {
    code: -32021,
    message: 'The client did not declare the roots capability; it cannot be asked for roots/list',
    data: { requiredCapabilities: { roots: {} } },
  };
  const URL_Q = { mode: 'url', message: 'Sign in', url: 'https://auth.example.com/start' } as ElicitParams;

  function asker(server: McpServer) {
    server.registerTool('form', {}, async (_args, ctx) => (await ctx.elicit(NAME_Q)).action);
    server.registerTool('url', {}, async (_args, ctx) => (await ctx.elicit(URL_Q)).action);
    server.registerTool('sample', {}, async (_args, ctx) => textOf(await ctx.createMessage(SAMPLE_Q)));
    server.registerTool('sample-tools', {}, async (_args, ctx) =>
      textOf(await ctx.createMessage({ ...SAMPLE_Q, tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] } as CreateMessageParams)),
    );
    server.registerTool('roots', {}, async (_args, ctx) => String((await ctx.listRoots()).roots.length));
  }

  it.each([
    ['form elicitation', 'form', MODERN_CAPS.none, FORM_MISSING],
    ['form elicitation when only url is declared', 'form', MODERN_CAPS.url, FORM_MISSING],
    ['url elicitation when elicitation is {} (form only)', 'url', MODERN_CAPS.elicitationEmpty, URL_MISSING],
    ['url elicitation when only form is declared', 'url', MODERN_CAPS.form, URL_MISSING],
    ['sampling', 'sample', { elicitation: {}, roots: {} }, SAMPLING_MISSING],
    ['roots', 'roots', { elicitation: {}, sampling: {} }, ROOTS_MISSING],
    [
      'sampling with tools without sampling.tools',
      'sample-tools',
      MODERN_CAPS.sampling,
      {
        code: -32021,
        message: 'The client did not declare sampling.tools; send the request without tools and toolChoice',
        data: { requiredCapabilities: { sampling: { tools: {} } } },
      },
    ],
  ])('answers HTTP 400 -32021 with data.requiredCapabilities when a tool asks for %s the request did not declare', async (_what, tool, capabilities, error) => {
    const { url } = await startHttp(cleanups, asker);
    expect(await new ModernClient(url, capabilities).callTool(tool)).toEqual(failed(1, 400, error));
  });

  it('treats elicitation: {} as form mode', async () => {
    const { url } = await startHttp(cleanups, asker);
    expect(await new ModernClient(url, MODERN_CAPS.elicitationEmpty).callTool('form')).toEqual(ok(1, asks({ 'elicit-1': elicitation(NAME_Q) })));
  });

  it('asks sampling with tools when sampling.tools is declared', async () => {
    const running = await startHttp(cleanups, asker);
    const params = { ...SAMPLE_Q, tools: [{ name: 'lookup', inputSchema: { type: 'object' } }] };
    const { client, asked } = await connect(running, { sampling: { tools: {} } });
    expect(await client.callTool('sample-tools')).toEqual(done('Paris'));
    expect(asked).toEqual([input(1, 'sample-1', 'sampling/createMessage', params)]);
  });

  it('answers -32021 when an explicit input-required holds a kind the request did not declare, even beside declared ones', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('mixed', {}, () => inputRequired({ state: 1 }).addElicitation('name', NAME_Q).addRoots('roots')),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await rpcError(client.callTool('mixed'))).toEqual(ROOTS_MISSING);
    expect(asked).toEqual([]);
  });

  it('answers -32021 from a prompt that asks for an undeclared kind', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerPrompt('ctx', {}, async (_args, ctx) => ({
        messages: [{ role: 'user', content: { type: 'text', text: textOf(await ctx.createMessage(SAMPLE_Q)) } }],
      })),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await rpcError(client.getPrompt('ctx'))).toEqual(SAMPLING_MISSING);
    expect(asked).toEqual([]);
  });

  it('lets the capabilities fixture ask only what the request declared', async () => {
    const running = await startHttp(cleanups, registerModernFixtures);
    const { client, asked } = await connect(running, MODERN_CAPS.sampling);
    expect(await client.callTool('test_input_required_result_capabilities')).toEqual(done('Thanks for the input.'));
    expect(asked).toEqual([
      input(1, 'greeting', 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
    ]);
  });
});

describe('prompts/get and resources/read', () => {
  it('runs the prompt fixture: input_required from prompts/get, then the messages on the retry', async () => {
    const running = await startHttp(cleanups, registerModernFixtures);
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: () => ({ action: 'accept', content: { context: 'a sunny day' } }) });
    const contextQ = {
      message: 'What context should the prompt use?',
      requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
    };
    expect(await client.getPrompt('test_input_required_result_prompt')).toEqual({
      resultType: 'complete',
      messages: [{ role: 'user', content: { type: 'text', text: 'Use this context: a sunny day' } }],
    });
    expect(asked).toEqual([elicited(1, 'user_context', contextQ)]);
  });

  it('binds a prompt requestState to the prompt arguments', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerPrompt('summary', { arguments: [{ name: 'topic', required: true }] }, (args, ctx) => {
        const tone = ctx.inputResponses?.tone as { content?: { tone?: string } } | undefined;
        if (!tone)
          return inputRequired({ state: { topic: args.topic } }).addElicitation('tone', {
            message: 'Tone?',
            requestedSchema: { type: 'object', properties: { tone: { type: 'string' } } },
          } as unknown as ElicitParams);
        return { messages: [{ role: 'user', content: { type: 'text', text: `${tone.content?.tone} summary of ${args.topic}` } }] };
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.getPrompt('summary', { topic: 'tides' });
    const tone = { tone: { action: 'accept', content: { tone: 'calm' } } };
    expect(await client.getPrompt('summary', { topic: 'storms' }, { inputResponses: tone, requestState: stateOf(first) })).toEqual(
      failed(2, 400, INVALID_STATE('issued for another request')),
    );
    expect(await client.getPrompt('summary', { topic: 'tides' }, { inputResponses: tone, requestState: stateOf(first) })).toEqual(
      ok(3, { resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: 'calm summary of tides' } }] }),
    );
  });

  it('answers resources/read with input_required (no caching hints), and the retry with the contents and caching hints', async () => {
    const codeQ = {
      message: 'Access code?',
      requestedSchema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    } as unknown as ElicitParams;
    let runs = 0;
    const { url } = await startHttp(cleanups, (server) =>
      server.registerResource('test://locked', { name: 'locked', mimeType: 'text/plain' }, async (_uri, ctx) => {
        runs++;
        const answer = await ctx.elicit(codeQ, { key: 'code' });
        return `unlocked with ${answer.content?.code}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.readResource('test://locked');
    expect(first).toEqual(ok(1, asks({ code: elicitation(codeQ) })));
    const second = await client.readResource('test://locked', {
      inputResponses: { code: { action: 'accept', content: { code: '1234' } } },
      requestState: stateOf(first),
    });
    expect(second).toEqual(
      ok(2, {
        resultType: 'complete',
        contents: [{ uri: 'test://locked', mimeType: 'text/plain', text: 'unlocked with 1234' }],
        ttlMs: 0,
        cacheScope: 'private',
      }),
    );
    expect(runs).toBe(2);
  });

  it('answers a templated resources/read with the input-required its handler returns, bound to the URI', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerResourceTemplate('test://docs/{id}', { name: 'docs', mimeType: 'text/plain' }, (uri, { id }, ctx) => {
        if (!ctx.inputResponses?.ok)
          return inputRequired({ state: { id } }).addElicitation('ok', {
            message: `Open ${uri}?`,
            requestedSchema: { type: 'object', properties: {} },
          } as unknown as ElicitParams);
        return `doc ${(ctx.requestState as { id: string }).id}`;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.readResource('test://docs/7');
    expect(first).toEqual(ok(1, asks({ ok: elicitation({ message: 'Open test://docs/7?', requestedSchema: { type: 'object', properties: {} } }) })));
    const answer = { inputResponses: { ok: { action: 'accept' } }, requestState: stateOf(first) };
    expect(await client.readResource('test://docs/8', answer)).toEqual(failed(2, 400, INVALID_STATE('issued for another request')));
    expect(await client.readResource('test://docs/7', answer)).toEqual(
      ok(3, { resultType: 'complete', contents: [{ uri: 'test://docs/7', mimeType: 'text/plain', text: 'doc 7' }], ttlMs: 0, cacheScope: 'private' }),
    );
  });
});

describe('methods that cannot ask for input', () => {
  const CANNOT = { code: -32600, message: 'completion/complete cannot ask for input: only tools/call, prompts/get and resources/read can' };

  /** completion/complete of a prompt whose completer runs `ask`: the error it fails with, and the input requests the client was given. */
  async function completing(ask: (ctx: RequestContext) => Promise<unknown> | unknown) {
    const running = await startHttp(cleanups, (server) =>
      server.registerPrompt('p', { arguments: [{ name: 'city' }], complete: { city: async (_value, { ctx }) => (await ask(ctx), ['Paris']) } }, () => ({
        messages: [],
      })),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.all);
    const error = await rpcError(client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'city', value: 'Pa' } }));
    return { error, asked };
  }

  it('answers completion/complete whose completer calls ctx.elicit with an error, not input_required', async () => {
    expect(await completing((ctx) => ctx.elicit(NAME_Q))).toEqual({ error: CANNOT, asked: [] });
  });

  it('answers completion/complete whose completer uses ctx.inputRequired with an error, not input_required', async () => {
    expect(await completing((ctx) => ctx.inputRequired.addElicitation('x', NAME_Q))).toEqual({ error: CANNOT, asked: [] });
  });

  it('answers completion/complete whose completer calls ctx.createMessage or ctx.listRoots with an error', async () => {
    expect(await completing((ctx) => ctx.createMessage(SAMPLE_Q))).toEqual({ error: CANNOT, asked: [] });
  });
});

describe('UrlElicitationRequiredError on 2026-07-28', () => {
  it('becomes input_required with url-mode elicitation requests keyed by elicitationId, without elicitationId in the params', async () => {
    let runs = 0;
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('connect', {}, (_args, ctx) => {
        runs++;
        const done = ctx.inputResponses?.['auth-1'] as { action?: string } | undefined;
        if (done?.action !== 'accept')
          throw new UrlElicitationRequiredError([{ message: 'Sign in to Example', url: 'https://auth.example.com/start?s=1', elicitationId: 'auth-1' }]);
        return 'connected';
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.url, { elicitation: () => ({ action: 'accept' }) });
    expect(await client.callTool('connect')).toEqual(done('connected'));
    expect(asked).toEqual([elicited(1, 'auth-1', { mode: 'url', message: 'Sign in to Example', url: 'https://auth.example.com/start?s=1' })]);
    expect(runs).toBe(2);
  });

  it('keys elicitations without an id by a generated one, one request each', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('connect', {}, () => {
        throw new UrlElicitationRequiredError([
          { message: 'Sign in to A', url: 'https://a.example.com/' },
          { message: 'Sign in to B', url: 'https://b.example.com/' },
        ]);
      }),
    );
    const reply = await new ModernClient(url, MODERN_CAPS.url).callTool('connect');
    const requests = reply.body.result.inputRequests as Json;
    const keys = Object.keys(requests);
    expect(keys).toHaveLength(2);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(reply).toEqual(
      ok(
        1,
        asks({
          [keys[0]]: elicitation({ mode: 'url', message: 'Sign in to A', url: 'https://a.example.com/' }),
          [keys[1]]: elicitation({ mode: 'url', message: 'Sign in to B', url: 'https://b.example.com/' }),
        }),
      ),
    );
  });

  it('answers -32021 asking for elicitation.url when the request did not declare url mode', async () => {
    const running = await startHttp(cleanups, (server) =>
      server.registerTool('connect', {}, () => {
        throw new UrlElicitationRequiredError([{ message: 'Sign in', url: 'https://auth.example.com/', elicitationId: 'auth-1' }]);
      }),
    );
    const { client, asked } = await connect(running, MODERN_CAPS.form);
    expect(await rpcError(client.callTool('connect'))).toEqual({
      code: -32021,
      message: 'The client did not declare url-mode elicitation (capabilities.elicitation.url); ask another way, or use form mode if it declared that',
      data: { requiredCapabilities: { elicitation: { url: {} } } },
    });
    expect(asked).toEqual([]);
  });

  it('drops elicitationId from url-mode requests added explicitly', async () => {
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('connect', {}, () =>
        inputRequired({ state: 1 }).addElicitation('login', {
          mode: 'url',
          message: 'Log in',
          url: 'https://auth.example.com/',
          elicitationId: 'e-9',
        } as ElicitParams),
      ),
    );
    expect(await new ModernClient(url, MODERN_CAPS.url).callTool('connect')).toEqual(
      ok(1, asks({ login: elicitation({ mode: 'url', message: 'Log in', url: 'https://auth.example.com/' }) })),
    );
  });
});

describe('the confirm tool option on 2026-07-28', () => {
  const QUESTION = { message: 'Delete /tmp/a?', requestedSchema: { type: 'object', properties: {} } };

  async function guarded() {
    const runs: unknown[] = [];
    const running = await startHttp(cleanups, (server) =>
      server.registerTool(
        'delete',
        { inputSchema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }, confirm: (args) => `Delete ${String(args.path)}?` },
        (args) => {
          runs.push(args);
          return `deleted ${String(args.path)}`;
        },
      ),
    );
    return { ...running, runs };
  }

  it('asks for confirmation with input_required before the tool runs, and runs it once on accept', async () => {
    const { runs, ...running } = await guarded();
    // The tool has not run when the question arrives.
    const runsWhenAsked: number[] = [];
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: () => (runsWhenAsked.push(runs.length), { action: 'accept' }) });
    expect(await client.callTool('delete', { path: '/tmp/a' })).toEqual(done('deleted /tmp/a'));
    expect(asked).toEqual([elicited(1, 'elicit-1', QUESTION)]);
    expect(runsWhenAsked).toEqual([0]);
    expect(runs).toEqual([{ path: '/tmp/a' }]);
  });

  it('answers decline with an isError result and does not run the tool', async () => {
    const { runs, ...running } = await guarded();
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: () => ({ action: 'decline' }) });
    expect(await client.callTool('delete', { path: '/tmp/a' })).toEqual(done('The user declined: "Delete /tmp/a?". Nothing was done.', true));
    expect(asked).toEqual([elicited(1, 'elicit-1', QUESTION)]);
    expect(runs).toEqual([]);
  });

  it('answers cancel with an isError result and does not run the tool', async () => {
    const { runs, ...running } = await guarded();
    const { client, asked } = await connect(running, MODERN_CAPS.form, { elicitation: () => ({ action: 'cancel' }) });
    expect(await client.callTool('delete', { path: '/tmp/a' })).toEqual(
      done('The user dismissed the confirmation "Delete /tmp/a?" without answering. Nothing was done.', true),
    );
    expect(asked).toEqual([elicited(1, 'elicit-1', QUESTION)]);
    expect(runs).toEqual([]);
  });

  it('answers -32021 when the request did not declare elicitation', async () => {
    const { runs, ...running } = await guarded();
    const { client, asked } = await connect(running, MODERN_CAPS.sampling);
    expect(await rpcError(client.callTool('delete', { path: '/tmp/a' }))).toEqual({
      code: -32021,
      message: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
      data: { requiredCapabilities: { elicitation: { form: {} } } },
    });
    expect(asked).toEqual([]);
    expect(runs).toEqual([]);
  });
});
