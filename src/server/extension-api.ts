/** What an extension gives the server (`server.useExtension`): its id, its declaration, its methods. */
import type { ClientCapabilities } from '../protocol/types.js';

/** One request to an extension method, as its handler sees it. */
export interface ExtensionRequest {
  params: Record<string, unknown>;
  /** What the client declared (in `initialize`, or the request's `_meta` on 2026-07-28). */
  clientCapabilities: ClientCapabilities;
  /** Aborted when the client cancels the request, or it ends otherwise. */
  signal: AbortSignal;
}

export interface ExtensionMethod {
  handler: (request: ExtensionRequest) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Its results carry caching hints on 2026-07-28 (`ttlMs`, `cacheScope`), as list and read results do. */
  cacheable?: boolean;
  /** Served only to clients that declared the extension (in `initialize`, or the request's `_meta`); others get -32021. */
  requiresClientExtension?: boolean;
}

export interface ServerExtension {
  /** The extension's identifier, `vendor.prefix/name` (e.g. `io.modelcontextprotocol/skills`). */
  readonly id: string;
  /** What the server declares under `capabilities.extensions[id]`. */
  readonly settings: Record<string, unknown>;
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
}
