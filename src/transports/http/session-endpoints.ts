/**
 * The 2025 session endpoints of Streamable HTTP (transports.mdx): POST `initialize` opens a session,
 * POST with `Mcp-Session-Id` carries its messages, GET opens (or resumes) its standalone stream, DELETE ends it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { INITIALIZE_IN_BATCH } from '../../protocol/batches.js';
import { ErrorCode } from '../../protocol/errors.js';
import type { Classified, JsonRpcRequest } from '../../protocol/jsonrpc.js';
import type { RequestId } from '../../protocol/types.js';
import { type Era, negotiateProtocolVersion } from '../../protocol/versions.js';
import { SERVER_CLOSED, type ServerPort } from '../../server/port.js';
import { type GateRefusal, SHUTTING_DOWN, type TransportGate } from '../gate.js';
import { NO_CORS } from './cors.js';
import type { EventStore } from './event-store.js';
import type { GuestSessions } from './guest-sessions.js';
import { HttpSession, type HttpSessionHost } from './http-session.js';
import type { ResolvedHttpOptions } from './options.js';
import { accepts, header, sendHttpError } from './request.js';
import { type KeptSession, keep, mayAdopt } from './session-records.js';
import { DRAINING_HEADER, FORWARDED_HEADER, type ForwardOptions, type Forwarded, forwardedVia, NOT_AWAITED_HEADER } from './session-router.js';
import { SessionRegistry } from './session-registry.js';

/** What the endpoints need of their transport beyond the server's port. */
export interface SessionEndpointsHost {
  readonly port: ServerPort;
  readonly gate: TransportGate;
  readonly options: ResolvedHttpOptions;
  readonly eventStore: EventStore;
  /** Answer a refusal with its status. */
  refuse(res: ServerResponse, refusal: GateRefusal, cors: Record<string, string>): void;
  /** Tell the router this instance holds (or no longer holds) a session. */
  route(action: 'claim' | 'release', sessionId: string): void;
  /** Whether `keep` keeps anything (a router with records). */
  readonly keepsRecords: boolean;
  /** Keep what another instance needs to go on with a session. */
  keep(sessionId: string, kept: KeptSession): void;
  /** A session ended here: its record dropped and its guests on other instances told (again once the store is back, if it was away). */
  ended(sessionId: string): void;
  /** The instance that holds `sessionId` now, if another does (a session this instance handed off as it drains). */
  currentOwner(sessionId: string): Promise<string | undefined>;
  /** Forward a request to another instance (the one a session was taken over from, which drains). */
  forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string, options: ForwardOptions): Promise<Forwarded>;
  /** Where the other instances reach this one, once known. */
  selfUrl(): string | undefined;
  /** With `serveWhereTheyLand`: the guests of sessions other instances hold. */
  readonly guests: GuestSessions | undefined;
  /** When a session was last used on another instance as a guest (its idle timeout counts that). */
  readonly lastUseElsewhere: ((sessionId: string) => Promise<number | undefined>) | undefined;
}

/** Replies no one awaits any more (what asked ended): taken, as any reply is (with no session to ask, a status chosen per session is 204). */
export function answerMoot(res: ServerResponse, cors: Record<string, string>, options: ResolvedHttpOptions): void {
  if (res.headersSent || res.destroyed) return;
  const status = options.replyStatus;
  res.writeHead(typeof status === 'number' ? status : 204, cors).end();
}

/** One POST for a session, its body read and checked. */
interface SessionPost {
  req: IncomingMessage;
  res: ServerResponse;
  cors: Record<string, string>;
  classified: Classified[];
  body: unknown;
  era: Era;
}

/** How many instances replies may pass through looking for the one that awaits them. */
const MAX_REPLY_HOPS = 3;

export class SessionEndpoints {
  private readonly sessions: SessionRegistry;
  private readonly sessionHost: HttpSessionHost;
  private readonly port: ServerPort;
  private readonly options: ResolvedHttpOptions;
  /** Sessions whose record was kept once already: a change after that is news for their guests. */
  private readonly recorded = new WeakSet<HttpSession>();

  constructor(private readonly host: SessionEndpointsHost) {
    this.port = host.port;
    this.options = host.options;
    this.sessions = new SessionRegistry(this.port, this.options, host.eventStore, host.lastUseElsewhere);
    this.sessionHost = {
      eventStore: host.eventStore,
      retryMs: this.options.retryMs,
      maxBufferedBytes: this.options.maxBufferedBytes,
      sessionClosed: (http) => {
        this.sessions.remove(http);
        host.route('release', http.id);
        if (http.connection.session.closeReason === SERVER_CLOSED) return;
        host.ended(http.id);
      },
      sessionChanged: (http) => {
        // Without a router that keeps records, nothing is made (an initialize costs no record).
        if (!host.keepsRecords) return;
        const record = http.connection.record;
        if (!record) return;
        host.keep(http.id, keep(record, http.principal, this.options.auth !== undefined));
        // Its guests on other instances read it again (none can have read it before initialize was answered).
        if (this.recorded.has(http) || http.adopted) host.guests?.announce({ type: 'changed', sessionId: http.id });
        else this.recorded.add(http);
      },
      reportError: (error, connection) => this.port.reportError(error, connection),
      stopping: () => this.port.draining,
    };
  }

  /** Whether this instance holds session `id`. */
  has(id: string): boolean {
    return this.sessions.has(id);
  }

  /** The router's store is back after a break (it may have restarted empty): every session held here is claimed and kept again. */
  reclaim(): void {
    for (const http of this.sessions.all()) {
      this.host.route('claim', http.id);
      this.sessionHost.sessionChanged(http);
    }
  }

  close(): void {
    this.sessions.close();
  }

  /**
   * Go on here with session `sessionId`, whose owner is gone, as `kept` left it: its requests are then
   * served here. Undefined, with nothing sent, when `principal` is not the session's (the caller answers
   * 404, as for any unknown session); a refusal was sent when the server is draining or full.
   */
  adopt(
    req: IncomingMessage,
    res: ServerResponse,
    cors: Record<string, string>,
    principal: unknown,
    sessionId: string,
    kept: KeptSession,
    formerOwner?: string,
  ): 'adopted' | 'refused' | undefined {
    if (this.sessions.has(sessionId)) return 'adopted';
    if (!mayAdopt(kept, principal, this.options.auth !== undefined)) return undefined;
    const refused = this.host.gate.admit(true, () => this.sessions.makeRoom(principal, req.socket.remoteAddress));
    if (refused) {
      this.host.refuse(res, refused, cors);
      return 'refused';
    }
    const { principal: _digest, ...record } = kept;
    const http = new HttpSession(this.sessionHost, req.socket.remoteAddress, principal, true);
    http.formerOwner = formerOwner;
    http.connection = this.port.adopt(http, principal, sessionId, record);
    this.sessions.add(http);
    this.host.route('claim', sessionId);
    return 'adopted';
  }

  /** The session a request names, its principal renewed (a refreshed token); undefined when the answer went out already (404, 403, 400). */
  private sessionFor(req: IncomingMessage, res: ServerResponse, principal: unknown, cors: Record<string, string>): HttpSession | undefined {
    const http = this.sessions.lookup(req, res, principal, cors);
    if (http && this.options.auth) http.connection.renewPrincipal(principal);
    return http;
  }

  /** A 2025 POST, its body read and checked: `initialize` without a session, or messages for one. */
  post(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown, classified: Classified[], body: unknown, era: Era): void {
    const batch = Array.isArray(body);
    const first = classified[0];
    if (header(req, 'mcp-session-id') === undefined) {
      if (!batch && first.kind === 'request' && first.message.method === 'initialize')
        return this.initialize(req, res, first.message, classified, body, cors, principal);
      if (batch && classified.some((c) => c.kind === 'request' && c.message.method === 'initialize')) {
        this.port.countInvalidMessage();
        return sendHttpError(res, 400, INITIALIZE_IN_BATCH.code, INITIALIZE_IN_BATCH.message, cors);
      }
    }
    const guests = this.host.guests;
    if (guests) {
      const guest = guests.placedGuest(req);
      if (guest) return this.serveGuest(guest, { req, res, cors, classified, body, era });
      const tag = guests.replyTag(classified);
      if (tag !== undefined) return this.guestReplies(guests, tag, { req, res, cors, classified, body, era }, principal);
    }
    const http = this.sessionFor(req, res, principal, cors);
    if (!http) return;
    // A cancellation may be for a request a guest on another instance serves: each instance hears of it.
    if (guests) this.announceCancellations(guests, http.id, classified);
    // A batch's replies to requests guests on other instances sent go to them; the rest is served here.
    const kept = guests && batch ? guests.passOnReplies(http.id, classified) : undefined;
    if (kept?.length === 0) return void res.writeHead(this.replyStatus(http), cors).end();
    // Replies to requests another instance sent for this session (it took the session over from this one
    // as it drains, or this one took it over from it) go to that instance.
    const post: SessionPost = { req, res, cors, classified: kept ?? classified, body, era };
    if ((http.formerOwner !== undefined || http.handedOff) && this.repliesElsewhere(http, classified)) {
      void this.replyElsewhere(http, post);
      return;
    }
    this.serve(http, post);
  }

  /** A request served here by a guest of the session (after the version check a held session's gets), which ends once it has nothing under way. */
  private serveGuest(guest: HttpSession, post: SessionPost): void {
    if (!this.sessions.versionAccepted(post.req, post.res, post.cors)) return;
    this.serve(guest, post);
  }

  /** Replies to a guest's requests: to this instance's guest, or on to the instance whose guest asked; moot when none awaits them. */
  private guestReplies(guests: GuestSessions, tag: string, post: SessionPost, principal: unknown): void {
    const sessionId = header(post.req, 'mcp-session-id');
    if (sessionId !== undefined && tag === guests.tag) {
      const guest = guests.awaiting(sessionId, principal);
      if (guest) return this.serveGuest(guest, post);
    }
    if (sessionId === undefined || tag === guests.tag) return this.moot(post);
    void guests.replyElsewhere(post.req, post.res, post.body, tag).then(
      (answered) => answered || this.moot(post),
      (err) => {
        this.port.reportError(err);
        this.moot(post);
      },
    );
  }

  private moot({ res, cors }: SessionPost): void {
    answerMoot(res, cors, this.options);
  }

  private announceCancellations(guests: GuestSessions, sessionId: string, classified: readonly Classified[]): void {
    for (const message of classified) {
      if (message.kind !== 'notification' || message.message.method !== 'notifications/cancelled') continue;
      const params = message.message.params as { requestId?: unknown; reason?: unknown } | undefined;
      const requestId = params?.requestId;
      if (typeof requestId !== 'string' && typeof requestId !== 'number') continue;
      guests.announce({ type: 'cancelled', sessionId, requestId, ...(typeof params?.reason === 'string' ? { reason: params.reason } : {}) });
    }
  }

  /** A POST's messages for a session held here. */
  private serve(http: HttpSession, { req, res, cors, classified, body, era }: SessionPost): void {
    const batch = Array.isArray(body);
    const connection = http.connection;
    // The era is this POST's for a single message; a batch's members are classified each on its own.
    const admission = connection.admit(classified, batch, batch ? undefined : era);
    const refused = admission.refusal;
    if (refused) {
      if (refused.error.code === ErrorCode.ShuttingDown) {
        // Another instance forwarded it: it takes the session over instead (this one drains).
        const marked = header(req, FORWARDED_HEADER) === undefined ? cors : { ...cors, [DRAINING_HEADER]: '1' };
        return this.host.refuse(res, SHUTTING_DOWN, marked);
      }
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
    http.openPostStream(res, requestIds, batch, this.options.responseMode, cors === NO_CORS ? http.idHeaders : { ...cors, 'mcp-session-id': connection.id });
    admission.deliver(body);
  }

  /** Only replies, none awaited here: they answer requests the former owner sent, which it still waits for. */
  private repliesElsewhere(http: HttpSession, classified: Classified[]): boolean {
    for (const message of classified) {
      if (message.kind !== 'response') return false;
      const { id } = message.message;
      if (id !== null && http.connection.awaitsReply(id)) return false;
    }
    return true;
  }

  /** Replies for the other instance of the session; once it is gone (or none took it over), this instance's to drop. */
  private async replyElsewhere(http: HttpSession, post: SessionPost): Promise<void> {
    const { req, res } = post;
    (req as { body?: unknown }).body ??= post.body;
    // The instance that took the session over from this one asked later than the one this one took it
    // over from: it is asked first. Each instance is asked once (the request lists those it came
    // through); one that holds the session no more (404), or has nowhere else to send them (421), ended
    // what it waited for.
    const via = forwardedVia(req);
    const self = this.host.selfUrl();
    const current = http.handedOff ? await this.host.currentOwner(http.id).catch(() => undefined) : undefined;
    const former = http.formerOwner;
    for (const other of via.length < MAX_REPLY_HOPS ? [current, former] : []) {
      if (other === undefined || other === self || via.includes(other)) continue;
      const forwarded = await this.host.forward(req, res, other, { unlessGone: true, via: self });
      if (forwarded === 'answered') return;
      // A former owner that is gone waits for nothing more.
      if (other === former && forwarded === 'unreachable' && http.formerOwner === former) http.formerOwner = undefined;
    }
    // Nowhere else: an instance that sent them here tries its other choices; otherwise they are this one's to drop.
    if (via.length > 0) return void res.writeHead(421, { [NOT_AWAITED_HEADER]: '1' }).end();
    this.serve(http, post);
  }

  /** The server drains: the sessions held here are handed off (another instance keeps their records from now). Their ids. */
  handOff(): string[] {
    const ids: string[] = [];
    for (const http of this.sessions.all()) {
      if (http.handedOff || !http.connection.record) continue;
      http.handedOff = true;
      ids.push(http.id);
    }
    return ids;
  }

  async get(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<void> {
    if (!accepts(req, 'sse')) {
      return sendHttpError(res, 406, ErrorCode.TransportRefused, 'Not Acceptable: Accept must list text/event-stream', cors);
    }
    const http = this.sessionFor(req, res, principal, cors);
    if (!http) return;
    http.connection.touch();
    const headers = { ...cors, 'mcp-session-id': http.id };
    const lastEventId = header(req, 'last-event-id');
    if (lastEventId !== undefined) {
      const outcome = await http.resume(res, lastEventId, headers);
      if (outcome === 'unknown') {
        return sendHttpError(res, 400, ErrorCode.TransportRefused, `Bad Request: Last-Event-ID ${lastEventId} names no stream of this session`, cors);
      }
      if (outcome === 'lost') {
        return sendHttpError(
          res,
          400,
          ErrorCode.TransportRefused,
          `Bad Request: the stream of Last-Event-ID ${lastEventId} was on an instance that is gone, with its request; send the request again`,
          cors,
        );
      }
      if (outcome === 'busy')
        return sendHttpError(res, 409, ErrorCode.TransportRefused, 'Conflict: the standalone SSE stream of this session is already open', cors);
      return;
    }
    if (!http.openStandaloneStream(res, headers)) {
      return sendHttpError(res, 409, ErrorCode.TransportRefused, 'Conflict: only one standalone SSE stream is allowed per session', cors);
    }
  }

  delete(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): void {
    const http = this.sessionFor(req, res, principal, cors);
    if (!http) return;
    http.connection.close('deleted by the client');
    res.writeHead(200, cors).end();
  }

  private initialize(
    req: IncomingMessage,
    res: ServerResponse,
    request: JsonRpcRequest,
    classified: Classified[],
    body: unknown,
    cors: Record<string, string>,
    principal: unknown,
  ): void {
    const refused = this.host.gate.admit(true, () => this.sessions.makeRoom(principal, req.socket.remoteAddress));
    if (refused) return this.host.refuse(res, refused, cors);
    const http = new HttpSession(this.sessionHost, req.socket.remoteAddress, principal);
    const connection = this.port.connect(http, principal);
    http.connection = connection;
    this.sessions.add(http);
    this.host.route('claim', http.id);
    const requested = request.params?.protocolVersion;
    const version = typeof requested === 'string' ? negotiateProtocolVersion(requested) : undefined;
    const headers = cors === NO_CORS ? http.idHeaders : { ...cors, 'mcp-session-id': connection.id };
    http.openPostStream(res, [request.id], false, this.options.responseMode, headers, version);
    connection.admit(classified, false, 'legacy').deliver(body);
  }

  /** 204 by default; a client that takes only 202 can be given it (its second, error reply is then not sent). */
  private replyStatus(http: HttpSession): number {
    const status = this.options.replyStatus;
    return typeof status === 'function' ? status(http.connection.session) : status;
  }
}
