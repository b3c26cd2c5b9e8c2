/** A 2026-07-28 POST (streamable-http.mdx) and its channel: no session, headers checked against the body, closing the stream cancels. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { Classified, JsonRpcMessage } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import { quote } from '../../protocol/quote.js';
import type { RequestId } from '../../protocol/types.js';
import type { Channel, HttpNeeds, ServerPort } from '../../server/port.js';
import type { GateRefusal, TransportGate } from '../gate.js';
import type { ResponseMode } from './http-session.js';
import { checkModernHeaders, connectionGone, sendHttpError, sendJson } from './request.js';
import { notReading } from '../not-reading.js';
import { boundQueue, eventStreamHeaders, startEventStream, wasCutOff, writeEventData } from './sse.js';
import { modernErrorStatus } from './status.js';

/** What a 2026-07-28 POST needs of its transport. */
export interface ModernPostHost {
  readonly port: ServerPort;
  readonly needs: HttpNeeds;
  readonly gate: TransportGate;
  readonly responseMode: ResponseMode;
  /** Bytes queued to a POST's event stream that its client has not read, past which (undrained for 2 s) it is closed and the request cancelled. */
  readonly maxBufferedBytes: number;
  refuse(res: ServerResponse, refusal: GateRefusal, cors: Record<string, string>): void;
}

/** `message` is the POST's one message; undefined for a batch, which 2026-07-28 does not take. */
export function modernPost(
  host: ModernPostHost,
  req: IncomingMessage,
  res: ServerResponse,
  cors: Record<string, string>,
  principal: unknown,
  message: Exclude<Classified, { kind: 'invalid' }> | undefined,
): void {
  if (!message)
    return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 takes one JSON-RPC message per POST, never a batch', cors);
  if (message.kind === 'notification') {
    // Core 2026-07-28 defines no client notifications over HTTP (cancellation is closing the stream).
    res.writeHead(202, cors).end();
    return;
  }
  if (message.kind === 'response') {
    return sendHttpError(res, 400, ErrorCode.InvalidRequest, 'Invalid Request: 2026-07-28 clients post requests only', cors, undefined, message.message.id);
  }
  const request = message.message;
  const refused = host.gate.admit(false);
  if (refused) return host.refuse(res, refused, cors);
  // Headers first: a header that disagrees with the body is -32020 whatever the version (SEP-2243). A request
  // with no claim has nothing to compare the header with: the server refuses its envelope (400, by the status mapping).
  const claim = (request.params?._meta as Record<string, unknown> | undefined)?.[META.protocolVersion];
  if (claim !== undefined) {
    try {
      checkModernHeaders(host.needs, req, request, typeof claim === 'string' ? claim : quote(claim));
    } catch (err) {
      if (!(err instanceof McpError)) throw err;
      return sendHttpError(res, 400, err.code, err.message, cors, undefined, request.id);
    }
  }
  // A listen stream is nothing but notifications, whatever responseMode says: it streams from its
  // acknowledgement on, and a listen refused before that (a filter it may not have) is a plain JSON error.
  const mode = request.method === 'subscriptions/listen' ? 'auto' : host.responseMode;
  const channel = new RequestChannel(res, request.id, mode, cors, req.socket.remoteAddress, host.maxBufferedBytes);
  host.port.serveStateless(request, {
    channel,
    principal,
    onStart(running) {
      // streamable-http.mdx (2026-07-28): closing the request's stream is its cancellation.
      const onClose = () => {
        if (!channel.finished) running.cancel(wasCutOff(res) ? notReading(host.maxBufferedBytes) : 'the client closed the stream');
      };
      // An await came before this (auth, the body): the client may be gone already.
      if (connectionGone(res)) onClose();
      else res.once('close', onClose);
    },
  });
}

/**
 * The channel of one 2026-07-28 POST: its response, and the notifications related to it before that,
 * on this one HTTP response. JSON unless something must go first; no event ids (2026-07-28 has no
 * resumability), no requests (the era gate stops them before they get here).
 */
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
    private readonly maxQueued = Number.POSITIVE_INFINITY,
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
    if (!writeEventData(res, undefined, data)) return false;
    boundQueue(res, this.maxQueued);
    return true;
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
    startEventStream(this.res, eventStreamHeaders(this.headers));
  }
}
