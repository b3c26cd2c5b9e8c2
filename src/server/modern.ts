/**
 * The 2026-07-28 era (SEP-2575): every request is self-describing and stateless. The `_meta` envelope is
 * checked, a per-request session carries what it says about the client, and results get `resultType`
 * and caching hints. Transports hand each modern request here with a channel for its replies.
 */
import { normalizeClientCapabilities } from '../protocol/capabilities.js';
import { ErrorCode, McpError, UnsupportedProtocolVersionError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import { errorResponse, resultResponse, type JsonRpcErrorResponse, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import type { Implementation } from '../protocol/types.js';
import { isModernProtocolVersion, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { Channel } from './channel.js';
import { RequestContext } from './context.js';
import { isLoggingLevel } from './logging.js';
import type { McpServer } from './mcp-server.js';
import { sharedMethods, type MethodHandler } from './methods.js';
import type { CacheHint } from './options.js';
import { McpSession } from './session.js';
import { listen } from './subscriptions.js';

/** The versions a server lists in -32022 errors. */
export function supportedVersions(_server: McpServer): string[] {
  // The same list server/discover gives: a modern client picks from it (handshake versions are not retried statelessly).
  return [...MODERN_PROTOCOL_VERSIONS];
}

/** Results that carry caching hints (SEP-2549), and where the hint comes from. */
const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

function discover(server: McpServer): Record<string, unknown> {
  const result: Record<string, unknown> = {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: server.capabilities,
    _meta: { [META.serverInfo]: { ...server.info } },
  };
  if (server.instructions !== undefined) result.instructions = server.instructions;
  return result;
}

export const modernMethods: Readonly<Record<string, MethodHandler>> = {
  __proto__: null as unknown as MethodHandler,
  ...sharedMethods,
  'server/discover': (server) => discover(server),
  'subscriptions/listen': listen,
};

/** The caching hint for a result of `method` (a resource's own for its reads). */
function cacheHint(server: McpServer, method: string, params: Record<string, unknown>): CacheHint {
  if (method === 'resources/read' && typeof params.uri === 'string') {
    // The entry that served the read, found as resources/read finds it: the resource, else the first matching template.
    const resource = server.resources.get(params.uri);
    if (resource) return resource.cache ?? server.options.cache;
    for (const template of server.resourceTemplates.values()) if (template.template.match(params.uri)) return template.cache ?? server.options.cache;
  }
  return server.options.cache;
}

/** Every 2026-07-28 result says what it is (`resultType`); complete discover, list and read results say how long they keep. */
function decorate(server: McpServer, method: string, params: Record<string, unknown>, result: Record<string, unknown>): Record<string, unknown> {
  if (result.resultType === 'input_required') return result;
  const out: Record<string, unknown> = { resultType: 'complete', ...result };
  if (CACHEABLE.has(method)) {
    const hint = cacheHint(server, method, params);
    if (out.ttlMs === undefined) out.ttlMs = hint.ttlMs;
    if (out.cacheScope === undefined) out.cacheScope = hint.scope;
  }
  return out;
}

/** Errors the 2026-07-28 wire no longer has: resource-not-found is -32602 now (SEP-2164). */
function modernError(err: McpError): McpError {
  if (err.code === ErrorCode.ResourceNotFound) return new McpError(ErrorCode.InvalidParams, err.message, err.data);
  return err;
}

/** Check the `_meta` envelope; returns the error to answer with, or the per-request session. */
function admit(server: McpServer, channel: Channel, request: JsonRpcRequest, principal: unknown): McpSession | JsonRpcErrorResponse {
  const meta = (request.params?._meta ?? {}) as Record<string, unknown>;
  const version = meta[META.protocolVersion];
  // versioning.mdx: an unknown or unsupported version MUST get -32022, with what is supported.
  if (!isModernProtocolVersion(version)) return errorResponse(request.id, new UnsupportedProtocolVersionError(version, supportedVersions(server)).toJSON());
  const capabilities = meta[META.clientCapabilities];
  if (!isObject(capabilities)) {
    return errorResponse(request.id, {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: _meta["${META.clientCapabilities}"] is required on every 2026-07-28 request (an object; {} declares none)`,
    });
  }
  const info = meta[META.clientInfo];
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
    return errorResponse(request.id, {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: _meta["${META.logLevel}"] ${JSON.stringify(logLevel)} is not a log level`,
    });
  }
  return new McpSession(server, channel, {
    protocolVersion: version,
    clientInfo: isObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
    clientCapabilities: normalizeClientCapabilities(capabilities),
    logLevel,
    principal,
  });
}

export interface ModernRequestHooks {
  /** Who the transport authenticated, if anyone. */
  principal?: unknown;
  /** Called with the request's context before it runs (for cancellation); returns what undoes it. */
  track?: (ctx: RequestContext) => () => void;
}

/** Handle one 2026-07-28 request: its response (or error) goes out through `channel`, related to its id. */
export async function handleModernRequest(server: McpServer, channel: Channel, request: JsonRpcRequest, hooks: ModernRequestHooks = {}): Promise<void> {
  const admitted = admit(server, channel, request, hooks.principal);
  if (!(admitted instanceof McpSession)) {
    channel.send(admitted, request.id);
    return;
  }
  const session = admitted;
  server.traceMessage(session, 'in', request);
  const handler = modernMethods[request.method];
  if (!handler) {
    // Removed methods (initialize, ping, logging/setLevel, resources/subscribe, ...) are unknown here.
    session.send(errorResponse(request.id, { code: ErrorCode.MethodNotFound, message: `Method not found: ${request.method}` }), request.id);
    return;
  }
  const params = request.params ?? {};
  const ctx = new RequestContext(session, request.id, request.method, params._meta as Record<string, unknown> | undefined);
  const untrack = hooks.track?.(ctx);
  let response: JsonRpcResponse;
  try {
    response = resultResponse(request.id, decorate(server, request.method, params, await handler(server, session, params, ctx)));
  } catch (err) {
    if (err instanceof McpError) response = errorResponse(request.id, modernError(err).toJSON());
    else {
      const error = err instanceof Error ? err : new Error(String(err));
      server.reportError(new Error(`${request.method} handler failed: ${error.message}`, { cause: error }), session);
      response = errorResponse(request.id, { code: ErrorCode.InternalError, message: `Internal error: ${error.message}` });
    }
  } finally {
    untrack?.();
  }
  // Cancelled (on HTTP: its stream closed): nothing is sent.
  if (!ctx.aborted) session.reply(response);
}

/** The HTTP status a 2026-07-28 error response goes out with (streamable-http.mdx, status mapping). */
export function modernErrorStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  if (
    code === ErrorCode.InvalidParams ||
    code === ErrorCode.HeaderMismatch ||
    code === ErrorCode.MissingRequiredClientCapability ||
    code === ErrorCode.UnsupportedProtocolVersion
  )
    return 400;
  if (code === ErrorCode.InvalidRequest || code === ErrorCode.ParseError) return 400;
  return 200;
}
