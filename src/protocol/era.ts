/**
 * The one era classifier (versioning.mdx). A message belongs to the modern era (2026-07-28) when its
 * `params._meta` claims a protocol version, whatever the value; on Streamable HTTP an
 * `MCP-Protocol-Version` header naming a modern version says the same (the body then lacks its
 * envelope, which the server answers with -32602). `initialize`, or no claim at all, is the legacy era.
 */
import { META } from './meta.js';
import { isModernProtocolVersion } from './versions.js';

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
