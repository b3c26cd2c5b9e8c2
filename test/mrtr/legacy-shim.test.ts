/**
 * The same MRTR-style handlers on a handshake-era session over a real WebSocket: ctx.elicit,
 * ctx.createMessage and ctx.listRoots push real server-to-client requests, and an explicit
 * input-required is fulfilled by pushing its requests and running the handler again.
 */
import { describe, expect, it } from 'vitest';
import { inputRequired, type ElicitParams, type McpServer } from '../../src/index.js';
import { registerModernFixtures } from '../../conformance/fixture-modern.js';
import { ADA, callTool, CAPS, NAME_Q, NAME_SCHEMA, PARIS, ROOTS, SAMPLE_Q, SEAT_Q, textOf, textResult } from '../helpers/client-requests.js';
import { expectQuietAndAlive, useHarness } from '../helpers/session-harness.js';
import type { Json } from '../helpers/ws-client.js';

const h = useHarness();

const ALL = { elicitation: { form: {} }, sampling: {}, roots: {} };

function pushed(id: number, method: string, params: unknown): Json {
  return { jsonrpc: '2.0', id, method, params };
}

describe('era-portable asks on a handshake session', () => {
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
    const running = await h.start(greeter(log));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'greet');
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(0, 'elicitation/create', NAME_Q));
    client.respond(0, ADA);
    expect(await call).toEqual(textResult('call-greet', 'Hello, Ada!'));
    expect(log).toEqual(['before', 'after:accept']);
    await expectQuietAndAlive(client);
  });

  it('ctx.elicit with { key } pushes the same request (keys only matter on 2026-07-28)', async () => {
    const log: string[] = [];
    const running = await h.start(greeter(log, 'user_name'));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'greet');
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(0, 'elicitation/create', NAME_Q));
    client.respond(0, ADA);
    expect(await call).toEqual(textResult('call-greet', 'Hello, Ada!'));
  });

  it('ctx.elicit, ctx.createMessage and ctx.listRoots push one request after another, each answered before the next', async () => {
    let runs = 0;
    const running = await h.start((server) =>
      server.registerTool('survey', {}, async (_args, ctx) => {
        runs++;
        const who = await ctx.elicit(NAME_Q);
        const reply = await ctx.createMessage(SAMPLE_Q);
        const { roots } = await ctx.listRoots();
        return `${who.content?.name} / ${textOf(reply)} / ${roots.map((r) => r.uri).join(' ')}`;
      }),
    );
    const { client } = await h.open(running, { capabilities: ALL });
    const call = callTool(client, 'survey');
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(0, 'elicitation/create', NAME_Q));
    client.respond(0, ADA);
    expect(await client.nextMessage('sampling/createMessage')).toEqual(pushed(1, 'sampling/createMessage', SAMPLE_Q));
    client.respond(1, PARIS);
    expect(await client.nextMessage('roots/list')).toEqual(pushed(2, 'roots/list', {}));
    client.respond(2, ROOTS);
    expect(await call).toEqual(textResult('call-survey', 'Ada / Paris / file:///work file:///home'));
    expect(runs).toBe(1);
    await expectQuietAndAlive(client);
  });

  it('a missing capability for ctx.elicit is an isError result in a tool, and nothing is pushed', async () => {
    const log: string[] = [];
    const running = await h.start(greeter(log));
    const { client } = await h.open(running, { capabilities: CAPS.sampling });
    expect(await callTool(client, 'greet')).toEqual(
      textResult(
        'call-greet',
        'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
        true,
      ),
    );
    expect(log).toEqual(['before']);
    await expectQuietAndAlive(client);
  });

  it('a missing sampling capability for ctx.createMessage is an isError result in a tool', async () => {
    const running = await h.start((server) => server.registerTool('ask', {}, async (_args, ctx) => textOf(await ctx.createMessage(SAMPLE_Q))));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    expect(await callTool(client, 'ask')).toEqual(
      textResult('call-ask', 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage', true),
    );
    await expectQuietAndAlive(client);
  });
});

describe('an explicit input-required on a handshake session', () => {
  it('pushes its request, then runs the handler again with ctx.inputResponses and ctx.requestState', async () => {
    const seen: Json[] = [];
    const running = await h.start((server) =>
      server.registerTool('book', { inputSchema: { type: 'object', properties: { city: { type: 'string' } } } }, (args, ctx) => {
        seen.push({ inputResponses: ctx.inputResponses, requestState: ctx.requestState });
        const seat = ctx.inputResponses?.seat as { content?: { seat?: string } } | undefined;
        if (!seat) return inputRequired({ state: { city: args.city } }).addElicitation('seat', SEAT_Q);
        return `Booked ${seat.content?.seat} to ${(ctx.requestState as { city: string }).city}`;
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'book', { city: 'Paris' });
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(0, 'elicitation/create', SEAT_Q));
    expect(seen).toHaveLength(1);
    client.respond(0, { action: 'accept', content: { seat: '12A' } });
    expect(await call).toEqual(textResult('call-book', 'Booked 12A to Paris'));
    expect(seen).toEqual([
      { inputResponses: {}, requestState: undefined },
      { inputResponses: { seat: { action: 'accept', content: { seat: '12A' } } }, requestState: { city: 'Paris' } },
    ]);
    await expectQuietAndAlive(client);
  });

  it('pushes every request of one round at once (elicitation, sampling and roots) and runs the handler again with all the answers', async () => {
    const running = await h.start(registerModernFixtures);
    const { client } = await h.open(running, { capabilities: ALL });
    const call = callTool(client, 'test_input_required_result_multiple_inputs');
    const [elicit, sample, roots] = await Promise.all([
      client.nextMessage('elicitation/create'),
      client.nextMessage('sampling/createMessage'),
      client.nextMessage('roots/list'),
    ]);
    expect(elicit).toEqual(pushed(elicit.id, 'elicitation/create', { message: 'What is your name?', requestedSchema: NAME_SCHEMA }));
    expect(sample).toEqual(
      pushed(sample.id, 'sampling/createMessage', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 }),
    );
    expect(roots).toEqual(pushed(roots.id, 'roots/list', {}));
    expect([elicit.id, sample.id, roots.id].sort()).toEqual([0, 1, 2]);
    // Answered in reverse order: the handler waits for all of them.
    client.respond(roots.id, ROOTS);
    client.respond(sample.id, { ...PARIS, content: { type: 'text', text: 'Bonjour' } });
    client.respond(elicit.id, ADA);
    expect(await call).toEqual(textResult('call-test_input_required_result_multiple_inputs', 'Bonjour Ada; 2 root(s)'));
    await expectQuietAndAlive(client);
  });

  it('runs the multi-round fixture as two pushed elicitations, one after the other', async () => {
    const running = await h.start(registerModernFixtures);
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'test_input_required_result_multi_round');
    expect(await client.nextMessage('elicitation/create')).toEqual(
      pushed(0, 'elicitation/create', { message: 'Step 1: What is your name?', requestedSchema: NAME_SCHEMA }),
    );
    client.respond(0, ADA);
    expect(await client.nextMessage('elicitation/create')).toEqual(
      pushed(1, 'elicitation/create', {
        message: 'Step 2: What is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      }),
    );
    client.respond(1, { action: 'accept', content: { color: 'green' } });
    expect(await call).toEqual(textResult('call-test_input_required_result_multi_round', 'Ada likes green.'));
    await expectQuietAndAlive(client);
  });

  it('pushes what a handler adds to ctx.inputRequired, whatever it returned', async () => {
    const running = await h.start((server) =>
      server.registerTool('where', {}, (_args, ctx) => {
        const roots = ctx.inputResponses?.client_roots as { roots: { uri: string }[] } | undefined;
        if (!roots) {
          ctx.inputRequired.addRoots('client_roots');
          return 'this result is not sent';
        }
        return roots.roots.map((r) => r.uri).join(' ');
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.roots });
    const call = callTool(client, 'where');
    expect(await client.nextMessage('roots/list')).toEqual(pushed(0, 'roots/list', {}));
    client.respond(0, ROOTS);
    expect(await call).toEqual(textResult('call-where', 'file:///work file:///home'));
  });

  it('works for prompts/get', async () => {
    const running = await h.start((server) =>
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
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = client.request('prompts/get', { name: 'summary', arguments: { topic: 'tides' } }, 'p1');
    expect(await client.nextMessage('elicitation/create')).toEqual(
      pushed(0, 'elicitation/create', { message: 'Tone?', requestedSchema: { type: 'object', properties: { tone: { type: 'string' } } } }),
    );
    client.respond(0, { action: 'accept', content: { tone: 'calm' } });
    expect(await call).toEqual({
      jsonrpc: '2.0',
      id: 'p1',
      result: { messages: [{ role: 'user', content: { type: 'text', text: 'calm summary of tides' } }] },
    });
  });

  it('works for resources/read', async () => {
    const running = await h.start((server) =>
      server.registerResource('test://locked', { name: 'locked', mimeType: 'text/plain' }, (_uri, ctx) => {
        const reply = ctx.inputResponses?.why;
        if (!reply) return inputRequired().addSampling('why', SAMPLE_Q);
        return `the model said ${textOf(reply)}`;
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.sampling });
    const call = client.request('resources/read', { uri: 'test://locked' }, 'r1');
    expect(await client.nextMessage('sampling/createMessage')).toEqual(pushed(0, 'sampling/createMessage', SAMPLE_Q));
    client.respond(0, PARIS);
    expect(await call).toEqual({
      jsonrpc: '2.0',
      id: 'r1',
      result: { contents: [{ uri: 'test://locked', mimeType: 'text/plain', text: 'the model said Paris' }] },
    });
  });

  it('answers -32602 once a request has asked requestState.maxRounds times', async () => {
    let runs = 0;
    const running = await h.start(
      (server) =>
        server.registerTool('insatiable', {}, () => {
          runs++;
          return inputRequired().addElicitation(`q${runs}`, NAME_Q);
        }),
      { server: { requestState: { keys: ['legacy-shim-request-state-key-0123456789'], maxRounds: 2 } } },
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'insatiable');
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(0, 'elicitation/create', NAME_Q));
    client.respond(0, ADA);
    expect(await client.nextMessage('elicitation/create')).toEqual(pushed(1, 'elicitation/create', NAME_Q));
    client.respond(1, ADA);
    expect(await call).toEqual({
      jsonrpc: '2.0',
      id: 'call-insatiable',
      error: {
        code: -32602,
        message: 'tools/call insatiable asked for input 2 times without finishing; answer every input request in one retry, or raise requestState.maxRounds',
      },
    });
    expect(runs).toBe(3);
    await expectQuietAndAlive(client);
  });

  it('a missing capability for an explicit input request is an isError result in a tool, as for ctx.elicit', async () => {
    const running = await h.start((server) => server.registerTool('where', {}, (_args, ctx) => (ctx.inputResponses?.r ? 'ok' : inputRequired().addRoots('r'))));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    expect(await callTool(client, 'where')).toEqual(
      textResult('call-where', 'The client did not declare the roots capability; it cannot be asked for roots/list', true),
    );
    await expectQuietAndAlive(client);
  });

  it('with state only (nothing to push) runs the handler again with ctx.requestState instead of sending the input-required as a result', async () => {
    const states: unknown[] = [];
    const running = await h.start((server) =>
      server.registerTool('poll', {}, (_args, ctx) => {
        states.push(ctx.requestState);
        return ctx.requestState === undefined ? inputRequired({ state: { ticket: 'T-1' } }) : `ticket ${(ctx.requestState as { ticket: string }).ticket} done`;
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    expect(await callTool(client, 'poll')).toEqual(textResult('call-poll', 'ticket T-1 done'));
    expect(states).toEqual([undefined, { ticket: 'T-1' }]);
  });

  it('with neither requests nor state answers -32603, as on 2026-07-28, instead of sending the input-required as a result', async () => {
    const running = await h.start((server) => server.registerTool('empty', {}, () => inputRequired()));
    const { client } = await h.open(running, { capabilities: CAPS.form });
    expect(await callTool(client, 'empty')).toEqual({
      jsonrpc: '2.0',
      id: 'call-empty',
      error: { code: -32603, message: 'tools/call empty returned an input-required with neither input requests nor state' },
    });
  });

  it('the confirm option pushes its question and runs the tool on accept', async () => {
    let runs = 0;
    const running = await h.start((server) =>
      server.registerTool('delete', { confirm: 'Delete everything?' }, () => {
        runs++;
        return 'deleted';
      }),
    );
    const { client } = await h.open(running, { capabilities: CAPS.form });
    const call = callTool(client, 'delete');
    expect(await client.nextMessage('elicitation/create')).toEqual(
      pushed(0, 'elicitation/create', { message: 'Delete everything?', requestedSchema: { type: 'object', properties: {} } }),
    );
    client.respond(0, { action: 'accept' });
    expect(await call).toEqual(textResult('call-delete', 'deleted'));
    expect(runs).toBe(1);
  });
});

describe('methods that cannot ask for input, on a handshake session', () => {
  it('answers completion/complete whose completer uses ctx.inputRequired with -32600, not an input-required', async () => {
    const running = await h.start((server) =>
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
    const { client } = await h.open(running, { capabilities: CAPS.form });
    expect(await client.request('completion/complete', { ref: { type: 'ref/prompt', name: 'p' }, argument: { name: 'city', value: 'Pa' } }, 'c1')).toEqual({
      jsonrpc: '2.0',
      id: 'c1',
      error: { code: -32600, message: 'completion/complete cannot ask for input: only tools/call, prompts/get and resources/read can' },
    });
    await expectQuietAndAlive(client);
  });
});
