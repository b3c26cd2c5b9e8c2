/**
 * An OAuth 2.1 resource server (the MCP authorization spec, 2025-11-25 and 2026-07-28): `bearer()` checks
 * the access token of each request, a JWT against the issuer's JWKS (signature, `iss`, `aud` per RFC
 * 8707, `exp`/`nbf` with a small clock skew) or an opaque token by introspection (RFC 7662), and
 * publishes the Protected Resource Metadata (RFC 9728) that tells clients where to get one. The token
 * never appears in a message or a log: refusals say why, not what.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { AuthError, type HttpAuthenticator, insufficientScope } from '../transports/auth.js';
import { checkJwksOptions, IssuerKeys, IssuerKeysUnavailableError, type JwksOptions } from './issuer-keys.js';

/** What a verified token says about its bearer: the principal sessions, requestState and tasks are bound to. */
export interface TokenPrincipal {
  /**
   * What binds sessions, requestState and tasks to this principal: `<iss>#<sub>`, or `<iss>#client#<client_id>`
   * for a token that names no subject (a client acting for itself, as with client credentials). A `%` or `#`
   * inside a part is written `%25` or `%23`, so two principals never share an id whatever their names hold.
   */
  id: string;
  /** `sub`: whom the token speaks for. Absent when it names none: the principal is then the client, `clientId`. */
  subject?: string;
  /** `client_id` (or `azp`), when the token names it. */
  clientId?: string;
  /** The granted scopes (`scope`, or `scp`). */
  scopes: string[];
  issuer?: string;
  /** Epoch seconds. */
  expiresAt?: number;
  /** Every claim (JWT) or introspection field, the token itself excepted. */
  claims: Record<string, unknown>;
}

export interface IntrospectionOptions {
  /** The authorization server's introspection endpoint (RFC 7662). */
  url: string;
  /** Client credentials for the endpoint (HTTP Basic), when it asks for them. */
  clientId?: string;
  clientSecret?: string;
  /** How long an answer is reused for the same token, at most (never past the token's `exp`). Default 60 000. */
  cacheMs?: number;
  /** How long to wait for the endpoint. Default 5000. */
  timeoutMs?: number;
  /**
   * Refuse an active token whose answer names no `aud` (default true: RFC 8707 says a token must be for
   * this resource). Turn off only for an authorization server that never reports audiences.
   */
  requireAudience?: boolean;
}

export interface BearerOptions {
  /** The authorization server's issuer identifier: tokens must carry it as `iss`. */
  issuer?: string;
  /**
   * What tokens must name in `aud`: this server's resource identifier (RFC 8707). Default `resource`;
   * one of the two is needed unless `verify` is given.
   */
  audience?: string | readonly string[];
  /** Where the issuer publishes its signing keys: tokens are JWTs checked against them. */
  jwksUri?: string;
  /** Check opaque tokens at the authorization server instead (RFC 7662). */
  introspection?: IntrospectionOptions;
  /**
   * Check tokens yourself: return what the token says (`{ subject }`, or `{ clientId }` alone for a client acting
   * for itself), or nothing to refuse it (401 invalid_token).
   */
  verify?: (token: string) => TokenClaims | undefined | Promise<TokenClaims | undefined>;
  /**
   * This server's resource identifier (its MCP endpoint URL), published in the metadata and the 401s.
   * Default: `audience` when that is one http(s) URL, else the endpoint's URL as a request reached it.
   */
  resource?: string;
  /** Scopes every request needs: 401 names them, and a token without them gets 403. */
  scopes?: readonly string[];
  /** `scopes_supported` in the metadata. Default: `scopes`. */
  scopesSupported?: readonly string[];
  /** `authorization_servers` in the metadata. Default: `[issuer]`. */
  authorizationServers?: readonly string[];
  /** `resource_name` and `resource_documentation` in the metadata. */
  resourceName?: string;
  resourceDocumentation?: string;
  /** Clock skew allowed for `exp` and `nbf`, in seconds. Default 60. */
  clockToleranceSeconds?: number;
  /** JWT signing algorithms accepted. Default: the asymmetric ones the JWKS keys allow. */
  algorithms?: readonly string[];
  /**
   * How long fetched keys are used (default 600 000 ms) and the least time between two fetches (30 000 ms),
   * doubled with each failed fetch in a row up to `maxCooldownMs` (300 000 ms); meanwhile the last good keys serve.
   */
  jwks?: JwksOptions;
  /**
   * Refuse a JWT whose header `typ` is not `at+jwt` (RFC 9068 §2.1), so an ID token or another JWT the issuer
   * signs cannot pass for an access token. Default false: Auth0 (its default token profile) and Keycloak
   * (unless a client turns it on) send `typ: JWT`.
   */
  requireAtJwtType?: boolean;
}

/** What a custom `verify` returns: whom the token speaks for (a `subject`, or with none its `clientId`) and its grants. */
export interface TokenClaims {
  subject?: string;
  clientId?: string;
  scopes?: readonly string[];
  issuer?: string;
  expiresAt?: number;
  claims?: Record<string, unknown>;
}

type Jose = typeof import('jose');
let josePromise: Promise<Jose> | undefined;

/** jose is an optional peer: loaded on the first token, with a clear error when it is not installed. */
function loadJose(): Promise<Jose> {
  josePromise ??= import('jose').catch((err: unknown) => {
    josePromise = undefined;
    throw new Error(`bearer() checks JWTs with the jose package, which is not installed: npm install jose (${(err as Error).message})`);
  });
  return josePromise;
}

const BEARER = /^Bearer[ \t]+([A-Za-z0-9\-._~+/]+=*)[ \t]*$/i;
const MAX_INTROSPECTION_CACHE = 10_000;

function invalidToken(description: string): AuthError {
  return new AuthError(401, { error: 'invalid_token', description });
}

/**
 * 503: the token cannot be checked now. The client learns only that, and when to try again when that is
 * known (`retryAfterSeconds`); the cause (with its URLs) goes to the server's `error` event.
 */
function unavailable(what: string, err: unknown, retryAfterSeconds?: number): AuthError {
  const detail = err instanceof Error ? (err.name === 'TimeoutError' ? 'timed out' : err.message) : String(err);
  const description = 'Cannot check the access token now; try again shortly';
  const cause = new Error(`bearer(): ${what} ${detail}`, { cause: err });
  return new AuthError(503, { description }, description, retryAfterSeconds === undefined ? { cause } : { cause, retryAfterSeconds });
}

/** The scopes a token grants: `scope` (space-separated) or `scp` (a list or a string). */
function scopesIn(fields: Record<string, unknown>): string[] {
  const raw = fields.scope ?? fields.scp;
  if (typeof raw === 'string') return raw.split(' ').filter(Boolean);
  if (Array.isArray(raw)) return raw.filter((s): s is string => typeof s === 'string');
  return [];
}

/** One part of a principal id: `%` and `#` escaped, so `#` only ever separates parts. */
function idPart(value: string): string {
  return value.replace(/%/g, '%25').replace(/#/g, '%23');
}

/**
 * Whom a token speaks for, the same rules for a JWT, an introspection answer and a custom verify: its
 * subject, or with none the client acting for itself. An empty name binds no one: 401. A name that is not
 * a string, or none at all, is refused by `wrongShape`: 401 for what a token says, a bug for what verify says.
 */
function checkIdentity(
  subject: unknown,
  clientId: unknown,
  clientClaim: 'client_id' | 'azp' | 'clientId',
  wrongShape: (why: string) => Error = invalidToken,
): void {
  if (subject !== undefined && typeof subject !== 'string') throw wrongShape("The access token's subject (sub) is not a string");
  if (clientId !== undefined && typeof clientId !== 'string') throw wrongShape(`The access token's client (${clientClaim}) is not a string`);
  if (subject === undefined && clientId === undefined) throw wrongShape('The access token names no subject (sub) or client (client_id)');
  if (subject === '') throw invalidToken("The access token's subject (sub) is empty, so it names no one");
  if (clientId === '') throw invalidToken(`The access token's client (${clientClaim}) is empty, so it names no client`);
}

function principalOf(claims: TokenClaims): TokenPrincipal {
  const issuer = idPart(claims.issuer ?? '');
  // RFC 9068 §5: the issuer keeps a sub it gave a client apart from its users; a token with no sub is the client's own.
  const principal: TokenPrincipal = {
    id: claims.subject !== undefined ? `${issuer}#${idPart(claims.subject)}` : `${issuer}#client#${idPart(claims.clientId!)}`,
    scopes: [...(claims.scopes ?? [])],
    claims: claims.claims ?? {},
  };
  if (claims.subject !== undefined) principal.subject = claims.subject;
  if (claims.clientId !== undefined) principal.clientId = claims.clientId;
  if (claims.issuer !== undefined) principal.issuer = claims.issuer;
  if (claims.expiresAt !== undefined) principal.expiresAt = claims.expiresAt;
  return principal;
}

/** What a JWT or an introspection answer says, as TokenClaims. */
function claimsOf(fields: Record<string, unknown>): TokenClaims {
  const clientClaim = fields.client_id !== undefined ? 'client_id' : 'azp';
  const subject = fields.sub;
  const clientId = fields[clientClaim];
  checkIdentity(subject, clientId, clientClaim);
  const { active: _active, ...claims } = fields;
  const out: TokenClaims = { scopes: scopesIn(fields), claims };
  if (subject !== undefined) out.subject = subject as string;
  if (clientId !== undefined) out.clientId = clientId as string;
  if (typeof fields.iss === 'string') out.issuer = fields.iss;
  if (typeof fields.exp === 'number') out.expiresAt = fields.exp;
  return out;
}

const VERIFY_SHAPE = () =>
  new TypeError('bearer(): verify must return { subject: string, scopes?, clientId?, ... } (or { clientId } alone) for a good token, or nothing for a bad one');

/** What a custom `verify` returned, checked: a wrong shape is a bug in verify (500), an empty name a bad token (401). */
function checkVerified(claims: TokenClaims | undefined): TokenClaims | undefined {
  if (claims === undefined || claims === null) return undefined;
  if (typeof claims !== 'object') throw VERIFY_SHAPE();
  checkIdentity(claims.subject, claims.clientId, 'clientId', VERIFY_SHAPE);
  return claims;
}

/** Why jose refused a JWT, in words a client can act on (never the token). */
function joseRefusal(err: unknown): AuthError | undefined {
  const code = (err as { code?: string }).code;
  const claim = (err as { claim?: string }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalidToken('The access token expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'aud') return invalidToken('The access token is not for this resource (aud)');
      if (claim === 'iss') return invalidToken('The access token is from another issuer (iss)');
      if (claim === 'nbf') return invalidToken('The access token is not valid yet (nbf)');
      if (claim === 'typ') return invalidToken('The token is not an access token (its typ is not at+jwt)');
      return invalidToken(`The access token's ${claim ?? 'claims'} claim is not acceptable`);
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalidToken('The access token signature does not verify');
    case 'ERR_JWKS_NO_MATCHING_KEY':
      return invalidToken('The access token is signed with a key the issuer does not publish');
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalidToken('The access token is signed with an algorithm this server does not accept');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return invalidToken('The access token is not a valid JWT');
    default:
      return undefined;
  }
}

class BearerAuthenticator implements HttpAuthenticator {
  readonly resource: string | undefined;
  readonly scopes: readonly string[] | undefined;
  private readonly audience: string | string[] | undefined;
  private keys: IssuerKeys | undefined;
  /** Introspection answers by the token's SHA-256, oldest first. */
  private readonly introspected = new Map<string, { claims: TokenClaims | undefined; until: number }>();

  constructor(private readonly options: BearerOptions) {
    const { jwksUri, introspection, verify, audience, resource } = options;
    const ways = [jwksUri, introspection, verify].filter((way) => way !== undefined).length;
    if (ways !== 1) throw new TypeError('bearer() needs exactly one way to check tokens: jwksUri (JWTs), introspection ({ url }), or verify (your own)');
    if (jwksUri !== undefined && !URL.canParse(jwksUri)) throw new TypeError(`bearer(): jwksUri must be an absolute URL; got ${JSON.stringify(jwksUri)}`);
    if (introspection !== undefined && !URL.canParse(introspection.url)) {
      throw new TypeError(`bearer(): introspection.url must be an absolute URL; got ${JSON.stringify(introspection.url)}`);
    }
    if (resource !== undefined && !URL.canParse(resource)) throw new TypeError(`bearer(): resource must be an absolute URL; got ${JSON.stringify(resource)}`);
    if (verify === undefined && audience === undefined && resource === undefined) {
      throw new TypeError("bearer() needs audience (or resource): the value tokens must carry in aud, this server's resource URL (RFC 8707)");
    }
    if (jwksUri !== undefined && options.issuer === undefined) throw new TypeError('bearer() needs issuer with jwksUri: tokens must carry it as iss');
    checkJwksOptions(options.jwks);
    const { requireAtJwtType } = options;
    if (requireAtJwtType !== undefined && typeof requireAtJwtType !== 'boolean') {
      throw new TypeError(`bearer(): requireAtJwtType must be true or false; got ${JSON.stringify(requireAtJwtType)}`);
    }
    if (requireAtJwtType && jwksUri === undefined) throw new TypeError('bearer(): requireAtJwtType checks JWTs, so it needs jwksUri');
    this.resource = resource ?? (typeof audience === 'string' && /^https?:\/\//i.test(audience) && URL.canParse(audience) ? audience : undefined);
    this.scopes = options.scopes?.length ? [...options.scopes] : undefined;
    this.audience = audience === undefined ? resource : typeof audience === 'string' ? audience : [...audience];
  }

  protectedResourceMetadata(resource: string): Record<string, unknown> {
    const { issuer, authorizationServers, scopesSupported, resourceName, resourceDocumentation } = this.options;
    const metadata: Record<string, unknown> = { resource };
    const servers = authorizationServers ?? (issuer ? [issuer] : undefined);
    if (servers) metadata.authorization_servers = [...servers];
    const scopes = scopesSupported ?? this.scopes;
    if (scopes) metadata.scopes_supported = [...scopes];
    metadata.bearer_methods_supported = ['header'];
    if (resourceName !== undefined) metadata.resource_name = resourceName;
    if (resourceDocumentation !== undefined) metadata.resource_documentation = resourceDocumentation;
    return metadata;
  }

  async authenticate(req: IncomingMessage, _resource: string): Promise<TokenPrincipal | undefined> {
    const header = req.headers.authorization;
    if (header === undefined) return undefined;
    // MCP: tokens travel in the Authorization header only, never in the URL.
    const token = BEARER.exec(header)?.[1];
    if (token === undefined) throw new AuthError(400, { error: 'invalid_request', description: 'Send the access token as Authorization: Bearer <token>' });
    const claims = await this.check(token);
    if (!claims) throw invalidToken('The access token is not valid');
    const principal = principalOf(claims);
    const refusal = insufficientScope(principal, this.scopes, 'This server');
    if (refusal) throw refusal;
    return principal;
  }

  private check(token: string): Promise<TokenClaims | undefined> {
    const { verify, introspection } = this.options;
    if (verify) return Promise.resolve(verify(token)).then(checkVerified);
    if (introspection) return this.introspect(token, introspection);
    return this.verifyJwt(token);
  }

  private async verifyJwt(token: string): Promise<TokenClaims> {
    const jose = await loadJose();
    this.keys ??= new IssuerKeys(this.options.jwksUri!, jose.createLocalJWKSet, this.options.jwks);
    try {
      const { payload } = await jose.jwtVerify(token, this.keys.lookup, {
        issuer: this.options.issuer,
        audience: this.audience,
        clockTolerance: this.options.clockToleranceSeconds ?? 60,
        requiredClaims: ['exp'],
        ...(this.options.requireAtJwtType ? { typ: 'at+jwt' } : {}),
        ...(this.options.algorithms ? { algorithms: [...this.options.algorithms] } : {}),
      });
      return claimsOf(payload as Record<string, unknown>);
    } catch (err) {
      if (err instanceof AuthError) throw err;
      if (err instanceof IssuerKeysUnavailableError) {
        throw unavailable(`the issuer's keys (${this.options.jwksUri}) could not be read:`, err, err.retryAfterSeconds);
      }
      const refusal = joseRefusal(err);
      if (refusal) throw refusal;
      // Keys the issuer published but that cannot be used (a malformed key, several that match): not the client's fault.
      throw unavailable(`the issuer's keys (${this.options.jwksUri}) could not be used:`, err);
    }
  }

  private async introspect(token: string, options: IntrospectionOptions): Promise<TokenClaims | undefined> {
    const key = createHash('sha256').update(token).digest('base64url');
    const now = Date.now();
    const cached = this.introspected.get(key);
    if (cached && cached.until > now) return cached.claims;
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
    if (options.clientId !== undefined) {
      headers.authorization = `Basic ${Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret ?? '')}`).toString('base64')}`;
    }
    let answer: Record<string, unknown>;
    try {
      const response = await fetch(options.url, {
        method: 'POST',
        headers,
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        signal: AbortSignal.timeout(options.timeoutMs ?? 5000),
      });
      if (!response.ok) throw new Error(`answered HTTP ${response.status}`);
      answer = (await response.json()) as Record<string, unknown>;
    } catch (err) {
      throw unavailable('the introspection endpoint', err);
    }
    const claims = this.readIntrospection(answer, options);
    const exp = claims?.expiresAt !== undefined ? claims.expiresAt * 1000 : Number.POSITIVE_INFINITY;
    this.introspected.delete(key);
    this.introspected.set(key, { claims, until: Math.min(exp, now + (options.cacheMs ?? 60_000)) });
    if (this.introspected.size > MAX_INTROSPECTION_CACHE) this.introspected.delete(this.introspected.keys().next().value!);
    return claims;
  }

  /** RFC 7662: inactive is invalid; the issuer, audience and expiry are checked as a JWT's would be. */
  private readIntrospection(answer: Record<string, unknown>, options: IntrospectionOptions): TokenClaims | undefined {
    if (answer.active !== true) return undefined;
    // Only access tokens (a refresh token is active too, and must not open the door).
    if (typeof answer.token_type === 'string' && !/^(access_token|bearer|access)$/i.test(answer.token_type)) {
      throw invalidToken('The token is not an access token');
    }
    const { issuer } = this.options;
    if (issuer !== undefined && answer.iss !== undefined && answer.iss !== issuer) throw invalidToken('The access token is from another issuer (iss)');
    if (this.audience !== undefined && answer.aud === undefined && options.requireAudience !== false) {
      throw invalidToken('The access token names no audience (aud), so it may be for another resource');
    }
    if (this.audience !== undefined && answer.aud !== undefined) {
      const wanted = Array.isArray(this.audience) ? this.audience : [this.audience];
      const named = Array.isArray(answer.aud) ? answer.aud : [answer.aud];
      if (!named.some((aud) => wanted.includes(aud as string))) throw invalidToken('The access token is not for this resource (aud)');
    }
    const skew = this.options.clockToleranceSeconds ?? 60;
    if (typeof answer.exp === 'number' && answer.exp + skew < Date.now() / 1000) throw invalidToken('The access token expired');
    return claimsOf(answer);
  }
}

/**
 * An OAuth 2.1 resource server for the transports' `auth` option: checks each request's bearer token
 * and serves the Protected Resource Metadata (RFC 9728) at `/.well-known/oauth-protected-resource`.
 */
export function bearer(options: BearerOptions): HttpAuthenticator {
  if (typeof options !== 'object' || options === null) throw new TypeError('bearer() needs options: { issuer, audience, jwksUri }');
  return new BearerAuthenticator(options);
}
