/** A 2026-07-28 POST (streamable-http.mdx): no session, headers checked against the body, closing the stream cancels. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode, McpError } from '../../protocol/errors.js';
import type { Classified } from '../../protocol/jsonrpc.js';
import { META } from '../../protocol/meta.js';
import { quote } from '../../protocol/quote.js';
import type { HttpNeeds, ServerPort } from '../../server/port.js';
import type { GateRefusal, TransportGate } from '../gate.js';
import type { ResponseMode } from './http-session.js';
import { checkModernHeaders } from './modern-headers.js';
import { RequestChannel } from './request-channel.js';
import { sendHttpError } from './request-checks.js';
import { connectionGone } from './sse.js';

/** What a 2026-07-28 POST needs of its transport. */
export interface ModernPostHost {
  readonly port: ServerPort;
  readonly needs: HttpNeeds;
  readonly gate: TransportGate;
  readonly responseMode: ResponseMode;
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
  const channel = new RequestChannel(res, request.id, mode, cors, req.socket.remoteAddress);
  host.port.serveStateless(channel, request, principal, (running) => {
    // streamable-http.mdx (2026-07-28): closing the request's stream is its cancellation.
    const onClose = () => {
      if (!channel.finished) running.cancel('the client closed the stream');
    };
    // An await came before this (auth, the body): the client may be gone already.
    if (connectionGone(res)) onClose();
    else res.once('close', onClose);
  });
}
