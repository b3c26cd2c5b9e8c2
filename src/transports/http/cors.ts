/** CORS for browser clients (off unless the `cors` option is set): the preflight, and the headers every answer carries. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../protocol/errors.js';
import { isOriginAllowed } from '../gate.js';
import type { StreamableHttpTransportOptions } from './options.js';
import { sendHttpError } from './request.js';

export const ALLOW = 'GET, POST, DELETE, OPTIONS';
export const ALLOW_WITHOUT_CORS = 'GET, POST, DELETE';
const CORS_ALLOW_HEADERS = 'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, last-event-id, mcp-method, mcp-name';
const CORS_EXPOSE_HEADERS = 'mcp-session-id, www-authenticate';
/** What an answer carries with CORS off (or an Origin it does not allow). */
export const NO_CORS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The CORS headers for this request's answer: none unless CORS is on and the Origin is allowed. */
export function corsHeaders(req: IncomingMessage, cors: StreamableHttpTransportOptions['cors']): Record<string, string> {
  const origin = req.headers.origin;
  if (!cors || origin === undefined || !isOriginAllowed(req, cors.origins)) return NO_CORS;
  return { 'access-control-allow-origin': cors.origins === '*' ? '*' : origin, 'access-control-expose-headers': CORS_EXPOSE_HEADERS, vary: 'origin' };
}

export function preflight(res: ServerResponse, cors: StreamableHttpTransportOptions['cors'], headers: Record<string, string>): void {
  if (!cors)
    return sendHttpError(res, 405, ErrorCode.TransportRefused, 'Method Not Allowed: CORS is not enabled on this endpoint', { allow: ALLOW_WITHOUT_CORS });
  res
    .writeHead(204, {
      ...headers,
      'access-control-allow-methods': ALLOW,
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': String(cors.maxAgeSeconds ?? 600),
    })
    .end();
}
