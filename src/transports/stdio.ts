/** stdio transport: newline-delimited JSON on stdin and stdout; stdout carries nothing but MCP (stdio.mdx). */
import type { Readable, Writable } from 'node:stream';
import { ErrorCode } from '../protocol/errors.js';
import { errorResponse, type JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Channel, Closable } from '../server/channel.js';
import type { McpServer } from '../server/mcp-server.js';
import { positiveInteger } from '../server/options.js';
import type { McpSession } from '../server/session.js';

export interface StdioTransportOptions {
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. */
  output?: Writable;
  /** Longest accepted line, in bytes (UTF-16 code units, near enough); longer lines are discarded with an error. Default 4 MiB. */
  maxMessageSize?: number;
}

export class StdioTransport implements Closable {
  private readonly input: Readable;
  private readonly output: Writable;
  private readonly maxMessageSize: number;
  private session: McpSession | undefined;
  private buffer = '';
  private discarding = false;
  private readonly onData = (chunk: string) => this.read(chunk);
  private readonly onEnd = () => this.session?.transportClosed('stdin closed');
  private readonly onOutputError = (err: Error) => this.session?.transportClosed(`stdout failed: ${err.message}`);

  constructor(
    private readonly server: McpServer,
    options: StdioTransportOptions = {},
  ) {
    this.input = options.input ?? process.stdin;
    this.output = options.output ?? process.stdout;
    this.maxMessageSize = options.maxMessageSize ?? 4 * 1024 * 1024;
    positiveInteger('maxMessageSize', this.maxMessageSize);
  }

  /** Start reading; returns the one session this transport carries. */
  start(): McpSession {
    if (this.session) throw new Error('StdioTransport is already started; a process has one stdin');
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
    this.session = this.server.openSession(channel);
    this.server.trackTransport(this);
    this.input.setEncoding('utf8');
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('close', this.onEnd);
    this.output.on('error', this.onOutputError);
    return this.session;
  }

  async close(): Promise<void> {
    this.session?.close('transport closed');
    this.detach();
  }

  private detach(): void {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.input.off('close', this.onEnd);
    this.output.off('error', this.onOutputError);
    this.input.pause();
    this.server.untrackTransport(this);
  }

  private read(chunk: string): void {
    let start = 0;
    let newline = chunk.indexOf('\n');
    while (newline !== -1) {
      const line = this.buffer + chunk.slice(start, newline);
      this.buffer = '';
      if (this.discarding) this.discarding = false;
      else this.line(line);
      start = newline + 1;
      newline = chunk.indexOf('\n', start);
    }
    if (this.discarding) return;
    this.buffer += chunk.slice(start);
    if (this.buffer.length > this.maxMessageSize) {
      this.buffer = '';
      this.discarding = true;
      this.rejectTooLong();
    }
  }

  private line(raw: string): void {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim().length === 0) return;
    if (line.length > this.maxMessageSize) return this.rejectTooLong();
    this.session!.receive(line);
  }

  private rejectTooLong(): void {
    this.server.stats.invalidMessages++;
    const message = `Invalid Request: message longer than maxMessageSize (${this.maxMessageSize} bytes); it was discarded`;
    this.session!.send(errorResponse(null, { code: ErrorCode.InvalidRequest, message }));
  }
}
