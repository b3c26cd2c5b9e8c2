/** Streamable HTTP transport options, and their checks at construction. */
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import type { McpSession } from '../../server/port.js';
import { type AuthOption, checkAuthOption } from '../auth.js';
import { type AllowedOrigins, checkAllowedHosts, checkAllowedOrigins } from '../origin.js';
import type { EventStore } from './event-store.js';
import type { ResponseMode } from './http-session.js';
import type { SessionRouter } from './session-router.js';
import { withDefaults } from '../with-defaults.js';

export interface StreamableHttpTransportOptions {
  /** The endpoint path when listening on a port of its own. Default `/mcp`. */
  path?: string;
  /** `auto` (default): JSON, or SSE once something related must go out before the result. */
  responseMode?: ResponseMode;
  /**
   * Status for a POST that carries only replies to server requests: 204 (default), 202 (the spec's
   * status), or a choice per session, e.g. `(session) => (session.clientInfo?.name === 'x' ? 202 : 204)`.
   */
  replyStatus?: ReplyStatus | ((session: McpSession) => ReplyStatus);
  /** The largest message read, in bytes (one POST body; 413 past it). Default 4 MiB. */
  maxMessageBytes?: number;
  /** End sessions with no open stream and nothing in flight after this long. Default 30 minutes. */
  sessionIdleTimeoutMs?: number;
  /** At most this many sessions on this transport. Default: only the server's `maxSessions`, over every transport. */
  maxSessions?: number;
  /**
   * At a limit: evict the longest-idle session of the same principal (or, without auth, the same remote
   * address), else refuse with 503 (default `evict-idle`); or always refuse new ones (`reject`).
   */
  onSessionLimit?: 'evict-idle' | 'reject';
  /** Origins allowed (403 otherwise). Default: requests without Origin, and loopback origins. */
  allowedOrigins?: AllowedOrigins;
  /** Host names allowed (403 otherwise). Default: on a loopback address, only loopback names (DNS rebinding). */
  allowedHosts?: readonly string[];
  /** CORS for browser clients: answers preflights and exposes `Mcp-Session-Id`. Off by default. */
  cors?: { origins: AllowedOrigins; maxAgeSeconds?: number };
  /**
   * Authenticate each request: `bearer({ issuer, audience, jwksUri })` (an OAuth 2.1 resource server,
   * with its metadata document and step-up), or a function returning a principal (kept on the session),
   * or nothing for 401; it may throw an `AuthError` to refuse with its status and challenge.
   */
  auth?: AuthOption;
  /** The `WWW-Authenticate` challenge a function `auth` gets with 401. Default `Bearer realm="mcp"`. */
  authChallenge?: string;
  /** Whether a request's principal may use a session created by `sessionPrincipal`. Default: same `id`, or equal JSON. */
  samePrincipal?: (requestPrincipal: unknown, sessionPrincipal: unknown) => boolean;
  /** Where SSE events wait for resumption. Default: a bounded in-memory store. */
  eventStore?: EventStore;
  /**
   * Bytes queued to one event stream's connection that its client has not read: once more than this
   * waits and does not drain within 2 s, the connection is closed. A 2025-11-25 stream goes on into the
   * event store, for the client to resume with `Last-Event-ID`; on 2026-07-28 closing the stream cancels
   * its request. Default 16 MiB.
   */
  maxBufferedBytes?: number;
  /** The `retry` (ms) sent to 2025-11-25 clients in priming events. Default 1000. */
  retryMs?: number;
  /** SSE keep-alive comment interval on open streams; 0 turns it off. Default 15 000. */
  keepAliveIntervalMs?: number;
  /**
   * Several instances behind one address: who holds which session (`scale.sessionRouter()`). A request
   * for a session another instance holds is forwarded to it over HTTP, streams included.
   */
  router?: SessionRouter;
  /** Where the other instances reach this one's MCP endpoint, for `router`. Default: the URL `listen()` listens on. */
  advertisedUrl?: string;
  /**
   * With `router`: a request that only reads a 2025 session (`tools/call`, `prompts/get`,
   * `resources/read`, the lists, `completion/complete`, `ping`; one per POST) is served on the instance it
   * lands on, from the session's record, instead of being forwarded to the session's owner. Its handler's
   * `ctx.session` is then a guest: the same id, client and log level, but its own empty `data`, and no
   * session event fires for it; its stream cannot be resumed. Whatever changes the session still goes to
   * the owner. Needs a router with `guests` (`scale.sessionRouter()` has them). Default false.
   */
  serveWhereTheyLand?: boolean;
}

export type ReplyStatus = 202 | 204;

/** Every default of a Streamable HTTP transport, in one place (the README's "Limits and defaults" lists them). */
const HTTP_DEFAULTS = {
  path: '/mcp',
  responseMode: 'auto',
  replyStatus: 204,
  maxMessageBytes: 4 * 1024 * 1024,
  sessionIdleTimeoutMs: 30 * 60_000,
  onSessionLimit: 'evict-idle',
  maxBufferedBytes: 16 * 1024 * 1024,
  retryMs: 1000,
  keepAliveIntervalMs: 15_000,
  authChallenge: 'Bearer realm="mcp"',
} as const satisfies StreamableHttpTransportOptions;

export type ResolvedHttpOptions = StreamableHttpTransportOptions & Required<Pick<StreamableHttpTransportOptions, keyof typeof HTTP_DEFAULTS>>;

/** The options over their defaults, checked once (a TypeError names the wrong option). */
export function resolveHttpOptions(options: StreamableHttpTransportOptions): ResolvedHttpOptions {
  const resolved: ResolvedHttpOptions = withDefaults(HTTP_DEFAULTS, options);
  validateHttpOptions(resolved);
  return resolved;
}

function validateHttpOptions(options: ResolvedHttpOptions): void {
  if (!options.path.startsWith('/')) throw new TypeError(`StreamableHttpTransport option path must start with '/'; got ${JSON.stringify(options.path)}`);
  if (!['auto', 'json', 'sse'].includes(options.responseMode))
    throw new TypeError(`Option responseMode must be auto, json or sse; got ${JSON.stringify(options.responseMode)}`);
  if (options.replyStatus !== 202 && options.replyStatus !== 204 && typeof options.replyStatus !== 'function') {
    throw new TypeError(`Option replyStatus must be 202, 204 or a function (session) => 202 | 204; got ${JSON.stringify(options.replyStatus)}`);
  }
  if (options.onSessionLimit !== 'evict-idle' && options.onSessionLimit !== 'reject') {
    throw new TypeError(`Option onSessionLimit must be evict-idle or reject; got ${JSON.stringify(options.onSessionLimit)}`);
  }
  positiveInteger('maxMessageBytes', options.maxMessageBytes);
  positiveInteger('sessionIdleTimeoutMs', options.sessionIdleTimeoutMs, MAX_TIMER_MS);
  if (options.maxSessions !== undefined) positiveInteger('maxSessions', options.maxSessions);
  positiveInteger('maxBufferedBytes', options.maxBufferedBytes);
  positiveInteger('retryMs', options.retryMs, MAX_TIMER_MS);
  if (options.keepAliveIntervalMs !== 0) positiveInteger('keepAliveIntervalMs', options.keepAliveIntervalMs, MAX_TIMER_MS);
  checkAuthOption(options.auth);
  const { router, advertisedUrl } = options;
  if (router !== undefined && (typeof router !== 'object' || router === null || typeof router.locate !== 'function' || typeof router.claim !== 'function')) {
    throw new TypeError('Option router must be a session router such as scale.sessionRouter() gives: { claim, release, locate }');
  }
  const serveWhereTheyLand = options.serveWhereTheyLand;
  if (serveWhereTheyLand !== undefined && typeof serveWhereTheyLand !== 'boolean') {
    throw new TypeError(`Option serveWhereTheyLand must be true or false; got ${JSON.stringify(serveWhereTheyLand)}`);
  }
  if (serveWhereTheyLand && router?.guests === undefined) {
    throw new TypeError('Option serveWhereTheyLand needs a router with guests, such as scale.sessionRouter() gives');
  }
  if (advertisedUrl !== undefined && !URL.canParse(advertisedUrl)) {
    throw new TypeError(`Option advertisedUrl must be an absolute URL (this instance's MCP endpoint); got ${JSON.stringify(advertisedUrl)}`);
  }
  checkAllowedOrigins('allowedOrigins', options.allowedOrigins);
  checkAllowedHosts('allowedHosts', options.allowedHosts);
  if (options.cors !== undefined) {
    if (typeof options.cors !== 'object' || options.cors === null)
      throw new TypeError(`Option cors must be { origins, maxAgeSeconds? }; got ${JSON.stringify(options.cors)}`);
    if (options.cors.origins === undefined) throw new TypeError("Option cors needs origins: '*' or a list of origins");
    checkAllowedOrigins('cors.origins', options.cors.origins);
    const maxAge = options.cors.maxAgeSeconds;
    if (maxAge !== undefined && (!Number.isInteger(maxAge) || maxAge < 0))
      throw new TypeError(`Option cors.maxAgeSeconds must be a non-negative integer; got ${JSON.stringify(maxAge)}`);
  }
}
