/** stdio transport: newline-delimited JSON on stdin and stdout; stdout carries nothing but MCP (stdio.mdx). */
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../../protocol/errors.js';
import { errorResponse } from '../../protocol/jsonrpc.js';
import { LineSplitter } from '../../protocol/lines.js';
import { type Closable, type Connection, type McpSession, type PortOwner, portOf, type ServerPort } from '../../server/port.js';
import { TransportGate } from '../gate.js';
import { resolveStdioOptions, type StdioTransportOptions } from './options.js';
import { StdioChannel } from './stdio-channel.js';

export type { StdioTransportOptions } from './options.js';

export class StdioTransport implements Closable {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxMessageBytes: number;
  private readonly port: ServerPort;
  private readonly gate: TransportGate;
  private connection: Connection | undefined;
  private unregister: (() => void) | undefined;
  private readonly lines: LineSplitter;
  private readonly onData = (chunk: Buffer | string) => this.lines.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  private readonly onEnd = () => this.connection?.closed('stdin closed');
  private readonly onOutputError = (err: Error) => this.connection?.closed(`stdout failed: ${err.message}`);

  /** @param server the McpServer to serve */
  constructor(server: PortOwner, options: StdioTransportOptions = {}) {
    this.port = portOf(server, 'StdioTransport');
    const resolved = resolveStdioOptions(options);
    this.input = resolved.input;
    this.output = resolved.output;
    this.maxMessageBytes = resolved.maxMessageBytes;
    // No Host, Origin or credentials on a pipe: the gate decides draining and the session limit alone.
    this.gate = new TransportGate(this.port);
    this.lines = new LineSplitter(
      this.maxMessageBytes,
      (bytes) => this.line(bytes),
      () => this.rejectTooLong(),
    );
  }

  /** Start reading; returns the one session this transport carries. */
  start(): McpSession {
    if (this.connection) throw new Error('StdioTransport is already started; a process has one stdin');
    const refused = this.gate.admit(true);
    if (refused) throw new Error(`StdioTransport cannot start: ${refused.message}`);
    this.connection = this.port.connect(new StdioChannel(this.output, () => this.detach()));
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
