/**
 * Requests for another instance's sessions over one WebSocket per peer, instead of an HTTP request each.
 * The instance a request reached sends it as a frame (method, headers, body); the owner serves it on the
 * same path as any request it gets (gate, auth, session endpoints), writing into a response that goes
 * back as frames, and the first instance writes those to its client. What an HTTP forward costs both
 * sides (a client request and its response parser on one, a server request on the other, a write each
 * way per message) becomes a frame each way; the frames of one turn of the event loop go as one message.
 *
 * Only instances that share the peer key may open a link (an HMAC of the time, checked on the upgrade):
 * a link carries many clients' requests over one connection, past the owner's per-connection budgets.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { WebSocket } from 'ws';
import {
  type CancelFrame,
  FrameQueue,
  heartbeat,
  isStringList,
  PEER_PATH,
  PEER_SUBPROTOCOL,
  PROOF_HEADER,
  parseFrames,
  proof,
  type RequestFrame,
} from './peer-frames.js';
import { connectionGone } from './request.js';
import { boundQueue } from './sse.js';
import { declineOf, type ForwardOptions, type Forwarded, forwardedBody, forwardedHeaders } from './session-router.js';

/** How long a peer has to accept a link. */
const CONNECT_TIMEOUT_MS = 2000;
/** How long an owner that took no link (its handler is mounted on a server of the application's, or it was gone) gets HTTP forwards instead. */
const NO_LINK_MS = 60_000;

/** A request sent on a link, until its response has ended. */
interface Sent {
  res: ServerResponse;
  options: ForwardOptions;
  resolve: (outcome: Forwarded) => void;
  /** Its head came and was the client's; otherwise a decline, whose rest is not. */
  answered: boolean;
  declined: boolean;
}

/** One open (or opening) link to one owner. */
class Link {
  private readonly sent = new Map<number, Sent>();
  private next = 0;
  private readonly queue: FrameQueue<RequestFrame | CancelFrame>;
  private readonly stopPinging: () => void;
  /** Resolves true once open, false when it could not be. */
  readonly opened: Promise<boolean>;
  ended = false;

  constructor(
    url: string,
    key: string,
    private readonly ownerPath: string,
    private readonly ownerHost: string,
    private readonly maxQueued: number,
    private readonly onEnd: (link: Link) => void,
  ) {
    // What the owner sends is as large as its answers are: an owner is trusted as far as the router is.
    const ws = new WebSocket(url, PEER_SUBPROTOCOL, {
      headers: { [PROOF_HEADER]: proof(key) },
      handshakeTimeout: CONNECT_TIMEOUT_MS,
      perMessageDeflate: false,
      maxPayload: 0,
    });
    this.queue = new FrameQueue(ws);
    this.opened = new Promise((resolve) => {
      ws.once('open', () => resolve(true));
      ws.once('unexpected-response', (_req, answer) => {
        answer.resume();
        ws.terminate();
        resolve(false);
      });
      ws.once('close', () => resolve(false));
    });
    ws.on('error', () => {});
    ws.on('message', (data) => {
      for (const frame of parseFrames(data)) this.received(frame);
    });
    ws.once('close', () => this.end(false));
    this.stopPinging = heartbeat(ws);
    this.ws = ws;
  }

  private readonly ws: WebSocket;

  /** Send `req` (its body read into `req.body` already, for a POST) and stream the owner's answer into `res`. */
  forward(req: IncomingMessage, res: ServerResponse, options: ForwardOptions): Promise<Forwarded> {
    if (this.ended) return Promise.resolve('unreachable');
    // The client went away while this waited (for the link, the body, the router): nothing to send it for.
    if (connectionGone(res)) return Promise.resolve('answered');
    const read = forwardedBody(req);
    const body = Buffer.isBuffer(read) ? read.toString('utf8') : read;
    // The body goes whole in its frame: the owner is told no length of it.
    const headers = forwardedHeaders(req, this.ownerHost, options, true);
    const q = ++this.next;
    return new Promise((resolve) => {
      this.sent.set(q, { res, options, resolve, answered: false, declined: false });
      // The client went away: so does the request there. A response that went out whole cancels nothing.
      res.once('close', () => {
        const sent = this.sent.get(q);
        if (res.writableFinished || !sent) return;
        this.sent.delete(q);
        this.queue.push({ x: q });
        // Nobody is left to answer: the caller is done with it.
        if (!sent.answered && !sent.declined) resolve('answered');
      });
      this.queue.push({ q, m: req.method ?? 'GET', u: this.ownerPath, h: headers, p: body });
    });
  }

  close(): void {
    this.queue.flush();
    this.ws.close(1001, 'closing');
    this.end(true);
  }

  private received(frame: Record<string, unknown>): void {
    if (typeof frame.r !== 'number') return;
    const sent = this.sent.get(frame.r);
    if (!sent) return;
    try {
      this.apply(frame.r, frame, sent);
    } catch {
      // What the owner sent cannot go to the client (a head node:http refuses): this response ends, the rest go on.
      this.sent.delete(frame.r);
      if (!sent.answered && !sent.declined) sent.resolve('answered');
      sent.res.destroy();
    }
  }

  private apply(id: number, frame: Record<string, unknown>, sent: Sent): void {
    const { res } = sent;
    const end = frame.e;
    if (typeof frame.s === 'number' && !sent.answered && !sent.declined) {
      const head = isStringList(frame.h) ? frame.h : [];
      const declined = declineOf(frame.s, (name) => hasHeader(head, name), sent.options);
      if (declined) {
        sent.declined = true;
        sent.resolve(declined);
      } else {
        res.writeHead(frame.s, typeof frame.t === 'string' ? frame.t : undefined, head);
        sent.answered = true;
        sent.resolve('answered');
      }
    }
    if (end !== undefined) this.sent.delete(id);
    if (!sent.answered) {
      // Nothing came before the end: the owner's response was destroyed unanswered, as a reset connection.
      if (!sent.declined && end !== undefined) sent.resolve('unreachable');
      return;
    }
    if (res.writableEnded || res.destroyed) return;
    const data = typeof frame.p === 'string' ? frame.p : undefined;
    if (end === 2) res.destroy();
    else if (end === 1) res.end(data);
    else if (data !== undefined) {
      res.write(data);
      // A client that does not read what the owner sends loses its connection, and the owner is told (a
      // 2025-11-25 stream goes on there, into its store).
      boundQueue(res, this.maxQueued);
    }
    // The head alone (an event stream that has sent nothing yet): the client sees it open now.
    else res.flushHeaders();
  }

  /**
   * The link is gone: a request the owner had not answered is 'unreachable' (nothing went to its client);
   * one it had is cut off. When this instance closed it (`ours`), the owner is not gone: what it had not
   * answered is cut off too.
   */
  private end(ours: boolean): void {
    if (this.ended) return;
    this.ended = true;
    this.stopPinging();
    for (const sent of this.sent.values()) {
      if (sent.answered) sent.res.destroy();
      else if (sent.declined) continue;
      else if (ours) {
        sent.res.destroy();
        sent.resolve('answered');
      } else sent.resolve('unreachable');
    }
    this.sent.clear();
    this.onEnd(this);
  }
}

/** Whether names and values in turn have `name` (lower case). */
function hasHeader(head: readonly string[], name: string): boolean {
  for (let i = 0; i < head.length; i += 2) if (head[i]!.toLowerCase() === name) return true;
  return false;
}

/**
 * The links of one instance to its peers, one per owner, opened when first needed. `forward` resolves
 * undefined, having sent nothing, when the owner takes no link (then the caller forwards over HTTP).
 */
export class PeerLinks {
  private readonly links = new Map<string, Link>();
  /** Owners that refused a link, until when: they are forwarded to over HTTP meanwhile. */
  private readonly noLink = new Map<string, number>();

  constructor(
    private readonly keys: readonly string[],
    /** Bytes queued to a client that has not read them, past which its connection is closed (as the owner closes its own). */
    private readonly maxQueued = Number.POSITIVE_INFINITY,
  ) {}

  async forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string, options: ForwardOptions): Promise<Forwarded | undefined> {
    if (this.closed) return undefined;
    const refusedUntil = this.noLink.get(ownerUrl);
    if (refusedUntil !== undefined) {
      if (refusedUntil > Date.now()) return undefined;
      this.noLink.delete(ownerUrl);
    }
    const link = this.links.get(ownerUrl) ?? this.open(ownerUrl);
    if (!link) return undefined;
    if (!(await link.opened)) {
      // Refused, or unreachable: HTTP says which, as it always did; and goes on until a link is worth trying again.
      this.noLink.set(ownerUrl, Date.now() + NO_LINK_MS);
      return undefined;
    }
    return link.forward(req, res, options);
  }

  close(): void {
    this.closed = true;
    for (const link of this.links.values()) link.close();
    this.links.clear();
  }

  private closed = false;

  private open(ownerUrl: string): Link | undefined {
    const target = new URL(ownerUrl);
    if (target.protocol !== 'http:' && target.protocol !== 'https:') return undefined;
    const url = `${target.protocol === 'https:' ? 'wss:' : 'ws:'}//${target.host}${PEER_PATH}`;
    const link = new Link(url, this.keys[0]!, target.pathname + target.search, target.host, this.maxQueued, (ended) => {
      if (this.links.get(ownerUrl) === ended) this.links.delete(ownerUrl);
    });
    this.links.set(ownerUrl, link);
    return link;
  }
}
