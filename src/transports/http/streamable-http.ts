/**
 * Streamable HTTP (transports.mdx, 2025-03-26 to 2025-11-25): one endpoint for POST, GET and DELETE,
 * sessions by `Mcp-Session-Id`, a stream per request, resumable SSE, and the security checks on by
 * default. It works straight on node:http objects: no Web Streams conversion on the hot path.
 */
import { createServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import { ErrorCode, McpError, UnsupportedProtocolVersionError } from '../../protocol/errors.js';
import { classify, type Classified } from '../../protocol/jsonrpc.js';
import { META, modernClaim } from '../../protocol/meta.js';
import { supportedVersions } from '../../server/modern.js';
import { checkModernHeaders } from './modern-headers.js';
import { RequestChannel } from './request-channel.js';
import type { RequestId } from '../../protocol/types.js';
import {
  allowsBatches,
  isLegacyProtocolVersion,
  isModernProtocolVersion,
  LEGACY_PROTOCOL_VERSIONS,
  negotiateProtocolVersion,
} from '../../protocol/versions.js';
import type { Closable } from '../../server/channel.js';
import type { McpServer } from '../../server/mcp-server.js';
import type { McpSession } from '../../server/session.js';
import { closeHttpServer, listenOn, pathOf, type ListenOptions, type ListeningAddress } from '../listen.js';
import { isOriginAllowed } from '../origin.js';
import { InMemoryEventStore, type EventStore } from './event-store.js';
import { connectionGone } from './sse.js';
import { ALLOW, ALLOW_WITHOUT_CORS, corsHeaders, preflight } from './cors.js';
import { validateHttpOptions, type ResolvedHttpOptions, type StreamableHttpTransportOptions } from './options.js';
import { principalKey, UNKEYED_PRINCIPAL } from '../../server/principal.js';
import { HttpSession, type HttpSessionHost } from './http-session.js';
import {
  accepts,
  arrivedOnLoopback,
  BodyTooLargeError,
  hostnameOf,
  HttpErrorCode,
  isJsonContentType,
  isLoopbackHostname,
  readBody,
  sendHttpError,
} from './request-checks.js';

/** What `httpRequest` listeners get: set `handled` (or answer `res`) to stop Switchboard from handling it. */
export type { StreamableHttpTransportOptions } from './options.js';

export interface HttpRequestControl {
  handled: boolean;
}

export class StreamableHttpTransport implements Closable, HttpSessionHost {
  readonly path: string;
  readonly eventStore: EventStore;
  readonly retryMs: number | undefined;
  /** `(req, res)` for node:http, express or fastify (`reply.raw`): mount it wherever the endpoint lives. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  private readonly options: ResolvedHttpOptions;
  private readonly sessions = new Map<string, HttpSession>();
  private readonly timers: NodeJS.Timeout[] = [];
  private ownServer: HttpServer | undefined;
  private closing: Promise<void> | undefined;

  constructor(
    private readonly server: McpServer,
    options: StreamableHttpTransportOptions = {},
  ) {
    this.options = {
      ...options,
      responseMode: options.responseMode ?? 'auto',
      replyStatus: options.replyStatus ?? 204,
      maxBodyBytes: options.maxBodyBytes ?? 4 * 1024 * 1024,
      sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
      maxSessions: options.maxSessions ?? 10_000,
      onSessionLimit: options.onSessionLimit ?? 'evict-idle',
    };
    validateHttpOptions(this.options);
    this.path = options.path ?? '/mcp';
    this.eventStore = options.eventStore ?? new InMemoryEventStore();
    this.retryMs = options.retryMs ?? 1000;
    this.handler = (req, res) => void this.handle(req, res, false).catch((err) => this.failed(err, res));
    const sweepMs = Math.min(Math.max(Math.floor(this.options.sessionIdleTimeoutMs / 2), 10), 60_000);
    this.timers.push(setInterval(() => this.sweepIdle(), sweepMs));
    const keepAliveMs = options.keepAliveIntervalMs ?? 15_000;
    if (keepAliveMs > 0) this.timers.push(setInterval(() => this.keepAliveAll(), keepAliveMs));
    for (const timer of this.timers) timer.unref();
    server.trackTransport(this);
  }

  /** Listen on a port of its own; requests to other paths get 404 (after `httpRequest` listeners had their say). */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('StreamableHttpTransport is already listening; create another transport for another port');
    this.ownServer = createServer((req, res) => this.handle(req, res, true).catch((err) => this.failed(err, res)));
    return listenOn(this.ownServer, options, 'http', this.path);
  }

  /** The server this transport listens on, when it opened one (to attach a WebSocketTransport to the same port). */
  get httpServer(): HttpServer | undefined {
    return this.ownServer;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearInterval(timer);
      for (const http of [...this.sessions.values()]) http.session.close('server closed');
      if (this.ownServer) await closeHttpServer(this.ownServer);
      this.server.untrackTransport(this);
    })();
    return this.closing;
  }

  /** @internal HttpSessionHost */
  sessionClosed(http: HttpSession): void {
    if (this.sessions.get(http.id) !== http) return;
    this.sessions.delete(http.id);
    try {
      const dropped = this.eventStore.dropSession(http.id);
      if (dropped instanceof Promise) dropped.catch((err) => this.reportError(err));
    } catch (err) {
      this.reportError(err);
    }
  }

  /** @internal HttpSessionHost */
  reportError(error: unknown, session?: McpSession): void {
    this.server.reportError(error, session);
  }

  private failed(err: unknown, res: ServerResponse): void {
    this.reportError(err);
    if (!res.headersSent) sendHttpError(res, 500, ErrorCode.InternalError, 'Internal error');
    else res.end();
  }

  /** @param ownPort the request came to this transport's own server, where only `path` is MCP. */
  private async handle(req: IncomingMessage, res: ServerResponse, ownPort: boolean): Promise<void> {
    if (this.server.listenerCount('httpRequest') > 0) {
      const control: HttpRequestControl = { handled: false };
      this.server.emit('httpRequest', req, res, control);
      if (control.handled || res.headersSent || res.writableEnded) return;
    }
    if (ownPort && pathOf(req.url) !== this.path) {
      return sendHttpError(res, 404, HttpErrorCode.BadRequest, `Not Found: the MCP endpoint is ${this.path}`);
    }
    if (this.server.listenerCount('httpResponse') > 0) res.once('close', () => this.server.emit('httpResponse', req, res));
    const cors = corsHeaders(req, this.options.cors);
    const allowedHosts = this.options.allowedHosts;
    const hostname = hostnameOf(req.headers.host);
    if (allowedHosts ? !hostname || !allowedHosts.includes(hostname) : arrivedOnLoopback(req) && !isLoopbackHostname(hostname)) {
      return sendHttpError(res, 403, HttpErrorCode.BadRequest, `Forbidden: Host ${req.headers.host ?? '(none)'} is not allowed`, cors);
    }
    if (!isOriginAllowed(req, this.options.allowedOrigins ?? this.options.cors?.origins)) {
      return sendHttpError(res, 403, HttpErrorCode.BadRequest, `Forbidden: Origin ${req.headers.origin} is not allowed`, cors);
    }
    if (req.method === 'OPTIONS') return preflight(res, this.options.cors, cors);
    let principal: unknown;
    if (this.options.auth) {
      principal = await this.options.auth(req);
      if (principal === undefined || principal === null || principal === false) {
        return sendHttpError(res, 401, HttpErrorCode.BadRequest, 'Unauthorized: send valid credentials', {
          ...cors,
          'www-authenticate': this.options.authChallenge ?? 'Bearer realm="mcp"',
        });
      }
    }
    if (this.server.options.eras === 'modern' && (req.method === 'GET' || req.method === 'DELETE')) {
      // 2026-07-28 has no standalone stream and no sessions to end.
      return sendHttpError(
        res,
        405,
        HttpErrorCode.BadRequest,
        'Method Not Allowed: this server speaks 2026-07-28 only, which has no GET stream or sessions; POST each request',
        { ...cors, allow: 'POST' },
      );
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
        return sendHttpError(res, 405, HttpErrorCode.BadRequest, `Method Not Allowed: use ${allow}`, { ...cors, allow });
      }
    }
  }

  private async post(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (!accepts(req, 'json+sse')) {
      return sendHttpError(res, 406, HttpErrorCode.BadRequest, 'Not Acceptable: Accept must list both application/json and text/event-stream', cors);
    }
    if (!isJsonContentType(req)) {
      return sendHttpError(res, 415, HttpErrorCode.BadRequest, 'Unsupported Media Type: Content-Type must be application/json', cors);
    }
    const body = await this.readJson(req, res, cors);
    if (body === NO_BODY) return;
    const batch = Array.isArray(body);
    const messages: unknown[] = batch ? body : [body];
    if (messages.length === 0) return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: an empty batch', cors);

    const classified = messages.map(classify);
    const invalid = classified.find((c) => c.kind === 'invalid');
    if (invalid?.kind === 'invalid') {
      this.server.stats.invalidMessages++;
      return sendHttpError(res, 400, invalid.error.code, invalid.error.message, cors);
    }
    // Era classification, per message (versioning.mdx): a _meta protocolVersion claim means 2026-07-28;
    // so does the header alone, which then lacks its envelope (-32602).
    const eras = this.server.options.eras;
    const headerVersion = header(req, 'mcp-protocol-version');
    const first = classified[0];
    const claim = !batch && first.kind !== 'invalid' && first.kind !== 'response' ? modernClaim(first.message.params) : undefined;
    const isInitialize = first.kind === 'request' && first.message.method === 'initialize';
    // initialize without a claim is a handshake whatever its header says.
    if (eras !== 'legacy' && (claim !== undefined || (isModernProtocolVersion(headerVersion) && !isInitialize))) {
      return this.modernPost(req, res, cors, principal, batch ? undefined : first, claim);
    }
    const initialize = classified.some((c) => c.kind === 'request' && c.message.method === 'initialize');
    if (eras === 'modern') {
      const requested = initialize && first.kind === 'request' ? first.message.params?.protocolVersion : headerVersion;
      const error = new UnsupportedProtocolVersionError(requested, supportedVersions(this.server));
      return sendHttpError(res, 400, error.code, error.message, cors, error.data, first.kind === 'request' ? first.message.id : null);
    }
    if (initialize && batch) return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: initialize must not be part of a batch', cors);

    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) {
      if (initialize) return this.initialize(req, res, body, cors, principal);
      return sendHttpError(res, 400, HttpErrorCode.BadRequest, 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one', cors);
    }
    const http = this.sessionFor(req, res, sessionId, principal, cors);
    if (!http) return;
    const session = http.session;
    if (initialize) return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: this session is already initialized', cors);
    if (batch && !allowsBatches(session.protocolVersion)) {
      this.server.stats.invalidMessages++;
      return sendHttpError(
        res,
        400,
        ErrorCode.InvalidRequest,
        `Invalid Request: JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: ${session.protocolVersion}); send one message per POST`,
        cors,
      );
    }
    const requestIds: RequestId[] = [];
    const seen = new Set<RequestId>();
    for (const c of classified) {
      if (c.kind !== 'request') continue;
      const id = c.message.id;
      if (session.inflight.has(id) || seen.has(id)) {
        this.server.stats.invalidMessages++;
        return sendHttpError(
          res,
          400,
          ErrorCode.InvalidRequest,
          `Invalid Request: request id ${JSON.stringify(id)} is already in flight in this session; use a new id`,
          cors,
        );
      }
      seen.add(id);
      requestIds.push(id);
    }
    this.server.traceMessage(session, 'in', body);
    if (requestIds.length === 0) {
      // Notifications and replies to server requests: handled before the status goes out.
      for (const message of messages) await session.receiveMessage(message, batch);
      const onlyReplies = classified.every((c) => c.kind === 'response');
      res.writeHead(onlyReplies ? this.options.replyStatus : 202, cors).end();
      return;
    }
    http.openPostStream(res, requestIds, batch, this.options.responseMode, { ...cors, 'mcp-session-id': session.id });
    await Promise.all(messages.map((message) => session.receiveMessage(message, batch)));
  }

  /** A 2026-07-28 POST: no session, headers checked against the body, closing the stream cancels. */
  private async modernPost(
    req: IncomingMessage,
    res: ServerResponse,
    cors: Record<string, string>,
    principal: unknown,
    message: Classified | undefined,
    claim: unknown,
  ): Promise<void> {
    if (!message)
      return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 takes one JSON-RPC message per POST, never a batch', cors);
    if (message.kind === 'notification') {
      // Core 2026-07-28 defines no client notifications over HTTP (cancellation is closing the stream).
      res.writeHead(202, cors).end();
      return;
    }
    if (message.kind !== 'request') {
      const id = message.kind === 'response' ? message.message.id : message.id;
      return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 clients post requests only', cors, undefined, id);
    }
    const request = message.message;
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
      checkModernHeaders(this.server, req, request, String(claim));
    } catch (err) {
      if (!(err instanceof McpError)) throw err;
      return sendHttpError(res, 400, err.code, err.message, cors, undefined, request.id);
    }
    // A listen stream is nothing but notifications: it streams whatever responseMode says.
    const mode = request.method === 'subscriptions/listen' ? 'sse' : this.options.responseMode;
    const channel = new RequestChannel(res, request.id, mode, cors, req.socket.remoteAddress);
    await this.server.handleModernRequest(channel, request, {
      principal,
      track: (ctx) => {
        // streamable-http.mdx (2026-07-28): closing the request's stream is its cancellation.
        const onClose = () => {
          if (!channel.finished) ctx.abort(new McpError(ErrorCode.RequestCancelled, 'the client closed the stream'));
        };
        // An await came before this (auth, the body): the client may be gone already.
        if (connectionGone(res)) onClose();
        else res.once('close', onClose);
        return () => res.off('close', onClose);
      },
    });
  }

  private async initialize(req: IncomingMessage, res: ServerResponse, body: unknown, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (this.sessions.size >= this.options.maxSessions && !this.evictIdle()) {
      return sendHttpError(
        res,
        503,
        HttpErrorCode.BadRequest,
        `Service Unavailable: the server is at its limit of ${this.options.maxSessions} sessions; try again later`,
        {
          ...cors,
          'retry-after': '5',
        },
      );
    }
    const http = new HttpSession(this, req.socket.remoteAddress);
    const session = this.server.openSession(http);
    http.session = session;
    http.principal = principal;
    session.principal = principal;
    this.sessions.set(session.id, http);
    this.server.traceMessage(session, 'in', body);
    const request = body as { id: RequestId; params?: { protocolVersion?: unknown } };
    const version = typeof request.params?.protocolVersion === 'string' ? negotiateProtocolVersion(request.params.protocolVersion) : undefined;
    http.openPostStream(res, [request.id], false, this.options.responseMode, { ...cors, 'mcp-session-id': session.id }, version);
    await session.receiveMessage(body);
    if (session.state === 'new') session.close('initialize failed');
  }

  private async get(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (!accepts(req, 'sse')) {
      return sendHttpError(res, 406, HttpErrorCode.BadRequest, 'Not Acceptable: Accept must list text/event-stream', cors);
    }
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) return sendHttpError(res, 400, HttpErrorCode.BadRequest, 'Bad Request: Mcp-Session-Id header is required', cors);
    const http = this.sessionFor(req, res, sessionId, principal, cors);
    if (!http) return;
    http.session.touch();
    const headers = { ...cors, 'mcp-session-id': sessionId };
    const lastEventId = header(req, 'last-event-id');
    if (lastEventId !== undefined) {
      const outcome = await http.resume(res, lastEventId, headers);
      if (outcome === 'unknown')
        return sendHttpError(res, 400, HttpErrorCode.BadRequest, `Bad Request: Last-Event-ID ${lastEventId} names no stream of this session`, cors);
      if (outcome === 'busy')
        return sendHttpError(res, 409, HttpErrorCode.BadRequest, 'Conflict: the standalone SSE stream of this session is already open', cors);
      return;
    }
    if (!http.openStandaloneStream(res, headers)) {
      return sendHttpError(res, 409, HttpErrorCode.BadRequest, 'Conflict: only one standalone SSE stream is allowed per session', cors);
    }
  }

  private delete(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): void {
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) return sendHttpError(res, 400, HttpErrorCode.BadRequest, 'Bad Request: Mcp-Session-Id header is required', cors);
    const http = this.sessionFor(req, res, sessionId, principal, cors);
    if (!http) return;
    http.session.close('deleted by the client');
    res.writeHead(200, cors).end();
  }

  /** The session named by the request, after the version-header and principal checks; otherwise the error is sent. */
  private sessionFor(req: IncomingMessage, res: ServerResponse, sessionId: string, principal: unknown, cors: Record<string, string>): HttpSession | undefined {
    const http = this.sessions.get(sessionId);
    // transports.mdx: an unknown or ended session MUST get 404; the client then initializes anew.
    // A session of another principal looks the same, so ids cannot be probed.
    if (!http || (this.options.auth && !this.samePrincipal(principal, http.principal))) {
      sendHttpError(
        res,
        404,
        HttpErrorCode.SessionNotFound,
        'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one',
        cors,
      );
      return undefined;
    }
    const version = header(req, 'mcp-protocol-version');
    // Absent means 2025-03-26; present must be a version we speak.
    if (version !== undefined && !isLegacyProtocolVersion(version)) {
      sendHttpError(
        res,
        400,
        HttpErrorCode.BadRequest,
        `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
        cors,
      );
      return undefined;
    }
    return http;
  }

  private samePrincipal(a: unknown, b: unknown): boolean {
    if (this.options.samePrincipal) return this.options.samePrincipal(a, b);
    const key = principalKey(a);
    // Fail closed on principals that cannot be compared (they would all serialise to {}).
    if (key === undefined || principalKey(b) === undefined) {
      this.reportError(new Error(UNKEYED_PRINCIPAL));
      return false;
    }
    return key === principalKey(b);
  }

  private async readJson(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<unknown> {
    // Frameworks that already parsed the body (express.json()) hand it over as req.body.
    const parsed = (req as { body?: unknown }).body;
    if (parsed !== undefined && typeof parsed === 'object' && parsed !== null && !Buffer.isBuffer(parsed)) return parsed;
    let text: string;
    try {
      text = typeof parsed === 'string' ? parsed : Buffer.isBuffer(parsed) ? parsed.toString('utf8') : await readBody(req, this.options.maxBodyBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLargeError)) throw err;
      sendHttpError(res, 413, HttpErrorCode.BadRequest, `Payload Too Large: the body exceeds ${this.options.maxBodyBytes} bytes`, {
        ...cors,
        connection: 'close',
      });
      return NO_BODY;
    }
    try {
      return JSON.parse(text);
    } catch (err) {
      this.server.stats.invalidMessages++;
      sendHttpError(res, 400, ErrorCode.ParseError, `Parse error: ${(err as Error).message}`, cors);
      return NO_BODY;
    }
  }

  private keepAliveAll(): void {
    for (const http of this.sessions.values()) http.keepAlive();
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - this.options.sessionIdleTimeoutMs;
    for (const http of [...this.sessions.values()]) {
      if (http.idle && http.session.lastActivity.getTime() < cutoff) http.session.close('idle timeout');
    }
  }

  /** Make room for one session by ending the longest-idle one. Returns false when none may go. */
  private evictIdle(): boolean {
    if (this.options.onSessionLimit === 'reject') return false;
    let oldest: HttpSession | undefined;
    for (const http of this.sessions.values()) {
      if (http.idle && (!oldest || http.session.lastActivity < oldest.session.lastActivity)) oldest = http;
    }
    oldest?.session.close('evicted: the server reached its session limit');
    return oldest !== undefined;
  }
}

const NO_BODY = Symbol('no body');

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
