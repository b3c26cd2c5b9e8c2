/**
 * Streamable HTTP (transports.mdx): one endpoint for POST, GET and DELETE. This is its dispatcher: the
 * gate first (Host, Origin, auth), then the session router, then each POST to its era's endpoint (the
 * 2025 session endpoints, or a 2026-07-28 request). It works straight on node:http objects: no Web Streams on the hot path.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { batchRefusal } from '../../protocol/batches.js';
import { ErrorCode, type JsonRpcErrorObject, UnsupportedProtocolVersionError } from '../../protocol/errors.js';
import { type Classified, classify } from '../../protocol/jsonrpc.js';
import { SafeEmitter } from '../../protocol/safe-emitter.js';
import { classifyEra, MODERN_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { type Closable, httpNeedsOf, type PortOwner, portOf, type ServerPort } from '../../server/port.js';
import { insufficientScope } from '../auth.js';
import { isRefusedConnection } from '../connection-budget.js';
import { type GateRefusal, pathOf, TransportGate } from '../gate.js';
import {
  closeHttpServer,
  createLimitedServer,
  type HealthPaths,
  healthPaths,
  type ListeningAddress,
  type ListenOptions,
  listenOn,
  rejectUpgrade,
} from '../listen.js';
import { ALLOW, ALLOW_WITHOUT_CORS, corsHeaders, NO_CORS, preflight } from './cors.js';
import { type EventStore, InMemoryEventStore } from './event-store.js';
import { type ModernPostHost, modernPost } from './modern-post.js';
import { type ResolvedHttpOptions, resolveHttpOptions, type StreamableHttpTransportOptions } from './options.js';
import { accepts, header, isJsonContentType, readJson, sendHttpError } from './request.js';
import { PEER_PATH } from './peer-frames.js';
import { PeerLinkServer } from './peer-link-server.js';
import { SessionEndpoints } from './session-endpoints.js';
import { SessionRouting } from './session-routing.js';

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

export class StreamableHttpTransport extends SafeEmitter<StreamableHttpTransportEvents> implements Closable {
  readonly path: string;
  readonly eventStore: EventStore;
  /** `(req, res)` for node:http, express or fastify (`reply.raw`): mount it wherever the endpoint lives. */
  readonly handler: (req: IncomingMessage, res: ServerResponse) => void;
  private readonly port: ServerPort;
  private readonly options: ResolvedHttpOptions;
  private readonly gate: TransportGate;
  /** What a 2026-07-28 POST needs: made once, not per request. */
  private readonly modern: ModernPostHost;
  private readonly sessions: SessionEndpoints;
  /** With a router: requests for sessions other instances hold, and what this instance tells the router. */
  private readonly routing: SessionRouting | undefined;
  /** With the router's peer keys: peers' links are taken here. */
  private readonly linkServer: PeerLinkServer | undefined;
  private readonly unregister: () => void;
  private ownServer: HttpServer | undefined;
  /** What the gate screens on a port of the transport's own (`/healthz` and `/readyz` when `listen({ health })` asked): made once, not per request. */
  private ownScreen: { health: HealthPaths | undefined; endpointOnly: true } | undefined;
  private closing: Promise<void> | undefined;
  /** Where the other instances reach this one (for the session router). */
  private advertisedUrl: string | undefined;

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: StreamableHttpTransportOptions = {}) {
    super();
    this.port = portOf(server, 'StreamableHttpTransport');
    this.options = resolveHttpOptions(options);
    this.path = this.options.path;
    this.advertisedUrl = options.advertisedUrl;
    this.eventStore = options.eventStore ?? new InMemoryEventStore();
    this.gate = new TransportGate(this.port, {
      path: this.path,
      scheme: 'http',
      allowedHosts: this.options.allowedHosts,
      allowedOrigins: this.options.allowedOrigins ?? this.options.cors?.origins,
      auth: this.options.auth,
      authChallenge: this.options.authChallenge,
    });
    const refuse = (res: ServerResponse, refusal: GateRefusal, cors: Record<string, string>) => this.refuse(res, refusal, cors);
    const router = this.options.router;
    const selfUrl = () => this.advertisedUrl;
    const routing =
      router && new SessionRouting(router, { port: this.port, options: this.options, eventStore: this.eventStore, sessions: () => this.sessions, selfUrl });
    this.routing = routing;
    this.modern = {
      port: this.port,
      needs: httpNeedsOf(server),
      gate: this.gate,
      responseMode: this.options.responseMode,
      maxBufferedBytes: this.options.maxBufferedBytes,
      refuse,
    };
    this.sessions = new SessionEndpoints({
      port: this.port,
      gate: this.gate,
      options: this.options,
      eventStore: this.eventStore,
      refuse,
      route: (action, sessionId) => routing?.route(action, sessionId),
      keepsRecords: routing?.keepsRecords ?? false,
      keep: (sessionId, kept) => routing?.keep(sessionId, kept),
      ended: (sessionId) => routing?.ended(sessionId),
      forward: (req, res, ownerUrl, options) => (routing ? routing.forward(req, res, ownerUrl, options) : Promise.resolve('unreachable')),
      selfUrl,
      guests: routing?.guests,
      lastUseElsewhere: routing?.lastUseElsewhere,
      currentOwner: async (sessionId) => routing?.currentOwner(sessionId),
    });
    const peerKeys = router?.peerKeys;
    if (peerKeys !== undefined && peerKeys.length > 0) {
      // A peer's request is served as any, its httpRequest listeners included (as for one forwarded over HTTP).
      this.linkServer = new PeerLinkServer(peerKeys, (req, res) => this.serve(req, res, false), this.options.maxMessageBytes);
    }
    this.handler = (req, res) => this.serve(req, res, false);
    this.unregister = this.port.register(this);
  }

  /** Listen on a port of its own; requests to other paths get 404 (after `httpRequest` listeners had their say). */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('StreamableHttpTransport is already listening; create another transport for another port');
    this.ownScreen = { health: healthPaths(options), endpointOnly: true };
    this.ownServer = createLimitedServer(options, (req, res) => this.serve(req, res, true));
    this.acceptPeerLinks(this.ownServer);
    const address = await listenOn(this.ownServer, options, 'http', this.path);
    this.advertisedUrl ??= address.url;
    return address;
  }

  /**
   * Take the peer links other instances open to this one (at `/.switchboard/peer`) on `http`: the
   * application's server, where it mounts `handler` (`listen()` does this on its own). Only with the
   * router's `peerKeys`; without them, or without this, other instances forward to this one over HTTP.
   * Upgrades to other paths are left to other listeners (and refused 404 when there are none).
   */
  acceptPeerLinks(http: HttpServer): this {
    const linkServer = this.linkServer;
    if (!linkServer || this.linkedServers.has(http)) return this;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (isRefusedConnection(socket)) return;
      if (pathOf(req.url) === PEER_PATH) return linkServer.accept(req, socket, head);
      // Another upgrade is another listener's (a WebSocketTransport attached here); with none, it ends here.
      if (http.listenerCount('upgrade') === 1) rejectUpgrade(socket, 404, `No WebSocket endpoint at ${pathOf(req.url)}`);
    };
    http.on('upgrade', onUpgrade);
    this.linkedServers.set(http, onUpgrade);
    return this;
  }

  /** The servers peer links are taken on, with their listeners (removed when the transport closes). */
  private readonly linkedServers = new Map<HttpServer, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>();

  /** The server this transport listens on, when it opened one (to attach a WebSocketTransport to the same port). */
  get httpServer(): HttpServer | undefined {
    return this.ownServer;
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      this.sessions.close();
      this.routing?.close();
      for (const [http, onUpgrade] of this.linkedServers) http.off('upgrade', onUpgrade);
      this.linkedServers.clear();
      this.linkServer?.close();
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

  /**
   * One request, whatever it throws or rejects with going to `failed`. Without auth or a router nothing
   * here waits, and no promise is made: that is most requests, and two promises less for each.
   */
  private serve(req: IncomingMessage, res: ServerResponse, ownPort: boolean): void {
    try {
      const waiting = this.handle(req, res, ownPort);
      if (waiting) waiting.catch((err) => this.failed(err, res));
    } catch (err) {
      this.failed(err, res);
    }
  }

  /** @param ownPort the request came to this transport's own server, where only `path` is MCP. */
  private handle(req: IncomingMessage, res: ServerResponse, ownPort: boolean): Promise<void> | undefined {
    if (this.listening('httpRequest')) {
      const control: HttpRequestControl = { handled: false };
      this.emit('httpRequest', req, res, control);
      if (control.handled || res.headersSent || res.writableEnded) return;
    }
    if (this.listening('httpResponse')) res.once('close', () => this.emit('httpResponse', req, res));
    const gate = this.gate;
    const cors = this.options.cors ? corsHeaders(req, this.options.cors) : NO_CORS;
    const screened = gate.screen(req, ownPort ? this.ownScreen : undefined);
    if (screened) {
      if ('code' in screened) this.refuse(res, screened, cors);
      else res.writeHead(screened.status, screened.headers).end(screened.body);
      return;
    }
    if (req.method === 'OPTIONS') {
      preflight(res, this.options.cors, cors);
      return;
    }
    if (this.options.auth || this.routing) return this.authenticated(req, res, cors);
    if (!this.modernOnlyRefused(req, res, cors)) return this.route(req, res, cors, undefined);
  }

  /** What auth and the router must wait for (a token's keys, another instance's answer) before the request is routed. */
  private async authenticated(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<void> {
    let principal: unknown;
    if (this.options.auth) {
      const outcome = await this.gate.authenticate(req);
      if ('refused' in outcome) return this.refuse(res, outcome.refused, cors);
      principal = outcome.principal;
    }
    if (this.modernOnlyRefused(req, res, cors)) return;
    if (this.routing && (await this.routing.forwarded(req, res, cors, principal))) return;
    return this.route(req, res, cors, principal);
  }

  /** 2026-07-28 has no standalone stream and no sessions to end: a server that speaks only it answers GET and DELETE 405. */
  private modernOnlyRefused(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): boolean {
    if (this.port.eras !== 'modern' || (req.method !== 'GET' && req.method !== 'DELETE')) return false;
    sendHttpError(
      res,
      405,
      ErrorCode.TransportRefused,
      'Method Not Allowed: this server speaks 2026-07-28 only, which has no GET stream or sessions; POST each request',
      { ...cors, allow: 'POST' },
    );
    return true;
  }

  /** A request past the gate (and the router), to its endpoint by method; a GET's stream opens after a wait (a replay, or its owner's answer). */
  private route(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> | undefined {
    switch (req.method) {
      case 'POST':
        this.post(req, res, cors, principal);
        return;
      case 'GET':
        return this.sessions.get(req, res, cors, principal);
      case 'DELETE':
        this.sessions.delete(req, res, cors, principal);
        return;
      default: {
        // RFC 9110: Allow lists what is served; OPTIONS only with CORS on.
        const allow = this.options.cors ? ALLOW : ALLOW_WITHOUT_CORS;
        sendHttpError(res, 405, ErrorCode.TransportRefused, `Method Not Allowed: use ${allow}`, { ...cors, allow });
        return;
      }
    }
  }

  /** The server drains: another instance may take each session over at once; what is under way finishes here. */
  drain(): void {
    this.routing?.drain();
  }

  /** A POST to its era: a 2026-07-28 request, or the 2025 session endpoints. */
  private post(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): void {
    if (!accepts(req, 'json+sse')) {
      return sendHttpError(res, 406, ErrorCode.TransportRefused, 'Not Acceptable: Accept must list both application/json and text/event-stream', cors);
    }
    if (!isJsonContentType(req)) {
      return sendHttpError(res, 415, ErrorCode.TransportRefused, 'Unsupported Media Type: Content-Type must be application/json', cors);
    }
    readJson(req, res, cors, this.options.maxMessageBytes, this.countInvalid, (body) => this.received(req, res, cors, principal, body), this.failedAt);
  }

  private readonly countInvalid = () => this.port.countInvalidMessage();
  private readonly failedAt = (err: unknown, res: ServerResponse) => this.failed(err, res);

  /** A POST's body, parsed: classified, checked, and handed to its era. */
  private received(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown, body: unknown): void {
    const batch = Array.isArray(body);
    const classified = batch ? body.map(classify) : [classify(body)];
    if (classified.length === 0) return this.invalid(res, batchRefusal(undefined, 0) as JsonRpcErrorObject, cors);
    for (const message of classified) if (message.kind === 'invalid') return this.invalid(res, message.error, cors);
    if (this.options.auth) {
      // Step-up: a request for a tool, prompt or resource whose scopes the token lacks gets 403 before anything runs.
      for (const message of classified) {
        if (message.kind !== 'request') continue;
        const needed = this.modern.needs.requiredScopes(message.message.method, message.message.params);
        const refusal = needed && insufficientScope(principal, needed.scopes, needed.what);
        if (refusal) return this.refuse(res, this.gate.authRefusal(req, refusal), cors);
      }
    }
    const first = classified[0] as Exclude<Classified, { kind: 'invalid' }>;
    const era = classifyEra(batch ? undefined : first.kind === 'response' ? {} : first.message, this.port.eras, header(req, 'mcp-protocol-version'));
    if (era === 'modern') return modernPost(this.modern, req, res, cors, principal, batch ? undefined : first);
    if (this.port.eras === 'modern') {
      const initialize = first.kind === 'request' && first.message.method === 'initialize';
      const requested = initialize ? first.message.params?.protocolVersion : header(req, 'mcp-protocol-version');
      const error = new UnsupportedProtocolVersionError(requested, MODERN_PROTOCOL_VERSIONS);
      return sendHttpError(res, 400, error.code, error.message, cors, error.data, first.kind === 'request' ? first.message.id : null);
    }
    this.sessions.post(req, res, cors, principal, classified, body, era);
  }

  /** A refusal at the gate, with its status and the CORS headers. */
  private refuse(res: ServerResponse, refusal: GateRefusal, cors: Record<string, string>): void {
    sendHttpError(res, refusal.status, refusal.code, refusal.message, { ...cors, ...refusal.headers });
  }

  /** A message refused before any session saw it: 400, and counted as invalid. */
  private invalid(res: ServerResponse, error: JsonRpcErrorObject, cors: Record<string, string>): void {
    this.port.countInvalidMessage();
    sendHttpError(res, 400, error.code, error.message, cors);
  }
}
