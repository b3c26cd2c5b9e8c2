/**
 * The peer link's wire: frames (a head's JSON on a line, then its payload as it is), the queue that sends
 * one turn's frames as one WebSocket message, and the proof an instance opens a link with (peer-link.ts).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type RawData, WebSocket } from 'ws';
import { isObject } from '../../protocol/jsonrpc.js';

/** Where an instance accepts links, on the origin of its MCP endpoint. */
export const PEER_PATH = '/.switchboard/peer';
export const PEER_SUBPROTOCOL = 'switchboard-peer.1';
export const PROOF_HEADER = 'x-switchboard-peer';
/** How far a link's proof may be from the owner's clock. */
const PROOF_WINDOW_MS = 60_000;

/**
 * What a frame carries besides its head: a request's body, a response's data. It goes after the head as
 * it is (`n` characters), so JSON in it is neither escaped nor parsed on the way.
 */
export interface Payload {
  p?: string | undefined;
  n?: number;
}

/** A request, instance to owner: its number on the link, method, target, headers (names and values in turn) and body. */
export interface RequestFrame extends Payload {
  q: number;
  m: string;
  u: string;
  h: string[];
}

/** The client went away: so does the request (as a closed connection does on the owner). */
export interface CancelFrame extends Payload {
  x: number;
}

/** What the owner wrote for request `r` in one turn: the head first (status, reason, headers), data, and the end (1) or a destroyed response (2). */
export interface ResponseFrame extends Payload {
  r: number;
  s?: number;
  t?: string;
  h?: string[];
  e?: 1 | 2;
}

/** A link's proof: `<ms>.<nonce>.<HMAC-SHA256(key, "switchboard-peer\0<ms>.<nonce>")>`, signed with the ring's first key. */
export function proof(key: string, at = Date.now(), nonce = randomBytes(12).toString('base64url')): string {
  return `${at}.${nonce}.${mac(key, at, nonce)}`;
}

function mac(key: string, at: number, nonce: string): string {
  return createHmac('sha256', key).update(`switchboard-peer\0${at}.${nonce}`).digest('base64url');
}

/**
 * Checks the proofs links are opened with: signed by a key of the ring, within PROOF_WINDOW_MS of this
 * clock, and each used once (the nonces seen within the window are kept), so a proof read off the wire
 * opens nothing.
 */
export class ProofCheck {
  /** Nonces of the proofs taken, with when they stop being valid anyway. */
  private readonly seen = new Map<string, number>();

  constructor(private readonly keys: readonly string[]) {}

  accept(value: string | undefined): boolean {
    const parts = value?.split('.');
    if (parts?.length !== 3) return false;
    const [time, nonce, given] = parts as [string, string, string];
    const at = Number(time);
    const now = Date.now();
    if (!/^\d{1,16}$/.test(time) || !Number.isSafeInteger(at) || Math.abs(now - at) > PROOF_WINDOW_MS) return false;
    if (!/^[\w-]{16,64}$/.test(nonce) || this.seen.has(nonce)) return false;
    const signature = Buffer.from(given);
    const valid = this.keys.some((key) => {
      const expected = Buffer.from(mac(key, at, nonce));
      return expected.length === signature.length && timingSafeEqual(expected, signature);
    });
    if (!valid) return false;
    for (const [old, until] of this.seen) {
      if (until > now) break;
      this.seen.delete(old);
    }
    this.seen.set(nonce, at + PROOF_WINDOW_MS);
    return true;
  }
}

/** How often each side of a link pings the other: a link that did not answer the previous ping is dropped. */
const PING_INTERVAL_MS = 10_000;

/** Ping `ws` every PING_INTERVAL_MS, dropping it when the previous ping went unanswered; returns what stops it. */
export function heartbeat(ws: WebSocket): () => void {
  let alive = true;
  ws.on('pong', () => {
    alive = true;
  });
  const timer = setInterval(() => {
    if (!alive) return ws.terminate();
    alive = false;
    if (ws.readyState === WebSocket.OPEN) ws.ping();
  }, PING_INTERVAL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** Frames queued in one turn of the event loop, sent together at its end as one WebSocket message: each head's JSON on a line, its payload after. */
export class FrameQueue<F extends Payload> {
  private frames: F[] = [];
  private scheduled = false;
  /** Counts the messages sent: a frame pushed in an earlier turn is gone, and is not added to. */
  turn = 0;

  constructor(private readonly ws: WebSocket) {}

  push(frame: F): void {
    this.frames.push(frame);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.flushing);
  }

  private readonly flushing = () => this.flush();

  /** Send what is queued now (the link is closing: its last frames go before it does). */
  flush(): void {
    this.scheduled = false;
    this.turn++;
    const frames = this.frames;
    this.frames = [];
    if (this.ws.readyState !== WebSocket.OPEN) return;
    let text = '';
    for (const frame of frames) {
      const payload = frame.p;
      if (payload === undefined) text += `${JSON.stringify(frame)}\n`;
      else {
        frame.p = undefined;
        frame.n = payload.length;
        text += `${JSON.stringify(frame)}\n${payload}`;
      }
      // A message stays small enough for the other side to take, however much one turn wrote: a frame
      // larger than this goes alone.
      if (text.length >= MESSAGE_CHARS) {
        this.ws.send(text);
        text = '';
      }
    }
    if (text.length > 0) this.ws.send(text);
  }
}

/** Where the frames of one turn are cut into several messages. */
const MESSAGE_CHARS = 1 << 20;

/**
 * The largest message an owner takes on a link: the largest body its transport takes as one frame, with
 * room for its head, and never under 64 MiB.
 */
export function maxLinkMessageBytes(maxMessageBytes: number): number {
  return Math.max(64 * 1024 * 1024, 3 * maxMessageBytes + 1024 * 1024);
}

/** The frames of one message, each head with its payload as `p`; reading stops at the first that is not well formed. */
export function parseFrames(data: RawData): Record<string, unknown>[] {
  const text = data.toString();
  const frames: Record<string, unknown>[] = [];
  for (let at = 0; at < text.length; ) {
    const line = text.indexOf('\n', at);
    if (line === -1) break;
    let frame: unknown;
    try {
      frame = JSON.parse(text.slice(at, line));
    } catch {
      break;
    }
    if (!isObject(frame)) break;
    at = line + 1;
    const n = frame.n;
    if (n !== undefined) {
      if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || at + n > text.length) break;
      frame.p = text.slice(at, at + n);
      at += n;
    }
    frames.push(frame);
  }
  return frames;
}

export const isStringList = (value: unknown): value is string[] => Array.isArray(value) && value.every((v) => typeof v === 'string');
