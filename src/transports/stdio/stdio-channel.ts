/** The one connection of a stdio transport as a Channel: each message one line of JSON on stdout (stdio.mdx). */
import type { Writable } from 'node:stream';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { Channel } from '../../server/port.js';

export class StdioChannel implements Channel {
  readonly kind = 'stdio';

  constructor(
    private readonly output: Writable,
    private readonly detach: () => void,
  ) {}

  send(message: JsonRpcMessage | JsonRpcMessage[]): boolean {
    const output = this.output;
    if (output.destroyed || output.writableEnded) return false;
    output.write(`${JSON.stringify(message)}\n`);
    return true;
  }

  close(): void {
    this.detach();
  }
}
