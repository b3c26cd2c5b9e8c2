/**
 * The owner's side of peer links (peer-link.ts): each frame a peer sends becomes a request served as any
 * other, in a request and a response shaped as node:http's (as much of them as the transport uses), and
 * what is written to the response goes back as frames.
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { rejectUpgrade } from '../listen.js';
import { FrameQueue, isStringList, maxLinkMessageBytes, PEER_SUBPROTOCOL, PROOF_HEADER, parseFrames, type ResponseFrame, verifyProof } from './peer-frames.js';
import { endToEnd } from './session-router.js';

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

  /** @param maxMessageBytes the transport's: a peer's request body is no larger (the peer's transport read it under its own). */
  constructor(
    private readonly keys: readonly string[],
    private readonly serve: ServeRequest,
    maxMessageBytes: number,
  ) {
    this.wss = new WebSocketServer({ noServer: true, perMessageDeflate: false, maxPayload: maxLinkMessageBytes(maxMessageBytes) });
  }

  /** An upgrade to PEER_PATH: a link, if it proves the peer key; otherwise refused. */
  accept(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (req.headers['sec-websocket-protocol'] !== PEER_SUBPROTOCOL || !verifyProof(req.headers[PROOF_HEADER] as string | undefined, this.keys)) {
      return rejectUpgrade(socket, 403, 'Forbidden: a peer link needs the key the instances share');
    }
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
    };
    const serving = new Map<number, LinkResponse>();
    ws.on('error', () => {});
    ws.on('message', (data) => {
      for (const frame of parseFrames(data)) {
        if (typeof frame.x === 'number') {
          serving.get(frame.x)?.cut();
          continue;
        }
        const { q, m, u, h, p } = frame;
        if (typeof q !== 'number' || typeof m !== 'string' || typeof u !== 'string' || !isStringList(h)) continue;
        const req = new LinkRequest(m, u, h, p as string | undefined, view);
        const res = new LinkResponse(q, queue, () => serving.delete(q));
        serving.set(q, res);
        this.serve(req as unknown as IncomingMessage, res as unknown as ServerResponse);
      }
    });
    ws.once('close', () => {
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
}

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
      this.headers[name] = this.headers[name] === undefined ? value : `${this.headers[name]}, ${value}`;
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
    const [message, given] = typeof reason === 'string' ? [reason, headers] : [undefined, reason];
    this.statusCode = status;
    this.headersSent = true;
    const frame = this.current();
    frame.s = status;
    if (message !== undefined) frame.t = message;
    // As node:http: headers set before are sent too, those given here winning.
    frame.h = this.set.size > 0 ? flatHeaders({ ...Object.fromEntries(this.set), ...headerObject(given) }) : flatHeaders(given);
    return this;
  }

  flushHeaders(): void {
    if (!this.headersSent) this.writeHead(this.statusCode);
  }

  /** Headers set before the head goes out, as on a ServerResponse (an `httpRequest` listener may set some). */
  private readonly set = new Map<string, string | number | readonly string[]>();

  setHeader(name: string, value: string | number | readonly string[]): this {
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
    if (this.destroyed) return this;
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
  if (!Array.isArray(headers)) return (headers ?? {}) as Record<string, string | number | readonly string[] | undefined>;
  const object: Record<string, string> = {};
  for (let i = 0; i + 1 < headers.length; i += 2) object[String(headers[i]).toLowerCase()] = String(headers[i + 1]);
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
