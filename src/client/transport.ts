/**
 * The contract between `McpClient` and the ways it reaches a server (WebSocket, Streamable HTTP, stdio).
 * A transport moves JSON-RPC messages and knows its wire; the client owns ids, eras, pending requests,
 * timeouts and handlers.
 */
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';

/** What a transport hands the client. */
export interface ClientSink {
  /** One message from the server, parsed from JSON but not checked: the client classifies it. A batch comes member by member. */
  message(message: unknown): void;
  /** Something went wrong that ends no request by itself (a reply POST refused, a resumption that failed): reported on `error`. */
  error(error: Error): void;
  /** The connection is gone for good: everything pending fails with this reason. Called at most once. */
  closed(reason: string): void;
}

/** The SEP-2243 headers of a 2026-07-28 request over HTTP, computed by the client. */
export interface ModernHeaders {
  /** `Mcp-Method`. */
  method: string;
  /** `Mcp-Name`: params.name of tools/call and prompts/get, params.uri of resources/read. */
  name?: string;
  /** `Mcp-Param-<Name>` headers for tool arguments marked `x-mcp-header`, by header name, values not yet encoded. */
  params?: Record<string, string>;
}

/** How one outgoing message travels. */
export interface SendContext {
  /**
   * The protocol version the message is sent under (the `MCP-Protocol-Version` header on HTTP). Absent
   * before a version is agreed (initialize, the first discover probe).
   */
  protocolVersion?: string;
  /** Present on a 2026-07-28 request: it travels on its own (a POST of its own over HTTP), with these headers. */
  modern?: ModernHeaders;
  /**
   * Aborted when the client gives up on the request (timeout, the caller's signal): the transport stops
   * waiting for its answer and resuming its stream. On a 2026-07-28 request over HTTP it also closes the
   * request's stream, which is the cancellation.
   */
  signal?: AbortSignal;
}

export interface ClientTransport {
  readonly kind: 'websocket' | 'http' | 'stdio';
  /**
   * Whether closing a request's own stream is how a 2026-07-28 request is cancelled (HTTP); otherwise,
   * and on the legacy era always, the client sends notifications/cancelled.
   */
  readonly cancelsByClosingStream: boolean;
  /** Connect. Messages go to `sink` from then on. Rejects with an Error that says what failed (refused, 401, bad subprotocol...). */
  start(sink: ClientSink): Promise<void>;
  /**
   * Send one message. Resolves once it is handed over (a WebSocket frame queued, an HTTP POST written);
   * the answer to a request arrives later through the sink. Rejects only when the message could not be
   * sent at all. When a request's answer cannot come as a JSON-RPC message, the transport answers it
   * itself through the sink, so that every request ends exactly once: `ErrorCode.ConnectionClosed` when
   * the connection failed or broke off first, `ErrorCode.TransportRefused` when HTTP answered without a
   * JSON-RPC response (`data.httpStatus`) or with one over `maxMessageBytes`.
   */
  send(message: JsonRpcMessage, context?: SendContext): Promise<void>;
  /**
   * The legacy session is established (initialize answered, notifications/initialized sent): a transport
   * that must open a stream for what the server pushes (the HTTP GET stream) opens it now.
   */
  sessionReady?(protocolVersion: string): void;
  /** Close the connection (DELETE the HTTP session, end the socket, stop the child process). Idempotent. */
  close(): Promise<void>;
}
