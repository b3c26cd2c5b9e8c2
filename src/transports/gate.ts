/**
 * What every transport decides before a message reaches a session, in one order: Host, Origin, auth (and
 * the principal's connection share), then draining and the session limit where a session (or a 2026-07-28
 * request) begins; and the two documents served without auth: RFC 9728 metadata and the health checks.
 * Each adapter turns a `GateRefusal` into its own answer (a JSON-RPC error body, a raw upgrade refusal).
 * Host and Origin are matched here (transports.mdx: servers MUST validate Origin; Host against DNS rebinding).
 */
import type { IncomingMessage } from 'node:http';
import { ErrorCode } from '../protocol/errors.js';
import type { ServerPort } from '../server/port.js';
import {
  type AuthError,
  type AuthOption,
  authenticate,
  type HttpAuthenticator,
  isAuthenticator,
  isMetadataPath,
  metadataResponse,
  refusalHeaders,
  resourceOf,
} from './auth.js';
import { chargeConnection, TOO_MANY_FOR_PRINCIPAL } from './connection-budget.js';
import type { HealthPaths } from './listen.js';

/** `'*'` allows any origin; a list allows exactly those origins (scheme://host[:port]). */
export type AllowedOrigins = '*' | readonly string[];

/** Why the gate refused: the HTTP status, the stable JSON-RPC code, what to do next, and the headers it goes with. */
export interface GateRefusal {
  readonly status: number;
  readonly code: number;
  readonly message: string;
  readonly headers: Record<string, string>;
}

/** A document the gate answers itself. */
export interface GateAnswer {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
}

/** What the gate checks; stdio gives none of it (no Host, Origin or credentials), and gets draining and the session limit. */
export interface GateOptions {
  /** The MCP endpoint's path (the metadata document is named after it). Default `/mcp`. */
  readonly path?: string;
  /** The scheme the resource is named with: `ws` for a WebSocket endpoint. Default `http`. */
  readonly scheme?: 'http' | 'ws';
  readonly allowedHosts?: readonly string[] | undefined;
  readonly allowedOrigins?: AllowedOrigins | undefined;
  readonly auth?: AuthOption | undefined;
  /** The `WWW-Authenticate` challenge a function `auth` gets with 401. Default `Bearer realm="mcp"`. */
  readonly authChallenge?: string;
}

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** The server drains: nothing new starts here; the client sends it again (a load balancer picks another instance). */
export const SHUTTING_DOWN: GateRefusal = Object.freeze({
  status: 503,
  code: ErrorCode.ShuttingDown,
  message: 'Service Unavailable: the server is shutting down; send the request again (to another instance)',
  headers: Object.freeze({ 'retry-after': '1' }) as Record<string, string>,
});

function refusal(status: number, code: number, message: string, headers: Record<string, string> = NO_HEADERS): GateRefusal {
  return { status, code, message, headers };
}

export class TransportGate {
  private readonly authenticator: HttpAuthenticator | undefined;
  private readonly path: string;
  private readonly scheme: 'http' | 'ws';
  private readonly authChallenge: string;

  constructor(
    private readonly port: ServerPort,
    private readonly options: GateOptions = {},
  ) {
    this.path = options.path ?? '/mcp';
    this.scheme = options.scheme ?? 'http';
    this.authChallenge = options.authChallenge ?? 'Bearer realm="mcp"';
    this.authenticator = isAuthenticator(options.auth) && options.auth.protectedResourceMetadata ? options.auth : undefined;
  }

  /**
   * The checks before credentials, in order: the health checks (on a port of the transport's own), Host
   * (DNS rebinding: before the metadata, which may name the resource after Host), the RFC 9728 metadata
   * document, the endpoint's path (on a port of its own), Origin. An answer to send, a refusal, or nothing: go on.
   */
  screen(req: IncomingMessage, own?: { health: HealthPaths | undefined; endpointOnly: boolean }): GateAnswer | GateRefusal | undefined {
    if (own?.health && (req.method === 'GET' || req.method === 'HEAD')) {
      const health = this.health(req, own.health);
      if (health) return health;
    }
    if (!isHostAllowed(req, this.options.allowedHosts)) {
      return refusal(403, ErrorCode.TransportRefused, `Forbidden: Host ${req.headers.host ?? '(none)'} is not allowed`);
    }
    const path = this.authenticator || own?.endpointOnly ? pathOf(req.url) : undefined;
    if (this.authenticator && isMetadataPath(path!, this.path)) return this.metadata(req, this.authenticator);
    if (own?.endpointOnly && path !== this.path) return refusal(404, ErrorCode.TransportRefused, `Not Found: the MCP endpoint is ${this.path}`);
    if (!isOriginAllowed(req, this.options.allowedOrigins)) {
      return refusal(403, ErrorCode.TransportRefused, `Forbidden: Origin ${req.headers.origin} is not allowed`);
    }
    return undefined;
  }

  /** The `auth` option on `req`, then the principal's share of connections: the principal, or the refusal. */
  async authenticate(req: IncomingMessage): Promise<{ principal: unknown } | { refused: GateRefusal }> {
    const auth = this.options.auth;
    if (!auth) return { principal: undefined };
    const outcome = await authenticate(auth, req, () => this.resource(auth as HttpAuthenticator, req));
    if ('refused' in outcome) return { refused: this.authRefusal(req, outcome.refused) };
    if (!chargeConnection(req.socket, outcome.principal)) {
      return { refused: refusal(503, ErrorCode.TransportRefused, TOO_MANY_FOR_PRINCIPAL, { 'retry-after': '1', connection: 'close' }) };
    }
    return outcome;
  }

  /** 400, 401, 403 or 503 with its `WWW-Authenticate` challenge (naming the metadata document, for an authenticator). */
  authRefusal(req: IncomingMessage, refused: AuthError): GateRefusal {
    const auth = this.options.auth!;
    if (refused.cause !== undefined) this.port.reportError(refused.cause);
    const headers = refusalHeaders(auth, refused, () => this.resource(auth as HttpAuthenticator, req), this.authChallenge);
    // Too few scopes is the code it is on every transport; any other refusal of credentials is the transport's.
    const code = refused.challenge.error === 'insufficient_scope' ? ErrorCode.InsufficientScope : ErrorCode.TransportRefused;
    return refusal(refused.status, code, refused.message, headers);
  }

  /**
   * Where a session (or a 2026-07-28 request) begins: 503 while the server drains, then at the session
   * limit. `makeRoom` is the transport's own limit (it may evict an idle session), asked instead of the server's.
   */
  admit(opensSession: boolean, makeRoom: () => number | undefined = () => this.port.sessionLimitReached()): GateRefusal | undefined {
    if (this.port.draining) return SHUTTING_DOWN;
    if (!opensSession) return undefined;
    const limit = makeRoom();
    if (limit === undefined) return undefined;
    return refusal(503, ErrorCode.TransportRefused, `Service Unavailable: the server is at its limit of ${limit} sessions; try again later`, {
      'retry-after': '5',
    });
  }

  /** Liveness is this answer itself; readiness is the server's. */
  private health(req: IncomingMessage, paths: HealthPaths): GateAnswer | undefined {
    const path = pathOf(req.url);
    let status: number;
    let body: Record<string, unknown>;
    if (path === paths.live) {
      status = 200;
      body = { status: 'ok' };
    } else if (path === paths.ready) {
      const { ready, reason } = this.port.readiness();
      status = ready ? 200 : 503;
      body = ready ? { status: 'ready' } : { status: 'not ready', reason };
    } else {
      return undefined;
    }
    const text = JSON.stringify(body);
    const headers = { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': String(Buffer.byteLength(text)) };
    return { status, headers, body: req.method === 'HEAD' ? undefined : text };
  }

  /** RFC 9728: what this resource is and where its tokens come from (public, and readable cross-origin). */
  private metadata(req: IncomingMessage, auth: HttpAuthenticator): GateAnswer | GateRefusal {
    if (req.method !== 'GET' && req.method !== 'HEAD') return refusal(405, ErrorCode.TransportRefused, 'Method Not Allowed: use GET', { allow: 'GET, HEAD' });
    let resource: string;
    try {
      resource = this.resource(auth, req);
    } catch (err) {
      return refusal(400, ErrorCode.TransportRefused, (err as Error).message);
    }
    const { headers, body } = metadataResponse(auth, resource, req.method === 'HEAD');
    return { status: 200, headers, body };
  }

  private resource(auth: HttpAuthenticator, req: IncomingMessage): string {
    return resourceOf(auth, req, this.path, this.scheme);
  }
}

const LOOPBACK_ADDRESSES = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** This machine, as `URL.hostname` and a Host header spell it: the names protocol/elicitation-url.ts allows for URL mode, kept here so a request does not leave the gate to check them. */
const LOOPBACK_HOSTNAMES = new Set(['localhost', '127.0.0.1', '[::1]']);

function isLoopbackHostname(hostname: string): boolean {
  return LOOPBACK_HOSTNAMES.has(hostname);
}

/**
 * Requests without an Origin header (non-browser clients) pass. With no list configured, only loopback
 * origins pass, which keeps a local server safe from pages on other sites (transports.mdx: servers MUST validate Origin).
 */
export function isOriginAllowed(req: IncomingMessage, allowed: AllowedOrigins | undefined): boolean {
  const origin = req.headers.origin;
  if (origin === undefined) return true;
  if (allowed === '*') return true;
  if (allowed) return allowed.includes(origin);
  try {
    return isLoopbackHostname(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * With a list, only those host names pass. Without one, a request that arrived on a loopback address
 * must name loopback too: a page on another site that resolved its own name to 127.0.0.1 does not.
 */
function isHostAllowed(req: IncomingMessage, allowedHosts: readonly string[] | undefined): boolean {
  const hostname = hostnameOf(req.headers.host);
  if (allowedHosts) return hostname !== undefined && allowedHosts.includes(hostname);
  return !LOOPBACK_ADDRESSES.has(req.socket.localAddress ?? '') || (hostname !== undefined && isLoopbackHostname(hostname));
}

/** The host name of a Host header, without its port; IPv6 keeps its brackets (`[::1]`). */
export function hostnameOf(hostHeader: string | undefined): string | undefined {
  if (!hostHeader) return undefined;
  // Every request of a client names the same Host: the last answer is kept, not lowercased again.
  if (hostHeader === lastHost.header) return lastHost.hostname;
  const hostname = parseHostname(hostHeader);
  lastHost.header = hostHeader;
  lastHost.hostname = hostname;
  return hostname;
}

const lastHost: { header: string; hostname: string | undefined } = { header: '', hostname: undefined };

function parseHostname(hostHeader: string): string | undefined {
  if (hostHeader.startsWith('[')) {
    const end = hostHeader.indexOf(']');
    return end === -1 ? undefined : hostHeader.slice(0, end + 1).toLowerCase();
  }
  const colon = hostHeader.indexOf(':');
  return (colon === -1 ? hostHeader : hostHeader.slice(0, colon)).toLowerCase();
}

/**
 * The path of a request target, origin-form (`/mcp?x`) or absolute-form (`http://host/mcp`, RFC 9112
 * §3.2.2), without URL parsing: a target `new URL` rejects must not throw in a request handler.
 */
export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  let start = 0;
  if (!url.startsWith('/')) {
    const authority = url.indexOf('//');
    start = authority === -1 ? -1 : url.indexOf('/', authority + 2);
    if (start === -1) return '/';
  }
  const query = url.indexOf('?', start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
