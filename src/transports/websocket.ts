/**
 * WebSocket transport: subprotocol `mcp`, one JSON-RPC message per UTF-8 text frame, one session per
 * socket (the convention of both official SDKs' WebSocket transports; no MCP revision defines one).
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import { settlesWithin } from '../rpc/settles-within.js';
import { type Closable, type PortOwner, portOf, type ServerPort } from '../server/port.js';
import {
  type AuthOption,
  authenticate,
  checkAuthOption,
  type HttpAuthenticator,
  isAuthenticator,
  isMetadataPath,
  metadataResponse,
  refusalHeaders,
  resourceOf,
} from './auth.js';
import {
  answerHealth,
  closeHttpServer,
  createLimitedServer,
  healthPaths,
  type ListeningAddress,
  type ListenOptions,
  listenOn,
  pathOf,
  rejectUpgrade,
} from './listen.js';
import { chargeConnection, connectionUpgraded, isRefusedConnection, TOO_MANY_FOR_PRINCIPAL } from './connection-budget.js';
import { type AllowedOrigins, checkAllowedHosts, checkAllowedOrigins, isHostAllowed, isOriginAllowed } from './origin.js';
import { WsPeer } from './ws-peer.js';

export interface WebSocketTransportOptions {
  /** The path upgrades are accepted on. Default `/mcp`, the same path Streamable HTTP uses. */
  path?: string;
  /** The largest message read, in bytes (one frame); a larger one closes the connection with 1009. Default 4 MiB. */
  maxMessageBytes?: number;
  /** Ping every this many ms and drop a peer that did not answer the previous ping. Default 30 000; 0 turns it off. */
  keepAliveIntervalMs?: number;
  /** Origins allowed to connect. Default: requests without Origin, and loopback origins. */
  allowedOrigins?: AllowedOrigins;
  /** Host names allowed (403 otherwise). Default: on a loopback address, only loopback names (DNS rebinding). */
  allowedHosts?: readonly string[];
  /**
   * Authenticate the upgrade request: `bearer({ issuer, audience, jwksUri })`, or a function returning a
   * principal (kept on the session), or nothing for 401; an `AuthError` refuses with its status and challenge.
   */
  auth?: AuthOption;
  /** Bytes queued to one peer above which it is no longer read from, until they have gone out. Default 1 MiB. */
  sendHighWaterMark?: number;
  /** Bytes queued to one peer at which it is closed (1008): it does not read what it is sent. Default 16 MiB. */
  maxBufferedBytes?: number;
  /** A connection must send its first message within this long, or it is closed (1008). Default 10 000; 0 turns it off. */
  firstMessageTimeoutMs?: number;
  /** End a session with no message either way and nothing under way for this long (close 1000, `idle timeout`). Default 30 minutes; 0 turns it off. */
  sessionIdleTimeoutMs?: number;
}

const SUBPROTOCOL = 'mcp';

type ResolvedOptions = Required<Omit<WebSocketTransportOptions, 'allowedOrigins' | 'allowedHosts' | 'auth'>> &
  Pick<WebSocketTransportOptions, 'allowedOrigins' | 'allowedHosts' | 'auth'>;

export class WebSocketTransport implements Closable {
  readonly path: string;
  private readonly wss: WebSocketServer;
  private readonly options: ResolvedOptions;
  private readonly peers = new Set<WsPeer>();
  private readonly attached = new Map<HttpServer, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>();
  private ownServer: HttpServer | undefined;
  private timers: NodeJS.Timeout[] = [];
  private closing: Promise<void> | undefined;
  private readonly port: ServerPort;
  private unregister: (() => void) | undefined;

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: WebSocketTransportOptions = {}) {
    this.port = portOf(server, 'WebSocketTransport');
    this.options = {
      path: options.path ?? '/mcp',
      maxMessageBytes: options.maxMessageBytes ?? 4 * 1024 * 1024,
      keepAliveIntervalMs: options.keepAliveIntervalMs ?? 30_000,
      allowedOrigins: options.allowedOrigins,
      allowedHosts: options.allowedHosts,
      auth: options.auth,
      sendHighWaterMark: options.sendHighWaterMark ?? 1024 * 1024,
      maxBufferedBytes: options.maxBufferedBytes ?? 16 * 1024 * 1024,
      firstMessageTimeoutMs: options.firstMessageTimeoutMs ?? 10_000,
      sessionIdleTimeoutMs: options.sessionIdleTimeoutMs ?? 30 * 60_000,
    };
    checkAuthOption(options.auth);
    if (!this.options.path.startsWith('/')) throw new TypeError(`WebSocketTransport option path must start with '/'; got ${JSON.stringify(this.options.path)}`);
    positiveInteger('maxMessageBytes', this.options.maxMessageBytes);
    positiveInteger('sendHighWaterMark', this.options.sendHighWaterMark);
    positiveInteger('maxBufferedBytes', this.options.maxBufferedBytes);
    if (this.options.maxBufferedBytes < this.options.sendHighWaterMark) {
      throw new TypeError(`Option maxBufferedBytes (${this.options.maxBufferedBytes}) must be at least sendHighWaterMark (${this.options.sendHighWaterMark})`);
    }
    for (const key of ['keepAliveIntervalMs', 'firstMessageTimeoutMs', 'sessionIdleTimeoutMs'] as const) {
      if (this.options[key] !== 0) positiveInteger(key, this.options[key], MAX_TIMER_MS);
    }
    checkAllowedOrigins('allowedOrigins', this.options.allowedOrigins);
    checkAllowedHosts('allowedHosts', this.options.allowedHosts);
    this.path = this.options.path;
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxMessageBytes,
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
  }

  /** Listen on a port of its own. Plain HTTP requests there get 426; other paths get 404. */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('WebSocketTransport is already listening; create another transport for another port');
    const health = healthPaths(options);
    const http = createLimitedServer(options, (req, res) => {
      if (answerHealth(req, res, health, () => this.port.readiness())) return;
      const auth = this.options.auth;
      if (
        isAuthenticator(auth) &&
        auth.protectedResourceMetadata &&
        (req.method === 'GET' || req.method === 'HEAD') &&
        isMetadataPath(pathOf(req.url), this.path)
      ) {
        // The metadata may name the resource after Host: only a Host this server answers to may shape it.
        if (!isHostAllowed(req, this.options.allowedHosts)) {
          res.writeHead(403, { 'content-type': 'text/plain' }).end(`Forbidden: Host ${req.headers.host ?? '(none)'} is not allowed\n`);
          return;
        }
        let resource: string;
        try {
          resource = resourceOf(auth, req, this.path, 'ws');
        } catch (err) {
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`${(err as Error).message}\n`);
          return;
        }
        const { headers, body } = metadataResponse(auth, resource, req.method === 'HEAD');
        res.writeHead(200, headers).end(body);
        return;
      }
      res
        .writeHead(426, { 'content-type': 'text/plain', upgrade: 'websocket' })
        .end(`Upgrade to WebSocket at ${this.path} with subprotocol '${SUBPROTOCOL}'\n`);
    });
    this.ownServer = http;
    this.attach(http, { exclusive: true });
    return listenOn(http, options, 'ws', this.path);
  }

  /**
   * Handle WebSocket upgrades on `path` of an existing `node:http` server. Upgrades on other paths
   * are left to other listeners, unless `exclusive` (then they get 404).
   */
  attach(http: HttpServer, { exclusive = false }: { exclusive?: boolean } = {}): this {
    if (this.attached.has(http)) return this;
    const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (isRefusedConnection(socket)) return;
      if (pathOf(req.url) !== this.path) {
        if (exclusive) rejectUpgrade(socket, 404, `No MCP endpoint here; connect to ${this.path}`);
        return;
      }
      // In use from here on: a session, or refused and closed.
      connectionUpgraded(socket);
      this.upgrade(req, socket, head);
    };
    http.on('upgrade', onUpgrade);
    this.attached.set(http, onUpgrade);
    this.unregister ??= this.port.register(this);
    this.startTimers();
    return this;
  }

  /** Stop accepting, close every socket (1001), and close the port if this transport opened it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of this.timers) clearInterval(timer);
      for (const [http, onUpgrade] of this.attached) http.off('upgrade', onUpgrade);
      this.attached.clear();
      // Give peers a moment to answer the closing handshake, then drop the ones that do not.
      const closed = [...this.wss.clients].map((ws) => new Promise((resolve) => ws.once('close', resolve)));
      for (const ws of this.wss.clients) ws.close(1001, 'server shutting down');
      await settlesWithin(Promise.all(closed), CLOSE_GRACE_MS);
      for (const ws of this.wss.clients) ws.terminate();
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
      if (this.ownServer) await closeHttpServer(this.ownServer);
      this.unregister?.();
    })();
    return this.closing;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing || this.port.draining) return rejectUpgrade(socket, 503, 'Server is shutting down', { 'Retry-After': '1' });
    if (!isHostAllowed(req, this.options.allowedHosts)) return rejectUpgrade(socket, 403, `Forbidden: Host ${req.headers.host ?? '(none)'} is not allowed`);
    if (!isOriginAllowed(req, this.options.allowedOrigins)) return rejectUpgrade(socket, 403, `Origin ${req.headers.origin} is not allowed`);
    const offered = req.headers['sec-websocket-protocol'];
    if (offered !== undefined && !offered.split(',').some((p) => p.trim() === SUBPROTOCOL)) {
      return rejectUpgrade(socket, 400, `Unsupported WebSocket subprotocol; offer '${SUBPROTOCOL}'`);
    }
    if (this.atSessionLimit(socket)) return;
    const auth = this.options.auth;
    if (!auth) return this.accept(req, socket, head, undefined);
    const resource = () => resourceOf(auth as HttpAuthenticator, req, this.path, 'ws');
    authenticate(auth, req, resource)
      .then((outcome) => {
        if ('principal' in outcome) return this.accept(req, socket, head, outcome.principal);
        const { refused } = outcome;
        if (refused.cause !== undefined) this.port.reportError(refused.cause);
        rejectUpgrade(socket, refused.status, refused.message, refusalHeaders(auth, refused, resource, 'Bearer realm="mcp"'));
      })
      // Whatever fails here (the auth hook, the answer itself) is this request's 500, never the process's end.
      .catch((err: unknown) => {
        this.port.reportError(err);
        rejectUpgrade(socket, 500, 'Internal error');
      });
  }

  /** At the server's session limit the upgrade gets 503 (checked again after an async `auth`: others may have come meanwhile). */
  private atSessionLimit(socket: Duplex): boolean {
    const limit = this.port.sessionLimitReached();
    if (limit === undefined) return false;
    rejectUpgrade(socket, 503, `Service Unavailable: the server is at its limit of ${limit} sessions; try again later`);
    return true;
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, principal: unknown): void {
    // After an async auth: the server may have begun to drain, or others taken the last places.
    if (this.options.auth && (this.closing || this.port.draining)) return rejectUpgrade(socket, 503, 'Server is shutting down', { 'Retry-After': '1' });
    if (this.options.auth && this.atSessionLimit(socket)) return;
    if (!chargeConnection(req.socket, principal)) return rejectUpgrade(socket, 503, TOO_MANY_FOR_PRINCIPAL, { 'Retry-After': '1' });
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req, principal));
  }

  private onConnection(ws: WebSocket, req: IncomingMessage, principal: unknown): void {
    const peer = new WsPeer(ws, req.socket.remoteAddress, this.port, this.options);
    this.peers.add(peer);
    peer.start(principal);
    // A connection lives no longer than the token that opened it: at its `expiresAt` (bearer()'s principals) it closes.
    const expiresAt = (principal as { expiresAt?: unknown } | undefined)?.expiresAt;
    if (typeof expiresAt === 'number') {
      const left = expiresAt * 1000 - Date.now();
      if (left < MAX_TIMER_MS) {
        const timer = setTimeout(() => ws.close(1008, 'the access token expired: connect again with a new one'), Math.max(0, left));
        timer.unref();
        ws.once('close', () => clearTimeout(timer));
      }
    }
    let tooBig = false;
    ws.on('error', (err: Error & { code?: string }) => {
      // ws closes with 1009 itself, then never reads the peer's close frame, so the close event says 1006.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') tooBig = true;
      this.port.reportError(err, peer.connection);
    });
    ws.on('close', (code: number, reason: Buffer) => {
      this.peers.delete(peer);
      peer.ended();
      const why = tooBig
        ? `1009: a frame exceeded maxMessageBytes (${this.options.maxMessageBytes} bytes)`
        : `${code}${reason.length ? `: ${reason.toString()}` : ''}`;
      peer.connection.closed(`websocket closed (${why})`);
    });
  }

  private startTimers(): void {
    if (this.timers.length > 0) return;
    const { keepAliveIntervalMs, sessionIdleTimeoutMs } = this.options;
    if (keepAliveIntervalMs > 0) this.timers.push(setInterval(() => this.forEachPeer((peer) => peer.ping()), keepAliveIntervalMs));
    if (sessionIdleTimeoutMs > 0) {
      this.timers.push(setInterval(() => this.sweepIdle(), Math.min(Math.max(Math.floor(sessionIdleTimeoutMs / 2), 10), 60_000)));
    }
    for (const timer of this.timers) timer.unref();
  }

  private forEachPeer(fn: (peer: WsPeer) => void): void {
    for (const peer of [...this.peers]) fn(peer);
  }

  /** Idle: nothing went either way for sessionIdleTimeoutMs, and no request is under way in either direction. */
  private sweepIdle(): void {
    const cutoff = Date.now() - this.options.sessionIdleTimeoutMs;
    this.forEachPeer((peer) => {
      const { connection } = peer;
      if (peer.lastActivityMs < cutoff && !connection.busy && connection.session.pendingRequests === 0) peer.close('idle timeout');
    });
  }
}

const CLOSE_GRACE_MS = 1000;
