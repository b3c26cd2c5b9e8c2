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
import { GuestSessions } from './guest-sessions.js';
import { type ModernPostHost, modernPost } from './modern-post.js';
import { type ResolvedHttpOptions, resolveHttpOptions, type StreamableHttpTransportOptions } from './options.js';
import { accepts, header, isJsonContentType, NO_BODY, readJson, readText, sendHttpError } from './request.js';
import { PEER_PATH } from './peer-frames.js';
import { PeerLinks } from './peer-link.js';
import { PeerLinkServer } from './peer-link-server.js';
import { answerMoot, SessionEndpoints } from './session-endpoints.js';
import type { KeptSession } from './session-records.js';
import {
  FORWARDED_HEADER,
  type ForwardOptions,
  type Forwarded,
  HANDED_OFF,
  routerUnavailable,
  SessionForwarder,
  type SessionRouter,
} from './session-router.js';

export type { StreamableHttpTransportOptions } from './options.js';

/** How many instances a request for a session is forwarded to, one found gone after another, before it is answered 404. */
const MAX_FORWARDS = 3;
/** How many ended sessions, at most, wait for the router's store to come back to be told of. */
const MAX_UNTOLD_ENDS = 10_000;

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
  /** Requests for sessions other instances hold go to their owners through it (with a router): its connections are pooled. */
  private readonly forwarder = new SessionForwarder();
  /** With the router's peer keys: requests for an owner go over one link to it, and peers' links are taken here. */
  private readonly links: PeerLinks | undefined;
  private readonly linkServer: PeerLinkServer | undefined;
  /** With `serveWhereTheyLand`: requests that only read a session another instance holds are served here. */
  private readonly guests: GuestSessions | undefined;
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
    const guestSupport = this.options.serveWhereTheyLand ? this.options.router?.guests : undefined;
    this.guests =
      guestSupport &&
      new GuestSessions({
        port: this.port,
        options: this.options,
        support: guestSupport,
        eventStore: this.eventStore,
        forward: (req, res, url, options) => this.forward(req, res, url, options),
        selfUrl: () => this.advertisedUrl,
      });
    this.modern = { port: this.port, needs: httpNeedsOf(server), gate: this.gate, responseMode: this.options.responseMode, refuse };
    this.sessions = new SessionEndpoints({
      port: this.port,
      gate: this.gate,
      options: this.options,
      eventStore: this.eventStore,
      refuse,
      route: (action, sessionId) => this.route(action, sessionId),
      keepsRecords: this.options.router?.remember !== undefined && this.options.router.forget !== undefined,
      keep: (sessionId, kept) => this.keep(sessionId, kept),
      ended: (sessionId) => this.ended(sessionId),
      forward: (req, res, ownerUrl, options) => this.forward(req, res, ownerUrl, options),
      selfUrl: () => this.advertisedUrl,
      guests: this.guests,
      lastUseElsewhere: guestSupport && ((sessionId) => guestSupport.lastUse(sessionId)),
      currentOwner: async (sessionId) => {
        // Asked afresh: this instance's own memory says it handed the session off, not who took it.
        const owner = await this.options.router?.locate(sessionId, { fresh: true });
        return owner === undefined || owner.startsWith(HANDED_OFF) || owner === this.advertisedUrl ? undefined : owner;
      },
    });
    const peerKeys = this.options.router?.peerKeys;
    if (peerKeys !== undefined && peerKeys.length > 0) {
      this.links = new PeerLinks(peerKeys);
      // A peer's request is served as any, its httpRequest listeners included (as for one forwarded over HTTP).
      this.linkServer = new PeerLinkServer(
        peerKeys,
        (req, res) => void this.handle(req, res, false).catch((err) => this.failed(err, res)),
        this.options.maxMessageBytes,
      );
    }
    this.handler = (req, res) => void this.handle(req, res, false).catch((err) => this.failed(err, res));
    const unregister = this.port.register(this);
    const stopReclaiming = this.options.router?.onReconnect?.(() => this.reconnected());
    this.unregister = () => {
      stopReclaiming?.();
      unregister();
    };
  }

  /** Listen on a port of its own; requests to other paths get 404 (after `httpRequest` listeners had their say). */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('StreamableHttpTransport is already listening; create another transport for another port');
    this.ownScreen = { health: healthPaths(options), endpointOnly: true };
    this.ownServer = createLimitedServer(options, (req, res) => void this.handle(req, res, true).catch((err) => this.failed(err, res)));
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
      this.guests?.close();
      for (const [http, onUpgrade] of this.linkedServers) http.off('upgrade', onUpgrade);
      this.linkedServers.clear();
      this.linkServer?.close();
      if (this.ownServer) await closeHttpServer(this.ownServer);
      this.forwarder.close();
      this.links?.close();
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
    const gate = this.gate;
    const cors = this.options.cors ? corsHeaders(req, this.options.cors) : NO_CORS;
    const screened = gate.screen(req, ownPort ? this.ownScreen : undefined);
    if (screened) {
      if ('code' in screened) return this.refuse(res, screened, cors);
      res.writeHead(screened.status, screened.headers).end(screened.body);
      return;
    }
    if (req.method === 'OPTIONS') return preflight(res, this.options.cors, cors);
    let principal: unknown;
    if (this.options.auth) {
      const outcome = await gate.authenticate(req);
      if ('refused' in outcome) return this.refuse(res, outcome.refused, cors);
      principal = outcome.principal;
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
    if (this.options.router && (await this.forwarded(req, res, cors, principal))) return;
    switch (req.method) {
      case 'POST':
        return this.post(req, res, cors, principal);
      case 'GET':
        return this.sessions.get(req, res, cors, principal);
      case 'DELETE':
        return this.sessions.delete(req, res, cors, principal);
      default: {
        // RFC 9110: Allow lists what is served; OPTIONS only with CORS on.
        const allow = this.options.cors ? ALLOW : ALLOW_WITHOUT_CORS;
        return sendHttpError(res, 405, ErrorCode.TransportRefused, `Method Not Allowed: use ${allow}`, { ...cors, allow });
      }
    }
  }

  /**
   * A session this instance does not hold: its owner answers (a forwarded request is never forwarded
   * again), or, when no instance holds it any more, it goes on here from its record. True when answered.
   */
  private async forwarded(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<boolean> {
    const router = this.options.router!;
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined || this.sessions.has(sessionId) || header(req, FORWARDED_HEADER) !== undefined) return false;
    let owner: string | undefined;
    try {
      owner = await router.locate(sessionId);
    } catch (err) {
      routerUnavailable(res, cors, err);
      return true;
    }
    // An owner that drains still finishes what the session had under way: replies to that go to it.
    let draining = owner?.startsWith(HANDED_OFF) ? owner.slice(HANDED_OFF.length) : undefined;
    // The instance to forward to: the owner, then (a few times at most) whichever took the session over
    // first when this one tried; each found gone (or draining) is the former owner of the next takeover.
    let holder = owner !== undefined && draining === undefined && owner !== this.advertisedUrl ? owner : undefined;
    let former = owner;
    for (let forwards = 0; ; ) {
      if (holder !== undefined) {
        if (!(await this.bodyRead(req, res, cors))) return true;
        // Served here when it only reads the session (its owner is not asked at all); what the POST checks refuse, the owner refuses.
        if (forwards === 0 && this.guests && this.servable(req) && (await this.guests.place(req, sessionId, principal)) === 'here') return false;
        const forwarded = await this.forward(req, res, holder, { via: this.advertisedUrl });
        if (forwarded === 'answered') return true;
        if (forwarded === 'not awaited') return this.moot(res, cors);
        if (++forwards === MAX_FORWARDS) return false;
        if (forwarded === 'draining') draining = holder;
        // Gone: no instance holds the session now.
        else this.tell(() => router.release(sessionId, holder!));
        former = holder;
      }
      // No instance holds it (its owner stopped or drains, or was this instance before a restart): it goes
      // on here from its record when one is kept; otherwise 404 below, and the client initializes anew.
      if (!router.takeOver || this.advertisedUrl === undefined) return false;
      let taken: Awaited<ReturnType<NonNullable<SessionRouter['takeOver']>>>;
      try {
        taken = await router.takeOver(sessionId, this.advertisedUrl, former);
      } catch (err) {
        routerUnavailable(res, cors, err);
        return true;
      }
      if (taken === undefined) return false;
      if ('owner' in taken) {
        holder = taken.owner;
        continue;
      }
      if (taken.handedOffBy !== undefined) draining = taken.handedOffBy;
      const formerOwner = draining === this.advertisedUrl ? undefined : draining;
      return this.sessions.adopt(req, res, cors, principal, sessionId, taken.kept, formerOwner) === 'refused';
    }
  }

  /** To the owner over its peer link, or over HTTP when there is none (or it takes none). */
  private async forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string, options: ForwardOptions): Promise<Forwarded> {
    return (await this.links?.forward(req, res, ownerUrl, options)) ?? this.forwarder.forward(req, res, ownerUrl, options);
  }

  /** Replies the instances of the session await no more (they ended what asked): taken, as any reply is. */
  private moot(res: ServerResponse, cors: Record<string, string>): true {
    answerMoot(res, cors, this.options);
    return true;
  }

  /** A POST's body, read here once (into `req.body`), so that it may be forwarded more than once, or served here after. False when it could not be (answered). */
  private async bodyRead(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<boolean> {
    if (req.method !== 'POST' || (req as { body?: unknown }).body !== undefined) return true;
    const body = await readText(req, res, cors, this.options.maxMessageBytes);
    if (body === NO_BODY) return false;
    (req as { body?: unknown }).body = body;
    return true;
  }

  /** The server drains: another instance may take each session over at once; what is under way finishes here. */
  drain(): void {
    const router = this.options.router;
    const self = this.advertisedUrl;
    if (!router?.handOff || self === undefined) return;
    for (const sessionId of this.sessions.handOff()) this.tell(() => router.handOff!(sessionId, self));
  }

  /** Keep a session's record where the router keeps it; a failure is reported, the session goes on. */
  private keep(sessionId: string, kept: KeptSession): void {
    const router = this.options.router;
    if (!router?.remember || !router.forget) return;
    this.tell(() => router.remember!(sessionId, kept));
  }

  /**
   * A session ended here: its record is dropped, and its guests on other instances are told. What the
   * router's store could not take (it was away) is sent again once it is back: a record left behind
   * would let guests serve the session for as long as it is kept.
   */
  private ended(sessionId: string): void {
    const router = this.options.router;
    const forget = router?.remember && router.forget ? router.forget.bind(router) : undefined;
    if (!forget && !this.guests) return;
    const forgotten = forget
      ? Promise.resolve()
          .then(() => forget(sessionId))
          .then(
            () => true,
            (err) => {
              this.port.reportError(err);
              return false;
            },
          )
      : true;
    const told = this.guests?.announce({ type: 'ended', sessionId }) ?? true;
    void Promise.all([forgotten, told]).then(([a, b]) => {
      if (!(a && b) && this.untoldEnds.size < MAX_UNTOLD_ENDS) this.untoldEnds.add(sessionId);
    });
  }

  /** Sessions that ended while the router's store was away: told again once it is back. */
  private readonly untoldEnds = new Set<string>();

  /** The router's store is back after a break. */
  private reconnected(): void {
    this.sessions.reclaim();
    this.guests?.reconnected();
    const untold = [...this.untoldEnds];
    this.untoldEnds.clear();
    for (const sessionId of untold) this.ended(sessionId);
  }

  /** A POST that `post` would take (its Accept and Content-Type are right). */
  private servable(req: IncomingMessage): boolean {
    return req.method === 'POST' && accepts(req, 'json+sse') && isJsonContentType(req);
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

  /** Tell the router this instance holds (or no longer holds) a session; a failure is reported, the session goes on here. */
  private route(action: 'claim' | 'release', sessionId: string): void {
    const router = this.options.router;
    if (!router) return;
    const self = this.advertisedUrl;
    if (self === undefined) {
      return this.port.reportError(new Error('StreamableHttpTransport has a router but no advertisedUrl: set it when mounting the handler yourself'));
    }
    this.tell(() => router[action](sessionId, self));
  }

  /** A router call nobody waits for: its failure, thrown or rejected, is reported; the session goes on here. */
  private tell(call: () => void | Promise<void>): void {
    try {
      void Promise.resolve(call()).catch((err) => this.port.reportError(err));
    } catch (err) {
      this.port.reportError(err);
    }
  }
}
