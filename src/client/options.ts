/** McpClient options, and their checks at construction. */
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { type Era, isLegacyProtocolVersion, LATEST_LEGACY_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';

/** Which protocol era to speak: `auto` probes `server/discover` and falls back to `initialize`. */
export type ClientEra = 'auto' | Era;

export interface McpClientOptions {
  /**
   * What the client declares. Default: what its handlers can answer, decided at `connect`: form-mode
   * elicitation with `onElicitation` (URL mode only when declared here), sampling with `onSampling`,
   * roots with `onRoots`.
   */
  capabilities?: ClientCapabilities;
  /** `auto` (default), `legacy` (the legacy era, 2024-11-05 to 2025-11-25: initialize) or `modern` (the modern era, 2026-07-28: per-request `_meta`). */
  era?: ClientEra;
  /**
   * Validate an accepted form against `requestedSchema` before sending it (after its SEP-1034 defaults are
   * merged, which always happens). Default true.
   */
  validateElicitation?: boolean;
  /**
   * The timeout of a request this side sends (the client's: its calls), unless it gives its own
   * `timeoutMs`. Default 60 000 ms.
   */
  requestTimeoutMs?: number;
  /** The input rounds one 2026-07-28 request may take (`input_required` answered and retried); one more fails the call. Default 8. */
  maxRounds?: number;
  /** The version `initialize` asks for on the legacy era. Default 2025-11-25. */
  protocolVersion?: string;
  /**
   * Declare the Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28): a tools/call may then come
   * back as a task, which `callTool` follows to its end (polling `tasks/get`, answering its questions
   * through the handlers with `tasks/update`, cancelling it when the call is aborted). Default false.
   */
  tasks?: boolean;
}

export interface ResolvedClientOptions {
  readonly capabilities: ClientCapabilities | undefined;
  readonly era: ClientEra;
  readonly validateElicitation: boolean;
  readonly requestTimeoutMs: number;
  readonly maxRounds: number;
  readonly protocolVersion: string;
  readonly tasks: boolean;
}

export function resolveClientOptions(options: McpClientOptions = {}): ResolvedClientOptions {
  if (typeof options !== 'object' || options === null) throw new TypeError('McpClient options must be an object');
  const resolved: ResolvedClientOptions = {
    capabilities: options.capabilities,
    era: options.era ?? 'auto',
    validateElicitation: options.validateElicitation ?? true,
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxRounds: options.maxRounds ?? 8,
    protocolVersion: options.protocolVersion ?? LATEST_LEGACY_PROTOCOL_VERSION,
    tasks: options.tasks ?? false,
  };
  if (typeof resolved.tasks !== 'boolean') throw new TypeError(`McpClient option tasks must be a boolean; got ${JSON.stringify(resolved.tasks)}`);
  if (!['auto', 'legacy', 'modern'].includes(resolved.era)) {
    throw new TypeError(`McpClient option era must be auto, legacy or modern; got ${JSON.stringify(resolved.era)}`);
  }
  if (typeof resolved.validateElicitation !== 'boolean') {
    throw new TypeError(`McpClient option validateElicitation must be a boolean; got ${JSON.stringify(resolved.validateElicitation)}`);
  }
  positiveInteger('requestTimeoutMs', resolved.requestTimeoutMs, MAX_TIMER_MS);
  positiveInteger('maxRounds', resolved.maxRounds);
  if (!isLegacyProtocolVersion(resolved.protocolVersion)) {
    throw new TypeError(
      `McpClient option protocolVersion must be one of ${LEGACY_PROTOCOL_VERSIONS.join(', ')}; got ${JSON.stringify(resolved.protocolVersion)}`,
    );
  }
  if (resolved.capabilities !== undefined && (typeof resolved.capabilities !== 'object' || resolved.capabilities === null)) {
    throw new TypeError('McpClient option capabilities must be an object');
  }
  return resolved;
}
