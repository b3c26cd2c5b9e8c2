/**
 * Newline-delimited JSON-RPC from a byte stream (stdio, both ends). Split as bytes, not characters: the
 * limit is in bytes, and a UTF-8 sequence never holds the byte 0x0A, so a line is decoded only once whole.
 */
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  /** The rest of a line already found too long is dropped unread, up to its newline. */
  private discarding = false;

  /**
   * @param onLine a line's bytes, without its newline (nor the CR of a CRLF ending)
   * @param onTooLong a line over `maxBytes` was dropped
   */
  constructor(
    private readonly maxBytes: number,
    private readonly onLine: (bytes: Uint8Array) => void,
    private readonly onTooLong: () => void,
  ) {}

  push(chunk: Uint8Array): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      const tail = chunk.subarray(start, newline);
      const bytes = this.pendingBytes === 0 ? tail : concatBytes([...this.pending, tail], this.pendingBytes + tail.length);
      // The CR of a CRLF ending is not part of the message.
      const size = bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
      this.pending = [];
      this.pendingBytes = 0;
      if (this.discarding) this.discarding = false;
      else if (size > this.maxBytes) this.onTooLong();
      else this.onLine(bytes.subarray(0, size));
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (this.discarding || start === chunk.length) return;
    const rest = chunk.subarray(start);
    // One byte over the limit may be the CR of a CRLF ending.
    if (this.pendingBytes + rest.length > this.maxBytes + 1) {
      this.pending = [];
      this.pendingBytes = 0;
      this.discarding = true;
      this.onTooLong();
      return;
    }
    this.pending.push(rest);
    this.pendingBytes += rest.length;
  }
}

/** `parts` joined into one array of `length` bytes. */
export function concatBytes(parts: Uint8Array[], length: number): Uint8Array {
  const joined = new Uint8Array(length);
  let at = 0;
  for (const part of parts) {
    joined.set(part, at);
    at += part.length;
  }
  return joined;
}
