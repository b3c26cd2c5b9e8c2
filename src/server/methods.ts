/** The method tables' shared handlers, and the legacy-era (2024-11-05 to 2025-11-25) table: one function per client request method. */
import { normalizeClientCapabilities } from '../protocol/capabilities.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { CallToolResult, CompleteParams, CompleteResult, GetPromptResult, Implementation, InitializeParams, InitializeResult } from '../protocol/types.js';
import { negotiateProtocolVersion } from '../protocol/versions.js';
import { EMPTY_COMPLETION, toCompleteResult, type Completer } from './completions.js';
import type { RequestContext } from './context.js';
import type { PromptRequestEvent, ResourceRequestEvent, ToolRequestEvent } from './events.js';
import { isLoggingLevel } from './logging.js';
import type { McpServer } from './mcp-server.js';
import { getPrompt } from './prompts.js';
import { RequestEvent } from './request-event.js';
import { normalizeReadOutput, resourceNotFound, type ReadOutput, type ResourceTemplateEntry } from './resources.js';
import type { McpSession } from './session.js';
import { callTool } from './tools.js';
import { InputRequired } from '../mrtr/input-required.js';
import { runWithInput } from '../mrtr/rounds.js';

export type MethodHandler = (
  server: McpServer,
  session: McpSession,
  params: Record<string, unknown>,
  ctx: RequestContext,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`${method} needs params.${key} as a string`);
  return value;
}

function initialize(server: McpServer, session: McpSession, params: Record<string, unknown>): Record<string, unknown> {
  if (session.state !== 'new') throw new McpError(ErrorCode.InvalidRequest, 'Invalid Request: initialize was already received on this session');
  const { protocolVersion, capabilities, clientInfo } = params as Partial<InitializeParams>;
  if (typeof protocolVersion !== 'string') throw invalidParams('initialize needs params.protocolVersion as a string');
  if (typeof capabilities !== 'object' || capabilities === null || Array.isArray(capabilities))
    throw invalidParams('initialize needs params.capabilities as an object');
  if (typeof clientInfo?.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw invalidParams('initialize needs params.clientInfo with a name and a version');
  }
  session.protocolVersion = negotiateProtocolVersion(protocolVersion);
  session.clientInfo = clientInfo as Implementation;
  session.clientCapabilities = normalizeClientCapabilities(capabilities);
  const result: InitializeResult = {
    protocolVersion: session.protocolVersion,
    capabilities: server.capabilities,
    serverInfo: { ...server.info },
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  server.emit('initialize', session, params as unknown as InitializeParams, result);
  session.state = 'initializing';
  return result;
}

type RequestEventName = 'requestTool' | 'requestPrompt' | 'requestResource' | 'completionComplete';

/**
 * Emit a request event, if anyone listens; resolve to a listener's answer, or undefined to let the
 * registered handler run. Without listeners no event object is built.
 */
function emitRequest<P, R>(server: McpServer, event: RequestEventName, session: McpSession, params: P, ctx: RequestContext): R | Promise<R> | undefined {
  if (server.listenerCount(event) === 0) return undefined;
  const request = new RequestEvent<P, R>(params, ctx);
  (server.emit as (event: string, ...args: unknown[]) => boolean)(event, session, request);
  return request.response;
}

async function callToolMethod(server: McpServer, session: McpSession, params: Record<string, unknown>, ctx: RequestContext) {
  const name = requireString(params, 'name', 'tools/call');
  const args = (params.arguments ?? {}) as Record<string, unknown>;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) throw invalidParams('tools/call params.arguments must be an object');
  const entry = server.tools.get(name);
  if (!entry && server.listenerCount('requestTool') === 0) throw invalidParams(`Unknown tool: ${name}`);
  // Listeners run inside the input rounds too, so they may ask for input like handlers do.
  return runWithInput(server, ctx, params, { method: 'tools/call', target: name, arguments: args }, async () => {
    const answer = emitRequest<ToolRequestEvent['params'], CallToolResult | string | InputRequired>(
      server,
      'requestTool',
      session,
      { name, arguments: args },
      ctx,
    );
    if (answer !== undefined) {
      const result = await answer;
      return typeof result === 'string' ? { content: [{ type: 'text' as const, text: result }] } : result;
    }
    if (!entry) throw invalidParams(`Unknown tool: ${name}`);
    return callTool(entry, args, ctx);
  });
}

async function getPromptMethod(server: McpServer, session: McpSession, params: Record<string, unknown>, ctx: RequestContext) {
  const name = requireString(params, 'name', 'prompts/get');
  const entry = server.prompts.get(name);
  if (!entry && server.listenerCount('requestPrompt') === 0) throw invalidParams(`Unknown prompt: ${name}`);
  return runWithInput(server, ctx, params, { method: 'prompts/get', target: name, arguments: params.arguments }, async () => {
    const event = { name, arguments: (params.arguments ?? {}) as Record<string, string> };
    const answer = emitRequest<PromptRequestEvent['params'], GetPromptResult | InputRequired>(server, 'requestPrompt', session, event, ctx);
    if (answer !== undefined) return answer;
    if (!entry) throw invalidParams(`Unknown prompt: ${name}`);
    return getPrompt(entry, params.arguments, ctx);
  });
}

async function readResourceMethod(server: McpServer, session: McpSession, params: Record<string, unknown>, ctx: RequestContext) {
  const uri = requireString(params, 'uri', 'resources/read');
  const entry = server.resources.get(uri);
  let template: ResourceTemplateEntry | undefined;
  let variables: Record<string, string> | null = null;
  if (!entry) {
    for (const candidate of server.resourceTemplates.values()) {
      variables = candidate.template.match(uri);
      if (variables) {
        template = candidate;
        break;
      }
    }
  }
  if (!entry && !template && server.listenerCount('requestResource') === 0) throw resourceNotFound(uri);
  return runWithInput(server, ctx, params, { method: 'resources/read', target: uri, arguments: undefined }, async () => {
    const answer = emitRequest<ResourceRequestEvent['params'], ReadOutput | InputRequired>(server, 'requestResource', session, { uri }, ctx);
    if (answer !== undefined) return readOutput(await answer, uri, undefined);
    if (entry) return readOutput(await entry.handler(uri, ctx), uri, entry.descriptor.mimeType);
    if (template) return readOutput(await template.handler(uri, variables!, ctx), uri, template.descriptor.mimeType);
    throw resourceNotFound(uri);
  });
}

function readOutput(output: ReadOutput | InputRequired, uri: string, mimeType: string | undefined) {
  return output instanceof InputRequired ? output : normalizeReadOutput(output, uri, mimeType);
}

const MAX_SUBSCRIPTIONS = 1000;

function subscription(subscribe: boolean) {
  return (server: McpServer, session: McpSession, params: Record<string, unknown>) => {
    const uri = requireString(params, 'uri', subscribe ? 'resources/subscribe' : 'resources/unsubscribe');
    if (subscribe) {
      if (!session.subscriptions.has(uri) && session.subscriptions.size >= MAX_SUBSCRIPTIONS) {
        throw invalidParams(`Too many subscriptions: a session may watch ${MAX_SUBSCRIPTIONS} resources; unsubscribe from some first`);
      }
      session.subscriptions.add(uri);
      server.emit('resourceSubscribe', session, uri);
    } else {
      session.subscriptions.delete(uri);
      server.emit('resourceUnsubscribe', session, uri);
    }
    return {};
  };
}

async function completeMethod(server: McpServer, session: McpSession, params: Record<string, unknown>, ctx: RequestContext): Promise<CompleteResult> {
  const { ref, argument, context } = params as Partial<CompleteParams>;
  if (typeof ref !== 'object' || ref === null) throw invalidParams('completion/complete needs params.ref');
  if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('completion/complete needs params.argument with a name and a value');
  }
  const answer = emitRequest<CompleteParams, CompleteResult | string[]>(server, 'completionComplete', session, params as unknown as CompleteParams, ctx);
  if (answer !== undefined) {
    const result = await answer;
    return Array.isArray(result) ? toCompleteResult(result) : result;
  }
  const completer = findCompleter(server, ref);
  if (!completer) return EMPTY_COMPLETION;
  return toCompleteResult(await completer(argument.value, { arguments: context?.arguments ?? {}, ctx }));

  function findCompleter(server: McpServer, ref: CompleteParams['ref']): Completer | undefined {
    if (ref.type === 'ref/prompt') {
      const prompt = server.prompts.get(ref.name);
      if (!prompt) throw invalidParams(`Unknown prompt: ${ref.name}`);
      return prompt.complete?.[argument!.name];
    }
    if (ref.type === 'ref/resource') {
      const template = server.resourceTemplates.get(ref.uri);
      if (!template) {
        if (server.resources.get(ref.uri)) return undefined;
        throw invalidParams(`Unknown resource or resource template: ${ref.uri}`);
      }
      return template.complete?.[argument!.name];
    }
    throw invalidParams(`Unknown completion reference type: ${String((ref as { type?: unknown }).type)}`);
  }
}

function list(kind: 'tools' | 'prompts' | 'resources' | 'resourceTemplates'): MethodHandler {
  return (server, _session, params) => {
    const { items, nextCursor } = server[kind].page(params.cursor, server.options.pageSize);
    return nextCursor === undefined ? { [kind]: items } : { [kind]: items, nextCursor };
  };
}

/** The methods both eras serve, with the same handlers. */
export const sharedMethods: Readonly<Record<string, MethodHandler>> = {
  'tools/list': list('tools'),
  'tools/call': callToolMethod,
  'prompts/list': list('prompts'),
  'prompts/get': getPromptMethod,
  'resources/list': list('resources'),
  'resources/templates/list': list('resourceTemplates'),
  'resources/read': readResourceMethod,
  'completion/complete': completeMethod,
};

export const legacyMethods: Readonly<Record<string, MethodHandler>> = {
  __proto__: null as unknown as MethodHandler,
  ...sharedMethods,
  initialize,
  ping: () => ({}),
  'resources/subscribe': subscription(true),
  'resources/unsubscribe': subscription(false),
  'logging/setLevel': (server, session, params) => {
    const level = params.level;
    if (!isLoggingLevel(level)) {
      throw invalidParams(`Invalid log level ${JSON.stringify(level)}: use debug, info, notice, warning, error, critical, alert or emergency`);
    }
    session.logLevel = level;
    server.emit('loggingSetLevel', session, level);
    return {};
  },
};
