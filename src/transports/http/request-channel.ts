/**
 * The channel of one 2026-07-28 POST: its response, and the notifications related to it before that,
 * on this one HTTP response. JSON unless something must go first; no event ids (2026-07-28 has no
 * resumability), no requests (the era gate stops them before they get here).
 */
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';
import type { RequestId } from '../../protocol/types.js';
import type { Channel } from '../../server/port.js';
import type { ResponseMode } from './http-session.js';
import { sendJson } from './request-checks.js';
import { startEventStream, writeEventData } from './sse.js';
import { modernErrorStatus } from './status.js';

export class RequestChannel implements Channel {
  readonly kind = 'http';
  /** Whether the response has gone out (a close after that is no cancellation). */
  finished = false;
  private streaming = false;

  constructor(
    private readonly res: ServerResponse,
    private readonly requestId: RequestId,
    private readonly mode: ResponseMode,
    private readonly headers: Record<string, string>,
    readonly remoteAddress: string | undefined,
  ) {
    if (mode === 'sse') this.stream();
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], _relatedRequestId?: RequestId): boolean {
    const res = this.res;
    if (this.finished || res.destroyed) return false;
    // Serialise first: a message that cannot be throws before this response changes state.
    const data = JSON.stringify(message);
    const final = !Array.isArray(message) && !('method' in message) && message.id === this.requestId;
    if (final) {
      this.finished = true;
      if (this.streaming) return writeEventData(res, undefined, data, true);
      const status = 'error' in message ? modernErrorStatus(message.error.code) : 200;
      sendJson(res, status, this.headers, data);
      return true;
    }
    // A JSON answer cannot carry anything before the response.
    if (this.mode === 'json') return false;
    this.stream();
    return writeEventData(res, undefined, data);
  }

  canPush(): boolean {
    return false;
  }

  close(): void {
    if (!this.finished) this.res.end();
  }

  private stream(): void {
    if (this.streaming) return;
    this.streaming = true;
    startEventStream(this.res, this.headers);
  }
}
