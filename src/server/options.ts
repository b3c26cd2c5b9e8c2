/** Server options, validated once at construction with a message per wrong option. */
import type { LoggingLevel, ServerCapabilities } from '../protocol/types.js';
import { isLoggingLevel } from './logging.js';

export interface McpServerOptions {
  /** Merged over the capabilities the server derives from what it serves (e.g. to add `experimental`). */
  capabilities?: ServerCapabilities;
  /** Default timeout for server-to-client requests (ping, roots/list, session.request), in ms. Default 60 000. */
  requestTimeoutMs?: number;
  /** Default timeout for elicitation/create: a person has to answer it. Default 600 000 (10 minutes). */
  elicitationTimeoutMs?: number;
  /** Default timeout for sampling/createMessage, which a person may have to approve. Default 600 000. */
  samplingTimeoutMs?: number;
  /** Cap on any per-call timeout. Default 3 600 000 (one hour). */
  maxRequestTimeoutMs?: number;
  /** Validate accepted elicitation content against requestedSchema. Default true. */
  validateElicitationResponses?: boolean;
  /** Log level for sessions that never sent `logging/setLevel`. Default `info`. */
  defaultLogLevel?: LoggingLevel;
  /** Page size for `tools/list`, `prompts/list`, `resources/list` and `resources/templates/list`. Default 100. */
  pageSize?: number;
}

export type ResolvedServerOptions = Required<Omit<McpServerOptions, 'capabilities'>> & Pick<McpServerOptions, 'capabilities'>;

export function resolveServerOptions(options: McpServerOptions = {}): ResolvedServerOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('McpServer options must be an object');
  const resolved: ResolvedServerOptions = {
    capabilities: options.capabilities,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    elicitationTimeoutMs: options.elicitationTimeoutMs ?? 600_000,
    samplingTimeoutMs: options.samplingTimeoutMs ?? 600_000,
    maxRequestTimeoutMs: options.maxRequestTimeoutMs ?? 3_600_000,
    validateElicitationResponses: options.validateElicitationResponses ?? true,
    defaultLogLevel: options.defaultLogLevel ?? 'info',
    pageSize: options.pageSize ?? 100,
  };
  for (const key of ['requestTimeoutMs', 'elicitationTimeoutMs', 'samplingTimeoutMs', 'maxRequestTimeoutMs'] as const) {
    positiveInteger(key, resolved[key], MAX_TIMER_MS);
  }
  positiveInteger('pageSize', resolved.pageSize);
  if (typeof resolved.validateElicitationResponses !== 'boolean') {
    throw new TypeError(`McpServer option validateElicitationResponses must be a boolean; got ${JSON.stringify(resolved.validateElicitationResponses)}`);
  }
  if (!isLoggingLevel(resolved.defaultLogLevel)) {
    throw new TypeError(`McpServer option defaultLogLevel must be one of debug, info, notice, warning, error, critical, alert, emergency; got ${JSON.stringify(resolved.defaultLogLevel)}`);
  }
  if (resolved.capabilities !== undefined && (typeof resolved.capabilities !== 'object' || resolved.capabilities === null)) {
    throw new TypeError('McpServer option capabilities must be an object');
  }
  return resolved;
}

/** Node's timers fire at once for delays above 2^31 - 1 ms. */
export const MAX_TIMER_MS = 2_147_483_647;

export function positiveInteger(name: string, value: unknown, max = Number.MAX_SAFE_INTEGER): void {
  if (!Number.isInteger(value) || (value as number) <= 0 || (value as number) > max) {
    throw new TypeError(`Option ${name} must be a positive integer${max < Number.MAX_SAFE_INTEGER ? ` up to ${max}` : ''}; got ${JSON.stringify(value)}`);
  }
}
