/** stdio transport: newline-delimited JSON on stdin and stdout; stdout carries nothing but MCP (stdio.mdx). */
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../protocol/errors.js';
import { errorResponse, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { McpSession } from '../server/port.js';
import { positiveInteger } from '../protocol/option-checks.js';
import { type Channel, type Closable, type Connection, type PortOwner, portOf, type ServerPort } from '../server/port.js';
import { LineSplitter } from '../protocol/lines.js';

export interface StdioTransportOptions {
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. */
  output?: Writable;
  /** The largest message read, in bytes of UTF-8 (one line); a longer line is discarded unread, with an error. Default 4 MiB. */
  maxMessageBytes?: number;
}

export class StdioTransport implements Closable {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxMessageBytes: number;
  private readonly port: ServerPort;
  private connection: Connection | undefined;
  private unregister: (() => void) | undefined;
  private readonly lines: LineSplitter;
  private readonly onData = (chunk: Buffer | string) => this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.connection?.closed('stdin closed');
  private readonly onOutputError = (err: Error) => this.connection?.closed(`stdout failed: ${err.message}`);

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: StdioTransportOptions = {}) {
    this.port = portOf(server, 'StdioTransport');
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
    positiveInteger('maxMessageBytes', this.maxMessageBytes);
    this.lines = new LineSplitter(
      this.maxMessageBytes,
      (bytes) => this.line(bytes),
      () => this.rejectTooLong(),
    );
  }

  /** Start reading; returns the one session this transport carries. */
  start(): McpSession {
    if (this.connection) throw new Error('StdioTransport is already started; a process has one stdin');
    const output = this.output;
    const channel: Channel = {
      kind: 'stdio',
      send(message: JsonRpcMessage | JsonRpcMessage[]) {
        if (output.destroyed || output.writableEnded) return false;
        output.write(`${JSON.stringify(message)}\n`);
        return true;
      },
      close: () => this.detach(),
    };
    this.connection = this.port.connect(channel);
    this.unregister = this.port.register(this);
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.output.on('error', this.onOutputError);
    return this.connection.session;
  }

  async close(): Promise<void> {
    this.connection?.close('transport closed');
    this.detach();
  }

  private detach(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.output.off('error', this.onOutputError);
    this.input.pause();
    this.unregister?.();
  }

  private line(bytes: Uint8Array): void {
    const line = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('utf8');
    if (line.trim().length === 0) return;
    try {
      this.connection!.receive(line);
    } catch (err) {
      this.port.reportError(err, this.connection); // Thrown from a stream listener, it would end the process.
    }
  }

  private rejectTooLong(): void {
    // The line is dropped unread: nothing of it reaches the session.
    this.port.countInvalidMessage();
    const message = `Invalid Request: message longer than maxMessageBytes (${this.maxMessageBytes} bytes); it was discarded`;
    this.output.write(`${JSON.stringify(errorResponse(null, { code: ErrorCode.InvalidRequest, message }))}\n`);
  }
}
