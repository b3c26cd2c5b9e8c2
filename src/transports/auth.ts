/**
 * What the HTTP and WebSocket transports need of authentication: the `auth` option as a function of the
 * request, or an authenticator (`bearer()`: an OAuth 2.1 resource server) that may refuse with a status
 * and a challenge, publishes Protected Resource Metadata (RFC 9728) and carries scopes for step-up.
 */
import type { IncomingMessage } from 'node:http';
import { isPrincipal, missingScopes, scopeShortfall } from '../protocol/principal.js';

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
  error?: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  description?: string;
  /** The scopes the request needs, space-separated. */
  scope?: string;
}

/** What a 503 says in `Retry-After` when its AuthError names no time. */
const DEFAULT_RETRY_AFTER_SECONDS = 5;

/** A refusal with its HTTP status and the `WWW-Authenticate` challenge. Its message never holds a token. */
export class AuthError extends Error {
  override name = 'AuthError';
  /** A 503's `Retry-After`, in whole seconds: when the token can be checked again, if known. */
  readonly retryAfterSeconds: number | undefined;
  constructor(
    /** 400 a malformed request, 401 no or a bad token, 403 too few scopes, 503 the token cannot be checked now. */
    readonly status: 400 | 401 | 403 | 503,
    readonly challenge: Challenge,
    message = challenge.description ?? 'Unauthorized',
    /**
     * `cause`: what went wrong on this side (a 503's cause), reported on the server's `error` event, never sent.
     * `retryAfterSeconds`: a 503's `Retry-After` (default 5).
     */
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(message, options);
    const retryAfter = options?.retryAfterSeconds;
    if (retryAfter !== undefined && (!Number.isSafeInteger(retryAfter) || retryAfter < 0)) {
      throw new TypeError(`AuthError: retryAfterSeconds must be a whole number of seconds, at least 0; got ${String(retryAfter)}`);
    }
    this.retryAfterSeconds = retryAfter;
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

const BAD_HOST = () =>
  new AuthError(
    400,
    { error: 'invalid_request', description: 'The Host header is not a host name and port' },
    'Bad Request: the Host header is not a host name and port',
  );

/**
 * The endpoint's URL as `req` reached it: the resource identifier when none is configured. The Host
 * header is the client's to choose, so it must be a plain host and port (no userinfo, no path, a valid
 * port) or the request is refused (400) rather than sent elsewhere by the challenge it would build.
 */
export function resourceOf(auth: HttpAuthenticator, req: IncomingMessage, path: string, scheme: 'http' | 'ws' = 'http'): string {
  if (auth.resource) return auth.resource;
  const host = req.headers.host ?? '';
  const secure = (req.socket as { encrypted?: boolean }).encrypted === true;
  let url: URL;
  try {
    url = new URL(`${scheme}${secure ? 's' : ''}://${host}${path}`);
  } catch {
    throw BAD_HOST();
  }
  // The URL parser drops a default port; anything else it changed means the Host was not a plain host and port.
  const given = host.toLowerCase().replace(secure ? /:443$/ : /:80$/, '');
  if (host === '' || url.username !== '' || url.password !== '' || url.host !== given || url.pathname !== path) throw BAD_HOST();
  return url.href;
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
  const endpoint = path === '/' ? '' : path.replace(/\/$/, '');
  return pathname === WELL_KNOWN || pathname === `${WELL_KNOWN}${endpoint}`;
}

/** A quoted-string of RFC 6750's characters only: no quote, backslash, control character or non-ASCII (no header splitting). */
function quoted(value: string): string {
  return `"${value.replace(/[^\x20\x21\x23-\x5B\x5D-\x7E]/g, ' ')}"`;
}

/** `WWW-Authenticate` for a refusal: Bearer, the metadata URL (when the resource is known), then what the challenge says. */
function challengeHeader(resource: string | undefined, challenge: Challenge): string {
  const parts = resource === undefined ? [] : [`resource_metadata=${quoted(metadataUrl(resource))}`];
  if (challenge.scope) parts.push(`scope=${quoted(challenge.scope)}`);
  if (challenge.error) parts.push(`error=${quoted(challenge.error)}`);
  if (challenge.description) parts.push(`error_description=${quoted(challenge.description)}`);
  return parts.length > 0 ? `Bearer ${parts.join(', ')}` : 'Bearer';
}

/** The 401 for a request with no principal: the scopes every request needs, and no error (no token was sent, RFC 6750 §3.1). */
export function missingCredentials(auth: HttpAuthenticator): AuthError {
  const scope = auth.scopes?.length ? auth.scopes.join(' ') : undefined;
  return new AuthError(401, scope ? { scope } : {}, 'Unauthorized: send an access token (Authorization: Bearer ...)');
}

/** Step-up (403 insufficient_scope) when `principal` lacks any of `required`; the challenge names what the operation needs. */
export function insufficientScope(principal: unknown, required: readonly string[] | undefined, what: string): AuthError | undefined {
  if (!required || required.length === 0) return undefined;
  const missing = missingScopes(principal, required);
  if (missing.length === 0) return undefined;
  return new AuthError(403, {
    error: 'insufficient_scope',
    scope: required.join(' '),
    description: scopeShortfall(what, missing),
  });
}

/** The metadata document's answer (RFC 9728): public, readable cross-origin, and varying with Host when built from it. */
export function metadataResponse(auth: HttpAuthenticator, resource: string, head: boolean): { headers: Record<string, string>; body: string | undefined } {
  const body = JSON.stringify(auth.protectedResourceMetadata!(resource));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'max-age=300',
    'access-control-allow-origin': '*',
  };
  if (!auth.resource) headers.vary = 'Host';
  return { headers, body: head ? undefined : body };
}

/** The headers a refusal goes out with: the challenge (an authenticator's names its metadata), and Retry-After for a 503. */
export function refusalHeaders(auth: AuthOption, refusal: AuthError, resource: () => string, hookChallenge: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (refusal.status !== 400) {
    if (isAuthenticator(auth)) {
      let url: string | undefined;
      try {
        url = resource();
      } catch {
        // A Host that names no place: the challenge goes without the metadata URL.
      }
      headers['www-authenticate'] = challengeHeader(url, refusal.challenge);
    } else if (refusal.status === 401) {
      headers['www-authenticate'] = hookChallenge;
    }
  }
  if (refusal.status === 503) headers['retry-after'] = String(refusal.retryAfterSeconds ?? DEFAULT_RETRY_AFTER_SECONDS);
  return headers;
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
