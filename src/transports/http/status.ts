/** The HTTP status a 2026-07-28 error response goes out with (streamable-http.mdx, status mapping). */
import { ErrorCode } from '../../protocol/errors.js';

const BAD_REQUEST: ReadonlySet<number> = new Set([
  ErrorCode.InvalidParams,
  ErrorCode.HeaderMismatch,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.InvalidRequest,
  ErrorCode.ParseError,
]);

export function modernErrorStatus(code: number): number {
  if (code === ErrorCode.MethodNotFound) return 404;
  return BAD_REQUEST.has(code) ? 400 : 200;
}
