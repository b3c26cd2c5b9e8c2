/** Where URL-mode elicitation may send a user. */

/** This machine, as `URL.hostname` spells it: exactly these names (not `*.localhost`, nor the rest of 127.0.0.0/8). */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Whether a URL's `hostname` names this machine (a prefix is not enough: `localhost.evil.example` is another host). */
export function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname);
}

/**
 * A URL-mode URL is a web page the user opens in a browser, outside the client (client/elicitation.mdx):
 * `https:`, or `http:` on loopback for local development. Other schemes (`javascript:`, `data:`, `file:`)
 * would run or read something where the user opens them. Server and client apply this one rule.
 */
export function isSafeElicitationUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHostname(url.hostname));
}

/** Throws a TypeError saying what is wrong when `url` is not a URL a server may send the user to. */
export function checkElicitationUrl(url: unknown): void {
  const parsed = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed) throw new TypeError(`URL elicitation needs a valid absolute url; got ${JSON.stringify(url)}`);
  if (isSafeElicitationUrl(parsed)) return;
  throw new TypeError(`URL elicitation needs an https: url (http: only on localhost); got ${JSON.stringify(url)}`);
}
