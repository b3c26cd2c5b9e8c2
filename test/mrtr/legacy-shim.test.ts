/**
 * The same MRTR-style handlers on a handshake-era session over a real WebSocket, seen by an McpClient:
 * ctx.elicit, ctx.createMessage and ctx.listRoots push real server-to-client requests (the client's
 * handlers answer them, with ctx.era 'legacy' and the server's request id), and an explicit
 * input-required is fulfilled by pushing its requests and running the handler again.
 */
import { describe, expect, it } from 'vitest';
import {
  type CreateMessageParams,
  type CreateMessageResult,
  type ElicitParams,
  type ElicitResult,
  type HandlerContext,
  inputRequired,
  type ListRootsResult,
  type McpServer,
} from '../../src/index.js';
import { registerModernFixtures } from '../../conformance/fixture-modern.js';
import { ADA, CAPS, NAME_Q, NAME_SCHEMA, PARIS, ROOTS, SAMPLE_Q, SEAT_Q, textOf, toolText } from '../helpers/client-requests.js';
import { rpcError, useMcpClients } from '../helpers/mcp-clients.js';
import { type RunningServer, startWebSocket } from '../helpers/servers.js';
import { deferred, tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import type { Json } from '../helpers/ws-client.js';

const cleanups = useCleanups();
const mcp = useMcpClients(cleanups);

const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} };
const SEAT_12A = { action: 'accept', content: { seat: '12A' } } as ElicitResult;

/** A request the server pushed, as the client's handler got it (a roots handler is given no params). */
function pushed(requestId: number, method: string, params?: unknown): Json {
  return { era: 'legacy', requestId, method, ...(params === undefined ? {} : { params }) };
}

/** How the client's handlers answer; by default with ADA, PARIS and ROOTS. */
interface Answers {
  elicitation?: (params: ElicitParams, ctx: HandlerContext) => ElicitResult | Promise<ElicitResult>;
  sampling?: (params: CreateMessageParams, ctx: HandlerContext) => CreateMessageResult | Promise<CreateMessageResult>;
  roots?: (ctx: HandlerContext) => ListRootsResult | Promise<ListRootsResult>;
}

/**
 * An McpClient on `running` (legacy era, over WebSocket) that declares `capabilities`. Its handlers record
 * every request the server pushes (`asked`, in arrival order) and answer it. `expectQuietAndAlive()`: the
 * session still answers a ping, and meanwhile nothing else arrived (no further pushed request, no
 * notification) and the client reported no error.
 */
async function open(running: RunningServer, capabilities: Json, answers: Answers = {}) {
  const asked: Json[] = [];
  const notifications: Json[] = [];
  const record = (method: string, ctx: HandlerContext, params?: unknown) =>
    void asked.push({ era: ctx.era, requestId: ctx.requestId, method, ...(params === undefined ? {} : { params }) });
  const { client, errors } = await mcp.connect(running, { capabilities }, (c) => {
    c.onElicitation((params, ctx) => (record('elicitation/create', ctx, params), answers.elicitation?.(params, ctx) ?? (ADA as ElicitResult)));
    c.onSampling((params, ctx) => (record('sampling/createMessage', ctx, params), answers.sampling?.(params, ctx) ?? (PARIS as CreateMessageResult)));
    c.onRoots((ctx) => (record('roots/list', ctx), answers.roots?.(ctx) ?? ROOTS));
    c.on('notification', (notification) => void notifications.push(notification));
  });
  async function expectQuietAndAlive(): Promise<void> {
    const seen = asked.length;
    await client.ping();
    expect({ asked: asked.slice(seen), notifications, errors }).toEqual({ asked: [], notifications: [], errors: [] });
  }
  return { client, asked, expectQuietAndAlive };
}

describe('era-portable asks on a legacy-era session', () => {
  function greeter(log: string[], key?: string) {
    return (server: McpServer) =>
      server.registerTool('greet', {}, async (_args, ctx) => {
        log.push('before');
        const answer = await ctx.elicit(NAME_Q, key === undefined ? {} : { key });
        log.push(`after:${answer.action}`);
        return `Hello, ${answer.content?.name}!`;
      });
  }

  it('ctx.elicit pushes a real elicitation/create and resolves with the answer; the handler runs once, no replay', async () => {
    const log: string[] = [];
    const running = await startWebSocket(cleanups, greeter(log));
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form);
    expect(await client.callTool('greet')).toEqual(toolText('Hello, Ada!'));
    expect(asked).toEqual([pushed(0, 'elicitation/create', NAME_Q)]);
    expect(log).toEqual(['before', 'after:accept']);
    await expectQuietAndAlive();
  });

  it('ctx.elicit with { key } pushes the same request (keys only matter on 2026-07-28)', async () => {
    const log: string[] = [];
    const running = await startWebSocket(cleanups, greeter(log, 'user_name'));
    const { client, asked } = await open(running, CAPS.form);
    expect(await client.callTool('greet')).toEqual(toolText('Hello, Ada!'));
    expect(asked).toEqual([pushed(0, 'elicitation/create', NAME_Q)]);
  });

  it('ctx.elicit, ctx.createMessage and ctx.listRoots push one request after another, each answered before the next', async () => {
    let runs = 0;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('survey', {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit(NAME_Q);
        const reply = await ctx.createMessage(SAMPLE_Q);
        const { roots } = await ctx.listRoots();
        return `${who.content?.name} / ${textOf(reply)} / ${roots.map((r) => r.uri).join(' ')}`;
      }),
    );
    // Each handler notes how many answers the client had given when its request arrived, and answers a turn later.
    let answers = 0;
    const answersBefore: number[] = [];
    const later = async <T>(answer: T): Promise<T> => {
      answersBefore.push(answers);
      await tick();
      answers++;
      return answer;
    };
    const { client, asked, expectQuietAndAlive } = await open(running, ALL, {
      elicitation: () => later(ADA as ElicitResult),
      sampling: () => later(PARIS as CreateMessageResult),
      roots: () => later(ROOTS),
    });
    expect(await client.callTool('survey')).toEqual(toolText('Ada / Paris / file:///work file:///home'));
    expect(asked).toEqual([pushed(0, 'elicitation/create', NAME_Q), pushed(1, 'sampling/createMessage', SAMPLE_Q), pushed(2, 'roots/list')]);
    expect(answersBefore).toEqual([0, 1, 2]);
    expect(runs).toBe(1);
    await expectQuietAndAlive();
  });

  it('a missing capability for ctx.elicit is an isError result in a tool, and nothing is pushed', async () => {
    const log: string[] = [];
    const running = await startWebSocket(cleanups, greeter(log));
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.sampling);
    expect(await client.callTool('greet')).toEqual(
      toolText('The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that', true),
    );
    expect(asked).toEqual([]);
    expect(log).toEqual(['before']);
    await expectQuietAndAlive();
  });

  it('a missing sampling capability for ctx.createMessage is an isError result in a tool', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('ask', {}, async (_args, ctx) => textOf(await ctx.createMessage(SAMPLE_Q))));
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form);
    expect(await client.callTool('ask')).toEqual(
      toolText('The client did not declare the sampling capability; it cannot be asked for sampling/createMessage', true),
    );
    expect(asked).toEqual([]);
    await expectQuietAndAlive();
  });
});

describe('an explicit input-required on a legacy-era session', () => {
  it('pushes its request, then runs the handler again with ctx.inputResponses and ctx.requestState', async () => {
    const seen: Json[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('book', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, (args, ctx) => {
        seen.push({ inputResponses: ctx.inputResponses, requestState: ctx.requestState });
        const seat = ctx.inputResponses?.seat as { content?: { seat?: string } } | undefined;
        if (!seat) return inputRequired({ state: { city: args.city } }).addElicitation('seat', SEAT_Q);
        return `Booked ${seat.content?.seat} to ${(ctx.requestState as { city: string }).city}`;
      }),
    );
    // The handler ran once before its request was pushed.
    const runsWhenAsked: number[] = [];
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form, {
      elicitation: () => (runsWhenAsked.push(seen.length), SEAT_12A),
    });
    expect(await client.callTool('book', { city: 'Paris' })).toEqual(toolText('Booked 12A to Paris'));
    expect(asked).toEqual([pushed(0, 'elicitation/create', SEAT_Q)]);
    expect(runsWhenAsked).toEqual([1]);
    expect(seen).toEqual([
      { inputResponses: {}, requestState: undefined },
      { inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } }, requestState: { city: 'Paris' } },
    ]);
    await expectQuietAndAlive();
  });

  it('pushes every request of one round at once (elicitation, sampling and roots) and runs the handler again with all the answers', async () => {
    const running = await startWebSocket(cleanups, registerModernFixtures);
    // No handler answers before all three requests have arrived; then they answer in reverse order (roots,
    // sampling, elicitation): the handler waits for all of them.
    let arrived = 0;
    const allArrived = deferred();
    const onceAllArrived = async <T>(turns: number, answer: T): Promise<T> => {
      if (++arrived === 3) allArrived.resolve();
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`only ${arrived} of the 3 requests were pushed before the first was answered`)), 2000);
      });
      await Promise.race([allArrived.promise, late]).finally(() => clearTimeout(timer));
      for (let turn = 0; turn < turns; turn++) await tick();
      return answer;
    };
    const { client, asked, expectQuietAndAlive } = await open(running, ALL, {
      roots: () => onceAllArrived(0, ROOTS),
      sampling: () => onceAllArrived(1, { ...PARIS, content: { type: 'text', text: 'Bonjour' } } as CreateMessageResult),
      elicitation: () => onceAllArrived(2, ADA as ElicitResult),
    });
    expect(await client.callTool('test_input_required_result_multiple_inputs')).toEqual(toolText('Bonjour Ada; 2 root(s)'));
    const [elicit, sample, roots] = ['elicitation/create', 'sampling/createMessage', 'roots/list'].map((method) => asked.find((r) => r.method === method)!);
    expect(asked).toHaveLength(3);
    expect(elicit).toEqual(pushed(elicit.requestId, 'elicitation/create', { message: 'What is your name?', requestedSchema: NAME_SCHEMA }));
    expect(sample).toEqual(
      pushed(sample.requestId, 'sampling/createMessage', {
        messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }],
        maxTokens: 50,
      }),
    );
    expect(roots).toEqual(pushed(roots.requestId, 'roots/list'));
    expect([elicit.requestId, sample.requestId, roots.requestId].sort()).toEqual([0, 1, 2]);
    await expectQuietAndAlive();
  });

  it('runs the multi-round fixture as two pushed elicitations, one after the other', async () => {
    const running = await startWebSocket(cleanups, registerModernFixtures);
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form, {
      elicitation: (params) => (params.message.startsWith('Step 1') ? (ADA as ElicitResult) : { action: 'accept', content: { color: 'green' } }),
    });
    expect(await client.callTool('test_input_required_result_multi_round')).toEqual(toolText('Ada likes green.'));
    expect(asked).toEqual([
      pushed(0, 'elicitation/create', { message: 'Step 1: What is your name?', requestedSchema: NAME_SCHEMA }),
      pushed(1, 'elicitation/create', {
        message: 'Step 2: What is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      }),
    ]);
    await expectQuietAndAlive();
  });

  it('pushes what a handler adds to ctx.inputRequired, whatever it returned', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('where', {}, (_args, ctx) => {
        const roots = ctx.inputResponses?.client_roots as { roots: { uri: string }[] } | undefined;
        if (!roots) {
          ctx.inputRequired.addRoots('client_roots');
          return 'this result is not sent';
        }
        return roots.roots.map((r) => r.uri).join(' ');
      }),
    );
    const { client, asked } = await open(running, CAPS.roots);
    expect(await client.callTool('where')).toEqual(toolText('file:///work file:///home'));
    expect(asked).toEqual([pushed(0, 'roots/list')]);
  });

  it('works for prompts/get', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt('summary', { arguments: [{ name: 'topic', required: true }] }, (args, ctx) => {
        const tone = ctx.inputResponses?.tone as { content?: { tone?: string } } | undefined;
        if (!tone)
          return inputRequired().addElicitation('tone', {
            message: 'Tone?',
            requestedSchema: { type: 'object', properties: { tone: { type: 'string' } } },
          } as unknown as ElicitParams);
        return { messages: [{ role: 'user', content: { type: 'text', text: `${tone.content?.tone} summary of ${args.topic}` } }] };
      }),
    );
    const { client, asked } = await open(running, CAPS.form, { elicitation: () => ({ action: 'accept', content: { tone: 'calm' } }) });
    expect(await client.getPrompt('summary', { topic: 'tides' })).toEqual({
      messages: [{ role: 'user', content: { type: 'text', text: 'calm summary of tides' } }],
    });
    expect(asked).toEqual([
      pushed(0, 'elicitation/create', { message: 'Tone?', requestedSchema: { type: 'object', properties: { tone: { type: 'string' } } } }),
    ]);
  });

  it('works for resources/read', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResource('test://locked', { name: 'locked', mimeType: 'text/plain' }, (_uri, ctx) => {
        const reply = ctx.inputResponses?.why;
        if (!reply) return inputRequired().addSampling('why', SAMPLE_Q);
        return `the model said ${textOf(reply)}`;
      }),
    );
    const { client, asked } = await open(running, CAPS.sampling);
    expect(await client.readResource('test://locked')).toEqual({
      contents: [{ uri: 'test://locked', mimeType: 'text/plain', text: 'the model said Paris' }],
    });
    expect(asked).toEqual([pushed(0, 'sampling/createMessage', SAMPLE_Q)]);
  });

  it('answers -32602 once a request has asked maxRounds times', async () => {
    let runs = 0;
    const running = await startWebSocket(
      cleanups,
      (server) =>
        server.registerTool('insatiable', {}, () => {
          runs++;
          return inputRequired().addElicitation(`q${runs}`, NAME_Q);
        }),
      { server: { requestState: { keys: ['legacy-shim-request-state-key-0123456789'] }, maxRounds: 2 } },
    );
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form);
    expect(await rpcError(client.callTool('insatiable'))).toEqual({
      code: -32602,
      message: "tools/call insatiable asked for input 2 times without finishing; answer every input request in one retry, or raise the server's maxRounds",
    });
    expect(asked).toEqual([pushed(0, 'elicitation/create', NAME_Q), pushed(1, 'elicitation/create', NAME_Q)]);
    expect(runs).toBe(3);
    await expectQuietAndAlive();
  });

  it('a missing capability for an explicit input request is an isError result in a tool, as for ctx.elicit', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('where', {}, (_args, ctx) => (ctx.inputResponses?.r ? 'ok' : inputRequired().addRoots('r'))),
    );
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form);
    expect(await client.callTool('where')).toEqual(toolText('The client did not declare the roots capability; it cannot be asked for roots/list', true));
    expect(asked).toEqual([]);
    await expectQuietAndAlive();
  });

  it('with state only (nothing to push) runs the handler again with ctx.requestState instead of sending the input-required as a result', async () => {
    const states: unknown[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('poll', {}, (_args, ctx) => {
        states.push(ctx.requestState);
        return ctx.requestState === undefined ? inputRequired({ state: { ticket: 'T-1' } }) : `ticket ${(ctx.requestState as { ticket: string }).ticket} done`;
      }),
    );
    const { client, asked } = await open(running, CAPS.form);
    expect(await client.callTool('poll')).toEqual(toolText('ticket T-1 done'));
    expect(asked).toEqual([]);
    expect(states).toEqual([undefined, { ticket: 'T-1' }]);
  });

  it('with neither requests nor state answers -32603, as on 2026-07-28, instead of sending the input-required as a result', async () => {
    const running = await startWebSocket(cleanups, (server) => server.registerTool('empty', {}, () => inputRequired()));
    const { client } = await open(running, CAPS.form);
    expect(await rpcError(client.callTool('empty'))).toEqual({
      code: -32603,
      message: 'tools/call empty returned an input-required with neither input requests nor state',
    });
  });

  it('the confirm option pushes its question and runs the tool on accept', async () => {
    let runs = 0;
    const running = await startWebSocket(cleanups, (server) =>
      server.registerTool('delete', { confirm: 'Delete everything?' }, () => {
        runs++;
        return 'deleted';
      }),
    );
    // The tool has not run when the question arrives.
    const runsWhenAsked: number[] = [];
    const { client, asked } = await open(running, CAPS.form, { elicitation: () => (runsWhenAsked.push(runs), { action: 'accept' }) });
    expect(await client.callTool('delete')).toEqual(toolText('deleted'));
    expect(asked).toEqual([pushed(0, 'elicitation/create', { message: 'Delete everything?', requestedSchema: { type: 'object', properties: {} } })]);
    expect(runsWhenAsked).toEqual([0]);
    expect(runs).toBe(1);
  });
});

describe('methods that cannot ask for input, on a legacy-era session', () => {
  it('answers completion/complete whose completer uses ctx.inputRequired with -32600, not an input-required', async () => {
    const running = await startWebSocket(cleanups, (server) =>
      server.registerPrompt(
        'p',
        {
          arguments: [{ name: 'city' }],
          complete: {
            city: (_value, { ctx }) => {
              ctx.inputRequired.addElicitation('x', NAME_Q);
              return ['Paris'];
            },
          },
        },
        () => ({ messages: [] }),
      ),
    );
    const { client, asked, expectQuietAndAlive } = await open(running, CAPS.form);
    expect(await rpcError(client.complete({ ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'city', value: 'Pa' } }))).toEqual({
      code: -32600,
      message: 'completion/complete cannot ask for input: only tools/call, prompts/get and resources/read can',
    });
    expect(asked).toEqual([]);
    await expectQuietAndAlive();
  });
});
