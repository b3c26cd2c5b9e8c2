/**
 * Fair shares of a listening server's connections: every client (its remote address, or its principal
 * once a request has authenticated one) may hold a share of them, and a newcomer at a limit first
 * displaces the oldest connection that has sent nothing, so silent sockets cannot lock anyone out.
 */
import { isIPv6, type Socket } from 'node:net';
import { principalKey } from '../protocol/principal.js';

export interface ConnectionLimits {
  /** Connections open at once, over every client. */
  maxConnections: number;
  /** Connections one client may hold: one remote address (an IPv6 /64), or one principal. */
  maxConnectionsPerClient: number;
  /** A connection that has sent no byte for this long is closed; for a fifth of it, it may be displaced. */
  firstByteTimeoutMs: number;
}

interface Held {
  /** The share this connection counts against: its address's, or its principal's. */
  key: string;
  readonly openedAt: number;
}

/** What a connection refused for its principal's share is told. */
export const TOO_MANY_FOR_PRINCIPAL = 'Service Unavailable: too many connections for this principal; close some and try again';

/** Sockets refused at arrival: their 503 is on its way, and whatever they send is not served. */
const refused = new WeakSet<Socket>();
/** Which budget holds a socket, so a transport can charge it to a principal without knowing its server. */
const budgets = new WeakMap<Socket, ConnectionBudget>();

export class ConnectionBudget {
  private readonly shares = new Map<string, Set<Socket>>();
  private readonly held = new Map<Socket, Held>();
  /** Connections that had sent nothing when last looked at, oldest first (pruned as they are looked at). */
  private readonly silent = new Set<Socket>();
  private readonly sweeper: NodeJS.Timeout;
  /** How long a connection must have been silent before a newcomer may displace it: a burst of fresh ones is not an attack. */
  private readonly displaceAfterMs: number;

  constructor(private readonly limits: ConnectionLimits) {
    this.displaceAfterMs = Math.floor(limits.firstByteTimeoutMs / 5);
    const every = Math.max(Math.floor(limits.firstByteTimeoutMs / 2), 10);
    this.sweeper = setInterval(() => this.closeSilent(), every);
    this.sweeper.unref();
  }

  /** Connections held now. */
  get size(): number {
    return this.held.size;
  }

  /** A connection arrived: keep it (displacing a silent one at a limit), or answer 503 and close it. */
  admit(socket: Socket): void {
    const key = addressKey(socket.remoteAddress);
    if (this.isFull(key) && !this.displaceFrom(key)) {
      return refuse(socket, `Too many connections from your address (limit ${this.limits.maxConnectionsPerClient}); close some and try again`);
    }
    if (this.held.size >= this.limits.maxConnections && !this.displaceOldestSilent()) {
      return refuse(socket, `The server is at its limit of ${this.limits.maxConnections} connections; try again later`);
    }
    this.join(socket, key);
    this.held.set(socket, { key, openedAt: Date.now() });
    this.silent.add(socket);
    budgets.set(socket, this);
    socket.once('close', () => this.forget(socket));
  }

  /**
   * The connection authenticated `principal`: it counts against that principal's share from now on,
   * and no longer against its address. False when the principal's share is full of connections that
   * are all in use.
   */
  charge(socket: Socket, principal: unknown): boolean {
    const held = this.held.get(socket);
    // Only a principal with an id names one client: `true` from an auth hook would be everyone.
    const id = typeof principal === 'object' ? principalKey(principal) : undefined;
    if (!held || !id?.startsWith('id:')) return true;
    const key = `principal:${id}`;
    if (held.key === key) return true;
    if (this.isFull(key) && !this.displaceFrom(key)) return false;
    this.leave(socket, held.key);
    this.join(socket, key);
    held.key = key;
    return true;
  }

  close(): void {
    clearInterval(this.sweeper);
  }

  private isFull(key: string): boolean {
    return (this.shares.get(key)?.size ?? 0) >= this.limits.maxConnectionsPerClient;
  }

  private join(socket: Socket, key: string): void {
    let share = this.shares.get(key);
    if (!share) this.shares.set(key, (share = new Set()));
    share.add(socket);
  }

  /** End the oldest connection of `key`'s share that has long sent nothing; false when it has none. */
  private displaceFrom(key: string): boolean {
    const cutoff = Date.now() - this.displaceAfterMs;
    for (const socket of this.shares.get(key) ?? []) {
      const held = this.held.get(socket);
      if (held && held.openedAt > cutoff) return false;
      if (socket.bytesRead === 0) {
        this.drop(socket);
        return true;
      }
    }
    return false;
  }

  private displaceOldestSilent(): boolean {
    const cutoff = Date.now() - this.displaceAfterMs;
    for (const socket of this.silent) {
      const held = this.held.get(socket);
      if (!held || socket.bytesRead > 0) {
        this.silent.delete(socket);
        continue;
      }
      if (held.openedAt > cutoff) return false;
      this.drop(socket);
      return true;
    }
    return false;
  }

  /** Close what has sent nothing for firstByteTimeoutMs; forget what has spoken since. */
  private closeSilent(): void {
    const cutoff = Date.now() - this.limits.firstByteTimeoutMs;
    for (const socket of this.silent) {
      const held = this.held.get(socket);
      if (!held || socket.bytesRead > 0) {
        this.silent.delete(socket);
        continue;
      }
      if (held.openedAt > cutoff) return;
      this.drop(socket);
    }
  }

  /** Out of every count at once: its place is free before its close event comes. */
  private drop(socket: Socket): void {
    this.forget(socket);
    socket.destroy();
  }

  private forget(socket: Socket): void {
    const held = this.held.get(socket);
    if (!held) return;
    this.leave(socket, held.key);
    this.held.delete(socket);
    this.silent.delete(socket);
  }

  private leave(socket: Socket, key: string): void {
    const share = this.shares.get(key);
    share?.delete(socket);
    if (share?.size === 0) this.shares.delete(key);
  }
}

/**
 * Count `socket` against `principal`'s share of its server's connections (a no-op for a server that
 * keeps no budget, such as one mounted by the application). False when that share is full.
 */
export function chargeConnection(socket: Socket, principal: unknown): boolean {
  return budgets.get(socket)?.charge(socket, principal) ?? true;
}

/** Whether `socket` was refused at arrival: nothing it sends is served. */
export function isRefusedConnection(socket: unknown): boolean {
  return refused.has(socket as Socket);
}

/**
 * The 503 goes out before any request, so the client learns why; the socket closes when the client
 * closes its side, or after a moment. Destroying it at once could reset the connection before the
 * client has read the answer.
 */
function refuse(socket: Socket, message: string): void {
  refused.add(socket);
  const body = `${message}\n`;
  socket.on('error', () => {});
  socket.end(
    `HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
  const timer = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
}

const REFUSED_LINGER_MS = 2000;

/**
 * The client an address stands for: IPv4 as it is (IPv4-mapped IPv6 included), IPv6 by its /64, the
 * smallest block one subscriber is usually given (RFC 6177).
 */
export function addressKey(address: string | undefined): string {
  if (!address) return 'address:unknown';
  if (address.startsWith('::ffff:') && address.includes('.')) return `address:${address.slice(7)}`;
  if (!isIPv6(address)) return `address:${address}`;
  return `address:${ipv6Prefix64(address)}::/64`;
}

/** The first four groups of an IPv6 address, written out. */
function ipv6Prefix64(address: string): string {
  const bare = address.split('%')[0];
  const [head, tail] = bare.includes('::') ? bare.split('::') : [bare, undefined];
  const front = head ? head.split(':') : [];
  const back = tail === undefined ? [] : tail ? tail.split(':') : [];
  // A trailing dotted quad (`::ffff:1.2.3.4`, `64:ff9b::1.2.3.4`) stands for two groups.
  const written = front.length + back.length + (bare.includes('.') ? 1 : 0);
  const groups = tail === undefined ? front : [...front, ...Array(Math.max(8 - written, 0)).fill('0'), ...back];
  return groups
    .slice(0, 4)
    .map((g) => Number.parseInt(g || '0', 16).toString(16))
    .join(':');
}
