/**
 * What the HTTP and WebSocket transports need of authentication: the `auth` option as a function of the
 * request, or an authenticator (`bearer()`: an OAuth 2.1 resource server) that may refuse with a status
 * and a challenge, publishes Protected Resource Metadata (RFC 9728) and carries scopes for step-up.
 */
import type { IncomingMessage } from 'node:http';
import { isPrincipal, scopesOf } from '../protocol/principal.js';

/** `auth` as a function: a principal, or nothing (undefined, null, false) for 401. It may throw an AuthError. */
export type AuthHook = (req: IncomingMessage) => unknown | Promise<unknown>;

/** An authenticator: the transports serve its metadata document and send its challenges. */
export interface HttpAuthenticator {
  /**
   * The principal of `req`, which was sent to the MCP endpoint `resource` (its URL, RFC 8707). Throw an
   * AuthError to refuse it; anything else thrown is a 500.
   */
  authenticate(req: IncomingMessage, resource: string): unknown | Promise<unknown>;
  /** This server's resource identifier; default: the endpoint's URL as the request reached it. */
  readonly resource?: string | undefined;
  /** The Protected Resource Metadata document (RFC 9728) for `resource`. */
  protectedResourceMetadata?(resource: string): Record<string, unknown>;
  /** Scopes every request needs (named in 401 challenges). */
  readonly scopes?: readonly string[] | undefined;
}

export type AuthOption = AuthHook | HttpAuthenticator;

export interface Challenge {
  /** RFC 6750 error code: `invalid_request`, `invalid_token`, `insufficient_scope`; none when no token was sent. */
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope' | 'temporarily_unavailable';
  description?: string;
  /** The scopes the request needs, space-separated. */
  scope?: string;
}

/** A refusal with its HTTP status and the `WWW-Authenticate` challenge. Its message never holds a token. */
export class AuthError extends Error {
  override name = 'AuthError';
  constructor(
    readonly status: 401 | 403 | 503,
    readonly challenge: Challenge,
    message = challenge.description ?? 'Unauthorized',
  ) {
    super(message);
  }
}

const WELL_KNOWN = '/.well-known/oauth-protected-resource';

export function isAuthenticator(auth: AuthOption | undefined): auth is HttpAuthenticator {
  return typeof auth === 'object' && auth !== null && typeof (auth as HttpAuthenticator).authenticate === 'function';
}

export function checkAuthOption(auth: unknown): void {
  if (auth === undefined || typeof auth === 'function' || isAuthenticator(auth as AuthOption)) return;
  throw new TypeError('Option auth must be a function (req) => principal, or an authenticator such as bearer({ issuer, audience, jwksUri })');
}

/** The endpoint's URL as `req` reached it (the resource identifier when none is configured). */
export function resourceOf(auth: HttpAuthenticator, req: IncomingMessage, path: string, scheme: 'http' | 'ws' = 'http'): string {
  if (auth.resource) return auth.resource;
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  return `${scheme}${secure ? 's' : ''}://${req.headers.host ?? 'localhost'}${path}`;
}

/** Where the metadata document of `resource` lives (RFC 9728 §3.1: the well-known path, then the resource's path). */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  // The document is served over HTTP(S), also for a WebSocket endpoint's resource.
  const origin = url.protocol === 'ws:' || url.protocol === 'wss:' ? `${url.protocol === 'wss:' ? 'https' : 'http'}://${url.host}` : url.origin;
  return `${origin}${WELL_KNOWN}${path}`;
}

/** Whether `pathname` asks for the metadata document of an endpoint at `path`: the bare well-known path, or path-suffixed. */
export function isMetadataPath(pathname: string, path: string): boolean {
  return pathname === WELL_KNOWN || pathname === `${WELL_KNOWN}${path}`;
}

function quoted(value: string): string {
  return `"${value.replace(/[\\"]/g, '\\$&')}"`;
}

/** `WWW-Authenticate` for a refusal: Bearer, the metadata URL, then what the challenge says. */
export function challengeHeader(resource: string, challenge: Challenge): string {
  const parts = [`resource_metadata=${quoted(metadataUrl(resource))}`];
  if (challenge.scope) parts.push(`scope=${quoted(challenge.scope)}`);
  if (challenge.error) parts.push(`error=${quoted(challenge.error)}`);
  if (challenge.description) parts.push(`error_description=${quoted(challenge.description)}`);
  return `Bearer ${parts.join(', ')}`;
}

/** The 401 for a request with no principal: the scopes every request needs, and no error (no token was sent, RFC 6750 §3.1). */
export function missingCredentials(auth: HttpAuthenticator): AuthError {
  const scope = auth.scopes?.length ? auth.scopes.join(' ') : undefined;
  return new AuthError(401, scope ? { scope } : {}, 'Unauthorized: send an access token (Authorization: Bearer ...)');
}

/** Step-up (403 insufficient_scope) when `principal` lacks any of `required`; the challenge names what the operation needs. */
export function insufficientScope(principal: unknown, required: readonly string[] | undefined, what: string): AuthError | undefined {
  if (!required || required.length === 0) return undefined;
  const granted = scopesOf(principal);
  const missing = required.filter((scope) => !granted.includes(scope));
  if (missing.length === 0) return undefined;
  return new AuthError(403, {
    error: 'insufficient_scope',
    scope: required.join(' '),
    description: `${what} needs the scope${missing.length === 1 ? '' : 's'} ${missing.join(' ')}`,
  });
}

/** Run the `auth` option on `req`: the principal, or the AuthError to answer with. */
export async function authenticate(auth: AuthOption, req: IncomingMessage, resource: () => string): Promise<{ principal: unknown } | { refused: AuthError }> {
  try {
    const principal = isAuthenticator(auth) ? await auth.authenticate(req, resource()) : await auth(req);
    if (isPrincipal(principal)) return { principal };
    return { refused: isAuthenticator(auth) ? missingCredentials(auth) : new AuthError(401, {}, 'Unauthorized: send valid credentials') };
  } catch (err) {
    if (err instanceof AuthError) return { refused: err };
    throw err;
  }
}
