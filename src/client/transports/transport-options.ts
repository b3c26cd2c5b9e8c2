/** Checks of what a client transport is given (its URL, its headers), made once at construction with a message per wrong option. */
import { isObject } from '../../protocol/jsonrpc.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** `url` parsed, when it is absolute and of one of `schemes` (`['ws:', 'wss:']`); otherwise a TypeError naming `owner`. */
export function checkUrl(owner: string, url: string | URL, schemes: readonly string[]): URL {
  const allowed = schemes.join(' or ');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new TypeError(`${owner} url must be an absolute URL with scheme ${allowed}; got ${JSON.stringify(String(url))}`);
  }
  if (!schemes.includes(parsed.protocol)) throw new TypeError(`${owner} url must have scheme ${allowed}; got ${JSON.stringify(parsed.protocol)}`);
  return parsed;
}

/**
 * A copy of the `headers` option, when each is a valid HTTP header with a string value and none is one
 * the transport sets itself (`reserved`, given the lower-case name).
 */
export function checkHeaders(headers: unknown, reserved: (lowerCaseName: string) => boolean = () => false): Record<string, string> {
  if (headers === undefined) return {};
  if (!isObject(headers)) throw new TypeError('Option headers must be an object of header names to string values');
  for (const [name, value] of Object.entries(headers)) {
    if (typeof value !== 'string') throw new TypeError(`Option headers: the value of ${JSON.stringify(name)} must be a string; got ${typeof value}`);
    // RFC 9110 §5.1 and §5.5, as node:http checks them (this module also runs in a browser).
    if (!TOKEN.test(name)) throw new TypeError(`Option headers: Header name must be a valid HTTP token [${JSON.stringify(name)}]`);
    if (!FIELD_VALUE.test(value)) throw new TypeError(`Option headers: Invalid character in header content [${JSON.stringify(name)}]`);
    if (reserved(name.toLowerCase())) throw new TypeError(`Option headers cannot set ${name}: the transport sets it itself`);
  }
  return { ...(headers as Record<string, string>) };
}
