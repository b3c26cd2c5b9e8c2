/**
 * Settling the era at connect: `auto` asks `server/discover` (2026-07-28) and falls back to
 * `initialize` (a session, 2024-11-05 to 2025-11-25); `modern` and `legacy` ask for theirs alone. What
 * comes out is the wire every later request travels on, and what the server said of itself.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, ServerCapabilities } from '../protocol/types.js';
import { isLegacyProtocolVersion, isModernProtocolVersion, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { MODERN_VERSION } from './modern.js';
import type { ResolvedClientOptions } from './options.js';
import type { ClientTransport } from './transport.js';
import { type EraWire, LegacyWire, ModernWire } from './wire.js';

/** What the server said of itself at connect. */
export interface ServerFacts {
  info?: Implementation;
  capabilities?: ServerCapabilities;
  instructions?: string;
}

/** What negotiating needs of the client. */
export interface NegotiationHost {
  readonly options: Pick<ResolvedClientOptions, 'era' | 'protocolVersion'>;
  readonly info: Implementation;
  readonly declared: ClientCapabilities;
  readonly transport: ClientTransport;
  send(
    wire: EraWire,
    method: string,
    params: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal | undefined },
  ): Promise<Record<string, unknown>>;
  /** The era is settled: from now on requests, and replies to what the server asks, go on `wire`. */
  settled(wire: EraWire, server: ServerFacts): void;
}

/** Error codes that mark a modern server's answer to `server/discover` (versioning.mdx, client-side detection). */
const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.HeaderMismatch,
]);

/** How long `auto` waits for the answer to its `server/discover` probe before it tries `initialize` (stdio: a timeout means legacy). */
const PROBE_TIMEOUT_MS = 10_000;

export async function negotiate(host: NegotiationHost, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  const era = host.options.era;
  if (era === 'legacy') return initialize(host, timeoutMs, signal);
  const transport = host.transport;
  const modern = new ModernWire({ capabilities: host.declared, clientInfo: host.info }, transport.cancelsByClosingStream, transport.kind === 'http');
  const probe = { timeoutMs: era === 'auto' ? Math.min(timeoutMs, PROBE_TIMEOUT_MS) : timeoutMs, signal };
  for (let attempt = 1; ; attempt++) {
    try {
      const server = discovered(await host.send(modern, 'server/discover', {}, probe));
      host.settled(modern, server);
      return;
    } catch (err) {
      // versioning.mdx: -32022 lists what the server supports, and the client retries with one of them (once).
      if (attempt === 1 && offersModernVersion(err) && !signal?.aborted) continue;
      if (era === 'modern' || !fallsBackToLegacy(err) || signal?.aborted) throw discoverFailed(err);
      return initialize(host, timeoutMs, signal);
    }
  }
}

function discovered(result: Record<string, unknown>): ServerFacts {
  const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
  if (!versions.includes(MODERN_VERSION)) {
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      `The server's server/discover lists ${JSON.stringify(versions)}, not ${MODERN_VERSION}; connect with era 'legacy' if it speaks one of ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  const meta = isObject(result._meta) ? result._meta : {};
  return serverFacts(meta['io.modelcontextprotocol/serverInfo'], result);
}

async function initialize(host: NegotiationHost, timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
  const params = { protocolVersion: host.options.protocolVersion, capabilities: host.declared, clientInfo: host.info };
  const result = await host.send(new LegacyWire(undefined), 'initialize', params, { timeoutMs, signal });
  const version = result.protocolVersion;
  if (!isLegacyProtocolVersion(version)) {
    throw new McpError(
      ErrorCode.UnsupportedProtocolVersion,
      `The server answered initialize with protocol version ${JSON.stringify(version)}; this client speaks ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
    );
  }
  const wire = new LegacyWire(version);
  // Settled before notifications/initialized goes out: what the server asks right after is answered on this wire.
  host.settled(wire, serverFacts(result.serverInfo, result));
  await host.transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, wire.context());
  host.transport.sessionReady?.(version);
}

function serverFacts(info: unknown, result: Record<string, unknown>): ServerFacts {
  return {
    ...(isObject(info) ? { info: info as unknown as Implementation } : {}),
    capabilities: isObject(result.capabilities) ? (result.capabilities as ServerCapabilities) : {},
    ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
  };
}

/**
 * After a failed `server/discover`: a modern answer (-32022 naming 2026-07-28, -32021, -32020) means
 * stay modern and fail; anything else (a legacy server's error, HTTP 400/404/405, a timeout) means try
 * `initialize`. A -32022 naming only legacy versions is a dual-era server that does not serve 2026-07-28.
 */
function offersModernVersion(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.UnsupportedProtocolVersion && supportedVersions(err).includes(MODERN_VERSION);
}

function supportedVersions(err: McpError): unknown[] {
  return isObject(err.data) && Array.isArray(err.data.supported) ? err.data.supported : [];
}

function fallsBackToLegacy(err: unknown): boolean {
  if (!(err instanceof McpError)) return false;
  if (!MODERN_ERROR_CODES.has(err.code)) return true;
  if (err.code !== ErrorCode.UnsupportedProtocolVersion) return false;
  const supported = supportedVersions(err);
  return !supported.some(isModernProtocolVersion) && supported.some(isLegacyProtocolVersion);
}

function discoverFailed(err: unknown): Error {
  if (!(err instanceof McpError)) return err instanceof Error ? err : new Error(String(err));
  return new McpError(err.code, `The server did not accept server/discover at 2026-07-28: ${err.message}`, err.data, { cause: err });
}
