/**
 * A Streamable HTTP transport's side of the session router (several instances, one Redis): a request
 * for a session another instance holds goes to its owner (over a peer link, or pooled HTTP), or goes on
 * here from its record when no instance holds it; and this instance tells the router what it holds,
 * keeps, hands off and ends.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { type GuestHost, GuestSessions } from './guest-sessions.js';
import { PeerLinks } from './peer-link.js';
import { accepts, header, isJsonContentType, NO_BODY, readText } from './request.js';
import { answerMoot, type SessionEndpoints } from './session-endpoints.js';
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

/** How many instances a request for a session is forwarded to, one found gone after another, before it is answered 404. */
const MAX_FORWARDS = 3;
/** How many ended sessions, at most, wait for the router's store to come back to be told of. */
const MAX_UNTOLD_ENDS = 10_000;

/** What the routing needs of its transport: what its guests need, and the transport's session endpoints (made after it). */
export interface SessionRoutingHost extends Pick<GuestHost, 'port' | 'options' | 'eventStore' | 'selfUrl'> {
  sessions(): SessionEndpoints;
}

export class SessionRouting {
  /** With `serveWhereTheyLand`: requests that only read a session another instance holds are served here. */
  readonly guests: GuestSessions | undefined;
  /** Whether `keep` keeps anything (a router with records). */
  readonly keepsRecords: boolean;
  /** When a session was last used on another instance as a guest (its idle timeout counts that). */
  readonly lastUseElsewhere: ((sessionId: string) => Promise<number | undefined>) | undefined;
  /** Requests for sessions other instances hold go to their owners through it: its connections are pooled. */
  private readonly forwarder = new SessionForwarder();
  /** With the router's peer keys: requests for an owner go over one link to it. */
  private readonly links: PeerLinks | undefined;
  /** Sessions that ended while the router's store was away: told again once it is back. */
  private readonly untoldEnds = new Set<string>();
  private readonly stopReclaiming: (() => void) | undefined;

  constructor(
    private readonly router: SessionRouter,
    private readonly host: SessionRoutingHost,
  ) {
    this.keepsRecords = router.remember !== undefined && router.forget !== undefined;
    const support = host.options.serveWhereTheyLand ? router.guests : undefined;
    this.guests =
      support &&
      new GuestSessions({
        port: host.port,
        options: host.options,
        support,
        eventStore: host.eventStore,
        forward: (req, res, url, options) => this.forward(req, res, url, options),
        selfUrl: host.selfUrl,
      });
    this.lastUseElsewhere = support && ((sessionId) => support.lastUse(sessionId));
    const peerKeys = router.peerKeys;
    if (peerKeys !== undefined && peerKeys.length > 0) this.links = new PeerLinks(peerKeys, host.options.maxBufferedBytes);
    this.stopReclaiming = router.onReconnect?.(() => this.reconnected());
  }

  /**
   * A session this instance does not hold: its owner answers (a forwarded request is never forwarded
   * again), or, when no instance holds it any more, it goes on here from its record. True when answered.
   */
  async forwarded(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>, principal: unknown): Promise<boolean> {
    const { router } = this;
    const sessions = this.host.sessions();
    const self = this.host.selfUrl();
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined || sessions.has(sessionId) || header(req, FORWARDED_HEADER) !== undefined) return false;
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
    let holder = owner !== undefined && draining === undefined && owner !== self ? owner : undefined;
    let former = owner;
    for (let forwards = 0; ; ) {
      if (holder !== undefined) {
        if (!(await this.bodyRead(req, res, cors))) return true;
        // Served here when it only reads the session (its owner is not asked at all); what the POST checks refuse, the owner refuses.
        if (forwards === 0 && this.guests && servable(req) && (await this.guests.place(req, sessionId, principal)) === 'here') return false;
        const forwarded = await this.forward(req, res, holder, { via: self });
        if (forwarded === 'answered') return true;
        if (forwarded === 'not awaited') {
          answerMoot(res, cors, this.host.options);
          return true;
        }
        if (++forwards === MAX_FORWARDS) return false;
        if (forwarded === 'draining') draining = holder;
        // Gone: no instance holds the session now.
        else this.tell(() => router.release(sessionId, holder!));
        former = holder;
      }
      // No instance holds it (its owner stopped or drains, or was this instance before a restart): it goes
      // on here from its record when one is kept; otherwise 404, and the client initializes anew.
      if (!router.takeOver || self === undefined) return false;
      let taken: Awaited<ReturnType<NonNullable<SessionRouter['takeOver']>>>;
      try {
        taken = await router.takeOver(sessionId, self, former);
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
      const formerOwner = draining === self ? undefined : draining;
      return sessions.adopt(req, res, cors, principal, sessionId, taken.kept, formerOwner) === 'refused';
    }
  }

  /** To the owner over its peer link, or over HTTP when there is none (or it takes none). */
  async forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string, options: ForwardOptions): Promise<Forwarded> {
    return (await this.links?.forward(req, res, ownerUrl, options)) ?? this.forwarder.forward(req, res, ownerUrl, options);
  }

  /** The instance that holds `sessionId` now, if another does (a session this instance handed off as it drains). */
  async currentOwner(sessionId: string): Promise<string | undefined> {
    // Asked afresh: this instance's own memory says it handed the session off, not who took it.
    const owner = await this.router.locate(sessionId, { fresh: true });
    return owner === undefined || owner.startsWith(HANDED_OFF) || owner === this.host.selfUrl() ? undefined : owner;
  }

  /** The server drains: another instance may take each session over at once; what is under way finishes here. */
  drain(): void {
    const { router } = this;
    const self = this.host.selfUrl();
    if (!router.handOff || self === undefined) return;
    for (const sessionId of this.host.sessions().handOff()) this.tell(() => router.handOff!(sessionId, self));
  }

  /** Tell the router this instance holds (or no longer holds) a session; a failure is reported, the session goes on here. */
  route(action: 'claim' | 'release', sessionId: string): void {
    const self = this.host.selfUrl();
    if (self === undefined) {
      return this.host.port.reportError(new Error('StreamableHttpTransport has a router but no advertisedUrl: set it when mounting the handler yourself'));
    }
    this.tell(() => this.router[action](sessionId, self));
  }

  /** Keep a session's record where the router keeps it; a failure is reported, the session goes on. */
  keep(sessionId: string, kept: KeptSession): void {
    if (this.keepsRecords) this.tell(() => this.router.remember!(sessionId, kept));
  }

  /**
   * A session ended here: its record is dropped, and its guests on other instances are told. What the
   * router's store could not take (it was away) is sent again once it is back: a record left behind
   * would let guests serve the session for as long as it is kept.
   */
  ended(sessionId: string): void {
    const { router } = this;
    if (!this.keepsRecords && !this.guests) return;
    const forgotten = this.keepsRecords
      ? Promise.resolve()
          .then(() => router.forget!(sessionId))
          .then(
            () => true,
            (err) => {
              this.host.port.reportError(err);
              return false;
            },
          )
      : true;
    const told = this.guests?.announce({ type: 'ended', sessionId }) ?? true;
    void Promise.all([forgotten, told]).then(([a, b]) => {
      if (!(a && b) && this.untoldEnds.size < MAX_UNTOLD_ENDS) this.untoldEnds.add(sessionId);
    });
  }

  close(): void {
    this.stopReclaiming?.();
    this.guests?.close();
    this.forwarder.close();
    this.links?.close();
  }

  /** The router's store is back after a break. */
  private reconnected(): void {
    this.host.sessions().reclaim();
    this.guests?.reconnected();
    const untold = [...this.untoldEnds];
    this.untoldEnds.clear();
    for (const sessionId of untold) this.ended(sessionId);
  }

  /** A POST's body, read here once (into `req.body`), so that it may be forwarded more than once, or served here after. False when it could not be (answered). */
  private async bodyRead(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): Promise<boolean> {
    if (req.method !== 'POST' || (req as { body?: unknown }).body !== undefined) return true;
    const body = await readText(req, res, cors, this.host.options.maxMessageBytes);
    if (body === NO_BODY) return false;
    (req as { body?: unknown }).body = body;
    return true;
  }

  /** A router call nobody waits for: its failure, thrown or rejected, is reported; the session goes on here. */
  private tell(call: () => void | Promise<void>): void {
    try {
      void Promise.resolve(call()).catch((err) => this.host.port.reportError(err));
    } catch (err) {
      this.host.port.reportError(err);
    }
  }
}

/** A POST the transport's `post` would take (its Accept and Content-Type are right). */
function servable(req: IncomingMessage): boolean {
  return req.method === 'POST' && accepts(req, 'json+sse') && isJsonContentType(req);
}
