/**
 * Streamable HTTP (transports.mdx): one endpoint for POST, GET and DELETE, sessions by `Mcp-Session-Id`, a
 * stream per request, resumable SSE, the security checks on by default, and the stateless 2026-07-28
 * requests beside the sessions. It works straight on node:http objects: no Web Streams on the hot path.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import { classifyEra } from '../../protocol/era.js';
import { batchRefusal, INITIALIZE_IN_BATCH } from '../../protocol/batches.js';
import { ErrorCode, type JsonRpcErrorObject, McpError, UnsupportedProtocolVersionError } from '../../protocol/errors.js';
import { type Classified, classify, type JsonRpcRequest } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import { SafeEmitter } from '../../protocol/safe-emitter.js';
import type { RequestId } from '../../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS, negotiateProtocolVersion } from '../../protocol/versions.js';
import { type Closable, type PortOwner, portOf, type ServerPort } from '../../server/port.js';
import {
  answerHealth,
  closeHttpServer,
  createLimitedServer,
  type HealthPaths,
  healthPaths,
  type ListeningAddress,
  type ListenOptions,
  listenOn,
  pathOf,
} from '../listen.js';
import {
  type AuthError,
  authenticate,
  type HttpAuthenticator,
  insufficientScope,
  isAuthenticator,
  isMetadataPath,
  metadataResponse,
  refusalHeaders,
  resourceOf,
} from '../auth.js';
import { chargeConnection, TOO_MANY_FOR_PRINCIPAL } from '../connection-budget.js';
import { isHostAllowed, isOriginAllowed } from '../origin.js';
import { ALLOW, ALLOW_WITHOUT_CORS, corsHeaders, preflight } from './cors.js';
import { type EventStore, InMemoryEventStore } from './event-store.js';
import { HttpSession, type HttpSessionHost } from './http-session.js';
import { checkModernHeaders } from './modern-headers.js';
import { type ResolvedHttpOptions, type StreamableHttpTransportOptions, validateHttpOptions } from './options.js';
import { RequestChannel } from './request-channel.js';
import { accepts, BodyTooLargeError, header, isJsonContentType, readBody, sendHttpError } from './request-checks.js';
import { SessionRegistry } from './session-registry.js';
import { FORWARDED_HEADER, forward, routerUnavailable } from './session-router.js';
import { connectionGone } from './sse.js';
import { quote } from '../../protocol/quote.js';

export type { StreamableHttpTransportOptions } from './options.js';

/** What `httpRequest` listeners get: set `handled` (or answer `res`) to stop Switchboard from handling it. */
export interface HttpRequestControl {
  handled: boolean;
}

export interface StreamableHttpTransportEvents {
  /**
   * A request arrived, before any check. Answer `res` or set `control.handled` to take it over (health
   * checks, custom routes, your own auth).
   */
  httpRequest: [req: IncomingMessage, res: ServerResponse, control: HttpRequestControl];
  /** A response finished (or its connection closed); `res.statusCode` says how it went. */
  httpResponse: [req: IncomingMessage, res: ServerResponse];
}

const NO_BODY = Symbol('no body');

export class StreamableHttpTransport extends SafeEmitter<StreamableHttpTransportEvents> implements Closable {
  readonly path: string;
  readonly eventStore: EventStore;
  /** `(req, res)` for node:http, express or fastify (`reply.raw`): mount it wherever the endpoint lives. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  private readonly port: ServerPort;
  private readonly options: ResolvedHttpOptions;
  private readonly sessions: SessionRegistry;
  private readonly sessionHost: HttpSessionHost;
  private readonly unregister: () => void;
  private ownServer: HttpServer | undefined;
  /** `/healthz` and `/readyz`, when `listen({ health })` asked for them. */
  private health: HealthPaths | undefined;
  private closing: Promise<void> | undefined;
  /** Where the other instances reach this one (for the session router). */
  private advertisedUrl: string | undefined;

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: StreamableHttpTransportOptions = {}) {
    super();
    this.port = portOf(server, 'StreamableHttpTransport');
    this.options = {
      ...options,
      responseMode: options.responseMode ?? 'auto',
      replyStatus: options.replyStatus ?? 204,
      maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
      sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
      onSessionLimit: options.onSessionLimit ?? 'evict-idle',
    };
    validateHttpOptions(this.options);
    this.path = options.path ?? '/mcp';
    this.advertisedUrl = options.advertisedUrl;
    this.eventStore = options.eventStore ?? new InMemoryEventStore();
    this.sessions = new SessionRegistry(this.port, this.options, this.eventStore);
    this.sessionHost = {
      eventStore: this.eventStore,
      retryMs: options.retryMs ?? 1000,
      sessionClosed: (http) => {
        this.sessions.remove(http);
        this.route('release', http.id);
      },
      reportError: (error, connection) => this.port.reportError(error, connection),
      stopping: () => this.port.draining,
    };
    this.handler = (req, res) => void this.handle(req, res, false).catch((err) => this.failed(err, res));
    this.unregister = this.port.register(this);
  }

  /** Listen on a port of its own; requests to other paths get 404 (after `httpRequest` listeners had their say). */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('StreamableHttpTransport is already listening; create another transport for another port');
    this.health = healthPaths(options);
    this.ownServer = createLimitedServer(options, (req, res) => void this.handle(req, res, true).catch((err) => this.failed(err, res)));
    const address = await listenOn(this.ownServer, options, 'http', this.path);
    this.advertisedUrl ??= address.url;
    return address;
  }

  /** The server this transport listens on, when it opened one (to attach a WebSocketTransport to the same port). */
  get httpServer(): HttpServer | undefined {
    return this.ownServer;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.sessions.close();
      if (this.ownServer) await closeHttpServer(this.ownServer);
      this.unregister();
    })();
    return this.closing;
  }

  /** Listener failures go where the server's go: its `error` event. */
  override reportError(error: unknown): void {
    this.port.reportError(error);
  }

  private failed(err: unknown, res: ServerResponse): void {
    this.port.reportError(err);
    if (!res.headersSent) sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
    else res.end();
  }

  /** @param ownPort the request came to this transport's own server, where only `path` is MCP. */
  private async handle(req: IncomingMessage, res: ServerResponse, ownPort: boolean): Promise<void> {
    if (this.listening('httpRequest')) {
      const control: HttpRequestControl = { handled: false };
      this.emit('httpRequest', req, res, control);
      if (control.handled || res.headersSent || res.writableEnded) return;
    }
    if (this.listening('httpResponse')) res.once('close', () => this.emit('httpResponse', req, res));
    if (ownPort && answerHealth(req, res, this.health, () => this.port.readiness())) return;
    const cors = corsHeaders(req, this.options.cors);
    // Before the metadata too: it may name the resource after Host, and only a Host this server answers to may shape it.
    if (!isHostAllowed(req, this.options.allowedHosts)) {
      return sendHttpError(res, 403, ErrorCode.TransportRefused, `Forbidden: Host ${req.headers.host ?? '(none)'} is not allowed`, cors);
    }
    const auth = this.options.auth;
    if (isAuthenticator(auth) && auth.protectedResourceMetadata && isMetadataPath(pathOf(req.url), this.path)) {
      return this.protectedResourceMetadata(req, res, auth);
    }
    if (ownPort && pathOf(req.url) !== this.path) {
      return sendHttpError(res, 404, ErrorCode.TransportRefused, `Not Found: the MCP endpoint is ${this.path}`);
    }
    if (!isOriginAllowed(req, this.options.allowedOrigins ?? this.options.cors?.origins)) {
      return sendHttpError(res, 403, ErrorCode.TransportRefused, `Forbidden: Origin ${req.headers.origin} is not allowed`, cors);
    }
    if (req.method === 'OPTIONS') return preflight(res, this.options.cors, cors);
    let principal: unknown;
    if (auth) {
      const outcome = await authenticate(auth, req, () => resourceOf(auth as HttpAuthenticator, req, this.path));
      if ('refused' in outcome) return this.refuseAuth(req, res, cors, outcome.refused);
      principal = outcome.principal;
      if (!chargeConnection(req.socket, principal)) {
        return sendHttpError(res, 503, ErrorCode.TransportRefused, TOO_MANY_FOR_PRINCIPAL, { ...cors, 'retry-after': '1', connection: 'close' });
      }
    }
    if (this.port.eras === 'modern' && (req.method === 'GET' || req.method === 'DELETE')) {
      // 2026-07-28 has no standalone stream and no sessions to end.
      return sendHttpError(
        res,
        405,
        ErrorCode.TransportRefused,
        'Method Not Allowed: this server speaks 2026-07-28 only, which has no GET stream or sessions; POST each request',
        { ...cors, allow: 'POST' },
      );
    }
    // A session another instance holds: its owner answers (a forwarded request is never forwarded again).
    const router = this.options.router;
    const sessionId = router ? header(req, 'mcp-session-id') : undefined;
    if (router && sessionId !== undefined && !this.sessions.has(sessionId) && header(req, FORWARDED_HEADER) === undefined) {
      let owner: string | undefined;
      try {
        owner = await router.locate(sessionId);
      } catch (err) {
        return routerUnavailable(res, cors, err);
      }
      if (owner !== undefined && owner !== this.advertisedUrl) {
        // The body is read here, once: the owner gets it, or this instance answers 404 with it.
        if (req.method === 'POST' && (req as { body?: unknown }).body === undefined) {
          const body = await this.readText(req, res, cors);
          if (body === NO_BODY) return;
          (req as { body?: unknown }).body = body;
        }
        if (await forward(req, res, owner)) return;
        // The owner is gone, and its sessions with it: 404 below, and the client initializes anew.
        void Promise.resolve(router.release(sessionId, owner)).catch((err) => this.port.reportError(err));
      }
    }
    switch (req.method) {
      case 'POST':
        return this.post(req, res, cors, principal);
      case 'GET':
        return this.get(req, res, cors, principal);
      case 'DELETE':
        return this.delete(req, res, cors, principal);
      default: {
        // RFC 9110: Allow lists what is served; OPTIONS only with CORS on.
        const allow = this.options.cors ? ALLOW : ALLOW_WITHOUT_CORS;
        return sendHttpError(res, 405, ErrorCode.TransportRefused, `Method Not Allowed: use ${allow}`, { ...cors, allow });
      }
    }
  }

  private async post(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (!accepts(req, 'json+sse')) {
      return sendHttpError(res, 406, ErrorCode.TransportRefused, 'Not Acceptable: Accept must list both application/json and text/event-stream', cors);
    }
    if (!isJsonContentType(req)) {
      return sendHttpError(res, 415, ErrorCode.TransportRefused, 'Unsupported Media Type: Content-Type must be application/json', cors);
    }
    const body = await this.readJson(req, res, cors);
    if (body === NO_BODY) return;
    const batch = Array.isArray(body);
    const classified = (batch ? body : [body]).map(classify);
    if (classified.length === 0) return this.refuse(res, batchRefusal(undefined, 0) as JsonRpcErrorObject, cors);
    for (const message of classified) if (message.kind === 'invalid') return this.refuse(res, message.error, cors);
    if (this.options.auth) {
      // Step-up: a request for a tool, prompt or resource whose scopes the token lacks gets 403 before anything runs.
      for (const message of classified) {
        if (message.kind !== 'request') continue;
        const needed = this.port.requiredScopes(message.message.method, message.message.params);
        const refusal = needed && insufficientScope(principal, needed.scopes, needed.what);
        if (refusal) return this.refuseAuth(req, res, cors, refusal);
      }
    }
    const first = classified[0] as Exclude<Classified, { kind: 'invalid' }>;
    const era = classifyEra(batch ? undefined : first.kind === 'response' ? {} : first.message, this.port.eras, header(req, 'mcp-protocol-version'));
    if (era === 'modern') return this.modernPost(req, res, cors, principal, batch ? undefined : first);
    const initialize = first.kind === 'request' && first.message.method === 'initialize';
    if (this.port.eras === 'modern') {
      const requested = initialize ? first.message.params?.protocolVersion : header(req, 'mcp-protocol-version');
      const error = new UnsupportedProtocolVersionError(requested, MODERN_PROTOCOL_VERSIONS);
      return sendHttpError(res, 400, error.code, error.message, cors, error.data, first.kind === 'request' ? first.message.id : null);
    }
    if (header(req, 'mcp-session-id') === undefined) {
      if (initialize && !batch) return this.initialize(req, res, classified, body, cors, principal);
      if (batch && classified.some((c) => c.kind === 'request' && c.message.method === 'initialize')) return this.refuse(res, INITIALIZE_IN_BATCH, cors);
    }
    const http = this.sessions.lookup(req, res, principal, cors);
    if (!http) return;
    if (this.options.auth) http.connection.renewPrincipal(principal);
    const connection = http.connection;
    // The era is this POST's for a single message; a batch's members are classified each on its own.
    const admission = connection.admit(classified, batch, batch ? undefined : era);
    const refused = admission.refusal;
    if (refused) {
      if (refused.error.code === ErrorCode.ShuttingDown) return shuttingDown(res, cors);
      const status = refused.error.code === ErrorCode.TooManyRequestsInFlight ? 429 : 400;
      return sendHttpError(res, status, refused.error.code, refused.error.message, cors);
    }
    const requestIds: RequestId[] = [];
    for (const message of classified) if (message.kind === 'request') requestIds.push(message.message.id);
    if (requestIds.length === 0) {
      // Notifications and replies to server requests: handled before the status goes out.
      admission.deliver(body);
      const onlyReplies = classified.every((c) => c.kind === 'response');
      res.writeHead(onlyReplies ? this.replyStatus(http) : 202, cors).end();
      return;
    }
    http.openPostStream(res, requestIds, batch, this.options.responseMode, { ...cors, 'mcp-session-id': connection.id });
    admission.deliver(body);
  }

  /** RFC 9728: what this resource is and where its tokens come from (public, and readable cross-origin). */
  private protectedResourceMetadata(req: IncomingMessage, res: ServerResponse, auth: HttpAuthenticator): void {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      return sendHttpError(res, 405, ErrorCode.TransportRefused, 'Method Not Allowed: use GET', { allow: 'GET, HEAD' });
    }
    let resource: string;
    try {
      resource = resourceOf(auth, req, this.path);
    } catch (err) {
      return sendHttpError(res, 400, ErrorCode.TransportRefused, (err as Error).message);
    }
    const { headers, body } = metadataResponse(auth, resource, req.method === 'HEAD');
    res.writeHead(200, headers).end(body);
  }

  /** 400, 401, 403 or 503 with its `WWW-Authenticate` challenge (naming the metadata document, for an authenticator). */
  private refuseAuth(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, refusal: AuthError): void {
    const auth = this.options.auth!;
    if (refusal.cause !== undefined) this.port.reportError(refusal.cause);
    const headers = {
      ...cors,
      ...refusalHeaders(auth, refusal, () => resourceOf(auth as HttpAuthenticator, req, this.path), this.options.authChallenge ?? 'Bearer realm="mcp"'),
    };
    if (cors['access-control-allow-origin']) headers['access-control-expose-headers'] = 'WWW-Authenticate, Mcp-Session-Id';
    // Too few scopes is the code it is on every transport; any other refusal of credentials is the transport's.
    const code = refusal.challenge.error === 'insufficient_scope' ? ErrorCode.InsufficientScope : ErrorCode.TransportRefused;
    sendHttpError(res, refusal.status, code, refusal.message, headers);
  }

  /** A message refused before any session saw it: 400, and counted as invalid. */
  private refuse(res: ServerResponse, error: JsonRpcErrorObject, cors: Record<string, string>): void {
    this.port.countInvalidMessage();
    sendHttpError(res, 400, error.code, error.message, cors);
  }

  /** 204 by default; a client that takes only 202 can be given it (its second, error reply is then not sent). */
  private replyStatus(http: HttpSession): number {
    const status = this.options.replyStatus;
    return typeof status === 'function' ? status(http.connection.session) : status;
  }

  private initialize(
    req: IncomingMessage,
    res: ServerResponse,
    classified: Classified[],
    body: unknown,
    cors: Record<string, string>,
    principal: unknown,
  ): void {
    if (this.port.draining) return shuttingDown(res, cors);
    const limit = this.sessions.makeRoom(principal, req.socket.remoteAddress);
    if (limit !== undefined) {
      return sendHttpError(res, 503, ErrorCode.TransportRefused, `Service Unavailable: the server is at its limit of ${limit} sessions; try again later`, {
        ...cors,
        'retry-after': '5',
      });
    }
    const request = (classified[0] as { message: JsonRpcRequest }).message;
    const http = new HttpSession(this.sessionHost, req.socket.remoteAddress, principal);
    const connection = this.port.connect(http, principal);
    http.connection = connection;
    this.sessions.add(http);
    this.route('claim', http.id);
    const requested = request.params?.protocolVersion;
    const version = typeof requested === 'string' ? negotiateProtocolVersion(requested) : undefined;
    http.openPostStream(res, [request.id], false, this.options.responseMode, { ...cors, 'mcp-session-id': connection.id }, version);
    connection.admit(classified, false, 'legacy').deliver(body);
  }

  /** A 2026-07-28 POST: no session, headers checked against the body, closing the stream cancels. */
  private modernPost(
    req: IncomingMessage,
    res: ServerResponse,
    cors: Record<string, string>,
    principal: unknown,
    message: Exclude<Classified, { kind: 'invalid' }> | undefined,
  ): void {
    if (!message)
      return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 takes one JSON-RPC message per POST, never a batch', cors);
    if (message.kind === 'notification') {
      // Core 2026-07-28 defines no client notifications over HTTP (cancellation is closing the stream).
      res.writeHead(202, cors).end();
      return;
    }
    if (message.kind === 'response') {
      return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 clients post requests only', cors, undefined, message.message.id);
    }
    const request = message.message;
    if (this.port.draining) return shuttingDown(res, cors);
    const claim = (request.params?._meta as Record<string, unknown> | undefined)?.[META.protocolVersion];
    if (claim === undefined) {
      return sendHttpError(
        res,
        400,
        ErrorCode.InvalidParams,
        `Invalid params: a 2026-07-28 request needs _meta["${META.protocolVersion}"] and _meta["${META.clientCapabilities}"]`,
        cors,
        undefined,
        request.id,
      );
    }
    // Headers first: a header that disagrees with the body is -32020 whatever the version (SEP-2243).
    try {
      checkModernHeaders(this.port, req, request, typeof claim === 'string' ? claim : quote(claim));
    } catch (err) {
      if (!(err instanceof McpError)) throw err;
      return sendHttpError(res, 400, err.code, err.message, cors, undefined, request.id);
    }
    // A listen stream is nothing but notifications, whatever responseMode says: it streams from its
    // acknowledgement on, and a listen refused before that (a filter it may not have) is a plain JSON error.
    const mode = request.method === 'subscriptions/listen' ? 'auto' : this.options.responseMode;
    const channel = new RequestChannel(res, request.id, mode, cors, req.socket.remoteAddress);
    this.port.serveStateless(channel, request, principal, (running) => {
      // streamable-http.mdx (2026-07-28): closing the request's stream is its cancellation.
      const onClose = () => {
        if (!channel.finished) running.cancel('the client closed the stream');
      };
      // An await came before this (auth, the body): the client may be gone already.
      if (connectionGone(res)) onClose();
      else res.once('close', onClose);
    });
  }

  private async get(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (!accepts(req, 'sse')) {
      return sendHttpError(res, 406, ErrorCode.TransportRefused, 'Not Acceptable: Accept must list text/event-stream', cors);
    }
    const http = this.sessions.lookup(req, res, principal, cors);
    if (!http) return;
    if (this.options.auth) http.connection.renewPrincipal(principal);
    http.connection.touch();
    const headers = { ...cors, 'mcp-session-id': http.id };
    const lastEventId = header(req, 'last-event-id');
    if (lastEventId !== undefined) {
      const outcome = await http.resume(res, lastEventId, headers);
      if (outcome === 'unknown') {
        return sendHttpError(res, 400, ErrorCode.TransportRefused, `Bad Request: Last-Event-ID ${lastEventId} names no stream of this session`, cors);
      }
      if (outcome === 'busy')
        return sendHttpError(res, 409, ErrorCode.TransportRefused, 'Conflict: the standalone SSE stream of this session is already open', cors);
      return;
    }
    if (!http.openStandaloneStream(res, headers)) {
      return sendHttpError(res, 409, ErrorCode.TransportRefused, 'Conflict: only one standalone SSE stream is allowed per session', cors);
    }
  }

  private delete(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): void {
    const http = this.sessions.lookup(req, res, principal, cors);
    if (!http) return;
    if (this.options.auth) http.connection.renewPrincipal(principal);
    http.connection.close('deleted by the client');
    res.writeHead(200, cors).end();
  }

  /** Tell the router this instance holds (or no longer holds) a session; a failure is reported, the session goes on here. */
  private route(action: 'claim' | 'release', sessionId: string): void {
    const router = this.options.router;
    if (!router) return;
    if (this.advertisedUrl === undefined) {
      return this.port.reportError(new Error('StreamableHttpTransport has a router but no advertisedUrl: set it when mounting the handler yourself'));
    }
    try {
      void Promise.resolve(router[action](sessionId, this.advertisedUrl)).catch((err) => this.port.reportError(err));
    } catch (err) {
      this.port.reportError(err);
    }
  }

  private async readJson(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<unknown> {
    // Frameworks that already parsed the body (express.json()) hand it over as req.body.
    const parsed = (req as { body?: unknown }).body;
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null && !Buffer.isBuffer(parsed)) return parsed;
    const text = await this.readText(req, res, cors);
    if (text === NO_BODY) return NO_BODY;
    try {
      return JSON.parse(text);
    } catch (err) {
      this.port.countInvalidMessage();
      sendHttpError(res, 400, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`, cors);
      return NO_BODY;
    }
  }

  /** The body as text (a framework's string or Buffer as it is), or NO_BODY with the error sent. */
  private async readText(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<string | typeof NO_BODY> {
    const parsed = (req as { body?: unknown }).body;
    let text: string;
    try {
      text = typeof parsed === 'string' ? parsed : Buffer.isBuffer(parsed) ? parsed.toString('utf8') : await readBody(req, this.options.maxMessageBytes);
    } catch (err) {
      // The client went away (or timed out) mid-body: nobody to answer, and nothing wrong with the server.
      if (req.destroyed && !(err instanceof BodyTooLargeError)) return NO_BODY;
      if (!(err instanceof BodyTooLargeError)) throw err;
      sendHttpError(res, 413, ErrorCode.TransportRefused, `Payload Too Large: the body exceeds ${this.options.maxMessageBytes} bytes`, {
        ...cors,
        connection: 'close',
      });
      return NO_BODY;
    }
    return text;
  }
}

/** The server drains: nothing new runs here; the client sends it again (a load balancer picks another instance). */
function shuttingDown(res: ServerResponse, cors: Record<string, string>): void {
  sendHttpError(res, 503, ErrorCode.ShuttingDown, 'Service Unavailable: the server is shutting down; send the request again (to another instance)', {
    ...cors,
    'retry-after': '1',
  });
}
