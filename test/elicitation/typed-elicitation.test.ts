/**
 * Elicitation with a Standard Schema as requestedSchema (zod 4, valibot with @valibot/to-json-schema,
 * ArkType 2), in both eras over real sockets: the JSON Schema each library puts on the wire, the
 * schema's output handed over on accept (defaults applied), an answer the schema refuses, an async
 * check, the form-subset refusal, the tasks extension's detached run, and the types `elicit` resolves to.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  ElicitationValidationError,
  type ElicitParams,
  type ElicitRequestedSchema,
  type ElicitResult,
  type ElicitValue,
  inputRequired,
  McpError,
  type McpServer,
  type McpSession,
  type RequestContext,
} from '../../src/index.js';
import type { ElicitFormResult, ElicitUrlResult, FormSchema } from '../../src/elicitation/form-schema.js';
import { CAPS, callTool, errorOf, expectMcpError, responseLog, succeeded, textResult } from '../helpers/client-requests.js';
import { elicitationPeer, useMcpClients } from '../helpers/mcp-clients.js';
import { MODERN_CAPS, ModernClient, type Reply, readSignedState } from '../helpers/modern.js';
import { createTask, resultOf, untilStatus, useTaskServers } from '../helpers/tasks.js';
import { capture } from '../helpers/outcome.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);
const taskServers = useTaskServers(cleanups);
/** A server on a real Streamable HTTP port, on the same cleanup stack as the clients (which close first). */
const http = {
  async start(setup: (server: McpServer) => void) {
    const running = await startHttp(cleanups, setup);
    return running;
  },
};

/** One booking form in each library: a described string, an integer of at least 1, a single select with a default, an optional multi-select. */
const BOOKING = {
  zod: z.object({
    city: z.string().describe('City'),
    nights: z.number().int().min(1),
    room: z.enum(['single', 'double']).default('double'),
    extras: z.array(z.enum(['breakfast', 'parking'])).optional(),
  }),
  valibot: toStandardJsonSchema(
    v.object({
      city: v.pipe(v.string(), v.description('City')),
      nights: v.pipe(v.number(), v.integer(), v.minValue(1)),
      room: v.optional(v.picklist(['single', 'double']), 'double'),
      extras: v.optional(v.array(v.picklist(['breakfast', 'parking']))),
    }),
  ),
  arktype: type({
    city: type('string').describe('City'),
    nights: 'number.integer >= 1',
    room: "'single' | 'double' = 'double'",
    'extras?': "('breakfast' | 'parking')[]",
  }),
};

/** What each library's booking form is on the wire. */
const BOOKING_WIRE: Record<keyof typeof BOOKING, Json> = {
  // zod writes the default first, and bounds every integer by ±(2^53 - 1), which the wire form leaves out.
  zod: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City' },
      nights: { type: 'integer', minimum: 1 },
      room: { default: 'double', type: 'string', enum: ['single', 'double'] },
      extras: { type: 'array', items: { type: 'string', enum: ['breakfast', 'parking'] } },
    },
    required: ['city', 'nights'],
  },
  valibot: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City' },
      nights: { type: 'integer', minimum: 1 },
      room: { enum: ['single', 'double'], type: 'string', default: 'double' },
      extras: { type: 'array', items: { enum: ['breakfast', 'parking'], type: 'string' } },
    },
    required: ['city', 'nights'],
  },
  // ArkType sorts keys and literals, gives a union of literals no type (the wire form adds "string"), and
  // leaves defaults out of its input JSON Schema: its own check still applies them.
  arktype: {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City' },
      extras: { type: 'array', items: { type: 'string', enum: ['breakfast', 'parking'] } },
      nights: { type: 'integer', minimum: 1 },
      room: { type: 'string', enum: ['double', 'single'] },
    },
    required: ['city', 'nights'],
  },
};

const LIBRARIES = Object.keys(BOOKING) as (keyof typeof BOOKING)[];

const ask = <S extends FormSchema>(requestedSchema: S) => ({ message: 'Book a room', requestedSchema });

/** A tool `book` that asks for the form with ctx.elicit and answers with what it was handed, as JSON. */
function booker(schema: FormSchema) {
  return (server: McpServer) =>
    server.registerTool('book', {}, async (_args, ctx) => {
      const answer = await ctx.elicit(ask(schema));
      return JSON.stringify(answer);
    });
}

/** The violation each library reports for `nights: 0`: the property, its own rule code, its own message. */
const NIGHTS_ZERO = {
  zod: { property: 'nights', rule: 'too_small', message: 'Too small: expected number to be >=1' },
  valibot: { property: 'nights', rule: 'min_value', message: 'Invalid value: Expected >=1 but received 0' },
  arktype: { property: 'nights', rule: 'min', message: 'must be at least 1 (was 0)' },
};

const refused = (violation: { property: string; message: string }) =>
  `The elicitation answer does not match requestedSchema: ${violation.property} ${violation.message}`;

describe('a Standard Schema as requestedSchema on a 2025-11-25 session', () => {
  it.each(LIBRARIES)('sends the JSON Schema a %s form gives, as the form subset spells it', async (library) => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    running.server.requestElicitationCreate(peer.session, ask(BOOKING[library]));
    expect((await peer.asks.next()).params).toEqual({ message: 'Book a room', requestedSchema: BOOKING_WIRE[library] });
  });

  // The raw peer: McpClient would fill in the wire form's defaults itself (SEP-1034), hiding the schema's.
  it.each(LIBRARIES)("hands ctx.elicit the %s schema's output on accept: the default applied, nothing unasked", async (library) => {
    const running = await startWebSocket(cleanups, booker(BOOKING[library]));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'book');
    const asked = await client.nextMessage('elicitation/create');
    client.respond(asked.id, { action: 'accept', content: { city: 'Oslo', nights: 2, smoking: true } });
    expect(await call).toEqual(textResult('call-book', JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } })));
  });

  it("reports the output on requestElicitationCreate's one response event", async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const { client, session } = await h.open(running, { capabilities: CAPS.form });
    const id = running.server.requestElicitationCreate(session, ask(BOOKING.zod));
    client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { city: 'Oslo', nights: 2 } });
    const [, request, response] = await log.next();
    expect(request).toEqual({ jsonrpc: '2.0', id, method: 'elicitation/create', params: { message: 'Book a room', requestedSchema: BOOKING_WIRE.zod } });
    expect(response).toStrictEqual(succeeded('elicitation', { action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } }));
    expect(log.all).toHaveLength(1);
  });

  it.each(LIBRARIES)('rejects session.elicit with ElicitationValidationError for an answer the %s schema refuses, counting it', async (library) => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running, { validateElicitation: false });
    const answer = capture(peer.session.elicit(ask(BOOKING[library])));
    (await peer.asks.next()).answer({ action: 'accept', content: { city: 'Oslo', nights: 0 } });
    const violation = NIGHTS_ZERO[library];
    expectMcpError(errorOf(await answer.outcome), ElicitationValidationError, { code: -32602, message: refused(violation), data: { violations: [violation] } });
    expect(running.server.stats.invalidResults).toBe(1);
  });

  it('reports a refused answer on the response event as isError -32602 with the violations', async () => {
    const running = await startWebSocket(cleanups);
    const log = responseLog(running.server, 'responseElicitationCreate');
    const peer = await elicitationPeer(clients, running, { validateElicitation: false });
    running.server.requestElicitationCreate(peer.session, ask(BOOKING.zod));
    (await peer.asks.next()).answer({ action: 'accept', content: { nights: 1 } });
    const violation = { property: 'city', rule: 'invalid_type', message: 'Invalid input: expected string, received undefined' };
    expect((await log.next())[2]).toEqual({ isError: true, errorCode: -32602, errorMessage: refused(violation), errorData: { violations: [violation] } });
  });

  it('hands decline and cancel over without content', async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const declined = capture(peer.session.elicit(ask(BOOKING.zod)));
    (await peer.asks.next()).answer({ action: 'decline', content: { city: 7 } } as unknown as ElicitResult);
    expect(await declined.outcome).toEqual({ ok: true, value: { action: 'decline' } });
  });

  it('awaits an async check: a zod refine that looks the value up', async () => {
    const voucher = z.object({
      code: z.string().refine(async (code) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return code === 'SUMMER';
      }, 'Unknown voucher'),
    });
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const good = capture(peer.session.elicit({ message: 'Voucher?', requestedSchema: voucher }));
    (await peer.asks.next()).answer({ action: 'accept', content: { code: 'SUMMER' } });
    expect(await good.outcome).toEqual({ ok: true, value: { action: 'accept', content: { code: 'SUMMER' } } });
    const bad = capture(peer.session.elicit({ message: 'Voucher?', requestedSchema: voucher }));
    (await peer.asks.next()).answer({ action: 'accept', content: { code: 'WINTER' } });
    const violation = { property: 'code', rule: 'custom', message: 'Unknown voucher' };
    expectMcpError(errorOf(await bad.outcome), ElicitationValidationError, { code: -32602, message: refused(violation), data: { violations: [violation] } });
  });

  it("rejects with -32603 when the schema's own check throws: the server's fault, not the answer's", async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const broken = z.object({
      city: z.string().refine(() => {
        throw new Error('geocoder down');
      }),
    });
    const answer = capture(peer.session.elicit({ message: 'Where?', requestedSchema: broken }));
    (await peer.asks.next()).answer({ action: 'accept', content: { city: 'Oslo' } });
    expectMcpError(errorOf(await answer.outcome), McpError, { code: -32603, message: "The requestedSchema's own check threw: geocoder down" });
  });

  it('spells choices as SEP-1330 does: titled literals as oneOf (anyOf in a multi-select), untitled ones and bare enums as typed enums', async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const titled = (value: string, title: string) => z.literal(value).meta({ title });
    const forms = [
      z.object({
        color: z.union([titled('r', 'Red'), titled('g', 'Green')]).default('r'),
        toppings: z.array(z.union([titled('ham', 'Ham'), titled('egg', 'Egg')])),
      }),
      toStandardJsonSchema(
        v.object({
          size: v.union([v.literal('s'), v.literal('m')]),
          tier: v.union([v.pipe(v.literal('free'), v.title('Free')), v.pipe(v.literal('pro'), v.title('Pro'))]),
        }),
      ),
      type({ only: "'yes'", pick: "'a' | 'b'" }),
    ];
    for (const form of forms) running.server.requestElicitationCreate(peer.session, ask(form));
    const wire = [];
    for (const _ of forms) wire.push((await peer.asks.next()).params.requestedSchema);
    expect(wire).toEqual([
      {
        type: 'object',
        properties: {
          color: {
            type: 'string',
            default: 'r',
            oneOf: [
              { const: 'r', title: 'Red' },
              { const: 'g', title: 'Green' },
            ],
          },
          toppings: {
            type: 'array',
            items: {
              anyOf: [
                { const: 'ham', title: 'Ham' },
                { const: 'egg', title: 'Egg' },
              ],
            },
          },
        },
        required: ['toppings'],
      },
      {
        type: 'object',
        properties: {
          size: { type: 'string', enum: ['s', 'm'] },
          tier: {
            type: 'string',
            oneOf: [
              { const: 'free', title: 'Free' },
              { const: 'pro', title: 'Pro' },
            ],
          },
        },
        required: ['size', 'tier'],
      },
      { type: 'object', properties: { only: { type: 'string', enum: ['yes'] }, pick: { type: 'string', enum: ['a', 'b'] } }, required: ['only', 'pick'] },
    ]);
  });

  it("leaves out a strict object's additionalProperties: answers are cut to the asked fields before the schema checks them", async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running, { validateElicitation: false });
    const answer = capture(peer.session.elicit({ message: 'Where?', requestedSchema: z.strictObject({ city: z.string() }) }));
    const asked = await peer.asks.next();
    expect(asked.params.requestedSchema).toEqual({ type: 'object', properties: { city: { type: 'string' } }, required: ['city'] });
    asked.answer({ action: 'accept', content: { city: 'Oslo', extra: 1 } } as ElicitResult);
    expect(await answer.outcome).toEqual({ ok: true, value: { action: 'accept', content: { city: 'Oslo' } } });
  });

  it('still checks a Standard form with its own schema when validateElicitation is false: only JSON Schema forms go unchecked', async () => {
    const running = await startWebSocket(cleanups, undefined, { server: { validateElicitation: false } });
    const { client, session } = await h.open(running, { capabilities: CAPS.form });
    const refusedAnswer = capture(session.elicit(ask(BOOKING.zod)));
    client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { city: 7, extra: true } });
    const violations = [
      { property: 'city', rule: 'invalid_type', message: 'Invalid input: expected string, received number' },
      { property: 'nights', rule: 'invalid_type', message: 'Invalid input: expected number, received undefined' },
    ];
    expectMcpError(errorOf(await refusedAnswer.outcome), ElicitationValidationError, {
      code: -32602,
      message: `The elicitation answer does not match requestedSchema: ${violations.map((v) => `${v.property} ${v.message}`).join('; ')}`,
      data: { violations },
    });
    const output = capture(session.elicit(ask(BOOKING.zod)));
    client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { city: 'Oslo', nights: 2, extra: true } });
    expect(await output.outcome).toEqual({ ok: true, value: { action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } } });
    const raw = capture(session.elicit(ask(BOOKING_WIRE.zod as ElicitRequestedSchema)));
    client.respond((await client.nextMessage('elicitation/create')).id, { action: 'accept', content: { city: 7, extra: true } });
    expect(await raw.outcome).toEqual({ ok: true, value: { action: 'accept', content: { city: 7, extra: true } } });
  });

  it('asks for a single zod literal as a one-value enum, and takes it', async () => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const answer = capture(peer.session.elicit(ask(z.object({ only: z.literal('only'), plan: z.literal('pro').describe('Plan') }))));
    const asked = await peer.asks.next();
    expect(asked.params.requestedSchema).toEqual({
      type: 'object',
      properties: { only: { type: 'string', enum: ['only'] }, plan: { type: 'string', description: 'Plan', enum: ['pro'] } },
      required: ['only', 'plan'],
    });
    asked.answer({ action: 'accept', content: { only: 'only', plan: 'pro' } });
    expect(await answer.outcome).toEqual({ ok: true, value: { action: 'accept', content: { only: 'only', plan: 'pro' } } });
  });

  const outside: [string, FormSchema, string][] = [
    [
      'a zod nested object',
      z.object({ address: z.object({ street: z.string() }) }),
      'requestedSchema.properties.address: type must be one of string, number, integer, boolean, array (got "object")',
    ],
    [
      'a zod nullable string (a union of types)',
      z.object({ note: z.string().nullable() }),
      'requestedSchema.properties.note: type must be one of string, number, integer, boolean, array (got ["string","null"])',
    ],
    [
      'a valibot array of objects',
      toStandardJsonSchema(v.object({ guests: v.array(v.object({ name: v.string() })) })),
      'requestedSchema.properties.guests.items: must be {type: "string", enum: [...]} or {anyOf: [{const, title}]}; arrays are only for multi-select enums',
    ],
    [
      'an ArkType union of string and number',
      type({ size: 'string | number' }),
      'requestedSchema.properties.size: type must be one of string, number, integer, boolean, array (got undefined)',
    ],
  ];

  it.each(outside)('refuses %s at the call with a TypeError naming the property and the rule, sending nothing', async (_what, schema, problem) => {
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    const expected = new TypeError(`${problem}. Elicitation forms take a flat object of string, number, integer, boolean and enum properties`);
    expect(() => running.server.requestElicitationCreate(peer.session, ask(schema))).toThrow(expected);
    await expect(peer.session.elicit(ask(schema))).rejects.toThrow(expected);
    await peer.client.ping();
    expect(peer.asks.all).toEqual([]);
  });

  it('pushes an explicit inputRequired form as its JSON Schema, and checks the answer against that', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('book', {}, (_args, ctx) => {
        const answer = ctx.inputResponses?.booking;
        if (!answer) return inputRequired().addElicitation('booking', ask(BOOKING.valibot));
        return JSON.stringify(answer);
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'book');
    const asked = await client.nextMessage('elicitation/create');
    expect(asked.params).toEqual({ message: 'Book a room', requestedSchema: BOOKING_WIRE.valibot });
    client.respond(asked.id, { action: 'accept', content: { city: 'Oslo', nights: 2 } });
    expect(await call).toEqual(textResult('call-book', JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2 } })));
  });

  it('converts a schema object once, however often it is asked', async () => {
    const schema = z.object({ city: z.string() });
    let conversions = 0;
    const convert = schema['~standard'].jsonSchema.input;
    (schema['~standard'].jsonSchema as { input: typeof convert }).input = (options) => (conversions++, convert(options));
    const running = await startWebSocket(cleanups);
    const peer = await elicitationPeer(clients, running);
    for (const city of ['Oslo', 'Rome']) {
      const answer = capture(peer.session.elicit({ message: 'Where?', requestedSchema: schema }));
      (await peer.asks.next()).answer({ action: 'accept', content: { city } });
      expect(await answer.outcome).toEqual({ ok: true, value: { action: 'accept', content: { city } } });
    }
    expect(conversions).toBe(1);
  });
});

// ---------------------------------------------------------------------------------------------------------

/** A JSON-RPC result as it arrives over HTTP 200. */
const ok = (id: number, result: Json): Reply => ({ status: 200, body: { jsonrpc: '2.0', id, result } });
const done = (id: number, text: string, isError?: true): Reply =>
  ok(id, isError ? { resultType: 'complete', content: [{ type: 'text', text }], isError } : { resultType: 'complete', content: [{ type: 'text', text }] });
const asking = (id: number, inputRequests: Json): Reply => ok(id, { resultType: 'input_required', inputRequests, requestState: expect.any(String) });
const formQuestion = (requestedSchema: Json, message = 'Book a room') => ({ method: 'elicitation/create', params: { message, requestedSchema } });
const stateOf = (reply: Reply): string => reply.body.result.requestState;

describe('a Standard Schema as requestedSchema on 2026-07-28 requests', () => {
  it.each(LIBRARIES)('asks for a %s form with its wire JSON Schema, and the retry hands the handler its output', async (library) => {
    const { url } = await http.start(booker(BOOKING[library]));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book');
    expect(first).toEqual(asking(1, { 'elicit-1': formQuestion(BOOKING_WIRE[library]) }));
    const inputResponses = { 'elicit-1': { action: 'accept', content: { city: 'Oslo', nights: 2, smoking: true } } };
    expect(await client.callTool('book', {}, { inputResponses, requestState: stateOf(first) })).toEqual(
      done(2, JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } })),
    );
  });

  it('asks again for an answer the schema refuses, and its response event carries the violation', async () => {
    const { url, server } = await http.start(booker(BOOKING.zod));
    const log = responseLog(server, 'responseElicitationCreate');
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book');
    const again = await client.callTool(
      'book',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Oslo', nights: 0 } } }, requestState: stateOf(first) },
    );
    expect(again).toEqual(asking(2, { 'elicit-1': formQuestion(BOOKING_WIRE.zod) }));
    const violation = NIGHTS_ZERO.zod;
    expect(log.all.map(([, request, response]) => [request, response])).toEqual([
      [
        { jsonrpc: '2.0', id: 'elicit-1', method: 'elicitation/create', params: { message: 'Book a room', requestedSchema: BOOKING_WIRE.zod } },
        { isError: true, errorCode: -32602, errorMessage: refused(violation), errorData: { violations: [violation] }, action: undefined, content: undefined },
      ],
    ]);
    // The answer that fits completes, and is reported once.
    const third = await client.callTool(
      'book',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Oslo', nights: 3 } } }, requestState: stateOf(again) },
    );
    expect(third).toEqual(done(3, JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 3, room: 'double' } })));
    expect(log.all.map(([, , response]) => response)).toEqual([
      expect.objectContaining({ isError: true }),
      succeeded('elicitation', { action: 'accept', content: { city: 'Oslo', nights: 3, room: 'double' } }),
    ]);
  });

  it('keeps an accepted answer for later rounds as the client gave it, and reads it with the schema again on each replay', async () => {
    const seen: unknown[] = [];
    const { url } = await http.start((server) =>
      server.registerTool('trip', {}, async (_args, ctx) => {
        const where = await ctx.elicit(ask(BOOKING.zod), { key: 'where' });
        const sure = await ctx.elicit({ message: 'Sure?', requestedSchema: z.object({ sure: z.boolean().default(true) }) }, { key: 'sure' });
        seen.push(where, sure);
        return 'booked';
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('trip');
    const second = await client.callTool(
      'trip',
      {},
      { inputResponses: { where: { action: 'accept', content: { city: 'Oslo', nights: 2 } } }, requestState: stateOf(first) },
    );
    expect(second).toEqual(asking(2, { sure: formQuestion({ type: 'object', properties: { sure: { default: true, type: 'boolean' } } }, 'Sure?') }));
    expect(readSignedState(stateOf(second)).answers).toEqual({ where: { action: 'accept', content: { city: 'Oslo', nights: 2 } } });
    expect(await client.callTool('trip', {}, { inputResponses: { sure: { action: 'accept', content: {} } }, requestState: stateOf(second) })).toEqual(
      done(3, 'booked'),
    );
    expect(seen).toEqual([
      { action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } },
      { action: 'accept', content: { sure: true } },
    ]);
  });

  it('awaits an async check on the retry', async () => {
    const voucher = z.object({ code: z.string().refine(async (code) => code === 'SUMMER', 'Unknown voucher') });
    const { url } = await http.start((server) =>
      server.registerTool('redeem', {}, async (_args, ctx) => {
        const answer = await ctx.elicit({ message: 'Voucher?', requestedSchema: voucher });
        return answer.action === 'accept' ? `redeemed ${answer.content.code}` : answer.action;
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('redeem');
    const bad = await client.callTool(
      'redeem',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { code: 'WINTER' } } }, requestState: stateOf(first) },
    );
    expect(bad).toEqual(asking(2, { 'elicit-1': formQuestion({ type: 'object', properties: { code: { type: 'string' } }, required: ['code'] }, 'Voucher?') }));
    const good = await client.callTool(
      'redeem',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { code: 'SUMMER' } } }, requestState: stateOf(bad) },
    );
    expect(good).toEqual(done(3, 'redeemed SUMMER'));
  });

  it("fails the tool with an isError result, asking nothing again, when the schema's own check throws", async () => {
    const broken = z.object({
      city: z.string().refine(() => {
        throw new Error('geocoder down');
      }),
    });
    const { url } = await http.start(booker(broken));
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book');
    const retry = await client.callTool(
      'book',
      {},
      { inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Oslo' } } }, requestState: stateOf(first) },
    );
    expect(retry).toEqual(done(2, "The requestedSchema's own check threw: geocoder down", true));
  });

  it('answers a tool whose form is outside the subset with the TypeError as its isError result', async () => {
    const { url } = await http.start(booker(z.object({ address: z.object({ street: z.string() }) })));
    const client = new ModernClient(url, MODERN_CAPS.form);
    expect(await client.callTool('book')).toEqual(
      done(
        1,
        'requestedSchema.properties.address: type must be one of string, number, integer, boolean, array (got "object"). Elicitation forms take a flat object of string, number, integer, boolean and enum properties',
        true,
      ),
    );
  });

  it('asks an explicit inputRequired form by its JSON Schema, and checks the answer against that', async () => {
    const { url } = await http.start((server) =>
      server.registerTool('book', {}, (_args, ctx) => {
        const answer = ctx.inputResponses?.booking;
        if (!answer) return inputRequired().addElicitation('booking', ask(BOOKING.valibot));
        return JSON.stringify(answer);
      }),
    );
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('book');
    expect(first).toEqual(asking(1, { booking: formQuestion(BOOKING_WIRE.valibot) }));
    const bad = await client.callTool(
      'book',
      {},
      { inputResponses: { booking: { action: 'accept', content: { city: 'Oslo', nights: 0 } } }, requestState: stateOf(first) },
    );
    expect(bad).toEqual(asking(2, { booking: formQuestion(BOOKING_WIRE.valibot) }));
    const good = await client.callTool(
      'book',
      {},
      { inputResponses: { booking: { action: 'accept', content: { city: 'Oslo', nights: 2 } } }, requestState: stateOf(bad) },
    );
    expect(good).toEqual(done(3, JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2 } })));
  });

  it('runs the same handler with McpClient following the rounds', async () => {
    const running = await http.start(booker(BOOKING.arktype));
    const { client } = await clients.connectUrl(running.url, { era: 'modern', capabilities: MODERN_CAPS.form }, (c) =>
      c.onElicitation(() => ({ action: 'accept', content: { city: 'Oslo', nights: 2 } })),
    );
    expect((await client.callTool('book')).content).toEqual([
      { type: 'text', text: JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } }) },
    ]);
  });
});

describe('a Standard Schema as requestedSchema in a task (a detached run)', () => {
  it('shows the wire JSON Schema in tasks/get, and the handler gets the output of the answer tasks/update brings', async () => {
    const { declared, server } = await taskServers.serve((_server, tasks) =>
      tasks.registerTool('book', { taskSupport: 'required' }, async (_args, ctx) => JSON.stringify(await ctx.elicit(ask(BOOKING.zod)))),
    );
    const log = responseLog(server, 'responseElicitationCreate');
    const taskId = await createTask(declared, 'book');
    const waiting = await untilStatus(declared, taskId, 'input_required');
    expect(waiting.inputRequests).toEqual({ 'elicit-1': formQuestion(BOOKING_WIRE.zod) });
    resultOf(await declared.request('tasks/update', { taskId, inputResponses: { 'elicit-1': { action: 'accept', content: { city: 'Oslo', nights: 0 } } } }));
    // Refused: asked again under a new key.
    expect((await untilStatus(declared, taskId, 'input_required')).inputRequests).toEqual({ 'elicit-2': formQuestion(BOOKING_WIRE.zod) });
    resultOf(await declared.request('tasks/update', { taskId, inputResponses: { 'elicit-2': { action: 'accept', content: { city: 'Oslo', nights: 2 } } } }));
    const completed = await untilStatus(declared, taskId, 'completed');
    expect(completed.result).toEqual({
      content: [{ type: 'text', text: JSON.stringify({ action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } }) }],
    });
    // Each answer ends once on the response event: the refused one with its violation, the other with the schema's output.
    const violation = NIGHTS_ZERO.zod;
    expect(log.all.map(([, request, response]) => [request.id, response])).toEqual([
      [
        'elicit-1',
        { isError: true, errorCode: -32602, errorMessage: refused(violation), errorData: { violations: [violation] }, action: undefined, content: undefined },
      ],
      ['elicit-2', succeeded('elicitation', { action: 'accept', content: { city: 'Oslo', nights: 2, room: 'double' } })],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------------------

describe('the types elicit resolves to (checked by tsc)', () => {
  it('types a zod form: content after accept, a discriminated union, a wrong field an error', () => {
    async function handler(ctx: RequestContext) {
      const answer = await ctx.elicit({ message: 'Book', requestedSchema: z.object({ city: z.string(), nights: z.number().int().min(1) }) });
      expectTypeOf(answer).toEqualTypeOf<
        { action: 'accept'; content: { city: string; nights: number } } | { action: 'decline' | 'cancel'; content?: undefined }
      >();
      if (answer.action === 'accept') {
        expectTypeOf(answer.content).toEqualTypeOf<{ city: string; nights: number }>();
        // @ts-expect-error: the form has no field 'town'
        void answer.content.town;
      } else {
        expectTypeOf(answer.content).toEqualTypeOf<undefined>();
      }
      // @ts-expect-error: content may be undefined before action is checked
      void answer.content.city;
    }
    expect(handler).toBeTypeOf('function');
  });

  it('types a zod default and a transform by the schema output, valibot and ArkType alike', () => {
    async function handler(ctx: RequestContext) {
      const zod = await ctx.elicit(ask(BOOKING.zod));
      if (zod.action === 'accept')
        expectTypeOf(zod.content).toEqualTypeOf<{
          city: string;
          nights: number;
          room: 'single' | 'double';
          extras?: ('breakfast' | 'parking')[] | undefined;
        }>();
      const valibot = await ctx.elicit({ message: 'm', requestedSchema: toStandardJsonSchema(v.object({ n: v.pipe(v.string(), v.transform(Number)) })) });
      if (valibot.action === 'accept') expectTypeOf(valibot.content).toEqualTypeOf<{ n: number }>();
      const ark = await ctx.elicit({ message: 'm', requestedSchema: type({ size: "'s' | 'm'" }) });
      if (ark.action === 'accept') expectTypeOf(ark.content).toEqualTypeOf<{ size: 's' | 'm' }>();
    }
    expect(handler).toBeTypeOf('function');
  });

  it('types a JSON Schema literal written inline by what it describes, without as const', () => {
    async function handler(ctx: RequestContext, session: McpSession) {
      const answer = await ctx.elicit({
        message: 'Who?',
        requestedSchema: {
          type: 'object',
          properties: {
            name: { type: 'string' },
            size: { type: 'string', enum: ['s', 'm'] },
            tags: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } },
          },
          required: ['name'],
        },
      });
      if (answer.action === 'accept') expectTypeOf(answer.content).toEqualTypeOf<{ name: string; size?: 's' | 'm'; tags?: ('a' | 'b')[] }>();
      const pushed = await session.elicit({
        message: 'Age?',
        requestedSchema: { type: 'object', properties: { age: { type: 'integer' } }, required: ['age'] },
      });
      if (pushed.action === 'accept') expectTypeOf(pushed.content).toEqualTypeOf<{ age: number }>();
    }
    expect(handler).toBeTypeOf('function');
  });

  it('keeps Record<string, ElicitValue> for a broad schema, and types URL mode and a params union', () => {
    async function handler(ctx: RequestContext, schema: ElicitRequestedSchema, params: ElicitParams) {
      const broad = await ctx.elicit({ message: 'm', requestedSchema: schema });
      expectTypeOf(broad).toEqualTypeOf<ElicitFormResult<Record<string, ElicitValue>>>();
      const url = await ctx.elicit({ mode: 'url', message: 'Sign in', url: 'https://example.com/login' });
      expectTypeOf(url).toEqualTypeOf<ElicitUrlResult>();
      const either = await ctx.elicit(params);
      expectTypeOf(either).toEqualTypeOf<ElicitFormResult<Record<string, ElicitValue>> | ElicitUrlResult>();
      const wire: ElicitResult = either;
      void wire;
      // @ts-expect-error: a form's schema is an object schema
      await ctx.elicit({ message: 'm', requestedSchema: { type: 'array' } });
    }
    expect(handler).toBeTypeOf('function');
  });
});
