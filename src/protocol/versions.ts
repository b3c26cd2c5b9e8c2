/** Protocol versions this runtime speaks, their two eras, and version negotiation for `initialize`. */
import { META } from './meta.js';

/** The legacy era's revisions (2024-11-05 to 2025-11-25: `initialize` and sessions), oldest first. */
export const LEGACY_PROTOCOL_VERSIONS = ['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'] as const;
export type LegacyProtocolVersion = (typeof LEGACY_PROTOCOL_VERSIONS)[number];

export const LATEST_LEGACY_PROTOCOL_VERSION: LegacyProtocolVersion = '2025-11-25';

const legacyVersions: ReadonlySet<string> = new Set(LEGACY_PROTOCOL_VERSIONS);

export function isLegacyProtocolVersion(version: unknown): version is LegacyProtocolVersion {
  return typeof version === 'string' && legacyVersions.has(version);
}

/** lifecycle.mdx: echo a supported version, otherwise answer with our latest as a normal result, never an error. */
export function negotiateProtocolVersion(requested: string): LegacyProtocolVersion {
  return isLegacyProtocolVersion(requested) ? requested : LATEST_LEGACY_PROTOCOL_VERSION;
}

/** JSON-RPC batches exist only in 2025-03-26 (added there, removed in 2025-06-18). */
export function allowsBatches(version: string | undefined): boolean {
  return version === '2025-03-26';
}

/** Whether `version` is at least `minimum`; version strings are ISO dates, so they order as strings. */
export function isAtLeast(version: string | undefined, minimum: string): boolean {
  return version !== undefined && version >= minimum;
}

/** The modern era's revisions (2026-07-28): no initialize, every request carries its own _meta. */
export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export type ModernProtocolVersion = (typeof MODERN_PROTOCOL_VERSIONS)[number];

const modernVersions: ReadonlySet<string> = new Set(MODERN_PROTOCOL_VERSIONS);

export function isModernProtocolVersion(version: unknown): version is ModernProtocolVersion {
  return typeof version === 'string' && modernVersions.has(version);
}

/**
 * The one era classifier (versioning.mdx). A message belongs to the modern era (2026-07-28) when its
 * `params._meta` claims a protocol version, whatever the value; on Streamable HTTP an
 * `MCP-Protocol-Version` header naming a modern version says the same (the body then lacks its
 * envelope, which the server answers with -32602). `initialize`, or no claim at all, is the legacy era.
 */

/** The legacy era (2024-11-05 to 2025-11-25: `initialize` and sessions), or the modern era (2026-07-28: each request carries its own `_meta`). */
export type Era = 'legacy' | 'modern';

/** Which eras a server serves: both (`dual`), the legacy era only, or the modern era only. */
export type ServedEras = 'dual' | 'legacy' | 'modern';

/** The `_meta` protocol-version claim of a message's params, if it makes one. */
export function modernClaim(params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[META.protocolVersion];
}

/**
 * The era of one message (`message` undefined: a batch, which only the header can place). A server that
 * serves only the legacy era ignores claims, so a 2026-07-28 client falls back to `initialize`.
 */
export function classifyEra(message: { method?: string; params?: unknown } | undefined, served: ServedEras, headerVersion?: string): Era {
  if (served === 'legacy') return 'legacy';
  if (message !== undefined && modernClaim(message.params) !== undefined) return 'modern';
  // initialize without a claim is the legacy era's, whatever its header says.
  return isModernProtocolVersion(headerVersion) && message?.method !== 'initialize' ? 'modern' : 'legacy';
}
