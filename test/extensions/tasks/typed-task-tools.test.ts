/**
 * Task tools (`tasks.registerTool`) typed as `server.registerTool`'s: arguments from inputSchema (a
 * Standard Schema's output, or what a JSON Schema literal describes), structuredContent from
 * outputSchema, `prepared` from beforeTask's return. Run as a task on 2026-07-28 and as a plain call on a
 * 2025-11-25 session, with the schema's output (defaults applied) in beforeTask and the handler.
 */
import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { McpServer, type Tasks, useTasks } from '../../../src/index.js';
import { useMcpClients } from '../../helpers/mcp-clients.js';
import { createTask, resultOf, untilStatus, useTaskServers } from '../../helpers/tasks.js';
import { startWebSocket } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();
const h = useTaskServers(cleanups);
const clients = useMcpClients(cleanups);

const TRIP_IN = z.object({ city: z.string(), nights: z.number().int().min(1).default(1) });
const TRIP_OUT = z.object({ booked: z.string(), nights: z.number() });

/** A task tool `book`: beforeTask and the handler record the arguments they get; the handler returns structuredContent. */
function booking(seen: unknown[]) {
  return (_server: McpServer, tasks: Tasks) =>
    tasks.registerTool(
      'book',
      {
        inputSchema: TRIP_IN,
        outputSchema: TRIP_OUT,
        beforeTask: (args) => {
          seen.push(['beforeTask', args]);
          return { ref: `R-${args.city}` };
        },
      },
      (args, _ctx, prepared) => {
        seen.push(['handler', args, prepared]);
        return { structuredContent: { booked: `${args.city} (${prepared.ref})`, nights: args.nights } };
      },
    );
}

const BOOKED = {
  content: [{ type: 'text', text: '{"booked":"Oslo (R-Oslo)","nights":1}' }],
  structuredContent: { booked: 'Oslo (R-Oslo)', nights: 1 },
};

describe('a typed task tool', () => {
  it('runs as a task on 2026-07-28: beforeTask and the handler get the arguments as the schema reads them (the default applied)', async () => {
    const seen: unknown[] = [];
    const { declared } = await h.serve(booking(seen));
    const taskId = await createTask(declared, 'book', { city: 'Oslo' });
    expect((await untilStatus(declared, taskId, 'completed')).result).toEqual(BOOKED);
    expect(seen).toEqual([
      ['beforeTask', { city: 'Oslo', nights: 1 }],
      ['handler', { city: 'Oslo', nights: 1 }, { ref: 'R-Oslo' }],
    ]);
  });

  it('checks the arguments once for a task: beforeTask and the handler get the same value, a default made once', async () => {
    const seen: unknown[] = [];
    let checks = 0;
    let made = 0;
    const counted = z.object({
      id: z
        .string()
        .default(() => `id-${++made}`)
        .refine(() => ++checks > 0),
    });
    const { declared } = await h.serve((_server, tasks) =>
      tasks.registerTool(
        'stamp',
        {
          inputSchema: counted,
          beforeTask: (args) => {
            seen.push(['beforeTask', args.id]);
            return args.id;
          },
        },
        (args, _ctx, prepared) => {
          seen.push(['handler', args.id, prepared]);
          return args.id;
        },
      ),
    );
    const before = { checks, made };
    const taskId = await createTask(declared, 'stamp', {});
    await untilStatus(declared, taskId, 'completed');
    expect({ seen, checks: checks - before.checks, made: made - before.made }).toEqual({
      seen: [
        ['beforeTask', `id-${before.made + 1}`],
        ['handler', `id-${before.made + 1}`, `id-${before.made + 1}`],
      ],
      checks: 1,
      made: 1,
    });
  });

  it('runs as a plain call without the declaration, and on a 2025-11-25 session, alike', async () => {
    const seen: unknown[] = [];
    const { plain } = await h.serve(booking(seen));
    expect(resultOf(await plain.callTool('book', { city: 'Oslo' }))).toEqual({ resultType: 'complete', ...BOOKED });
    const running = await startWebSocket(cleanups, (server) => booking(seen)(server, useTasks(server)));
    const { client } = await clients.connect(running);
    expect(await client.callTool('book', { city: 'Oslo' })).toEqual(BOOKED);
    expect(seen).toEqual([
      ['beforeTask', { city: 'Oslo', nights: 1 }],
      ['handler', { city: 'Oslo', nights: 1 }, { ref: 'R-Oslo' }],
      ['beforeTask', { city: 'Oslo', nights: 1 }],
      ['handler', { city: 'Oslo', nights: 1 }, { ref: 'R-Oslo' }],
    ]);
  });

  it('answers arguments the schema refuses at once, as the tool does: no beforeTask, no task', async () => {
    const seen: unknown[] = [];
    const { declared } = await h.serve(booking(seen));
    expect(resultOf(await declared.callTool('book', { city: 'Oslo', nights: 0 }))).toEqual({
      resultType: 'complete',
      content: [{ type: 'text', text: 'Invalid arguments for tool book: /nights: Too small: expected number to be >=1' }],
      isError: true,
    });
    expect(seen).toEqual([]);
  });
});

describe('the types a task tool gets (checked by tsc)', () => {
  it('types args, prepared and structuredContent, and refuses a wrong field or result', () => {
    const tasks = useTasks(new McpServer({ name: 'types', version: '1.0.0' }));
    const registration = tasks.registerTool(
      'book',
      {
        inputSchema: TRIP_IN,
        outputSchema: TRIP_OUT,
        confirm: (args) => `Book ${args.city}?`,
        beforeTask: (args) => {
          expectTypeOf(args).toEqualTypeOf<{ city: string; nights: number }>();
          return { ref: 'R-1' as const };
        },
      },
      (args, ctx, prepared) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; nights: number }>();
        expectTypeOf(prepared).toEqualTypeOf<{ ref: 'R-1' }>();
        expectTypeOf(ctx.method).toEqualTypeOf<string>();
        // @ts-expect-error: the schema has no 'town'
        void args.town;
        return { structuredContent: { booked: args.city, nights: args.nights } };
      },
    );
    expectTypeOf(registration['~tool']).toEqualTypeOf<
      | { readonly name: 'book'; readonly args: { city: string; nights?: number | undefined }; readonly structured: { booked: string; nights: number } }
      | undefined
    >();

    tasks.registerTool('literal', { inputSchema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } }, (args, _ctx, prepared) => {
      expectTypeOf(args).toEqualTypeOf<{ n: number }>();
      expectTypeOf(prepared).toEqualTypeOf<undefined>();
      return `n=${args.n}`;
    });

    // @ts-expect-error: structuredContent must fit outputSchema
    tasks.registerTool('wrong', { outputSchema: TRIP_OUT }, () => ({ structuredContent: { booked: 1, nights: 1 } }));

    tasks.registerTool('untyped', {}, (args) => {
      expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
      return 'ok';
    });
    expect(registration.remove).toBeTypeOf('function');
  });
});
