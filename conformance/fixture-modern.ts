/** The conformance suite's 2026-07-28 fixtures: MRTR tools and prompt, capability and logging probes, list-change triggers. */
import { inputRequired, type McpServer, type RequestContext } from '../src/index.js';

const NO_ARGS = { type: 'object', properties: {} } as const;
const NAME_SCHEMA = { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } as const;
const nameQuestion = (message: string) => ({ message, requestedSchema: structuredClone(NAME_SCHEMA) as never });

function text(value: unknown): string {
  const content = (value as { content?: unknown })?.content;
  const block = Array.isArray(content) ? content[0] : content;
  return typeof (block as { text?: unknown })?.text === 'string' ? (block as { text: string }).text : '';
}

function answered(ctx: RequestContext, key: string): Record<string, any> | undefined {
  return ctx.inputResponses?.[key] as Record<string, any> | undefined;
}

export function registerModernFixtures(server: McpServer): void {
  // The era-portable form: ctx.elicit asks (input-required on 2026-07-28, a pushed request before that).
  server.registerTool(
    'test_input_required_result_elicitation',
    { description: 'Asks for your name with an input-required elicitation', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      const answer = await ctx.elicit(nameQuestion('What is your name?'), { key: 'user_name' });
      return answer.action === 'accept' ? `Hello, ${answer.content?.name}!` : `No name given (${answer.action}).`;
    },
  );

  server.registerTool('test_input_required_result_sampling', { description: 'Asks the client model a question', inputSchema: NO_ARGS }, async (_args, ctx) => {
    const reply = await ctx.createMessage(
      { messages: [{ role: 'user', content: { type: 'text', text: 'What is the capital of France?' } }], maxTokens: 100 },
      { key: 'capital_question' },
    );
    return `The model said: ${text(reply)}`;
  });

  server.registerTool('test_input_required_result_list_roots', { description: 'Asks the client for its roots', inputSchema: NO_ARGS }, async (_args, ctx) => {
    const { roots } = await ctx.listRoots({ key: 'client_roots' });
    return `Roots: ${roots.map((r) => r.uri).join(', ')}`;
  });

  // The explicit form: the handler reads ctx.inputResponses and ctx.requestState, and returns inputRequired().
  const confirmRequest = { message: 'Please confirm', requestedSchema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] } } as never;
  server.registerTool('test_input_required_result_request_state', { description: 'Round-trips requestState', inputSchema: NO_ARGS }, (_args, ctx) => {
    const confirm = answered(ctx, 'confirm');
    const state = ctx.requestState as { step?: string } | undefined;
    if (!confirm || state?.step !== 'confirm') return inputRequired({ state: { step: 'confirm' } }).addElicitation('confirm', confirmRequest);
    return `state-ok: confirmed=${confirm.content?.ok}`;
  });

  server.registerTool(
    'test_input_required_result_tampered_state',
    { description: 'Issues an integrity-protected requestState', inputSchema: NO_ARGS },
    (_args, ctx) => {
      const confirm = answered(ctx, 'confirm');
      if (!confirm) return inputRequired({ state: { step: 'confirm' } }).addElicitation('confirm', confirmRequest);
      return `state-ok: confirmed=${confirm.content?.ok}`;
    },
  );

  server.registerTool(
    'test_input_required_result_multiple_inputs',
    { description: 'Asks for a name, a greeting and the roots at once', inputSchema: NO_ARGS },
    (_args, ctx) => {
      const name = answered(ctx, 'user_name');
      const greeting = answered(ctx, 'greeting');
      const roots = answered(ctx, 'client_roots');
      if (name && greeting && roots) return `${text(greeting)} ${name.content?.name}; ${roots.roots.length} root(s)`;
      const asks = inputRequired({ state: { started: true } });
      if (!name) asks.addElicitation('user_name', nameQuestion('What is your name?'));
      if (!greeting) asks.addSampling('greeting', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 });
      if (!roots) asks.addRoots('client_roots');
      return asks;
    },
  );

  server.registerTool('test_input_required_result_multi_round', { description: 'Asks two questions, one round each', inputSchema: NO_ARGS }, (_args, ctx) => {
    const state = (ctx.requestState ?? {}) as { name?: string };
    const step1 = answered(ctx, 'step1');
    const name = state.name ?? (step1?.action === 'accept' ? (step1.content?.name as string) : undefined);
    if (!name) return inputRequired({ state: { round: 1 } }).addElicitation('step1', nameQuestion('Step 1: What is your name?'));
    const step2 = answered(ctx, 'step2');
    if (!step2) {
      return inputRequired({ state: { round: 2, name } }).addElicitation('step2', {
        message: 'Step 2: What is your favorite color?',
        requestedSchema: { type: 'object', properties: { color: { type: 'string' } }, required: ['color'] },
      });
    }
    return `${name} likes ${step2.content?.color}.`;
  });

  server.registerTool(
    'test_input_required_result_capabilities',
    { description: 'Asks only what the client can answer', inputSchema: NO_ARGS },
    (_args, ctx) => {
      const caps = ctx.session.clientCapabilities;
      if (ctx.inputResponses && Object.keys(ctx.inputResponses).length > 0) return 'Thanks for the input.';
      const asks = inputRequired({ state: { asked: true } });
      if (caps.elicitation) asks.addElicitation('user_name', nameQuestion('What is your name?'));
      if (caps.sampling) asks.addSampling('greeting', { messages: [{ role: 'user', content: { type: 'text', text: 'Generate a greeting' } }], maxTokens: 50 });
      if (caps.roots) asks.addRoots('client_roots');
      return asks.size > 0 ? asks : 'Nothing to ask: the client declared no input capability.';
    },
  );

  server.registerPrompt('test_input_required_result_prompt', { description: 'A prompt that asks for context first' }, async (_args, ctx) => {
    const answer = await ctx.elicit(
      {
        message: 'What context should the prompt use?',
        requestedSchema: { type: 'object', properties: { context: { type: 'string' } }, required: ['context'] },
      },
      { key: 'user_context' },
    );
    return { messages: [{ role: 'user', content: { type: 'text', text: `Use this context: ${answer.content?.context ?? '(none)'}` } }] };
  });

  server.registerTool('test_missing_capability', { description: 'Needs the client sampling capability', inputSchema: NO_ARGS }, async (_args, ctx) => {
    const reply = await ctx.createMessage({ messages: [{ role: 'user', content: { type: 'text', text: 'Say hello' } }], maxTokens: 20 });
    return text(reply);
  });

  server.registerTool(
    'test_streaming_elicitation',
    { description: 'Reports progress and logs, then asks for input', inputSchema: NO_ARGS },
    async (_args, ctx) => {
      ctx.progress(1, 2, 'about to ask');
      ctx.log('info', 'asking for a name');
      const answer = await ctx.elicit(nameQuestion('What is your name?'), { key: 'user_name' });
      ctx.progress(2, 2, 'done');
      return `Hello, ${answer.content?.name}!`;
    },
  );

  server.registerTool('test_logging_tool', { description: 'Logs at info level', inputSchema: NO_ARGS }, (_args, ctx) => {
    ctx.log('info', 'test_logging_tool ran');
    return 'logged';
  });

  // SEP-2243: a tool whose argument travels in a header too (Mcp-Param-Region).
  server.registerTool(
    'test_headers',
    {
      description: 'Echoes a region that clients also send as the Mcp-Param-Region header',
      inputSchema: { type: 'object', properties: { region: { type: 'string', 'x-mcp-header': 'Region' } }, required: ['region'] },
    },
    ({ region }) => `region=${region}`,
  );

  server.registerTool('test_trigger_tool_change', { description: 'Adds and removes a tool, so tools/list changes', inputSchema: NO_ARGS }, () => {
    server.registerTool('test_transient_tool', { description: 'Here for a moment', inputSchema: NO_ARGS }, () => 'transient').remove();
    return 'tools changed';
  });

  server.registerTool('test_trigger_prompt_change', { description: 'Adds and removes a prompt, so prompts/list changes', inputSchema: NO_ARGS }, () => {
    server.registerPrompt('test_transient_prompt', { description: 'Here for a moment' }, () => ({ messages: [] })).remove();
    return 'prompts changed';
  });
}
