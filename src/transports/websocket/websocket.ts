/**
 * WebSocket transport: subprotocol `mcp`, one JSON-RPC message per UTF-8 text frame, one session per
 * socket (the convention of both official SDKs' WebSocket transports; no MCP revision defines one).
 */
import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { MAX_TIMER_MS } from '../../protocol/option-checks.js';
import { settlesWithin } from '../../rpc/settles-within.js';
import { type Closable, type PortOwner, portOf, type ServerPort } from '../../server/port.js';
import { connectionUpgraded, isRefusedConnection } from '../connection-budget.js';
import { type GateRefusal, pathOf, SHUTTING_DOWN, TransportGate } from '../gate.js';
import { closeHttpServer, createLimitedServer, healthPaths, type ListeningAddress, type ListenOptions, listenOn, rejectUpgrade } from '../listen.js';
import { type ResolvedWebSocketOptions, resolveWebSocketOptions, type WebSocketTransportOptions } from './options.js';
import { idleSweepIntervalMs } from '../idle-sweep.js';
import { WsPeer } from './ws-peer.js';

export type { WebSocketTransportOptions } from './options.js';

const SUBPROTOCOL = 'mcp';

/** An upgrade refused: the gate's status and message as a plain HTTP answer (the socket closes with it). */
function refuseUpgrade(socket: Duplex, refusal: GateRefusal): void {
  const { connection: _closes, ...headers } = refusal.headers;
  rejectUpgrade(socket, refusal.status, refusal.message, headers);
}

export class WebSocketTransport implements Closable {
  readonly path: string;
  private readonly wss: WebSocketServer;
  private readonly options: ResolvedWebSocketOptions;
  private readonly gate: TransportGate;
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
    this.options = resolveWebSocketOptions(options);
    this.gate = new TransportGate(this.port, {
      path: this.options.path,
      scheme: 'ws',
      allowedHosts: this.options.allowedHosts,
      allowedOrigins: this.options.allowedOrigins,
      auth: this.options.auth,
    });
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
      // Health, Host, then the metadata document; Origin too, which a plain request gets no further for.
      const screened = this.gate.screen(req, { health, endpointOnly: false });
      if (screened) {
        const body = 'code' in screened ? `${screened.message}\n` : screened.body;
        res.writeHead(screened.status, 'code' in screened ? { ...screened.headers, 'content-type': 'text/plain' } : screened.headers).end(body);
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

  /** The gate's order: Host, Origin, auth (and the principal's share), then draining and the session limit. */
  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const gate = this.gate;
    // An upgrade comes to the endpoint's path: the gate has no document to answer it with, only refusals.
    const early = this.closing ? SHUTTING_DOWN : gate.screen(req);
    if (early && 'code' in early) return refuseUpgrade(socket, early);
    const offered = req.headers['sec-websocket-protocol'];
    if (offered !== undefined && !offered.split(',').some((p) => p.trim() === SUBPROTOCOL)) {
      return rejectUpgrade(socket, 400, `Unsupported WebSocket subprotocol; offer '${SUBPROTOCOL}'`);
    }
    if (!this.options.auth) return this.accept(req, socket, head, undefined);
    gate
      .authenticate(req)
      .then((outcome) => {
        if ('refused' in outcome) return refuseUpgrade(socket, outcome.refused);
        this.accept(req, socket, head, outcome.principal);
      })
      // Whatever fails here (the auth hook, the answer itself) is this request's 500, never the process's end.
      .catch((err: unknown) => {
        this.port.reportError(err);
        rejectUpgrade(socket, 500, 'Internal error');
      });
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, principal: unknown): void {
    // After an async auth too: the server may have begun to drain, or others taken the last places.
    const refused = this.closing ? SHUTTING_DOWN : this.gate.admit(true);
    if (refused) return refuseUpgrade(socket, refused);
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
      this.timers.push(setInterval(() => this.sweepIdle(), idleSweepIntervalMs(sessionIdleTimeoutMs)));
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
