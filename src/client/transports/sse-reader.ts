/**
 * An incremental `text/event-stream` reader, as the HTML standard interprets one (§9.2.6): bytes in, in
 * whatever chunks they came, events out. Lines end with CRLF, LF or CR (a CRLF may be split between two
 * chunks); a leading BOM is dropped; comments (`:` lines) and unknown fields are ignored; an event that
 * the stream ends in the middle of is never dispatched. Split as bytes, not characters: the limit is in
 * bytes, and a UTF-8 sequence never holds the bytes of CR or LF, so each line is decoded once, whole.
 */
import { concatBytes } from '../../protocol/lines.js';

export interface SseEvent {
  /** The `event` field; `message` when the event named none. */
  type: string;
  /** The `data` lines, joined with LF. '' for a priming event (`data:` with nothing after it). */
  data: string;
  /** The stream's last event id when the event was dispatched ('' for none): sticky, as EventSource's `lastEventId`. */
  lastEventId: string;
}

export interface SseLimit {
  /** The most bytes one event may take on the wire, as they arrive: its field lines and the blank line that ends it, line ends included. */
  maxEventBytes: number;
  /** An event grew past `maxEventBytes`: it is not dispatched, and the reader reads nothing more. Called once. */
  onTooLarge(): void;
}

const LF = 0x0a;
const CR = 0x0d;
const COLON = 0x3a;
const DIGITS = /^[0-9]+$/;

export class SseReader {
  /**
   * The last event id, committed at the end of each event (even one without data), so a stream that
   * breaks mid-event resumes from the previous one. '' when there is none.
   */
  lastEventId: string;
  /** The reconnection delay the server asked for (`retry:`), in ms; undefined until it does. */
  retryMs: number | undefined;
  private started = false;
  /** The last chunk ended with CR: a LF that starts the next one belongs to that line end. */
  private afterCr = false;
  /** The start of a line whose end has not arrived yet, as it came. */
  private partial: Uint8Array[] = [];
  private partialBytes = 0;
  /** The bytes of the event being read so far: its field lines, line ends included (comments belong to no event). */
  private eventBytes = 0;
  private overLimit = false;
  private type = '';
  private data = '';
  private idBuffer: string;
  /** Each line is decoded on its own, a BOM kept: only the stream's first is dropped, by hand. */
  private readonly decoder = new TextDecoder('utf-8', { ignoreBOM: true });

  /**
   * @param onEvent called for each dispatched event, in order; it must not throw.
   * @param lastEventId the id the stream resumes from (a reconnection carries it on, as EventSource does).
   * @param limit the most bytes an event may take; none by default.
   */
  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    lastEventId = '',
    private readonly limit?: SseLimit,
  ) {
    this.lastEventId = lastEventId;
    this.idBuffer = lastEventId;
  }

  /** Bytes held for the event being read: its field lines so far and the unfinished line. */
  get pendingBytes(): number {
    return this.eventBytes + this.partialBytes;
  }

  /** Read the next chunk of bytes. */
  push(chunk: Uint8Array): void {
    if (this.overLimit || chunk.length === 0) return;
    let start = 0;
    if (this.afterCr) {
      this.afterCr = false;
      if (chunk[0] === LF) start = 1;
    }
    let lf = chunk.indexOf(LF, start);
    let cr = chunk.indexOf(CR, start);
    while (lf !== -1 || cr !== -1) {
      const end = lf === -1 ? cr : cr === -1 ? lf : Math.min(lf, cr);
      let next = end + 1;
      if (end === cr) {
        if (next === chunk.length) this.afterCr = true;
        else if (chunk[next] === LF) next++;
      }
      if (!this.endLine(chunk.subarray(start, end), next - end)) return;
      start = next;
      if (lf !== -1 && lf < start) lf = chunk.indexOf(LF, start);
      if (cr !== -1 && cr < start) cr = chunk.indexOf(CR, start);
    }
    if (start === chunk.length) return;
    this.partial.push(chunk.subarray(start));
    this.partialBytes += chunk.length - start;
    this.checkLimit(0);
  }

  /** A line ended (`ending` bytes of CR, LF or CRLF); false once the event is over the limit. */
  private endLine(tail: Uint8Array, ending: number): boolean {
    let bytes = this.partialBytes === 0 ? tail : concatBytes([...this.partial, tail], this.partialBytes + tail.length);
    this.partial = [];
    this.partialBytes = 0;
    if (!this.started) {
      this.started = true;
      if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
    }
    if (bytes.length === 0) {
      // The blank line that ends an event is the last of its bytes.
      if (this.eventBytes > 0 && !this.checkLimit(ending)) return false;
      this.dispatch();
      return true;
    }
    // A comment belongs to no event: a stream may send one on its own (an SSE keep-alive).
    if (bytes[0] === COLON) return true;
    // Checked before it is decoded: a line over the limit is never turned into text.
    if (!this.checkLimit(bytes.length + ending)) return false;
    this.eventBytes += bytes.length + ending;
    this.field(this.decoder.decode(bytes));
    return true;
  }

  /** Whether the event still fits with `more` bytes; past the limit it is dropped, and the reader stops. */
  private checkLimit(more: number): boolean {
    if (!this.limit || this.pendingBytes + more <= this.limit.maxEventBytes) return true;
    this.overLimit = true;
    this.partial = [];
    this.partialBytes = 0;
    this.data = '';
    this.limit.onTooLarge();
    return false;
  }

  private field(line: string): void {
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'event':
        this.type = value;
        break;
      case 'data':
        this.data += `${value}\n`;
        break;
      case 'id':
        if (!value.includes('\0')) this.idBuffer = value;
        break;
      case 'retry':
        if (DIGITS.test(value)) this.retryMs = Number(value);
        break;
    }
  }

  private dispatch(): void {
    this.lastEventId = this.idBuffer;
    this.eventBytes = 0;
    const { type, data } = this;
    this.type = '';
    this.data = '';
    // No data line at all: nothing to dispatch (the id still counts).
    if (data === '') return;
    this.onEvent({ type: type || 'message', data: data.slice(0, -1), lastEventId: this.lastEventId });
  }
}
