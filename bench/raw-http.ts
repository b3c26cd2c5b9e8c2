/**
 * One keep-alive HTTP/1.1 connection on node:net, for the load generator: requests are written as
 * pre-built strings and replies parsed only as far as the cases check them (status, a few headers, the
 * body, SSE events as they arrive). node:http's client costs more CPU per request than a bare server,
 * so with it the generator, not the server, was the limit; bytes are read with `onread` into one buffer
 * (no stream machinery, no decoder) for the same reason.
 */
import { connect, type Socket } from 'node:net';

export interface RawReply {
  status: number;
  sessionId?: string;
  /** The body (a JSON reply), or every SSE event's data joined by newlines. */
  body: string;
}

interface Pending {
  resolve: (reply: RawReply) => void;
  reject: (err: Error) => void;
  onEvent?: (data: string) => void;
  onHead?: () => void;
}

/** The parse state of the reply being read; strings are latin1, so a character is a byte. */
interface Reading {
  status: number;
  sessionId?: string;
  sse: boolean;
  /** Bytes of body still to read (content-length), or -1 when the body is chunked. */
  remaining: number;
  /** Bytes of the current chunk still to read; -1 when its size line is next, -2 when its CRLF is. */
  chunkLeft: number;
  body: string;
  /** SSE text not yet ended by a blank line. */
  sseTail: string;
}

export class HttpConnection {
  private buffer = '';
  private reading: Reading | undefined;
  private pending: Pending | undefined;
  private closed: Error | undefined;
  /** The server closed the connection while no request was on it (its keep-alive timeout): the next request opens another. */
  private idleClosed = false;
  private socket!: Socket;
  /** What every request starts with: the request line's tail and the headers every case sends. */
  private readonly common: string;

  private constructor(private readonly port: number) {
    this.common = ` HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n`;
  }

  static async open(port: number): Promise<HttpConnection> {
    const conn = new HttpConnection(port);
    await conn.connect();
    return conn;
  }

  private connect(): Promise<void> {
    this.buffer = '';
    this.reading = undefined;
    this.idleClosed = false;
    return new Promise((resolve, reject) => {
      const socket: Socket = connect({
        port: this.port,
        host: '127.0.0.1',
        onread: { buffer: READ_BUFFER, callback: (bytes): boolean => (this.socket === socket && this.receive(READ_BUFFER.toString('latin1', 0, bytes)), true) },
      });
      this.socket = socket;
      socket.once('error', reject);
      socket.once('connect', () => {
        socket.off('error', reject);
        socket.setNoDelay(true);
        const fail = (err: Error) => {
          if (this.socket !== socket) return;
          this.closed ??= err;
          const pending = this.pending;
          this.pending = undefined;
          pending?.reject(err);
        };
        socket.on('error', fail);
        socket.on('close', () => {
          // Idle, and closed by the server: what any keep-alive client meets now and then, not a failure.
          if (this.socket === socket && !this.pending && !this.closed) this.idleClosed = true;
          else fail(new Error('connection closed by the server'));
        });
        resolve();
      });
    });
  }

  /**
   * One request; `headers` are pre-built `name: value\r\n` lines. `onEvent` sees each SSE event's data as
   * it arrives, so an elicitation can be answered while its call's stream is open; `onHead` hears that the
   * reply's head has come (a stream that never ends is open from then on).
   */
  request(method: string, path: string, headers: string, body = '', onEvent?: (data: string) => void, onHead?: () => void): Promise<RawReply> {
    if (this.closed) return Promise.reject(this.closed);
    if (this.pending) return Promise.reject(new Error('one request at a time per connection'));
    if (this.idleClosed) return this.connect().then(() => this.request(method, path, headers, body, onEvent, onHead));
    return new Promise((resolve, reject) => {
      this.pending = { resolve, reject, onEvent, onHead };
      this.socket.write(`${method} ${path}${this.common}${headers}content-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    });
  }

  close(): void {
    this.closed ??= new Error('connection closed by the client');
    this.socket.destroy();
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    while (this.step()) {}
  }

  /** Consume what the buffer allows; true when more may be consumed. */
  private step(): boolean {
    const r = this.reading;
    if (!r) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end === -1) return false;
      this.reading = parseHead(this.buffer.slice(0, end));
      this.buffer = this.buffer.slice(end + 4);
      this.pending?.onHead?.();
      return this.reading.remaining === 0 ? this.finish() : true;
    }
    if (r.remaining > 0) return this.take(r.remaining, (left) => (r.remaining = left) === 0 && this.finish());
    // Chunked: a size line, the chunk, its CRLF; a zero size and an empty line end the body (no trailers here).
    if (r.chunkLeft > 0) return this.take(r.chunkLeft, (left) => ((r.chunkLeft = left === 0 ? -2 : left), left === 0));
    if (r.chunkLeft === -2) {
      if (this.buffer.length < 2) return false;
      this.buffer = this.buffer.slice(2);
      r.chunkLeft = -1;
      return true;
    }
    const end = this.buffer.indexOf('\r\n');
    if (end === -1) return false;
    const size = Number.parseInt(this.buffer.slice(0, end), 16);
    if (size > 0) {
      this.buffer = this.buffer.slice(end + 2);
      r.chunkLeft = size;
      return true;
    }
    if (this.buffer.length < end + 4) return false;
    this.buffer = this.buffer.slice(end + 4);
    return this.finish();
  }

  /** Move up to `wanted` bytes of body out of the buffer; `then` gets what is still wanted and says whether to go on. */
  private take(wanted: number, then: (left: number) => boolean): boolean {
    if (this.buffer.length === 0) return false;
    const text = this.buffer.length <= wanted ? this.buffer : this.buffer.slice(0, wanted);
    this.buffer = this.buffer.length <= wanted ? '' : this.buffer.slice(wanted);
    this.append(text);
    return then(wanted - text.length);
  }

  private append(text: string): void {
    const r = this.reading!;
    if (!r.sse) {
      r.body += text;
      return;
    }
    r.sseTail += text;
    let end: number;
    while ((end = r.sseTail.indexOf('\n\n')) !== -1) {
      const data = eventData(r.sseTail.slice(0, end));
      r.sseTail = r.sseTail.slice(end + 2);
      if (!data) continue;
      r.body = r.body ? `${r.body}\n${data}` : data;
      this.pending?.onEvent?.(data);
    }
  }

  private finish(): boolean {
    const { status, sessionId, body } = this.reading!;
    this.reading = undefined;
    const pending = this.pending;
    this.pending = undefined;
    pending?.resolve({ status, sessionId, body });
    return this.buffer.length > 0;
  }
}

/** Shared by every connection: each read is copied out of it into a string at once. */
const READ_BUFFER = Buffer.allocUnsafe(1 << 16);

/** The value of header `name` (lower case, with its CRLF and colon: `\r\nname:`) in `head`, or undefined. */
function header(head: string, lower: string, name: string): string | undefined {
  const at = lower.indexOf(name);
  if (at === -1) return undefined;
  const end = head.indexOf('\r\n', at + name.length);
  return head.slice(at + name.length, end === -1 ? undefined : end).trim();
}

function parseHead(head: string): Reading {
  const reading: Reading = { status: Number(head.slice(9, 12)), sse: false, remaining: 0, chunkLeft: -1, body: '', sseTail: '' };
  const lower = head.toLowerCase();
  const length = header(head, lower, '\r\ncontent-length:');
  if (length !== undefined) reading.remaining = Number(length);
  else if (header(head, lower, '\r\ntransfer-encoding:')?.toLowerCase().includes('chunked')) reading.remaining = -1;
  reading.sse = header(head, lower, '\r\ncontent-type:')?.startsWith('text/event-stream') ?? false;
  reading.sessionId = header(head, lower, '\r\nmcp-session-id:');
  // 1xx, 204 and 304 have no body whatever the headers say.
  if (reading.status === 204 || reading.status === 304) reading.remaining = 0;
  return reading;
}

/** The data of one SSE event (its `data:` lines joined); empty for a comment or a priming event. */
function eventData(event: string): string {
  let data = '';
  for (const line of event.split('\n')) if (line.startsWith('data:')) data += line.slice(line[5] === ' ' ? 6 : 5);
  return data;
}
