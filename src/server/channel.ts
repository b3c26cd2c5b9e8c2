/** The narrow interface between a transport and the server: the server sees messages, never bytes or sockets. */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';

export type TransportKind = 'websocket' | 'stdio' | 'http';

export interface Channel {
  readonly kind: TransportKind;
  /** The peer's address, when the transport knows one. */
  readonly remoteAddress?: string;
  /**
   * Deliver one message (or a batch reply) to the peer. `relatedRequestId` names the client request
   * this message belongs to, so a transport with per-request streams can route it. Returns false
   * when the message could not be delivered (the peer is gone).
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean;
  /**
   * Whether a server-to-client request can reach the peer now (related to `relatedRequestId`, if
   * given). Absent means always: a WebSocket or stdio connection is its own back channel.
   */
  canPush?(relatedRequestId: RequestId | undefined): boolean;
  /**
   * Close the connection carrying `requestId`'s stream without ending the request: the client resumes
   * it later (SSE polling, SEP-1699). Absent or false where the transport cannot.
   */
  closeStream?(requestId: RequestId): boolean;
  /** A request ended without a response (cancelled): a transport with a stream per request ends that stream. */
  requestEnded?(requestId: RequestId): void;
  /** Close the underlying connection; the transport then reports the end to the session. */
  close(reason: string): void;
}

/** Something the server must shut down with itself (a listening transport). */
export interface Closable {
  close(): Promise<void>;
}
