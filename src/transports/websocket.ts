/**
 * WebSocket transport: subprotocol `mcp`, one JSON-RPC message per UTF-8 text frame, one session per
 * socket (the convention of both official SDKs' WebSocket transports; no MCP revision defines one).
 */
import { createServer, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, WebSocket, type RawData } from 'ws';
import { ErrorCode } from '../protocol/errors.js';
import { errorResponse, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import { positiveInteger } from '../protocol/option-checks.js';
import { isPrincipal } from '../protocol/principal.js';
import { type Channel, type Closable, type PortOwner, portOf, type ServerPort } from '../server/port.js';
import { closeHttpServer, type ListeningAddress, type ListenOptions, listenOn, pathOf, rejectUpgrade } from './listen.js';
import { type AllowedOrigins, checkAllowedOrigins, isOriginAllowed } from './origin.js';

export interface WebSocketTransportOptions {
  /** The path upgrades are accepted on. Default `/mcp`, the same path Streamable HTTP uses. */
  path?: string;
  /** Largest accepted frame, in bytes; a larger one closes the connection with 1009. Default 4 MiB. */
  maxPayload?: number;
  /** Ping every this many ms and drop a peer that did not answer the previous ping. Default 30 000; 0 turns it off. */
  keepAliveIntervalMs?: number;
  /** Origins allowed to connect. Default: requests without Origin, and loopback origins. */
  allowedOrigins?: AllowedOrigins;
  /** Authenticate the upgrade request: return a principal (kept on the session), or nothing for 401. */
  auth?: (req: IncomingMessage) => unknown | Promise<unknown>;
}

const SUBPROTOCOL = 'mcp';
const BINARY_FRAME_ERROR = errorResponse(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Invalid Request: binary frames are not accepted; send each JSON-RPC message as one UTF-8 text frame',
});

export class WebSocketTransport implements Closable {
  readonly path: string;
  private readonly wss: WebSocketServer;
  private readonly options: Required<Omit<WebSocketTransportOptions, 'allowedOrigins' | 'auth'>> & Pick<WebSocketTransportOptions, 'allowedOrigins' | 'auth'>;
  private readonly awaitingPong = new WeakSet<WebSocket>();
  private readonly attached = new Map<HttpServer, (req: IncomingMessage, socket: Duplex, head: Buffer) => void>();
  private ownServer: HttpServer | undefined;
  private keepAlive: NodeJS.Timeout | undefined;
  private closing: Promise<void> | undefined;
  private readonly port: ServerPort;
  private unregister: (() => void) | undefined;

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: WebSocketTransportOptions = {}) {
    this.port = portOf(server, 'WebSocketTransport');
    this.options = {
      path: options.path ?? '/mcp',
      maxPayload: options.maxPayload ?? 4 * 1024 * 1024,
      keepAliveIntervalMs: options.keepAliveIntervalMs ?? 30_000,
      allowedOrigins: options.allowedOrigins,
      auth: options.auth,
    };
    if (options.auth !== undefined && typeof options.auth !== 'function') throw new TypeError('Option auth must be a function (req) => principal');
    if (!this.options.path.startsWith('/')) throw new TypeError(`WebSocketTransport option path must start with '/'; got ${JSON.stringify(this.options.path)}`);
    positiveInteger('maxPayload', this.options.maxPayload);
    checkAllowedOrigins('allowedOrigins', this.options.allowedOrigins);
    if (this.options.keepAliveIntervalMs !== 0) positiveInteger('keepAliveIntervalMs', this.options.keepAliveIntervalMs);
    this.path = this.options.path;
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: this.options.maxPayload,
      handleProtocols: (offered) => (offered.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
  }

  /** Listen on a port of its own. Plain HTTP requests there get 426; other paths get 404. */
  async listen(options: ListenOptions = {}): Promise<ListeningAddress> {
    if (this.ownServer) throw new Error('WebSocketTransport is already listening; create another transport for another port');
    const http = createServer((_req, res) => {
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
      if (pathOf(req.url) !== this.path) {
        if (exclusive) rejectUpgrade(socket, 404, `No MCP endpoint here; connect to ${this.path}`);
        return;
      }
      this.upgrade(req, socket, head);
    };
    http.on('upgrade', onUpgrade);
    this.attached.set(http, onUpgrade);
    this.unregister ??= this.port.register(this);
    this.startKeepAlive();
    return this;
  }

  /** Stop accepting, close every socket (1001), and close the port if this transport opened it. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      if (this.keepAlive) clearInterval(this.keepAlive);
      for (const [http, onUpgrade] of this.attached) http.off('upgrade', onUpgrade);
      this.attached.clear();
      // Give peers a moment to answer the closing handshake, then drop the ones that do not.
      const closed = [...this.wss.clients].map((ws) => new Promise((resolve) => ws.once('close', resolve)));
      for (const ws of this.wss.clients) ws.close(1001, 'server shutting down');
      await settleWithin(Promise.all(closed), CLOSE_GRACE_MS);
      for (const ws of this.wss.clients) ws.terminate();
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
      if (this.ownServer) await closeHttpServer(this.ownServer);
      this.unregister?.();
    })();
    return this.closing;
  }

  private upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (this.closing) return rejectUpgrade(socket, 503, 'Server is shutting down');
    if (!isOriginAllowed(req, this.options.allowedOrigins)) return rejectUpgrade(socket, 403, `Origin ${req.headers.origin} is not allowed`);
    const offered = req.headers['sec-websocket-protocol'];
    if (offered !== undefined && !offered.split(',').some((p) => p.trim() === SUBPROTOCOL)) {
      return rejectUpgrade(socket, 400, `Unsupported WebSocket subprotocol; offer '${SUBPROTOCOL}'`);
    }
    if (!this.options.auth) return this.accept(req, socket, head, undefined);
    Promise.resolve()
      .then(() => this.options.auth!(req))
      .then(
        (principal) => {
          if (!isPrincipal(principal)) rejectUpgrade(socket, 401, 'Unauthorized: send valid credentials');
          else this.accept(req, socket, head, principal);
        },
        (err) => {
          this.port.reportError(err);
          rejectUpgrade(socket, 500, 'Internal error');
        },
      );
  }

  private accept(req: IncomingMessage, socket: Duplex, head: Buffer, principal: unknown): void {
    this.wss.handleUpgrade(req, socket, head, (ws) => this.onConnection(ws, req, principal));
  }

  private onConnection(ws: WebSocket, req: IncomingMessage, principal: unknown): void {
    const channel: Channel = {
      kind: 'websocket',
      remoteAddress: req.socket.remoteAddress,
      send(message: JsonRpcMessage | JsonRpcMessage[]) {
        if (ws.readyState !== WebSocket.OPEN) return false;
        ws.send(JSON.stringify(message));
        return true;
      },
      close(reason: string) {
        ws.close(1000, truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
      },
    };
    const connection = this.port.connect(channel, principal);
    ws.on('message', (data: RawData, isBinary: boolean) => {
      this.awaitingPong.delete(ws);
      if (isBinary) {
        this.port.countInvalidMessage();
        channel.send(BINARY_FRAME_ERROR);
        return;
      }
      connection.receive(rawToString(data));
    });
    ws.on('pong', () => this.awaitingPong.delete(ws));
    let tooBig = false;
    ws.on('error', (err: Error & { code?: string }) => {
      // ws closes with 1009 itself, then never reads the peer's close frame, so the close event says 1006.
      if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') tooBig = true;
      this.port.reportError(err, connection);
    });
    ws.on('close', (code: number, reason: Buffer) => {
      const why = tooBig ? `1009: a frame exceeded maxPayload (${this.options.maxPayload} bytes)` : `${code}${reason.length ? `: ${reason.toString()}` : ''}`;
      connection.closed(`websocket closed (${why})`);
    });
  }

  private startKeepAlive(): void {
    if (this.keepAlive || this.options.keepAliveIntervalMs === 0) return;
    this.keepAlive = setInterval(() => {
      for (const ws of this.wss.clients) {
        if (this.awaitingPong.has(ws)) {
          ws.terminate();
          continue;
        }
        this.awaitingPong.add(ws);
        ws.ping();
      }
    }, this.options.keepAliveIntervalMs);
    this.keepAlive.unref();
  }
}

/** RFC 6455: a close reason is at most 123 bytes; cut on a UTF-8 character boundary. */
const MAX_CLOSE_REASON_BYTES = 123;
const CLOSE_GRACE_MS = 1000;

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString();
}

function settleWithin(promise: Promise<unknown>, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    promise.then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function rawToString(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
