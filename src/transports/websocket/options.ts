/** WebSocket transport options, their defaults in one literal, and their checks at construction. */
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import { type AuthOption, checkAuthOption } from '../auth.js';
import { type AllowedOrigins, checkAllowedHosts, checkAllowedOrigins } from '../origin.js';
import { withDefaults } from '../with-defaults.js';

export interface WebSocketTransportOptions {
  /** The path upgrades are accepted on. Default `/mcp`, the same path Streamable HTTP uses. */
  path?: string;
  /** The largest message read, in bytes (one frame); a larger one closes the connection with 1009. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Ping every this many ms and drop a peer that did not answer the previous ping. Default 30 000; 0 turns it off. */
  keepAliveIntervalMs?: number;
  /** Origins allowed to connect. Default: requests without Origin, and loopback origins. */
  allowedOrigins?: AllowedOrigins;
  /** Host names allowed (403 otherwise). Default: on a loopback address, only loopback names (DNS rebinding). */
  allowedHosts?: readonly string[];
  /**
   * Authenticate the upgrade request: `bearer({ issuer, audience, jwksUri })`, or a function returning a
   * principal (kept on the session), or nothing for 401; an `AuthError` refuses with its status and challenge.
   */
  auth?: AuthOption;
  /** Bytes queued to one peer above which it is no longer read from, until they have gone out. Default 1 MiB. */
  sendHighWaterMark?: number;
  /** Bytes queued to one peer at which it is closed (1008): it does not read what it is sent. Default 16 MiB. */
  maxBufferedBytes?: number;
  /** A connection must send its first message within this long, or it is closed (1008). Default 10 000; 0 turns it off. */
  firstMessageTimeoutMs?: number;
  /** End a session with no message either way and nothing under way for this long (close 1000, `idle timeout`). Default 30 minutes; 0 turns it off. */
  sessionIdleTimeoutMs?: number;
}

/** Every default of a WebSocket transport, in one place (the README's "Limits and defaults" lists them). */
const WEBSOCKET_DEFAULTS = {
  path: '/mcp',
  maxMessageBytes: 4 * 1024 * 1024,
  keepAliveIntervalMs: 30_000,
  sendHighWaterMark: 1024 * 1024,
  maxBufferedBytes: 16 * 1024 * 1024,
  firstMessageTimeoutMs: 10_000,
  sessionIdleTimeoutMs: 30 * 60_000,
} as const satisfies WebSocketTransportOptions;

export type ResolvedWebSocketOptions = WebSocketTransportOptions & Required<Pick<WebSocketTransportOptions, keyof typeof WEBSOCKET_DEFAULTS>>;

/** The options over their defaults, checked once (a TypeError names the wrong option). */
export function resolveWebSocketOptions(options: WebSocketTransportOptions): ResolvedWebSocketOptions {
  const resolved: ResolvedWebSocketOptions = withDefaults(WEBSOCKET_DEFAULTS, options);
  checkAuthOption(resolved.auth);
  if (!resolved.path.startsWith('/')) throw new TypeError(`WebSocketTransport option path must start with '/'; got ${JSON.stringify(resolved.path)}`);
  positiveInteger('maxMessageBytes', resolved.maxMessageBytes);
  positiveInteger('sendHighWaterMark', resolved.sendHighWaterMark);
  positiveInteger('maxBufferedBytes', resolved.maxBufferedBytes);
  if (resolved.maxBufferedBytes < resolved.sendHighWaterMark) {
    throw new TypeError(`Option maxBufferedBytes (${resolved.maxBufferedBytes}) must be at least sendHighWaterMark (${resolved.sendHighWaterMark})`);
  }
  for (const key of ['keepAliveIntervalMs', 'firstMessageTimeoutMs', 'sessionIdleTimeoutMs'] as const) {
    if (resolved[key] !== 0) positiveInteger(key, resolved[key], MAX_TIMER_MS);
  }
  checkAllowedOrigins('allowedOrigins', resolved.allowedOrigins);
  checkAllowedHosts('allowedHosts', resolved.allowedHosts);
  return resolved;
}
