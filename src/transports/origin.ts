/** Origin checks against DNS rebinding and cross-site pages (transports.mdx: servers MUST validate Origin). */
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
