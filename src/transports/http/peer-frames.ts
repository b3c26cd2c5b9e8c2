/**
 * The peer link's wire: frames (a head's JSON on a line, then its payload as it is), the queue that sends
 * one turn's frames as one WebSocket message, and the proof an instance opens a link with (peer-link.ts).
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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

/** `keys[0]` signs, every key verifies (a ring being rotated). */
export function proof(key: string, at = Date.now()): string {
  return `${at}.${createHmac('sha256', key).update(`switchboard-peer\0${at}`).digest('base64url')}`;
}

export function verifyProof(value: string | undefined, keys: readonly string[]): boolean {
  const dot = value?.indexOf('.') ?? -1;
  if (value === undefined || dot <= 0) return false;
  const at = Number(value.slice(0, dot));
  if (!Number.isSafeInteger(at) || Math.abs(Date.now() - at) > PROOF_WINDOW_MS) return false;
  const given = Buffer.from(value);
  return keys.some((key) => {
    const expected = Buffer.from(proof(key, at));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
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
