/** Server options, validated once at construction with a message per wrong option. */
import type { LoggingLevel, ServerCapabilities } from '../protocol/types.js';
import type { RequestStateOptions } from '../mrtr/request-state.js';
import { isLoggingLevel } from '../protocol/logging.js';
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import type { ServedEras } from '../protocol/versions.js';
import type { SharedState } from './shared-state.js';
import { checkTelemetryOptions } from '../telemetry/options.js';
import type { TelemetryOptions } from '../telemetry/otel-api.js';

export interface McpServerOptions {
  /** Merged over the capabilities the server derives from what it serves (e.g. to add `experimental`). */
  capabilities?: ServerCapabilities;
  /**
   * The timeout of a request this side sends (the server's: ping, roots/list, session.request to the client),
   * unless it gives its own `timeoutMs`. Default 60 000 ms.
   */
  requestTimeoutMs?: number;
  /** Default timeout for elicitation/create: a person has to answer it. Default 600 000 (10 minutes). */
  elicitationTimeoutMs?: number;
  /** Default timeout for sampling/createMessage, which a person may have to approve. Default 600 000. */
  samplingTimeoutMs?: number;
  /** Cap on any per-call timeout. Default 3 600 000 (one hour). */
  maxRequestTimeoutMs?: number;
  /**
   * While a client request that carried a progress token waits on an elicitation or sampling request its
   * handler sent, send `notifications/progress` for it this often, so clients that time requests out
   * unless they hear progress keep waiting. 0 turns it off. Default 15 000.
   */
  progressKeepAliveMs?: number;
  /** Check accepted content of JSON Schema forms against `requestedSchema` (ajv); a Standard Schema form is always checked by its own validate. Default true. */
  validateElicitation?: boolean;
  /** The input rounds one 2026-07-28 request may take; one more is refused with -32602. Default 8. */
  maxRounds?: number;
  /** Log level for sessions that never sent `logging/setLevel`. Default `info`. */
  defaultLogLevel?: LoggingLevel;
  /** Page size for `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`. Default 100. */
  pageSize?: number;
  /** Which protocol eras to serve: both (`dual`, default), the legacy era only (2024-11-05 to 2025-11-25), or the modern era only (2026-07-28). */
  eras?: ServedEras;
  /** The MRTR requestState codec: keys (rotation), sealing, TTL, single use. */
  requestState?: RequestStateOptions;
  /**
   * State shared with the other instances serving the same endpoint (`connectRedisScale(url)`): the
   * requestState key ring, unless `requestState.keys` is given, and its single-use marks.
   */
  scale?: SharedState;
  /**
   * Caching hints on 2026-07-28 discover, list and read results (SEP-2549). Default `{ ttlMs: 0, scope: 'private' }`;
   * a resource or template may set its own for its reads.
   */
  cache?: CacheHint;
  /** Most messages in one JSON-RPC batch (2025-03-26); a larger batch is refused whole with -32600. Default 100. */
  maxBatchSize?: number;
  /** Most client requests one session may have in flight; more are answered -32011 (HTTP 429) and never run. Default 100. */
  maxRequestsInFlight?: number;
  /** Most sessions at once, over every transport (WebSocket and stdio connections, Streamable HTTP sessions). Default 10 000. */
  maxSessions?: number;
  /**
   * Send the messages of unexpected handler errors to the client in its -32603 answers. Default false: the
   * client gets "Internal error", the `error` event gets the error (tool errors stay `isError` results).
   */
  exposeErrors?: boolean;
  /**
   * OpenTelemetry spans and metrics after the MCP semantic conventions: `{ api }` with the application's
   * `import * as otel from '@opentelemetry/api'`. Default: none, and then no telemetry work at all.
   */
  telemetry?: TelemetryOptions;
}

export interface CacheHint {
  ttlMs: number;
  scope: 'public' | 'private';
}

/** The options a server runs with (`server.options`): every default filled in, every value checked. */
export type ResolvedServerOptions = Readonly<
  Required<Omit<McpServerOptions, 'capabilities' | 'requestState' | 'scale' | 'telemetry'>> &
    Pick<McpServerOptions, 'capabilities' | 'requestState' | 'scale' | 'telemetry'>
>;

export function resolveServerOptions(options: McpServerOptions = {}): ResolvedServerOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('McpServer options must be an object');
  const resolved: ResolvedServerOptions = {
    capabilities: options.capabilities,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    elicitationTimeoutMs: options.elicitationTimeoutMs ?? 600_000,
    samplingTimeoutMs: options.samplingTimeoutMs ?? 600_000,
    maxRequestTimeoutMs: options.maxRequestTimeoutMs ?? 3_600_000,
    progressKeepAliveMs: options.progressKeepAliveMs ?? 15_000,
    validateElicitation: options.validateElicitation ?? true,
    maxRounds: options.maxRounds ?? 8,
    defaultLogLevel: options.defaultLogLevel ?? 'info',
    pageSize: options.pageSize ?? 100,
    eras: options.eras ?? 'dual',
    requestState: options.requestState,
    scale: options.scale,
    cache: options.cache ?? { ttlMs: 0, scope: 'private' },
    maxBatchSize: options.maxBatchSize ?? 100,
    maxRequestsInFlight: options.maxRequestsInFlight ?? 100,
    maxSessions: options.maxSessions ?? 10_000,
    exposeErrors: options.exposeErrors ?? false,
    telemetry: options.telemetry,
  };
  if (!['dual', 'legacy', 'modern'].includes(resolved.eras))
    throw new TypeError(`McpServer option eras must be dual, legacy or modern; got ${JSON.stringify(resolved.eras)}`);
  checkCacheHint('cache', resolved.cache);
  for (const key of ['requestTimeoutMs', 'elicitationTimeoutMs', 'samplingTimeoutMs', 'maxRequestTimeoutMs'] as const) {
    positiveInteger(key, resolved[key], MAX_TIMER_MS);
  }
  const keepAlive = resolved.progressKeepAliveMs;
  if (!Number.isInteger(keepAlive) || keepAlive < 0 || keepAlive > MAX_TIMER_MS) {
    throw new TypeError(`Option progressKeepAliveMs must be 0 (off) or a positive integer up to ${MAX_TIMER_MS}; got ${JSON.stringify(keepAlive)}`);
  }
  positiveInteger('pageSize', resolved.pageSize);
  positiveInteger('maxRounds', resolved.maxRounds);
  positiveInteger('maxBatchSize', resolved.maxBatchSize);
  positiveInteger('maxRequestsInFlight', resolved.maxRequestsInFlight);
  positiveInteger('maxSessions', resolved.maxSessions);
  if (typeof resolved.exposeErrors !== 'boolean') {
    throw new TypeError(`McpServer option exposeErrors must be a boolean; got ${JSON.stringify(resolved.exposeErrors)}`);
  }
  if (typeof resolved.validateElicitation !== 'boolean') {
    throw new TypeError(`McpServer option validateElicitation must be a boolean; got ${JSON.stringify(resolved.validateElicitation)}`);
  }
  if (!isLoggingLevel(resolved.defaultLogLevel)) {
    throw new TypeError(
      `McpServer option defaultLogLevel must be one of debug, info, notice, warning, error, critical, alert, emergency; got ${JSON.stringify(resolved.defaultLogLevel)}`,
    );
  }
  if (resolved.capabilities !== undefined && (typeof resolved.capabilities !== 'object' || resolved.capabilities === null)) {
    throw new TypeError('McpServer option capabilities must be an object');
  }
  checkTelemetryOptions(resolved.telemetry);
  const { scale } = resolved;
  if (scale !== undefined && (typeof scale !== 'object' || scale === null || !Array.isArray(scale.stateKeys) || typeof scale.consumeState !== 'function')) {
    throw new TypeError('Option scale must be shared state such as connectRedisScale(url) gives: { stateKeys, consumeState }');
  }
  return Object.freeze(resolved);
}

export function checkCacheHint(name: string, hint: unknown): void {
  const h = hint as CacheHint;
  if (typeof h !== 'object' || h === null || !Number.isInteger(h.ttlMs) || h.ttlMs < 0 || (h.scope !== 'public' && h.scope !== 'private')) {
    throw new TypeError(`Option ${name} must be { ttlMs: a non-negative integer, scope: 'public' | 'private' }; got ${JSON.stringify(hint)}`);
  }
}
