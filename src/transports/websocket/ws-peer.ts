/**
 * One WebSocket connection as a Channel: frames to messages and back, with flow control (a peer that does
 * not read what it is sent stops being read from, then is closed) and a deadline for its first message.
 */
import type { WebSocket } from 'ws';
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponse, type JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Channel, Connection, ServerPort } from '../../server/port.js';
import { notReading } from '../not-reading.js';

export interface PeerLimits {
  /** Bytes queued to the peer above which it is no longer read from, until they are sent. */
  readonly sendHighWaterMark: number;
  /** Bytes queued to the peer at which it is closed with 1008. */
  readonly maxBufferedBytes: number;
  /** The peer's first message must come within this long (0: no deadline). */
  readonly firstMessageTimeoutMs: number;
}

/** RFC 6455: 1008 policy violation (the peer breaks the rules we serve by). */
const POLICY_VIOLATION = 1008;
/** RFC 6455: a close reason is at most 123 bytes; cut on a UTF-8 character boundary. */
const MAX_CLOSE_REASON_BYTES = 123;
const OPEN = 1;

const BINARY_FRAME_ERROR = errorResponse(null, {
  code: ErrorCode.InvalidRequest,
  message: 'Invalid Request: binary frames are not accepted; send each JSON-RPC message as one UTF-8 text frame',
});

export class WsPeer implements Channel {
  readonly kind = 'websocket';
  connection!: Connection;
  /** When a message last went either way (epoch ms). */
  lastActivityMs = Date.now();
  /** A keep-alive ping is out and its pong has not come. */
  awaitingPong = false;
  private paused = false;
  private firstMessage: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    readonly remoteAddress: string | undefined,
    private readonly port: ServerPort,
    private readonly limits: PeerLimits,
  ) {}

  /** Open the session and start reading. */
  start(principal: unknown): void {
    const { ws } = this;
    this.connection = this.port.connect(this, principal);
    if (this.limits.firstMessageTimeoutMs > 0) {
      this.firstMessage = setTimeout(
        () => this.closeFor(`no message within ${this.limits.firstMessageTimeoutMs} ms of connecting`),
        this.limits.firstMessageTimeoutMs,
      );
      this.firstMessage.unref();
    }
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[], isBinary: boolean) => {
      if (ws.readyState !== OPEN) return; // Closing: what it sends now goes unanswered.
      this.awaitingPong = false;
      this.lastActivityMs = Date.now();
      if (this.firstMessage) {
        clearTimeout(this.firstMessage);
        this.firstMessage = undefined;
      }
      if (isBinary) {
        this.port.countInvalidMessage();
        this.send(BINARY_FRAME_ERROR);
        return;
      }
      try {
        this.connection.receive(rawToString(data));
      } catch (err) {
        this.port.reportError(err, this.connection); // Thrown from a socket listener, it would end the process.
      }
    });
    ws.on('pong', () => {
      this.awaitingPong = false;
    });
  }

  /** The connection ended: its timer goes with it. */
  ended(): void {
    if (this.firstMessage) clearTimeout(this.firstMessage);
  }

  send(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
    const { ws } = this;
    if (ws.readyState !== OPEN) return false;
    ws.send(JSON.stringify(message));
    this.lastActivityMs = Date.now();
    if (ws.bufferedAmount > this.limits.sendHighWaterMark) this.throttle();
    return true;
  }

  close(reason: string): void {
    this.ws.close(1000, truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
  }

  /** A keep-alive round: a peer that did not answer the last ping is dropped. */
  ping(): void {
    if (this.awaitingPong) {
      this.ws.terminate();
      return;
    }
    this.awaitingPong = true;
    this.ws.ping();
  }

  /** Close for a broken rule (1008), saying which. */
  closeFor(reason: string): void {
    this.ws.close(POLICY_VIOLATION, truncateUtf8(reason, MAX_CLOSE_REASON_BYTES));
    // Read again, for the peer's close frame: a paused socket would wait out ws's 30 s close timeout.
    if (this.paused) {
      this.paused = false;
      this.ws.resume();
    }
  }

  /**
   * The peer is not reading what it is sent: stop reading from it, so it sends no more requests, until
   * what is queued has gone out; past the hard limit, close it.
   */
  private throttle(): void {
    const { ws } = this;
    if (ws.bufferedAmount > this.limits.maxBufferedBytes) {
      this.closeFor(notReading(this.limits.maxBufferedBytes));
      return;
    }
    if (this.paused) return;
    this.paused = true;
    ws.pause();
    this.resumeWhenSent();
  }

  /** Frames go out in order: a ping's callback runs once everything queued before it has been written. */
  private resumeWhenSent(): void {
    this.ws.ping(undefined, undefined, () => {
      if (this.ws.readyState !== OPEN) return;
      if (this.ws.bufferedAmount > this.limits.sendHighWaterMark / 2) return this.resumeWhenSent();
      this.paused = false;
      this.ws.resume();
    });
  }
}

function truncateUtf8(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text);
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  while (end > 0 && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString();
}

function rawToString(data: Buffer | ArrayBuffer | Buffer[]): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}
