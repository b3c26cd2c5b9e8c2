/**
 * Where a request may come from: Origin and Host checks against DNS rebinding and cross-site pages
 * (transports.mdx: servers MUST validate Origin), for Streamable HTTP requests and WebSocket upgrades alike.
 */
import type { IncomingMessage } from 'node:http';

/** `'*'` allows any origin; a list allows exactly those origins (scheme://host[:port]). */
export type AllowedOrigins = '*' | readonly string[];

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * Requests without an Origin header (non-browser clients) pass. With no list configured, only
 * loopback origins pass, which keeps a local server safe from pages on other sites.
 */
export function isOriginAllowed(req: IncomingMessage, allowed: AllowedOrigins | undefined): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed === '*') return true;
  if (allowed) return allowed.includes(origin);
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/** Options are checked once: a lone string would make `includes` match substrings. */
export function checkAllowedOrigins(option: string, value: unknown): void {
  if (value === undefined || value === '*') return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new TypeError(`Option ${option} must be '*' or an array of origins like ['https://app.example.com']; got ${JSON.stringify(value)}`);
  }
}

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The host name of a Host header, without its port; IPv6 keeps its brackets (`[::1]`). */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end === -1 ? undefined : hostHeader.slice(0, end + 1).toLowerCase();
  }
  const colon = hostHeader.indexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/**
 * With a list, only those host names pass. Without one, a request that arrived on a loopback address
 * must name loopback too: a page on another site that resolved its own name to 127.0.0.1 does not.
 */
export function isHostAllowed(req: IncomingMessage, allowedHosts: readonly string[] | undefined): boolean {
  const hostname = hostnameOf(req.headers.host);
  if (allowedHosts) return hostname !== undefined && allowedHosts.includes(hostname);
  return !LOOPBACK_ADDRESSES.has(req.socket.localAddress ?? '') || (hostname !== undefined && LOOPBACK_HOSTNAMES.has(hostname));
}

/** Options are checked once: a lone string would make `includes` match substrings. */
export function checkAllowedHosts(option: string, value: unknown): void {
  if (value !== undefined && (!Array.isArray(value) || !value.every((h) => typeof h === 'string'))) {
    throw new TypeError(`Option ${option} must be an array of host names like ['mcp.example.com']; got ${JSON.stringify(value)}`);
  }
  // Requests are matched by host name in lower case, without the port: an entry of another shape would never match.
  const unmatchable = (value as string[] | undefined)?.find((h) => h !== hostnameOf(h));
  if (unmatchable !== undefined) {
    throw new TypeError(
      `Option ${option} lists host names in lower case and without a port, like 'mcp.example.com' or '[::1]'; got ${JSON.stringify(unmatchable)}`,
    );
  }
}
