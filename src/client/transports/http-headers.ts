/**
 * The Streamable HTTP client's MCP request headers: the SEP-2243 headers of a 2026-07-28 request with
 * their value encoding, and the names the transport keeps for itself.
 */
import type { ModernHeaders } from '../transport.js';

const RESERVED_HEADERS = ['accept', 'content-type', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'mcp-method', 'mcp-name'];
/** SEP-2243 §Value Encoding: what may travel as it is (printable ASCII); the rest goes base64. */
const PLAIN_HEADER_VALUE = /^[\x20-\x7e]*$/;

/** The SEP-2243 headers of a 2026-07-28 request, values encoded. */
export function modernHeaders(modern: ModernHeaders): Record<string, string> {
  const headers: Record<string, string> = { 'mcp-method': modern.method };
  if (modern.name !== undefined) headers['mcp-name'] = encodeHeaderValue(modern.name);
  for (const [name, value] of Object.entries(modern.params ?? {})) headers[`mcp-param-${name}`] = encodeHeaderValue(value);
  return headers;
}

/**
 * SEP-2243 §Value Encoding: printable ASCII without leading or trailing space goes as it is; anything
 * else, and a plain value that looks like the sentinel, as `=?base64?<UTF-8 in base64>?=`.
 */
export function encodeHeaderValue(value: string): string {
  const plain = PLAIN_HEADER_VALUE.test(value) && !value.startsWith(' ') && !value.endsWith(' ') && !(value.startsWith('=?base64?') && value.endsWith('?='));
  return plain ? value : `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}

/** Option `headers` may not set what the transport sets itself: a user value would contradict what the protocol needs. */
export function isReservedHeader(lowerCaseName: string): boolean {
  return RESERVED_HEADERS.includes(lowerCaseName) || lowerCaseName.startsWith('mcp-param-');
}
