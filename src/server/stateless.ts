/**
 * The 2026-07-28 era (SEP-2575): every request is self-describing and stateless. The `_meta` envelope is
 * checked, a session of its own carries what it says about the client, and results get `resultType` and
 * caching hints. Any transport hands each such request here with a channel for its replies.
 */
import { normalizeClientCapabilities } from '../protocol/capabilities.js';
import { ErrorCode, McpError, UnsupportedProtocolVersionError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { errorResponse, type JsonRpcRequest, isObject } from '../protocol/jsonrpc.js';
import { isLoggingLevel } from '../protocol/logging.js';
import { META } from '../protocol/meta.js';
import type { Implementation } from '../protocol/types.js';
import { isModernProtocolVersion, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { Context } from './context.js';
import type { IncomingRequests } from './incoming.js';
import { sharedMethods } from './methods.js';
import type { CacheHint } from './options.js';
import { type Answers, type Dispatch, type MethodHandler, serve } from './pipeline.js';
import type { Channel } from './port.js';
import type { BackChannelFactory } from './back-channel.js';
import { Session } from './session.js';
import type { SessionHost } from './session-host.js';
import { honoured, Subscription } from './subscriptions.js';
import { quote } from '../protocol/quote.js';

/** Results that carry caching hints (SEP-2549). */
const CACHEABLE = new Set(['server/discover', 'tools/list', 'prompts/list', 'resources/list', 'resources/templates/list', 'resources/read']);

const discover: MethodHandler = (session) => {
  const { host } = session;
  const result: Record<string, unknown> = {
    supportedVersions: [...MODERN_PROTOCOL_VERSIONS],
    capabilities: host.capabilities,
    _meta: { [META.serverInfo]: { ...host.info } },
  };
  if (host.instructions !== undefined) result.instructions = host.instructions;
  return result;
};

const listen: MethodHandler = async (session, params, ctx) => {
  const filter = honoured(params.notifications);
  const extended = await session.host.extensions.acceptListen(session, params.notifications, ctx);
  if (extended) Object.assign(filter, extended);
  const subscription = new Subscription(ctx, filter);
  // subscriptions.mdx: the first message of a subscription MUST be the acknowledgement.
  subscription.notify('notifications/subscriptions/acknowledged', { notifications: subscription.filter });
  const { subscriptions, stats } = session.host;
  subscriptions.add(subscription);
  stats.subscriptions++;
  try {
    await new Promise<void>((resolve) => {
      subscription.ended.then(resolve);
      // The client may have left before the handler ran (an await in auth): then it ends at once.
      if (ctx.signal.aborted) resolve();
      else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
  } finally {
    subscriptions.delete(subscription);
    stats.subscriptions--;
  }
  return { _meta: { [META.subscriptionId]: subscription.id } };
};

/** The caching hint for a result of `method` (a resource's own, or its template's, for its reads). */
function cacheHint(host: SessionHost, method: string, params: Record<string, unknown>): CacheHint {
  if (method === 'resources/read' && typeof params.uri === 'string') {
    const match = host.catalog.findResource(params.uri);
    const own = match?.resource?.cache ?? match?.template?.cache;
    if (own) return own;
  }
  return host.options.cache;
}

/** The 2026-07-28 methods: the shared ones, `server/discover` and `subscriptions/listen`; results say what they are. */
export const statelessDispatch: Dispatch = {
  methods: { __proto__: null as unknown as MethodHandler, ...sharedMethods, 'server/discover': discover, 'subscriptions/listen': listen },
  complete(session, method, params, result) {
    if (result.resultType === 'input_required') return result;
    const out: Record<string, unknown> = { resultType: 'complete', ...result };
    // The server's own methods are cacheable by the list above; an extension's, as it declared.
    if (method in statelessDispatch.methods ? CACHEABLE.has(method) : session.host.extensions.cacheable(method)) {
      const hint = cacheHint(session.host, method, params);
      if (out.ttlMs === undefined) out.ttlMs = hint.ttlMs;
      if (out.cacheScope === undefined) out.cacheScope = hint.scope;
    }
    return out;
  },
  // Errors the 2026-07-28 wire no longer has: resource-not-found is -32602 now (SEP-2164).
  error: (err) => (err.code === ErrorCode.ResourceNotFound ? new McpError(ErrorCode.InvalidParams, err.message, err.data) : err),
};

/** The error a 2026-07-28 request's `_meta` envelope earns, or undefined when it is whole. */
function envelopeError(meta: Record<string, unknown>): JsonRpcErrorObject | undefined {
  const version = meta[META.protocolVersion];
  // No claim at all (Streamable HTTP took the era from its header): the envelope is missing, not its version wrong.
  if (version === undefined) {
    return {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: a 2026-07-28 request needs _meta["${META.protocolVersion}"] and _meta["${META.clientCapabilities}"]`,
    };
  }
  // versioning.mdx: an unknown or unsupported version MUST get -32022, with what is supported.
  if (!isModernProtocolVersion(version)) return new UnsupportedProtocolVersionError(version, MODERN_PROTOCOL_VERSIONS).toJSON();
  if (!isObject(meta[META.clientCapabilities])) {
    return {
      code: ErrorCode.InvalidParams,
      message: `Invalid params: _meta["${META.clientCapabilities}"] is required on every 2026-07-28 request (an object; {} declares none)`,
    };
  }
  const logLevel = meta[META.logLevel];
  if (logLevel !== undefined && !isLoggingLevel(logLevel)) {
    return { code: ErrorCode.InvalidParams, message: `Invalid params: _meta["${META.logLevel}"] ${quote(logLevel)} is not a log level` };
  }
  return undefined;
}

/** What serving 2026-07-28 requests needs of the server beyond a session's host: how they talk back. */
export interface StatelessHost extends SessionHost {
  readonly inputRequired: BackChannelFactory;
}

/** Where one 2026-07-28 request came from, and where its answer goes. */
export interface StatelessRequest {
  /** What its responses (and its notifications) go through. */
  channel: Channel;
  principal: unknown;
  /** The connection's table, when it came on one (WebSocket, stdio), so that `notifications/cancelled` reaches it. */
  table?: IncomingRequests | undefined;
  /** Where its one answer goes, when not straight to `channel` (a batch member). */
  answers?: Answers | undefined;
  /** Sees its context before the handler runs, so that a transport whose client left can cancel it. */
  onStart?: ((ctx: Context) => void) | undefined;
}

/**
 * Serve one 2026-07-28 request, in a session of its own that talks back with input-required. Returns its
 * context, or undefined when the envelope was refused (the error is sent).
 */
export function serveStateless(host: StatelessHost, request: JsonRpcRequest, from: StatelessRequest): Context | undefined {
  const meta = (request.params?._meta ?? {}) as Record<string, unknown>;
  const refused = envelopeError(meta);
  if (refused) {
    const response = errorResponse(request.id, refused);
    if (from.answers) from.answers.answer(request.id, response);
    else from.channel.send(response, request.id);
    return undefined;
  }
  const info = meta[META.clientInfo];
  const session = new Session(host, from.channel, {
    era: 'modern',
    backChannel: host.inputRequired,
    principal: from.principal,
    // 2026-07-28: no notifications/message unless the request's _meta asks for a level.
    defaultLogLevel: undefined,
    protocolVersion: meta[META.protocolVersion] as string,
    clientInfo: isObject(info) && typeof info.name === 'string' ? (info as unknown as Implementation) : undefined,
    clientCapabilities: normalizeClientCapabilities(meta[META.clientCapabilities]),
    logLevel: meta[META.logLevel] as Session['logLevel'],
  });
  // A request that came on a connection (WebSocket, stdio) was traced there, as it arrived.
  if (!from.table) session.trace('in', request);
  return serve(session, request, statelessDispatch, from.table, from.answers, from.onStart);
}
