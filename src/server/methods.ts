/** The handlers of the methods both eras serve, and the legacy era's own (2024-11-05 to 2025-11-25). */
import { InputRequired } from '../mrtr/input-required.js';
import type { InputTarget } from '../mrtr/rounds.js';
import { normalizeClientCapabilities } from '../protocol/capabilities.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { isLoggingLevel } from '../protocol/logging.js';
import type { CallToolResult, CompleteParams, CompleteResult, GetPromptResult, Implementation, InitializeParams, InitializeResult } from '../protocol/types.js';
import { isModernProtocolVersion, negotiateProtocolVersion } from '../protocol/versions.js';
import { type Completer, EMPTY_COMPLETION, toCompleteResult } from './completions.js';
import type { Context } from './context.js';
import type { McpServerEvents } from './events.js';
import type { Dispatch, MethodHandler } from './pipeline.js';
import { getPrompt } from './prompts.js';
import { ListenerRequest } from './request-event.js';
import { normalizeReadOutput, type ReadOutput, resourceNotFound } from './resources.js';
import type { Session } from './session.js';
import { requireScopes, scopeNeeds } from './scopes.js';

/** -32012 when the principal lacks the scopes the request's tool, prompt or resource needs. */
function guardScopes(session: Session, method: string, params: Record<string, unknown>): void {
  const needs = scopeNeeds(session.host.catalog, method, params);
  if (needs) requireScopes(session.principal, needs.scopes, needs.what);
}
import { callTool } from './tools.js';
import { quote } from '../protocol/quote.js';

function invalidParams(message: string, data?: unknown): McpError {
  return new McpError(ErrorCode.InvalidParams, message, data);
}

function requireString(params: Record<string, unknown>, key: string, method: string): string {
  const value = params[key];
  if (typeof value !== 'string') throw invalidParams(`${method} needs params.${key} as a string`);
  return value;
}

type RequestEventName = 'requestTool' | 'requestPrompt' | 'requestResource' | 'requestCompletion';
type Emit = (event: keyof McpServerEvents, ...args: unknown[]) => boolean;

function hasListeners(session: Session, event: RequestEventName): boolean {
  return session.host.events.listening(event);
}

/**
 * Emit a request event, if anyone listens; resolve to a listener's answer, or undefined to let the
 * registered handler run. Without listeners no event object is built.
 */
function emitRequest<P, R>(session: Session, event: RequestEventName, params: P, ctx: Context): R | Promise<R> | undefined {
  if (!hasListeners(session, event)) return undefined;
  const request = new ListenerRequest<P, R>(params, ctx);
  (session.host.events.emit as Emit)(event, session, request);
  return request.response;
}

/** Run a handler that may ask for input, however the session's era asks. */
function withInput<R>(session: Session, ctx: Context, params: Record<string, unknown>, target: InputTarget, invoke: () => Promise<R | InputRequired>) {
  return session.backChannel.run(ctx, params, target, invoke);
}

// Not async: the checks throw where the pipeline catches them, and the call saves a promise per request.
const callToolMethod: MethodHandler = (session, params, ctx) => {
  const name = requireString(params, 'name', 'tools/call');
  const args = params.arguments ?? {};
  if (!isObject(args)) throw invalidParams('tools/call params.arguments must be an object');
  const entry = session.host.catalog.tools.get(name);
  if (!entry && !hasListeners(session, 'requestTool')) throw invalidParams(`Unknown tool: ${name}`);
  if (entry?.scopes) requireScopes(session.principal, entry.scopes, `Tool ${name}`);
  // Listeners run inside the input rounds too, so they may ask for input like handlers do.
  return withInput(session, ctx, params, { method: 'tools/call', target: name, arguments: args }, () => {
    const answer = emitRequest<{ name: string; arguments: Record<string, unknown> }, CallToolResult | string | InputRequired>(
      session,
      'requestTool',
      { name, arguments: args },
      ctx,
    );
    if (answer !== undefined) return Promise.resolve(answer).then(toolResult);
    if (!entry) throw invalidParams(`Unknown tool: ${name}`);
    const extended = session.host.extensions.takesToolCalls ? session.host.extensions.callTool(session, entry, args, ctx) : undefined;
    if (extended !== undefined) return Promise.resolve(extended) as Promise<CallToolResult>;
    return callTool(entry, args, ctx, session.backChannel);
  });
};

function toolResult(result: CallToolResult | string | InputRequired): CallToolResult | InputRequired {
  return typeof result === 'string' ? { content: [{ type: 'text', text: result }] } : result;
}

const getPromptMethod: MethodHandler = async (session, params, ctx) => {
  const name = requireString(params, 'name', 'prompts/get');
  const entry = session.host.catalog.prompts.get(name);
  if (!entry && !hasListeners(session, 'requestPrompt')) throw invalidParams(`Unknown prompt: ${name}`);
  if (entry?.scopes) requireScopes(session.principal, entry.scopes, `Prompt ${name}`);
  return withInput(session, ctx, params, { method: 'prompts/get', target: name, arguments: params.arguments }, async () => {
    const event = { name, arguments: (params.arguments ?? {}) as Record<string, string> };
    const answer = emitRequest<typeof event, GetPromptResult | InputRequired>(session, 'requestPrompt', event, ctx);
    if (answer !== undefined) return answer;
    if (!entry) throw invalidParams(`Unknown prompt: ${name}`);
    return getPrompt(entry, params.arguments, ctx);
  });
};

const readResourceMethod: MethodHandler = async (session, params, ctx) => {
  const uri = requireString(params, 'uri', 'resources/read');
  const match = session.host.catalog.findResource(uri);
  if (!match && !hasListeners(session, 'requestResource')) throw resourceNotFound(uri);
  const scopes = match?.resource?.scopes ?? match?.template?.scopes;
  if (scopes) requireScopes(session.principal, scopes, `Resource ${uri}`);
  return withInput(session, ctx, params, { method: 'resources/read', target: uri, arguments: undefined }, async () => {
    const answer = emitRequest<{ uri: string }, ReadOutput | InputRequired>(session, 'requestResource', { uri }, ctx);
    if (answer !== undefined) return readOutput(await answer, uri, undefined);
    if (match?.resource) return readOutput(await match.resource.handler(uri, ctx), uri, match.resource.descriptor.mimeType);
    if (match?.template) return readOutput(await match.template.handler(uri, match.variables, ctx), uri, match.template.descriptor.mimeType);
    throw resourceNotFound(uri);
  });
};

function readOutput(output: ReadOutput | InputRequired, uri: string, mimeType: string | undefined) {
  return output instanceof InputRequired ? output : normalizeReadOutput(output, uri, mimeType);
}

const completeMethod: MethodHandler = async (session, params, ctx): Promise<CompleteResult> => {
  const { ref, argument, context } = params as Partial<CompleteParams>;
  if (typeof ref !== 'object' || ref === null) throw invalidParams('completion/complete needs params.ref');
  if (typeof argument?.name !== 'string' || typeof argument.value !== 'string') {
    throw invalidParams('completion/complete needs params.argument with a name and a value');
  }
  guardScopes(session, 'completion/complete', params);
  const answer = emitRequest<CompleteParams, CompleteResult | string[]>(session, 'requestCompletion', params as unknown as CompleteParams, ctx);
  if (answer !== undefined) {
    const result = await answer;
    return Array.isArray(result) ? toCompleteResult(result) : result;
  }
  const completer = findCompleter(session, ref, argument.name);
  if (!completer) return EMPTY_COMPLETION;
  return toCompleteResult(await completer(argument.value, { arguments: context?.arguments ?? {}, ctx }));
};

function findCompleter(session: Session, ref: CompleteParams['ref'], argument: string): Completer | undefined {
  const { catalog } = session.host;
  if (ref.type === 'ref/prompt') {
    const prompt = catalog.prompts.get(ref.name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${ref.name}`);
    return prompt.complete?.[argument];
  }
  if (ref.type === 'ref/resource') {
    const template = catalog.resourceTemplates.get(ref.uri);
    if (!template) {
      if (catalog.resources.get(ref.uri)) return undefined;
      throw invalidParams(`Unknown resource or resource template: ${ref.uri}`);
    }
    return template.complete?.[argument];
  }
  throw invalidParams(`Unknown completion reference type: ${quote((ref as { type?: unknown }).type)}`);
}

function list(kind: 'tools' | 'prompts' | 'resources' | 'resourceTemplates'): MethodHandler {
  return (session, params) => {
    const legacy = !isModernProtocolVersion(session.protocolVersion);
    const { items, nextCursor } = session.host.catalog[kind].page(params.cursor, session.host.options.pageSize, legacy);
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

const initialize: MethodHandler = (session, params) => {
  const { protocolVersion, capabilities, clientInfo } = params as Partial<InitializeParams>;
  if (typeof protocolVersion !== 'string') throw invalidParams('initialize needs params.protocolVersion as a string');
  if (!isObject(capabilities)) throw invalidParams('initialize needs params.capabilities as an object');
  if (typeof clientInfo?.name !== 'string' || typeof clientInfo.version !== 'string') {
    throw invalidParams('initialize needs params.clientInfo with a name and a version');
  }
  const host = session.host;
  session.protocolVersion = negotiateProtocolVersion(protocolVersion);
  session.clientInfo = clientInfo as Implementation;
  session.clientCapabilities = normalizeClientCapabilities(capabilities);
  const result: InitializeResult = { protocolVersion: session.protocolVersion, capabilities: host.capabilities, serverInfo: { ...host.info } };
  if (host.instructions !== undefined) result.instructions = host.instructions;
  host.events.emit('initialize', session, params as unknown as InitializeParams, result);
  session.state = 'initializing';
  return result;
};

const MAX_SUBSCRIPTIONS = 1000;
/** The longest URI a session may subscribe to: with MAX_SUBSCRIPTIONS, a session holds at most ~8 MiB of them. */
const MAX_SUBSCRIBED_URI_LENGTH = 8192;

function subscription(subscribe: boolean): MethodHandler {
  return (session, params) => {
    const uri = requireString(params, 'uri', subscribe ? 'resources/subscribe' : 'resources/unsubscribe');
    const { subscriptions } = session;
    if (subscribe) {
      guardScopes(session, 'resources/subscribe', params);
      if (uri.length > MAX_SUBSCRIBED_URI_LENGTH) {
        throw invalidParams(`URI too long: a subscribed URI is at most ${MAX_SUBSCRIBED_URI_LENGTH} characters`);
      }
      if (!subscriptions.has(uri) && subscriptions.size >= MAX_SUBSCRIPTIONS) {
        throw invalidParams(`Too many subscriptions: a session may watch ${MAX_SUBSCRIPTIONS} resources; unsubscribe from some first`);
      }
      if (!subscriptions.has(uri)) {
        subscriptions.add(uri);
        session.recordChanged();
      }
      session.host.events.emit('resourceSubscribe', session, uri);
    } else {
      if (subscriptions.delete(uri)) session.recordChanged();
      session.host.events.emit('resourceUnsubscribe', session, uri);
    }
    return {};
  };
}

const NO_CHANGE = (_session: Session, _method: string, _params: Record<string, unknown>, result: Record<string, unknown>) => result;

/** The legacy era's methods; results and errors go out as the handlers give them. */
export const legacyDispatch: Dispatch = {
  methods: {
    __proto__: null as unknown as MethodHandler,
    ...sharedMethods,
    initialize,
    ping: () => ({}),
    'resources/subscribe': subscription(true),
    'resources/unsubscribe': subscription(false),
    'logging/setLevel': (session, params) => {
      const level = params.level;
      if (!isLoggingLevel(level)) {
        throw invalidParams(`Invalid log level ${quote(level)}: use debug, info, notice, warning, error, critical, alert or emergency`);
      }
      session.logLevel = level;
      session.recordChanged();
      session.host.events.emit('loggingSetLevel', session, level);
      return {};
    },
  },
  complete: NO_CHANGE,
  error: (err) => err,
};
