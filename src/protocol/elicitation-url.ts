/** Where URL-mode elicitation may send a user. */

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A URL-mode URL is a web page the user opens in a browser, outside the client (client/elicitation.mdx):
 * `https:`, or `http:` on loopback for local development. Other schemes (`javascript:`, `data:`, `file:`)
 * would run or read something where the user opens them.
 */
export function checkElicitationUrl(url: unknown): void {
  const parsed = typeof url === 'string' && URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed) throw new TypeError(`URL elicitation needs a valid absolute url; got ${JSON.stringify(url)}`);
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname))) return;
  throw new TypeError(`URL elicitation needs an https: url (http: only on localhost); got ${JSON.stringify(url)}`);
}
