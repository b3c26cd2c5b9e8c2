/** Protocol versions this runtime speaks, and version negotiation for `initialize`. */

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
