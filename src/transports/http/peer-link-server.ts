/**
 * The owner's side of peer links (peer-link.ts): each frame a peer sends becomes a request served as any
 * other, in a request and a response shaped as node:http's (as much of them as the transport uses), and
 * what is written to the response goes back as frames.
 */
import { EventEmitter } from 'node:events';
import { type IncomingMessage, type ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { rejectUpgrade } from '../listen.js';
import { connectionUpgraded } from '../connection-budget.js';
import {
  FrameQueue,
  heartbeat,
  isStringList,
  maxLinkMessageBytes,
  PEER_SUBPROTOCOL,
  PROOF_HEADER,
  ProofCheck,
  parseFrames,
  type ResponseFrame,
} from './peer-frames.js';
import { endToEnd } from './session-router.js';

/** How long a refused link's connection may stay, for its 403 to go out. */
const REFUSED_LINGER_MS = 2000;

/** What a link's request is served with: the transport's own handling of any request. */
export type ServeRequest = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The links peers opened to this instance: each frame becomes a request served as any other, whose
 * response goes back as frames. `accept` takes upgrades to PEER_PATH.
 */
export class PeerLinkServer {
  private readonly wss: WebSocketServer;
  /** Each open link, with the queue of what goes back on it. */
  private readonly open = new Map<WebSocket, FrameQueue<ResponseFrame>>();

  private readonly proofs: ProofCheck;

  /** @param maxMessageBytes the transport's: a peer's request body is no larger (the peer's transport read it under its own). */
  constructor(
    keys: readonly string[],
    private readonly serve: ServeRequest,
    maxMessageBytes: number,
  ) {
    this.proofs = new ProofCheck(keys);
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: maxLinkMessageBytes(maxMessageBytes) });
  }

  /** An upgrade to PEER_PATH: a link, if it proves the peer key; otherwise refused, and its connection closed. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (req.headers['sec-websocket-protocol'] !== PEER_SUBPROTOCOL || !this.proofs.accept(req.headers[PROOF_HEADER] as string | undefined)) {
      rejectUpgrade(socket, 403, 'Forbidden: a peer link needs the key the instances share');
      // A client that never closes its side does not keep the connection.
      setTimeout(() => socket.destroy(), REFUSED_LINGER_MS).unref();
      return;
    }
    // In use for as long as it is open, as a WebSocket session's connection is.
    connectionUpgraded(socket);
    this.wss.handleUpgrade(req, socket, head, (ws) => this.linked(ws, req.socket));
  }

  /** What the links have queued goes first (the ends of the streams the transport just closed), then the links. */
  close(): void {
    for (const [ws, queue] of this.open) {
      queue.flush();
      ws.close(1001, 'closing');
    }
    this.open.clear();
  }

  private linked(ws: WebSocket, socket: IncomingMessage['socket']): void {
    const queue = new FrameQueue<ResponseFrame>(ws);
    this.open.set(ws, queue);
    const view: SocketView = {
      get remoteAddress() {
        return socket.remoteAddress;
      },
      get localAddress() {
        return socket.localAddress;
      },
      get destroyed() {
        return socket.destroyed;
      },
      get encrypted() {
        return (socket as { encrypted?: boolean }).encrypted === true;
      },
    };
    const serving = new Map<number, LinkResponse>();
    const stopPinging = heartbeat(ws);
    ws.on('error', () => {});
    ws.on('message', (data) => {
      for (const frame of parseFrames(data)) {
        if (typeof frame.x === 'number') {
          serving.get(frame.x)?.cut();
          continue;
        }
        const { q, m, u, h, p } = frame;
        if (typeof q !== 'number' || serving.has(q) || typeof m !== 'string' || typeof u !== 'string' || !isStringList(h)) continue;
        // A POST's body is always read before it is sent: none is an empty one (answered as unparseable), never a wait.
        const body = typeof p === 'string' ? p : m === 'POST' ? '' : undefined;
        const req = new LinkRequest(m, u, h, body, view);
        const res = new LinkResponse(q, queue, () => serving.delete(q));
        serving.set(q, res);
        this.serve(req as unknown as IncomingMessage, res as unknown as ServerResponse);
      }
    });
    ws.once('close', () => {
      stopPinging();
      this.open.delete(ws);
      for (const res of serving.values()) res.cut();
      serving.clear();
    });
  }
}

/** What a link's request shows of the connection it came over: the link's addresses, and whether it is gone (no budget charged to it). */
interface SocketView {
  readonly remoteAddress: string | undefined;
  readonly localAddress: string | undefined;
  readonly destroyed: boolean;
  /** Whether the link came over TLS (the resource's URL is named https then). */
  readonly encrypted: boolean;
}

/** Headers node:http keeps the first of when they come twice (the rest are discarded, not joined). */
const FIRST_ONLY = new Set([
  'age',
  'authorization',
  'content-length',
  'content-type',
  'etag',
  'expires',
  'from',
  'host',
  'if-modified-since',
  'if-unmodified-since',
  'last-modified',
  'location',
  'max-forwards',
  'proxy-authorization',
  'referer',
  'retry-after',
  'server',
  'user-agent',
]);

/** A request a peer sent over a link, as much of an IncomingMessage as the transport reads: its body was read already (`body`). */
class LinkRequest extends EventEmitter {
  readonly headers: Record<string, string> = {};
  readonly httpVersion = '1.1';
  readonly complete = true;
  readonly destroyed = false;
  constructor(
    readonly method: string,
    readonly url: string,
    readonly rawHeaders: string[],
    readonly body: string | undefined,
    readonly socket: SocketView,
  ) {
    super();
    for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
      const name = rawHeaders[i]!.toLowerCase();
      const value = rawHeaders[i + 1]!;
      const known = this.headers[name];
      if (known === undefined) this.headers[name] = value;
      else if (!FIRST_ONLY.has(name)) this.headers[name] = `${known}, ${value}`;
    }
  }

  resume(): this {
    return this;
  }

  pipe<T>(destination: T): T {
    (destination as { end?: () => void }).end?.();
    return destination;
  }
}

/**
 * The response to a link's request, as much of a ServerResponse as the transport writes: each turn's
 * head, data and end go to the peer as one frame. Nothing waits on a write (the link's socket buffers).
 */
class LinkResponse extends EventEmitter {
  statusCode = 200;
  headersSent = false;
  writableEnded = false;
  writableFinished = false;
  destroyed = false;
  /** This turn's frame (pushed in the queue's turn `frameTurn`), until the queue sends it. */
  private frame: ResponseFrame | undefined;
  private frameTurn = -1;

  constructor(
    private readonly id: number,
    private readonly queue: FrameQueue<ResponseFrame>,
    private readonly done: () => void,
  ) {
    super();
  }

  writeHead(status: number, reason?: string | HeaderInput, headers?: HeaderInput): this {
    if (this.headersSent) return this;
    const [message, given] = typeof reason === 'string' ? [reason, headers] : [undefined, reason ?? headers];
    // As node:http: headers set before are sent too, those given here winning.
    const head = this.set.size > 0 ? flatHeaders({ ...Object.fromEntries(this.set), ...headerObject(given) }) : flatHeaders(given);
    // As node:http, a name or value that cannot go on the wire throws here, where it was written (nothing is sent), not on the peer.
    for (let i = 0; i < head.length; i += 2) {
      validateHeaderName(head[i]!);
      validateHeaderValue(head[i]!, head[i + 1]!);
    }
    this.statusCode = status;
    this.headersSent = true;
    const frame = this.current();
    frame.s = status;
    if (message !== undefined) frame.t = message;
    frame.h = head;
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
  }

  /** Headers set before the head goes out, as on a ServerResponse (an `httpRequest` listener may set some). */
  private readonly set = new Map<string, string | number | readonly string[]>();

  setHeader(name: string, value: string | number | readonly string[]): this {
    validateHeaderName(name);
    for (const v of Array.isArray(value) ? value : [value]) validateHeaderValue(name, v);
    if (!this.headersSent) this.set.set(name.toLowerCase(), value);
    return this;
  }

  getHeader(name: string): string | number | readonly string[] | undefined {
    return this.set.get(name.toLowerCase());
  }

  getHeaders(): Record<string, string | number | readonly string[]> {
    return Object.fromEntries(this.set);
  }

  hasHeader(name: string): boolean {
    return this.set.has(name.toLowerCase());
  }

  removeHeader(name: string): void {
    this.set.delete(name.toLowerCase());
  }

  write(chunk: string | Buffer | Uint8Array, encoding?: BufferEncoding | (() => void), callback?: () => void): boolean {
    if (this.writableEnded || this.destroyed) return false;
    this.flushHeaders();
    const frame = this.current();
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    frame.p = frame.p === undefined ? text : frame.p + text;
    const done = typeof encoding === 'function' ? encoding : callback;
    if (done) queueMicrotask(done);
    return true;
  }

  end(chunk?: string | Buffer | Uint8Array | (() => void)): this {
    if (this.writableEnded || this.destroyed) return this;
    if (chunk !== undefined && typeof chunk !== 'function') this.write(chunk);
    else this.flushHeaders();
    this.writableEnded = true;
    this.current().e = 1;
    this.finish(false);
    return this;
  }

  destroy(): this {
    if (this.destroyed || this.writableFinished) return this;
    this.destroyed = true;
    if (!this.writableEnded) this.current().e = 2;
    this.finish(true);
    return this;
  }

  /** The peer's client went away, or the link did: nothing more goes out, and whoever watches the response hears it close. */
  cut(): void {
    if (this.destroyed || this.writableFinished) return;
    this.destroyed = true;
    this.frame = undefined;
    this.finish(true);
  }

  private current(): ResponseFrame {
    if (!this.frame || this.frameTurn !== this.queue.turn) {
      this.frame = { r: this.id };
      this.frameTurn = this.queue.turn;
      this.queue.push(this.frame);
    }
    return this.frame;
  }

  private finish(destroyed: boolean): void {
    this.done();
    if (!destroyed) {
      this.writableFinished = true;
      this.emit('finish');
    }
    this.emit('close');
  }
}

type HeaderInput = Record<string, string | number | readonly string[] | undefined> | readonly (string | number)[] | undefined;

/** Headers given as names and values in turn, as an object (lower-case names); an object as it is. */
function headerObject(headers: HeaderInput): Record<string, string | number | readonly string[] | undefined> {
  const object: Record<string, string | number | readonly string[] | undefined> = {};
  if (headers === undefined) return object;
  if (!Array.isArray(headers)) {
    for (const [name, value] of Object.entries(headers)) object[name.toLowerCase()] = value;
    return object;
  }
  for (let i = 0; i + 1 < headers.length; i += 2) {
    const name = String(headers[i]).toLowerCase();
    const known = object[name];
    const value = String(headers[i + 1]);
    // Repeated (set-cookie): every value is kept.
    object[name] = known === undefined ? value : [...(Array.isArray(known) ? known : [String(known)]), value];
  }
  return object;
}

/** The headers as names and values in turn, without those of one connection (the peer's client response frames itself). */
function flatHeaders(headers: HeaderInput): string[] {
  const flat: string[] = [];
  if (headers === undefined) return flat;
  if (Array.isArray(headers)) {
    for (let i = 0; i + 1 < headers.length; i += 2) flat.push(String(headers[i]), String(headers[i + 1]));
  } else {
    for (const [name, value] of Object.entries(headers as Record<string, string | number | readonly string[] | undefined>)) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const v of value) flat.push(name, String(v));
      else flat.push(name, String(value));
    }
  }
  return endToEnd(flat);
}
