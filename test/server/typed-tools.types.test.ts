/**
 * What `registerTool` types, checked by `tsc --noEmit -p .` (`npm test` runs it): handler arguments from
 * zod, valibot, ArkType and JSON Schema literals, `structuredContent` against the outputSchema, `confirm`'s
 * arguments, and `ToolsOf` over registrations. Every `@ts-expect-error` must stay an error: tsc fails on
 * one that is not. At run time the registrations only resolve their schemas; no handler runs.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import * as z from 'zod';
import { type JsonSchemaObject, McpServer, type ToolsOf, type ToolTypes } from '../../src/index.js';

const newServer = () => new McpServer({ name: 'types', version: '1.0.0' });

type Class = 'economy' | 'business';
/** book_trip's arguments once checked: the default applied. */
type Trip = { city: string; nights: number; class: Class };
/** book_trip's arguments as a client sends them. */
type TripInput = { city: string; nights?: number; class: Class };

const ZOD_TRIP = z.object({ city: z.string(), nights: z.number().int().min(1).default(1), class: z.enum(['economy', 'business']) });
const VALIBOT_TRIP = toStandardJsonSchema(
  v.object({ city: v.string(), nights: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1)), 1), class: v.picklist(['economy', 'business']) }),
);
const ARK_TRIP = type({ city: 'string', nights: 'number.integer >= 1 = 1', class: "'economy' | 'business'" });
const JSON_TRIP = {
  type: 'object',
  properties: { city: { type: 'string' }, nights: { type: 'integer', minimum: 1, default: 1 }, class: { type: 'string', enum: ['economy', 'business'] } },
  required: ['city', 'class'],
} as const;

const ZOD_SUMMARY = z.object({ summary: z.string() });

describe('handler arguments', () => {
  it('are the output type of a zod, valibot or ArkType schema: defaults applied, enums as unions', () => {
    const server = newServer();
    server.registerTool('zod_trip', { inputSchema: ZOD_TRIP }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Trip>();
      return args.nights.toFixed();
    });
    server.registerTool('valibot_trip', { inputSchema: VALIBOT_TRIP }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Trip>();
      return args.nights.toFixed();
    });
    server.registerTool('ark_trip', { inputSchema: ARK_TRIP }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Trip>();
      return args.nights.toFixed();
    });
  });

  it('are what an as const literal describes: a property not in required is optional, a default notwithstanding', () => {
    newServer().registerTool('json_trip', { inputSchema: JSON_TRIP }, (args) => {
      expectTypeOf(args).toEqualTypeOf<TripInput>();
      // @ts-expect-error ajv applies no default: nights may be missing
      return args.nights.toFixed();
    });
  });

  it('are what an inline literal describes, without as const', () => {
    newServer().registerTool(
      'inline_trip',
      {
        inputSchema: {
          type: 'object',
          properties: { city: { type: 'string' }, nights: { type: 'integer' }, class: { type: 'string', enum: ['economy', 'business'] } },
          required: ['city', 'class'],
        },
      },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<TripInput>();
        // @ts-expect-error a property the schema does not name
        return args.country;
      },
    );
  });

  it('follow nested objects, arrays, type arrays with null, const, titled oneOf and additionalProperties', () => {
    newServer().registerTool(
      'itinerary',
      {
        inputSchema: {
          type: 'object',
          properties: {
            traveller: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
            stops: { type: 'array', items: { type: 'object', properties: { city: { type: 'string' }, nights: { type: 'number' } }, required: ['city'] } },
            tags: { type: 'array', items: { type: 'string' } },
            note: { type: ['string', 'null'] },
            version: { const: 2 },
            seat: {
              type: 'string',
              oneOf: [
                { const: 'aisle', title: 'Aisle' },
                { const: 'window', title: 'Window' },
              ],
            },
            prices: { type: 'object', additionalProperties: { type: 'number' } },
            flags: { type: 'object', properties: { pets: { type: 'boolean' } }, additionalProperties: false },
            labels: { type: 'object', properties: { main: { type: 'string' } }, required: ['main'], additionalProperties: { type: 'string' } },
            anything: {},
          },
          required: ['traveller', 'stops', 'note'],
        },
      },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{
          traveller: { name: string; age?: number };
          stops: { city: string; nights?: number }[];
          tags?: string[];
          note: string | null;
          version?: 2;
          seat?: 'aisle' | 'window';
          prices?: { [key: string]: number };
          flags?: { pets?: boolean };
          labels?: { [key: string]: string; main: string };
          anything?: unknown;
        }>();
        // @ts-expect-error additionalProperties: false admits no other key
        return String(args.flags?.cats);
      },
    );
  });

  it('are zod types through nested objects, arrays, nullable and records', () => {
    const schema = z.object({
      stops: z.array(z.object({ city: z.string(), nights: z.number().int().optional() })),
      note: z.string().nullable(),
      prices: z.record(z.string(), z.number()),
    });
    newServer().registerTool('zod_itinerary', { inputSchema: schema }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ stops: { city: string; nights?: number | undefined }[]; note: string | null; prices: Record<string, number> }>();
      return 'ok';
    });
  });

  it('are Record<string, unknown> for a widened schema, and for none', () => {
    const widened: JsonSchemaObject = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const server = newServer();
    server.registerTool('widened', { inputSchema: widened }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return 'ok';
    });
    server.registerTool('no_schema', {}, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return 'ok';
    });
  });

  it('make a property optional when the literal types of required were widened away', () => {
    const required: string[] = ['city'];
    const server = newServer();
    server.registerTool('half_widened', { inputSchema: { type: 'object', properties: { n: { type: 'number' } }, required } }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ n?: number }>();
      return 'ok';
    });
  });

  it('refuse an inputSchema that is not an object schema, and a Standard Schema without JSON Schema', () => {
    const server = newServer();
    // @ts-expect-error a zod string is no arguments object
    expect(() => server.registerTool('zod_text', { inputSchema: z.string() }, () => 'x')).toThrow(TypeError);
    // @ts-expect-error a JSON Schema literal must be of type object
    expect(() => server.registerTool('text', { inputSchema: { type: 'string' } }, () => 'x')).toThrow(TypeError);
    // @ts-expect-error a valibot schema not wrapped in toStandardJsonSchema says nothing of its JSON Schema
    expect(() => server.registerTool('bare_valibot', { inputSchema: v.object({ city: v.string() }) }, () => 'x')).toThrow(TypeError);
  });
});

describe('structuredContent', () => {
  it('is typed by the outputSchema: the right shape compiles, a wrong type or a missing one does not, unless isError', () => {
    const server = newServer();
    server.registerTool('good', { outputSchema: ZOD_SUMMARY }, () => ({ structuredContent: { summary: 'ok' } }));
    server.registerTool('failed', { outputSchema: ZOD_SUMMARY }, () => ({ content: [{ type: 'text', text: 'no trip' }], isError: true }));
    // @ts-expect-error summary must be a string
    server.registerTool('wrong_type', { outputSchema: ZOD_SUMMARY }, () => ({ structuredContent: { summary: 7 } }));
    // @ts-expect-error structuredContent is missing
    server.registerTool('missing', { outputSchema: ZOD_SUMMARY }, () => ({ content: [{ type: 'text', text: 'a summary' }] }));
    // @ts-expect-error a string is no structuredContent
    server.registerTool('text', { outputSchema: ZOD_SUMMARY }, () => 'a summary');
  });

  it('is what the outputSchema accepts, its input type: what is checked and sent, before a zod transform', () => {
    const server = newServer();
    const counted = z.object({ n: z.string().transform((text) => text.length) });
    server.registerTool('counted', { outputSchema: counted }, () => ({ structuredContent: { n: 'abc' } }));
    // @ts-expect-error the transform's output is not what is sent
    server.registerTool('counted_wrong', { outputSchema: counted }, () => ({ structuredContent: { n: 3 } }));
  });

  it('is typed by a JSON Schema literal outputSchema too', () => {
    const server = newServer();
    const output = { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] } as const;
    server.registerTool('total', { outputSchema: output }, () => ({ structuredContent: { total: 3 } }));
    // @ts-expect-error total is required
    server.registerTool('no_total', { outputSchema: output }, () => ({ structuredContent: {} }));
  });

  it('is free with no outputSchema: a CallToolResult or a string', () => {
    const server = newServer();
    server.registerTool('free', {}, () => ({ content: [], structuredContent: { anything: 1 } }));
    server.registerTool('plain', {}, () => 'text');
  });
});

describe('confirm', () => {
  it('receives the arguments as the handler does', () => {
    const server = newServer();
    server.registerTool(
      'zod_confirm',
      {
        inputSchema: ZOD_TRIP,
        confirm: (args) => {
          expectTypeOf(args).toEqualTypeOf<Trip>();
          return `Book ${args.nights} nights in ${args.city}?`;
        },
      },
      () => 'booked',
    );
    server.registerTool(
      'json_confirm',
      {
        inputSchema: JSON_TRIP,
        confirm: (args) => {
          expectTypeOf(args).toEqualTypeOf<TripInput>();
          // @ts-expect-error nights may be missing
          return `Book ${args.nights.toFixed()} nights?`;
        },
      },
      () => 'booked',
    );
  });
});

describe('ToolsOf', () => {
  const server = newServer();
  const trip = server.registerTool('book_trip', { inputSchema: ZOD_TRIP, outputSchema: ZOD_SUMMARY }, ({ city }) => ({ structuredContent: { summary: city } }));
  const claim = server.registerTool(
    'claim_handle',
    { inputSchema: { type: 'object', properties: { handle: { type: 'string' } }, required: ['handle'] } },
    () => 'ok',
  );
  const ark = server.registerTool('ark_trip', { inputSchema: ARK_TRIP }, () => 'ok');
  /** Each tool under its name: arguments as a client sends them (before defaults), structuredContent as the handler gives it. */
  type Expected = {
    book_trip: ToolTypes<TripInput, { summary: string }>;
    claim_handle: ToolTypes<{ handle: string }, undefined>;
    ark_trip: ToolTypes<TripInput, undefined>;
  };

  it('maps a union, a tuple and an object of registrations alike', () => {
    expectTypeOf<ToolsOf<typeof trip | typeof claim | typeof ark>>().toEqualTypeOf<Expected>();
    expectTypeOf<ToolsOf<[typeof trip, typeof claim, typeof ark]>>().toEqualTypeOf<Expected>();
    expectTypeOf<ToolsOf<{ trip: typeof trip; claim: typeof claim; ark: typeof ark }>>().toEqualTypeOf<Expected>();
  });

  it('maps one registration to a map of one tool', () => {
    expectTypeOf<ToolsOf<typeof claim>>().toEqualTypeOf<Pick<Expected, 'claim_handle'>>();
    // @ts-expect-error book_trip is not in the map of claim_handle alone
    expectTypeOf<ToolsOf<typeof claim>>().toHaveProperty('book_trip');
  });
});
