/**
 * Fair shares of a listening server's connections. Each client, its remote address, or its principal
 * once a request on the connection has authenticated one, holds a share; an address holds at most half
 * the server whatever principals its connections carry. A newcomer at a limit displaces the oldest
 * connection that is not in use (it has sent nothing, or no complete request, or sits idle between
 * requests), preferring one that has sent nothing, so no client can lock the others out with sockets
 * it does not use.
 */
import type { RequestListener, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { addressKey } from '../protocol/client-address.js';
import { principalKey } from '../protocol/principal.js';
import { writeRawResponse } from './raw-response.js';

export interface ConnectionLimits {
  /** Connections open at once, over every client. */
  maxConnections: number;
  /** Connections one client may hold: one remote address (an IPv6 /64), or one principal. */
  maxConnectionsPerClient: number;
  /** A connection that has sent no byte for this long is closed; one unused for a fifth of it may be displaced. */
  firstByteTimeoutMs: number;
}

/** What a connection refused for its principal's share is told. */
export const TOO_MANY_FOR_PRINCIPAL = 'Service Unavailable: too many connections for this principal; close some and try again';

interface Held {
  readonly address: string;
  /** The principal's share it counts against, once a request authenticated one with an id. */
  principalKey: string | undefined;
  principal: unknown;
  readonly openedAt: number;
  /** Since when nothing has been under way on it (its opening, or its last request's end). */
  idleSince: number;
  /** When it became idle, in order: the connection unused longest has the lowest (ties in idleSince told apart as they came). */
  idleOrder: number;
  /** Requests under way on it. */
  busy: number;
  /** A WebSocket now: a session, in use for as long as it is open. */
  upgraded: boolean;
}

interface AddressShare {
  /** Every connection from the address, authenticated or not. */
  readonly all: Set<Socket>;
  /** Those that count against the address's own share: not charged to a principal. */
  unauthenticated: number;
}

/** Sockets refused at arrival: their 503 is on its way, and whatever they send is not served. */
const refused = new WeakSet<Socket>();
/** Which budget holds a socket, so a transport can report on it without knowing its server. */
const budgets = new WeakMap<Socket, ConnectionBudget>();

/** Refused sockets left to close by themselves at once; past it they are dropped unanswered, so a flood costs no descriptors. */
const MAX_LINGERING = 128;
const REFUSED_LINGER_MS = 2000;

export class ConnectionBudget {
  private readonly held = new Map<Socket, Held>();
  private readonly addresses = new Map<string, AddressShare>();
  private readonly principals = new Map<string, Set<Socket>>();
  /** Counts idle moments, for idleOrder: a request costs a count and a stamp, not a move in a set of idle sockets. */
  private idleCount = 0;
  private readonly sweeper: NodeJS.Timeout;
  private readonly displaceAfterMs: number;
  /** The most connections one address holds, authenticated ones included. */
  private readonly maxPerAddress: number;
  private lingering = 0;

  constructor(private readonly limits: ConnectionLimits) {
    // A burst of fresh connections is not an attack: only one unused for a while may be displaced.
    this.displaceAfterMs = Math.floor(limits.firstByteTimeoutMs / 5);
    this.maxPerAddress = Math.max(limits.maxConnectionsPerClient, Math.floor(limits.maxConnections / 2));
    this.sweeper = setInterval(() => this.closeSilent(), Math.max(Math.floor(limits.firstByteTimeoutMs / 2), 10));
    this.sweeper.unref();
  }

  /** A connection arrived: keep it (displacing an unused one at a limit), or answer 503 and close it. */
  admit(socket: Socket): void {
    const address = addressKey(socket.remoteAddress);
    const share = this.addresses.get(address);
    if (share && share.unauthenticated >= this.limits.maxConnectionsPerClient && !this.displace(share.all, (held) => held.principalKey === undefined)) {
      return this.refuse(socket, `Too many connections from your address (limit ${this.limits.maxConnectionsPerClient}); close some and try again`);
    }
    if (share && share.all.size >= this.maxPerAddress && !this.displace(share.all)) {
      return this.refuse(socket, `Too many connections from your address (limit ${this.maxPerAddress}); close some and try again`);
    }
    if (this.held.size >= this.limits.maxConnections && !this.displace(this.held.keys(), undefined, true)) {
      return this.refuse(socket, `The server is at its limit of ${this.limits.maxConnections} connections; try again later`);
    }
    const now = Date.now();
    const held: Held = {
      address,
      principalKey: undefined,
      principal: undefined,
      openedAt: now,
      idleSince: now,
      idleOrder: ++this.idleCount,
      busy: 0,
      upgraded: false,
    };
    this.held.set(socket, held);
    const joined = this.addresses.get(address) ?? { all: new Set<Socket>(), unauthenticated: 0 };
    this.addresses.set(address, joined);
    joined.all.add(socket);
    joined.unauthenticated++;
    budgets.set(socket, this);
    socket.once('close', () => this.forget(socket));
  }

  /** The request listener for `handler`: each request keeps its connection in use until its response closes. */
  serve(handler: RequestListener): RequestListener {
    const budget = this;
    // One listener function for every response, not a closure (and a `once` wrapper) per request: 'close' comes once.
    function requestEnded(this: ServerResponse): void {
      budget.requestEnded(this.req.socket);
    }
    return (req, res) => {
      // Refused at arrival: its 503 went out already, and the socket is closing.
      if (refused.has(req.socket)) return;
      budget.requestStarted(req.socket);
      res.on('close', requestEnded);
      handler(req, res);
    };
  }

  /** A request began on the connection: it is in use until the request ends. */
  requestStarted(socket: Socket): void {
    const held = this.held.get(socket);
    if (held) held.busy++;
  }

  requestEnded(socket: Socket): void {
    const held = this.held.get(socket);
    if (!held || held.busy === 0 || --held.busy > 0 || held.upgraded) return;
    held.idleSince = Date.now();
    held.idleOrder = ++this.idleCount;
  }

  /** The connection is a WebSocket now. */
  upgraded(socket: Socket): void {
    const held = this.held.get(socket);
    if (held) held.upgraded = true;
  }

  /**
   * The connection authenticated `principal`: it counts against that principal's share from now on,
   * instead of its address's own (and still toward the most one address holds). False when the
   * principal's share is full of connections in use.
   */
  charge(socket: Socket, principal: unknown): boolean {
    const held = this.held.get(socket);
    if (!held || held.principal === principal) return true;
    // Only a principal with an id names one client: `true` from an auth hook would be everyone.
    const id = typeof principal === 'object' ? principalKey(principal) : undefined;
    if (!id?.startsWith('id:')) return true;
    const key = `principal:${id}`;
    held.principal = principal;
    if (held.principalKey === key) return true;
    const share = this.principals.get(key);
    // The socket asking is in use (its request is under way), so it is never its own victim.
    if (share && share.size >= this.limits.maxConnectionsPerClient && !this.displace(share)) return false;
    this.leaveShares(socket, held);
    held.principalKey = key;
    const joined = share ?? new Set<Socket>();
    this.principals.set(key, joined);
    joined.add(socket);
    return true;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  /**
   * End the connection among `candidates` (that `fits`) unused the longest, one that has sent nothing
   * first; false when none has been unused for displaceAfterMs. `inIdleOrder`: ties in idleSince go to the first to become idle, not the first listed.
   */
  private displace(candidates: Iterable<Socket>, fits: (held: Held) => boolean = () => true, inIdleOrder = false): boolean {
    const cutoff = Date.now() - this.displaceAfterMs;
    let unused: [Socket, Held] | undefined;
    let silent: [Socket, Held] | undefined;
    for (const socket of candidates) {
      const held = this.held.get(socket);
      if (!held || held.busy > 0 || held.upgraded || held.idleSince > cutoff || !fits(held)) continue;
      if (!unused || (inIdleOrder ? held.idleOrder < unused[1].idleOrder : held.idleSince < unused[1].idleSince)) unused = [socket, held];
      if (socket.bytesRead === 0 && (!silent || held.openedAt < silent[1].openedAt)) silent = [socket, held];
    }
    const victim = silent ?? unused;
    if (!victim) return false;
    this.forget(victim[0]);
    victim[0].destroy();
    return true;
  }

  /** Close what has sent nothing for firstByteTimeoutMs (idle since its opening, so never in use). */
  private closeSilent(): void {
    const cutoff = Date.now() - this.limits.firstByteTimeoutMs;
    for (const [socket, held] of this.held) {
      if (held.busy > 0 || held.upgraded || held.idleSince > cutoff || socket.bytesRead > 0) continue;
      this.forget(socket);
      socket.destroy();
    }
  }

  /** Out of every count at once: its place is free before its close event comes. */
  private forget(socket: Socket): void {
    const held = this.held.get(socket);
    if (!held) return;
    this.leaveShares(socket, held);
    const share = this.addresses.get(held.address);
    share?.all.delete(socket);
    if (share?.all.size === 0) this.addresses.delete(held.address);
    this.held.delete(socket);
  }

  /** Leave the share it counts against (its principal's, or its address's own), not the address's total. */
  private leaveShares(socket: Socket, held: Held): void {
    if (held.principalKey === undefined) {
      const share = this.addresses.get(held.address);
      if (share) share.unauthenticated--;
      return;
    }
    const share = this.principals.get(held.principalKey);
    share?.delete(socket);
    if (share?.size === 0) this.principals.delete(held.principalKey);
  }

  /**
   * The 503 goes out before any request, so the client learns why; the socket closes when the client
   * closes its side, or after a moment (destroying it at once could reset it before the client reads
   * the answer). Past MAX_LINGERING such sockets, a flood is dropped unanswered.
   */
  private refuse(socket: Socket, message: string): void {
    refused.add(socket);
    socket.on('error', () => {});
    if (this.lingering >= MAX_LINGERING) return void socket.destroy();
    this.lingering++;
    writeRawResponse(socket, 503, message, { 'Retry-After': '1' });
    const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
    timer.unref();
    socket.once('close', () => {
      clearTimeout(timer);
      this.lingering--;
    });
  }
}

/**
 * Count `socket` against `principal`'s share of its server's connections (a no-op for a server that
 * keeps no budget, such as one mounted by the application). False when that share is full.
 */
export function chargeConnection(socket: Socket, principal: unknown): boolean {
  return budgets.get(socket)?.charge(socket, principal) ?? true;
}

/** The connection became a WebSocket: in use for as long as it is open. */
export function connectionUpgraded(socket: unknown): void {
  budgets.get(socket as Socket)?.upgraded(socket as Socket);
}

/** Whether `socket` was refused at arrival: nothing it sends is served. */
export function isRefusedConnection(socket: unknown): boolean {
  return refused.has(socket as Socket);
}
