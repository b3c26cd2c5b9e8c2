/** The reserved `_meta` keys of the stateless era (2026-07-28, basic/index.mdx). */
export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

/**
 * The era claim of one message: a `params._meta` protocolVersion means the stateless era, whatever
 * its value; no claim (and `initialize`) means the handshake era.
 */
export function modernClaim(params: unknown): unknown {
  if (typeof params !== 'object' || params === null) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  return (meta as Record<string, unknown>)[META.protocolVersion];
}
