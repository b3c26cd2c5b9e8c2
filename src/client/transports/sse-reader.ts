/**
 * An incremental `text/event-stream` reader, as the HTML standard interprets one (§9.2.6): text in, in
 * whatever chunks it came, events out. Lines end with CRLF, LF or CR (a CRLF may be split between two
 * chunks); a leading BOM is dropped; comments (`:` lines) and unknown fields are ignored; an event that
 * the stream ends in the middle of is never dispatched.
 */

export interface SseEvent {
  /** The `event` field; `message` when the event named none. */
  type: string;
  /** The `data` lines, joined with LF. '' for a priming event (`data:` with nothing after it). */
  data: string;
  /** The stream's last event id when the event was dispatched ('' for none): sticky, as EventSource's `lastEventId`. */
  lastEventId: string;
}

const LINE_END = /\r\n|\r|\n/g;
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
  /** The start of a line whose end has not arrived yet. */
  private partial = '';
  private type = '';
  private data = '';
  private idBuffer: string;

  /**
   * @param onEvent called for each dispatched event, in order; it must not throw.
   * @param lastEventId the id the stream resumes from (a reconnection carries it on, as EventSource does).
   */
  constructor(
    private readonly onEvent: (event: SseEvent) => void,
    lastEventId = '',
  ) {
    this.lastEventId = lastEventId;
    this.idBuffer = lastEventId;
  }

  /**
   * Characters held for the event being read (its fields so far and the unfinished line), which a
   * reader bounds to keep a server from growing one event without end.
   */
  get pendingLength(): number {
    return this.partial.length + this.data.length + this.type.length + this.idBuffer.length;
  }

  /** Read the next chunk of decoded text. */
  push(chunk: string): void {
    let text = chunk;
    if (!this.started && text.length > 0) {
      this.started = true;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    if (this.afterCr && text.length > 0) {
      this.afterCr = false;
      if (text.charCodeAt(0) === 0x0a) text = text.slice(1);
    }
    let start = 0;
    for (const end of text.matchAll(LINE_END)) {
      const line = this.partial + text.slice(start, end.index);
      this.partial = '';
      start = end.index + end[0].length;
      this.afterCr = end[0] === '\r' && start === text.length;
      this.line(line);
    }
    this.partial += text.slice(start);
  }

  private line(line: string): void {
    if (line === '') return this.dispatch();
    const colon = line.indexOf(':');
    if (colon === 0) return;
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
    const { type, data } = this;
    this.type = '';
    this.data = '';
    // No data line at all: nothing to dispatch (the id still counts).
    if (data === '') return;
    this.onEvent({ type: type || 'message', data: data.slice(0, -1), lastEventId: this.lastEventId });
  }
}
