/**
 * Scopes an operation needs (a tool's, prompt's or resource's `scopes`): the principal must have been
 * granted every one. Over HTTP the transport answers 403 with the step-up challenge before the request
 * runs; this is the same check where there is no status to answer with (WebSocket, stdio), and the
 * backstop everywhere. It fails closed: a principal without scopes (or no auth at all) has none.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { scopesOf } from '../protocol/principal.js';

/** The `scopes` option of a registration: checked once, kept as given (undefined or non-empty). */
export function checkScopes(what: string, scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) {
    throw new TypeError(`${what}: scopes must be a non-empty list of OAuth scope tokens (RFC 6749 §3.3); got ${JSON.stringify(scopes)}`);
  }
  return Object.freeze([...scopes]);
}

/** -32012 when `principal` lacks any of `required`. */
export function requireScopes(principal: unknown, required: readonly string[] | undefined, what: string): void {
  if (!required) return;
  const granted = scopesOf(principal);
  const missing = required.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return;
  throw new McpError(
    ErrorCode.InsufficientScope,
    `${what} needs the scope${missing.length === 1 ? '' : 's'} ${missing.join(' ')}: get a token that grants ${required.join(' ')}`,
    {
      requiredScopes: [...required],
    },
  );
}
