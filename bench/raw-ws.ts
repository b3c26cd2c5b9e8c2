/**
 * One WebSocket on node:net, for the load generator: the upgrade written by hand, text frames built
 * directly (masked with a zero key, so the payload goes out as it is: RFC 6455 §5.3 requires a mask, not
 * an unpredictable one from a benchmark), and server frames cut out of the stream without a library.
 */
import { connect, type Socket } from 'node:net';

/** Shared by every connection's reads (`onread`: no stream machinery in the generator's way). */
const READ_BUFFER = Buffer.allocUnsafe(1 << 16);

export class WsConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private closed: Error | undefined;
  private readonly closing: Promise<void>;

  private constructor(
    private readonly socket: Socket,
    /** Each text message from the server, as a latin1 string. */
    private readonly onMessage: (text: string) => void,
    onClose: (err: Error) => void,
  ) {
    this.closing = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('error', (err) => void (this.closed ??= err));
    socket.on('close', () => onClose((this.closed ??= new Error('websocket closed by the server'))));
  }

  /** Connect to `path` with the `mcp` subprotocol; `onClose` hears of the connection's end, whoever ends it. */
  static open(port: number, path: string, onMessage: (text: string) => void, onClose: (err: Error) => void): Promise<WsConnection> {
    return new Promise((resolve, reject) => {
      let ws: WsConnection | undefined;
      let head = Buffer.alloc(0);
      // Until the upgrade's answer is in, reads collect the head; then each read goes to the frame parser.
      const upgrade = (chunk: Buffer) => {
        head = Buffer.concat([head, chunk]);
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        socket.off('error', reject);
        const status = head.subarray(9, 12).toString('latin1');
        if (status !== '101') return reject(new Error(`websocket upgrade answered ${status}`));
        ws = new WsConnection(socket, onMessage, onClose);
        if (head.length > end + 4) ws.receive(head.subarray(end + 4));
        resolve(ws);
      };
      const socket = connect({
        port,
        host: '127.0.0.1',
        onread: {
          buffer: READ_BUFFER,
          // The buffer is shared by every connection: what is kept of it is copied.
          callback: (bytes) => (ws ? ws.receive(READ_BUFFER.subarray(0, bytes)) : upgrade(Buffer.from(READ_BUFFER.subarray(0, bytes))), true),
        },
      });
      socket.setNoDelay(true);
      socket.once('error', reject);
      socket.once('connect', () =>
        socket.write(
          `GET ${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
            'sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\nsec-websocket-protocol: mcp\r\n\r\n',
        ),
      );
    });
  }

  /** Send one text frame. */
  send(text: string): void {
    if (this.closed) throw this.closed;
    const length = Buffer.byteLength(text);
    // Short ASCII (every message here): the frame as one latin1 string, header bytes as characters, no Buffer to build.
    if (length === text.length && length < 65536) {
      const size = length < 126 ? String.fromCharCode(0x80 | length) : `\xfe${String.fromCharCode(length >> 8, length & 0xff)}`;
      this.socket.write(`\x81${size}\0\0\0\0${text}`, 'latin1');
      return;
    }
    const header = length < 126 ? 6 : length < 65536 ? 8 : 14;
    const frame = Buffer.allocUnsafe(header + length);
    frame[0] = 0x81;
    if (length < 126) frame[1] = 0x80 | length;
    else if (length < 65536) {
      frame[1] = 0x80 | 126;
      frame.writeUInt16BE(length, 2);
    } else {
      frame[1] = 0x80 | 127;
      frame.writeBigUInt64BE(BigInt(length), 2);
    }
    frame.writeUInt32BE(0, header - 4);
    frame.write(text, header);
    this.socket.write(frame);
  }

  /** A close frame, then wait for the server to close the TCP connection. */
  close(): Promise<void> {
    if (!this.closed) this.socket.write(Buffer.from([0x88, 0x82, 0, 0, 0, 0, 0x03, 0xe8]));
    const timer = setTimeout(() => this.socket.destroy(), 1000);
    return this.closing.then(() => clearTimeout(timer));
  }

  /** Frames are read straight out of `chunk` (which may be the shared read buffer); only an unfinished tail is copied. */
  private receive(chunk: Buffer): void {
    const b = this.buffer.length ? Buffer.concat([this.buffer, chunk]) : chunk;
    let at = 0;
    for (;;) {
      if (b.length - at < 2) break;
      let length = b[at + 1] & 0x7f;
      let offset = at + 2;
      if (length === 126) {
        if (b.length - at < 4) break;
        length = b.readUInt16BE(at + 2);
        offset = at + 4;
      } else if (length === 127) {
        if (b.length - at < 10) break;
        length = Number(b.readBigUInt64BE(at + 2));
        offset = at + 10;
      }
      if (b.length < offset + length) break;
      const opcode = b[at] & 0x0f;
      // Servers do not fragment these small messages; a ping needs no pong within a measurement.
      if (opcode === 1) this.onMessage(b.toString('latin1', offset, offset + length));
      else if (opcode === 8) this.socket.end();
      at = offset + length;
    }
    this.buffer = at === b.length ? EMPTY : Buffer.from(b.subarray(at));
  }
}

const EMPTY = Buffer.alloc(0);
