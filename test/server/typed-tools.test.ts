/**
 * One tool, `book_trip`, written with zod, valibot, ArkType and a JSON Schema `as const` literal, served
 * over Streamable HTTP on 127.0.0.1 to a 2025-11-25 session and to 2026-07-28 stateless requests: the
 * JSON Schema each library puts on the wire, the arguments each handler receives, each library's refusal
 * texts, async refinements, outputSchema mismatches, and the schemas registration refuses.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import * as z from 'zod';
import type { McpServer, ToolConfig } from '../../src/index.js';
import { type EraPeer, ERAS } from '../helpers/era-peers.js';
import { thrownBy } from '../helpers/client-requests.js';
import { startHttp } from '../helpers/servers.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

type Trip = { city: string; nights?: number; class: 'economy' | 'business' };

const JSON_TRIP = {
  type: 'object',
  properties: {
    city: { type: 'string' },
    nights: { type: 'integer', minimum: 1, default: 1 },
    class: { type: 'string', enum: ['economy', 'business'] },
  },
  required: ['city', 'class'],
} as const;
const JSON_SUMMARY = { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] } as const;

interface Library {
  name: string;
  input: NonNullable<ToolConfig['inputSchema']>;
  output: NonNullable<ToolConfig['outputSchema']>;
  /** tools/list's inputSchema and outputSchema, and the order of the input's properties. */
  wire: { inputSchema: object; outputSchema: object; order: string[] };
  /** What the handler receives for `{ city: 'Oslo', class: 'economy' }`. */
  received: Trip;
  /** The isError text for `{ city: 5, nights: 0, class: 'first' }`. */
  refusal: string;
  /** The -32603 message for `structuredContent: { summary: 7 }`. */
  mismatch: string;
}

const LIBRARIES: Library[] = [
  {
    name: 'zod',
    input: z.object({ city: z.string(), nights: z.number().int().min(1).default(1), class: z.enum(['economy', 'business']) }),
    output: z.object({ summary: z.string() }),
    wire: {
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          // zod bounds every int by Number.MAX_SAFE_INTEGER.
          nights: { default: 1, type: 'integer', minimum: 1, maximum: 9007199254740991 },
          class: { type: 'string', enum: ['economy', 'business'] },
        },
        required: ['city', 'class'],
      },
      outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      order: ['city', 'nights', 'class'],
    },
    received: { city: 'Oslo', nights: 1, class: 'economy' },
    refusal:
      'Invalid arguments for tool book_trip: /city: Invalid input: expected string, received number; ' +
      '/nights: Too small: expected number to be >=1; /class: Invalid option: expected one of "economy"|"business"',
    mismatch: 'Tool book_trip returned structuredContent that does not match its outputSchema: /summary: Invalid input: expected string, received number',
  },
  {
    name: 'valibot',
    input: toStandardJsonSchema(
      v.object({
        city: v.string(),
        nights: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1),
        class: v.picklist(['economy', 'business']),
      }),
    ),
    output: toStandardJsonSchema(v.object({ summary: v.string() })),
    wire: {
      inputSchema: {
        type: 'object',
        properties: {
          city: { type: 'string' },
          nights: { type: 'integer', minimum: 1, default: 1 },
          class: { enum: ['economy', 'business'], type: 'string' },
        },
        required: ['city', 'class'],
      },
      outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      order: ['city', 'nights', 'class'],
    },
    received: { city: 'Oslo', nights: 1, class: 'economy' },
    refusal:
      'Invalid arguments for tool book_trip: /city: Invalid type: Expected string but received 5; ' +
      '/nights: Invalid value: Expected >=1 but received 0; /class: Invalid type: Expected ("economy" | "business") but received "first"',
    mismatch: 'Tool book_trip returned structuredContent that does not match its outputSchema: /summary: Invalid type: Expected string but received 7',
  },
  {
    name: 'ArkType',
    input: type({ city: 'string', nights: 'number.integer >= 1 = 1', class: "'economy' | 'business'" }),
    output: type({ summary: 'string' }),
    wire: {
      // ArkType leaves the default out, sorts the enum, gives it no type, and lists optional keys last.
      inputSchema: {
        type: 'object',
        properties: { city: { type: 'string' }, class: { enum: ['business', 'economy'] }, nights: { type: 'integer', minimum: 1 } },
        required: ['city', 'class'],
      },
      outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
      order: ['city', 'class', 'nights'],
    },
    received: { city: 'Oslo', class: 'economy', nights: 1 },
    // An ArkType union's message names the property again after the pointer.
    refusal:
      'Invalid arguments for tool book_trip: /city: must be a string (was a number); ' +
      '/class: class must be "business" or "economy" (was "first"); /nights: must be at least 1 (was 0)',
    mismatch: 'Tool book_trip returned structuredContent that does not match its outputSchema: /summary: must be a string (was a number)',
  },
  {
    name: 'a JSON Schema as const literal',
    input: JSON_TRIP,
    output: JSON_SUMMARY,
    wire: { inputSchema: JSON_TRIP, outputSchema: JSON_SUMMARY, order: ['city', 'nights', 'class'] },
    // ajv checks without applying defaults: the handler sees what the client sent.
    received: { city: 'Oslo', class: 'economy' },
    refusal: 'Invalid arguments for tool book_trip: /city: must be string; /nights: must be >= 1; /class: must be equal to one of the allowed values',
    mismatch: 'Tool book_trip returned structuredContent that does not match its outputSchema: /summary: must be string',
  },
];

function summarize(trip: Trip): string {
  return `${trip.nights ?? 'some'} nights in ${trip.city}, ${trip.class}`;
}

/** book_trip with `library`'s schemas, recording the arguments its handler receives; `summary` replaces the handler's structuredContent. */
function bookTrip(library: Library, received: unknown[], summary?: unknown) {
  return (server: McpServer) => {
    server.registerTool('book_trip', { description: 'Books a trip', inputSchema: library.input, outputSchema: library.output }, (args) => {
      received.push(args);
      return { structuredContent: { summary: summary ?? summarize(args as Trip) } } as never;
    });
  };
}

describe.each(ERAS)('typed tools, $name', (era: EraPeer) => {
  describe.each(LIBRARIES)('book_trip written with $name', (library) => {
    it('lists the inputSchema and outputSchema the library gives', async () => {
      const { url } = await startHttp(cleanups, bookTrip(library, []));
      const peer = await era.open(url);

      const reply = await peer.request('tools/list', {}, 'list');
      expect(reply).toEqual(
        era.ok(
          'list',
          era.listed({
            tools: [{ name: 'book_trip', description: 'Books a trip', inputSchema: library.wire.inputSchema, outputSchema: library.wire.outputSchema }],
          }),
        ),
      );
      expect(Object.keys(reply.body.result.tools[0].inputSchema.properties)).toEqual(library.wire.order);
    });

    it('calls the handler with the arguments as the schema reads them, and answers its structuredContent', async () => {
      const received: unknown[] = [];
      const { url } = await startHttp(cleanups, bookTrip(library, received));
      const peer = await era.open(url);

      const summary = summarize(library.received);
      expect(await peer.request('tools/call', { name: 'book_trip', arguments: { city: 'Oslo', class: 'economy' } }, 'good')).toEqual(
        era.ok('good', era.called({ content: [{ type: 'text', text: JSON.stringify({ summary }) }], structuredContent: { summary } })),
      );
      expect(received).toStrictEqual([library.received]);
    });

    it("refuses bad arguments with an isError result of the library's messages, and never calls the handler", async () => {
      const received: unknown[] = [];
      const { url } = await startHttp(cleanups, bookTrip(library, received));
      const peer = await era.open(url);

      expect(await peer.request('tools/call', { name: 'book_trip', arguments: { city: 5, nights: 0, class: 'first' } }, 'bad')).toEqual(
        era.ok('bad', era.called({ content: [{ type: 'text', text: library.refusal }], isError: true })),
      );
      expect(received).toEqual([]);
    });

    it('answers -32603 when structuredContent does not match the outputSchema', async () => {
      const { url } = await startHttp(cleanups, bookTrip(library, [], 7));
      const peer = await era.open(url);

      expect(await peer.request('tools/call', { name: 'book_trip', arguments: { city: 'Oslo', class: 'economy' } }, 'mismatch')).toEqual(
        era.failed('mismatch', { code: -32603, message: library.mismatch }),
      );
    });
  });
});

const TAKEN = new Set(['taken']);

/** Free unless taken, answered a turn of the event loop later, as a lookup would be. */
async function isFree(handle: string): Promise<boolean> {
  await new Promise((resolve) => setImmediate(resolve));
  return !TAKEN.has(handle);
}

// toStandardJsonSchema is typed for synchronous schemas only, though it converts asynchronous ones.
const VALIBOT_HANDLE = v.objectAsync({
  handle: v.pipeAsync(
    v.string(),
    v.transformAsync(async (handle: string) => ((await isFree(handle)) ? handle : undefined)),
    v.string('Handle is taken'),
  ),
}) as never as v.GenericSchema<{ handle: string }>;

const REFINED = [
  {
    name: 'zod .refine(async)',
    schema: z.object({ handle: z.string().refine(isFree, 'Handle is taken') }),
    wire: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] },
    refusal: 'Invalid arguments for tool claim_handle: /handle: Handle is taken',
    async: true,
  },
  {
    name: 'valibot checkAsync',
    schema: toStandardJsonSchema(
      v.objectAsync({ handle: v.pipeAsync(v.string(), v.checkAsync(isFree, 'Handle is taken')) }) as never as v.GenericSchema<{ handle: string }>,
    ),
    wire: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] },
    refusal: 'Invalid arguments for tool claim_handle: /handle: Handle is taken',
    async: true,
  },
  {
    // valibot's input JSON Schema stops at a transform.
    name: 'valibot pipeAsync(transformAsync)',
    schema: toStandardJsonSchema(VALIBOT_HANDLE),
    wire: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] },
    refusal: 'Invalid arguments for tool claim_handle: /handle: Handle is taken',
    async: true,
  },
  {
    name: 'ArkType narrow (ArkType validates synchronously only)',
    schema: type({ handle: type('string').narrow((handle, ctx) => !TAKEN.has(handle) || ctx.mustBe('a free handle')) }),
    wire: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] },
    refusal: 'Invalid arguments for tool claim_handle: /handle: must be a free handle (was "taken")',
    async: false,
  },
];

describe.each(ERAS)('refinements, $name', (era: EraPeer) => {
  it.each(REFINED)('$name: accepts what the refinement passes and refuses what it fails, with its message', async ({ schema, wire, refusal, async }) => {
    expect(schema['~standard'].validate({ handle: 'ada' }) instanceof Promise).toBe(async);
    const received: unknown[] = [];
    const { url } = await startHttp(cleanups, (server) =>
      server.registerTool('claim_handle', { inputSchema: schema }, (args) => {
        received.push(args);
        return `claimed ${args.handle}`;
      }),
    );
    const peer = await era.open(url);

    expect(await peer.request('tools/list', {}, 'list')).toEqual(era.ok('list', era.listed({ tools: [{ name: 'claim_handle', inputSchema: wire }] })));
    expect(await peer.request('tools/call', { name: 'claim_handle', arguments: { handle: 'ada' } }, 'free')).toEqual(
      era.ok('free', era.called({ content: [{ type: 'text', text: 'claimed ada' }] })),
    );
    expect(await peer.request('tools/call', { name: 'claim_handle', arguments: { handle: 'taken' } }, 'taken')).toEqual(
      era.ok('taken', era.called({ content: [{ type: 'text', text: refusal }], isError: true })),
    );
    expect(received).toStrictEqual([{ handle: 'ada' }]);
  });
});

const NO_JSON_SCHEMA = (vendor: string) =>
  `Tool 'trip': inputSchema: this ${vendor} schema does not implement Standard JSON Schema (~standard.jsonSchema), which the wire needs; ` +
  'use zod 4, ArkType 2, or valibot wrapped in toStandardJsonSchema from @valibot/to-json-schema';
const NOT_AN_OBJECT = `Tool 'trip': inputSchema must have type "object"`;

const REFUSED: { name: string; config: object; error: string }[] = [
  {
    name: 'a Standard Schema with only validate',
    config: { inputSchema: { '~standard': { version: 1, vendor: 'acme', validate: (value: unknown) => ({ value }) } } },
    error: NO_JSON_SCHEMA('acme'),
  },
  { name: 'a valibot schema not wrapped in toStandardJsonSchema', config: { inputSchema: v.object({ city: v.string() }) }, error: NO_JSON_SCHEMA('valibot') },
  {
    name: 'a Standard JSON Schema without validate',
    config: {
      inputSchema: { '~standard': { version: 1, vendor: 'acme', jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) } } },
    },
    error: "Tool 'trip': inputSchema: a Standard Schema needs ~standard.validate",
  },
  { name: 'z.string()', config: { inputSchema: z.string() }, error: NOT_AN_OBJECT },
  { name: 'valibot string()', config: { inputSchema: toStandardJsonSchema(v.string()) }, error: NOT_AN_OBJECT },
  { name: "ArkType type('string')", config: { inputSchema: type('string') }, error: NOT_AN_OBJECT },
  { name: 'z.string() as outputSchema', config: { outputSchema: z.string() }, error: `Tool 'trip': outputSchema must have type "object"` },
  {
    name: 'a zod schema with no JSON Schema (z.date())',
    config: { inputSchema: z.object({ when: z.date() }) },
    error: "Tool 'trip': inputSchema: the zod schema could not be turned into JSON Schema: Date cannot be represented in JSON Schema",
  },
];

describe.each(ERAS)('a Standard validate that throws, $name', (era: EraPeer) => {
  it('fails the call as a throwing handler does: an isError result with its message', async () => {
    const throwing = {
      '~standard': {
        version: 1,
        vendor: 'test',
        validate: () => {
          throw new Error('the validator broke');
        },
        jsonSchema: { input: () => ({ type: 'object' }), output: () => ({ type: 'object' }) },
      },
    } as const;
    const { url } = await startHttp(cleanups, (server) => server.registerTool('fragile', { inputSchema: throwing as never }, () => 'unreached'));
    const peer = await era.open(url);
    expect(await peer.request('tools/call', { name: 'fragile', arguments: {} }, 'broke')).toEqual(
      era.ok('broke', era.called({ content: [{ type: 'text', text: 'the validator broke' }], isError: true })),
    );
  });
});

describe('registration', () => {
  it.each(REFUSED)('refuses $name at registration with a TypeError, and lists nothing for it', async ({ config, error }) => {
    let caught: unknown;
    const { url } = await startHttp(cleanups, (server) => {
      caught = thrownBy(() => server.registerTool('trip', config as never, () => 'unused'));
    });
    expect(caught).toStrictEqual(new TypeError(error));
    const peer = await ERAS[0]!.open(url);
    expect(await peer.request('tools/list', {}, 'list')).toEqual(ERAS[0]!.ok('list', { tools: [] }));
  });
});
