/**
 * Prompts whose `arguments` is a schema (zod 4, valibot with @valibot/to-json-schema, ArkType 2, or a JSON
 * Schema literal), in both eras over real sockets: the argument list prompts/list shows, the schema's
 * output as the handler's arguments, the -32602 a refused prompts/get gets, an async check, the
 * registration errors, and the handler's types.
 */
import { toStandardJsonSchema } from '@valibot/to-json-schema';
import { type } from 'arktype';
import * as v from 'valibot';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { type GetPromptResult, McpServer, type PromptArgument } from '../../src/index.js';
import type { PromptArguments } from '../../src/server/prompts.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { MODERN_CAPS, ModernClient } from '../helpers/modern.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket, startHttp } from '../helpers/servers.js';
import { useWsSessions } from '../helpers/ws-sessions.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);
const clients = useMcpClients(cleanups);

/** One trip prompt's arguments in each way a schema can be given: a described required one, a titled optional one, one with a default. */
const TRIP: Record<string, PromptArguments> = {
  zod: z.object({ city: z.string().describe('Where to'), style: z.string().meta({ title: 'Style' }).optional(), days: z.string().default('3') }),
  valibot: toStandardJsonSchema(
    v.object({
      city: v.pipe(v.string(), v.description('Where to')),
      style: v.optional(v.pipe(v.string(), v.title('Style'))),
      days: v.optional(v.string(), '3'),
    }),
  ),
  arktype: type({ city: type('string').describe('Where to'), 'style?': type('string').configure({ title: 'Style' }), days: "string = '3'" }),
  json: {
    type: 'object',
    properties: { city: { type: 'string', description: 'Where to' }, style: { type: 'string', title: 'Style' }, days: { type: 'string', default: '3' } },
    required: ['city'],
  },
};

const TRIP_ARGUMENTS: PromptArgument[] = [
  { name: 'city', description: 'Where to', required: true },
  { name: 'style', title: 'Style', required: false },
  { name: 'days', required: false },
];

/** The prompt's result: the arguments it was handed, as JSON. */
const echo = (args: unknown): GetPromptResult => ({ messages: [{ role: 'user', content: { type: 'text', text: JSON.stringify(args) } }] });

async function serve(setup: (server: McpServer) => void) {
  const running = await startWebSocket(cleanups, setup);
  const { client } = await clients.connect(running);
  return { running, client };
}

async function serveModern(setup: (server: McpServer) => void) {
  const running = await startHttp(cleanups, setup);
  return new ModernClient(running.url, MODERN_CAPS.none);
}

describe('prompts/list with arguments given as a schema', () => {
  it.each(Object.keys(TRIP))("lists the %s schema's properties as the arguments: name, title, description, required", async (library) => {
    const { client } = await serve((server) => server.registerPrompt('trip', { description: 'Plan a trip', arguments: TRIP[library] }, echo));
    expect(await client.listPrompts()).toEqual({
      prompts: [{ name: 'trip', description: 'Plan a trip', arguments: library === 'arktype' ? ARKTYPE_ORDER : TRIP_ARGUMENTS }],
    });
  });

  it('lists them on 2026-07-28 too', async () => {
    const client = await serveModern((server) => server.registerPrompt('trip', { arguments: TRIP.zod }, echo));
    const reply = await client.request('prompts/list');
    expect(reply.body.result.prompts).toEqual([{ name: 'trip', arguments: TRIP_ARGUMENTS }]);
  });
});

// ArkType orders an object's keys by kind (required first) and name.
const ARKTYPE_ORDER = [TRIP_ARGUMENTS[0], TRIP_ARGUMENTS[2], TRIP_ARGUMENTS[1]];

describe('prompts/get with arguments given as a schema', () => {
  it.each(Object.keys(TRIP))('hands the handler the arguments as the %s schema reads them', async (library) => {
    const { client } = await serve((server) => server.registerPrompt('trip', { arguments: TRIP[library] }, echo));
    // A JSON Schema literal's default is for clients to show: ajv checks, it does not fill in.
    const read = library === 'json' ? { city: 'Oslo' } : { city: 'Oslo', days: '3' };
    expect(await client.getPrompt('trip', { city: 'Oslo' })).toEqual(echo(read));
  });

  it('reads a number out of a string where a Standard schema coerces', async () => {
    const { client } = await serve((server) => server.registerPrompt('count', { arguments: z.object({ n: z.coerce.number().int().min(1) }) }, echo));
    expect(await client.getPrompt('count', { n: '4' })).toEqual(echo({ n: 4 }));
    expect(await rpcError(client.getPrompt('count', { n: 'four' }))).toEqual({
      code: -32602,
      message: 'Invalid arguments for prompt count: /n: Invalid input: expected number, received NaN',
    });
  });

  const refusals: [string, PromptArguments, Record<string, string>, string][] = [
    ['zod', TRIP.zod, {}, '/city: Invalid input: expected string, received undefined'],
    ['valibot', TRIP.valibot, {}, '/city: Invalid key: Expected "city" but received undefined'],
    ['arktype', TRIP.arktype, {}, '/city: must be a string (was missing)'],
    ['a JSON Schema literal', TRIP.json, {}, "/city: must have required property 'city'"],
    [
      'zod, naming each violation',
      z.object({ city: z.string().min(2), days: z.string().regex(/^\d+$/) }),
      { city: 'X', days: 'many' },
      '/city: Too small: expected string to have >=2 characters; /days: Invalid string: must match pattern /^\\d+$/',
    ],
  ];

  it.each(refusals)('answers -32602 naming each violation with its path (%s), without running the handler', async (_what, schema, args, violations) => {
    let ran = false;
    const { client } = await serve((server) =>
      server.registerPrompt('trip', { arguments: schema }, (read) => {
        ran = true;
        return echo(read);
      }),
    );
    expect(await rpcError(client.getPrompt('trip', args))).toEqual({ code: -32602, message: `Invalid arguments for prompt trip: ${violations}` });
    expect(ran).toBe(false);
  });

  it('answers -32602 on 2026-07-28 as on a session, with HTTP 400', async () => {
    const client = await serveModern((server) => server.registerPrompt('trip', { arguments: TRIP.zod }, echo));
    expect(await client.getPrompt('trip', { style: 'slow' })).toEqual({
      status: 400,
      body: {
        jsonrpc: '2.0',
        id: 1,
        error: { code: -32602, message: 'Invalid arguments for prompt trip: /city: Invalid input: expected string, received undefined' },
      },
    });
    expect(await client.getPrompt('trip', { city: 'Oslo' })).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 2, result: { resultType: 'complete', ...echo({ city: 'Oslo', days: '3' }) } },
    });
  });

  it('awaits an async check', async () => {
    const known = z.object({
      city: z.string().refine(async (city) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        return city === 'Oslo';
      }, 'No trips there'),
    });
    const { client } = await serve((server) => server.registerPrompt('trip', { arguments: known }, echo));
    expect(await client.getPrompt('trip', { city: 'Oslo' })).toEqual(echo({ city: 'Oslo' }));
    expect(await rpcError(client.getPrompt('trip', { city: 'Rome' }))).toEqual({
      code: -32602,
      message: 'Invalid arguments for prompt trip: /city: No trips there',
    });
  });

  it("answers -32603 saying so when the schema's own check throws", async () => {
    const broken = z.object({
      city: z.string().refine(() => {
        throw new Error('the lookup is down');
      }),
    });
    const { client } = await serve((server) => server.registerPrompt('trip', { arguments: broken }, echo));
    expect(await rpcError(client.getPrompt('trip', { city: 'Oslo' }))).toEqual({
      code: -32603,
      message: "Prompt trip's arguments check threw: the lookup is down",
    });
  });

  it('still refuses a value that is not a string before the schema sees it', async () => {
    const { url } = await startWebSocket(cleanups, (server) => server.registerPrompt('trip', { arguments: TRIP.zod }, echo));
    const client = await h.ready(url);
    expect(await client.request('prompts/get', { name: 'trip', arguments: { city: 3 } }, 'n')).toEqual({
      jsonrpc: '2.0',
      id: 'n',
      error: { code: -32602, message: "Argument 'city' for prompt trip must be a string" },
    });
  });
});

describe('registering a prompt whose arguments are a schema', () => {
  const server = () => new McpServer({ name: 'reg', version: '1.0.0' });
  const handler = () => ({ messages: [] });

  it('throws for a schema that is not of type "object"', () => {
    expect(() => server().registerPrompt('p', { arguments: z.string() as never }, handler)).toThrow(
      new TypeError(`Prompt 'p': arguments must be a list of arguments or a schema of type "object"`),
    );
  });

  it('throws for a JSON Schema literal property that is not a string: ajv does not coerce what arrives as one', () => {
    expect(() => server().registerPrompt('p', { arguments: { type: 'object', properties: { n: { type: 'integer' } } } }, handler)).toThrow(
      new TypeError(`Prompt 'p': arguments.properties.n must be of type "string": prompt arguments arrive as strings`),
    );
  });

  it('throws for a Standard Schema without JSON Schema, saying what to use', () => {
    expect(() => server().registerPrompt('p', { arguments: v.object({ city: v.string() }) as never }, handler)).toThrow(
      new TypeError(
        "Prompt 'p': arguments: this valibot schema does not implement Standard JSON Schema (~standard.jsonSchema), which the wire needs; use zod 4, ArkType 2, or valibot wrapped in toStandardJsonSchema from @valibot/to-json-schema",
      ),
    );
  });
});

describe("the handler's argument types (checked by tsc)", () => {
  it('types the arguments by the schema, and a wrong one is an error', () => {
    const s = server();
    s.registerPrompt('trip', { arguments: z.object({ city: z.string(), style: z.string().optional(), days: z.string().default('3') }) }, (args) => {
      expectTypeOf(args).toEqualTypeOf<{ city: string; style?: string | undefined; days: string }>();
      // @ts-expect-error: the schema has no 'town'
      void args.town;
      return echo(args);
    });
    s.registerPrompt('count', { arguments: z.object({ n: z.coerce.number() }) }, (args) => {
      expectTypeOf(args.n).toEqualTypeOf<number>();
      return echo(args);
    });
    s.registerPrompt(
      'literal',
      { arguments: { type: 'object', properties: { city: { type: 'string' }, style: { type: 'string', enum: ['slow', 'fast'] } }, required: ['city'] } },
      (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; style?: 'slow' | 'fast' }>();
        return echo(args);
      },
    );
    s.registerPrompt('listed', { arguments: [{ name: 'city', required: true }] }, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, string>>();
      return echo(args);
    });
    s.registerPrompt('none', {}, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, string>>();
      return echo(args);
    });
    expect(s).toBeInstanceOf(McpServer);
  });

  function server() {
    return new McpServer({ name: 'types', version: '1.0.0' });
  }
});
