/** Server options, validated once at construction with a message per wrong option. */
import type { LoggingLevel, ServerCapabilities } from '../protocol/types.js';
import { isLoggingLevel } from './logging.js';

export interface McpServerOptions {
  /** Merged over the capabilities the server derives from what it serves (e.g. to add `experimental`). */
  capabilities?: ServerCapabilities;
  /** Default timeout for server-to-client requests, in ms. Default 60 000. */
  requestTimeoutMs?: number;
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
    defaultLogLevel: options.defaultLogLevel ?? 'info',
    pageSize: options.pageSize ?? 100,
  };
  positiveInteger('requestTimeoutMs', resolved.requestTimeoutMs);
  positiveInteger('pageSize', resolved.pageSize);
  if (!isLoggingLevel(resolved.defaultLogLevel)) {
    throw new TypeError(`McpServer option defaultLogLevel must be one of debug, info, notice, warning, error, critical, alert, emergency; got ${JSON.stringify(resolved.defaultLogLevel)}`);
  }
  if (resolved.capabilities !== undefined && (typeof resolved.capabilities !== 'object' || resolved.capabilities === null)) {
    throw new TypeError('McpServer option capabilities must be an object');
  }
  return resolved;
}

export function positiveInteger(name: string, value: unknown): void {
  if (!Number.isInteger(value) || (value as number) <= 0) {
    throw new TypeError(`Option ${name} must be a positive integer; got ${JSON.stringify(value)}`);
  }
}
