/**
 * The narrow port between the server and its transports. A transport turns bytes into messages for a
 * connection and back; it sees the server only through `ServerPort`, and each session only through
 * `Connection` (server/connection.ts). The server sees a transport only through `Channel`: messages, never sockets.
 */
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { Era, ServedEras } from '../protocol/versions.js';
import type { Classified, JsonRpcMessage, JsonRpcRequest } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, LoggingLevel, RequestId } from '../protocol/types.js';
import type { McpSession, SessionState } from './api.js';

export type { McpSession };

export type TransportKind = 'websocket' | 'stdio' | 'http';

/** What the server sends through: one per connection, or one per 2026-07-28 request on Streamable HTTP. */
export interface Channel {
  readonly kind: TransportKind;
  /** The peer's address, when the transport knows one. */
  readonly remoteAddress?: string | undefined;
  /**
   * Deliver one message (or a batch reply) to the peer. `relatedRequestId` names the client request
   * this message belongs to, so a transport with per-request streams can route it. Returns false
   * when the message could not be delivered (the peer is gone, or has no stream open for it).
   */
  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean;
  /**
   * Whether a server-to-client request can reach the peer now (related to `relatedRequestId`, if given).
   * Absent means always: a WebSocket or stdio connection is its own back channel. When it says no, the
   * request waits until the transport reports `backChannelOpened`, or its timeout.
   */
  canPush?(relatedRequestId: RequestId | undefined): boolean;
  /**
   * Close the connection carrying `requestId`'s stream without ending the request: the client resumes
   * it later (SSE polling, SEP-1699). Absent or false where the transport cannot.
   */
  closeStream?(requestId: RequestId): boolean;
  /** A request ended without a response (cancelled): a transport with a stream per request ends that stream. */
  requestEnded?(requestId: RequestId): void;
  /**
   * What another instance would need to go on with the session changed (initialize was answered, the
   * log level or a subscription changed): a transport that keeps it elsewhere reads `connection.record`.
   */
  sessionChanged?(): void;
  /** Close the underlying connection; the transport then reports the end to the session. */
  close(reason: string): void;
}

/** A refusal of a message before it runs: the JSON-RPC error, and the id it answers. */
export interface Refusal {
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

/** Messages a connection checked: why the first would be refused, or nothing, and the means to run them. */
export interface Admission {
  readonly refusal: Refusal | undefined;
  /**
   * Handle the messages; each response goes out through the channel, related to its request. Refused
   * ones are answered with their JSON-RPC error instead, for a transport that does not answer them itself.
   */
  deliver(raw: unknown): void;
}

/**
 * What another instance needs to go on with a 2025 session once its owner is gone (JSON): what
 * `initialize` settled, and what the client set since. The principal is the transport's to keep.
 */
export interface SessionRecord {
  protocolVersion: string;
  clientInfo?: Implementation | undefined;
  clientCapabilities: ClientCapabilities;
  logLevel?: LoggingLevel | undefined;
  /** The resources it subscribed to (`resources/subscribe`). */
  subscriptions: string[];
}

/**
 * Why every session ends when its server (or transport) stops. A transport that shares sessions with
 * other instances keeps their records and stored events then, for another instance to go on with them.
 */
export const SERVER_CLOSED = 'server closed';

/** One session as its transport sees it (WebSocket, stdio, or a Streamable HTTP session). */
export interface Connection {
  /** The session id (Streamable HTTP's `Mcp-Session-Id`). */
  readonly id: string;
  readonly state: SessionState;
  /** The negotiated protocol version, once `initialize` has been answered. */
  readonly protocolVersion: string | undefined;
  /** Epoch ms of the client's last sign of life. */
  readonly lastActivityMs: number;
  /** Whether client requests are being handled. */
  readonly busy: boolean;
  /** The session as applications see it (what a transport's options receive). */
  readonly session: McpSession;
  /** What another instance needs to go on with it; undefined until `initialize` is answered. */
  readonly record: SessionRecord | undefined;
  /** Whether a server-to-client request with this id waits for the client's reply on this connection. */
  awaitsReply(id: RequestId): boolean;
  /** One frame or line of text: decoded, checked and handled (WebSocket, stdio). */
  receive(text: string): void;
  /**
   * For a transport that answers refusals itself (Streamable HTTP, with a status): these messages checked
   * once, as `receive` checks them, before any runs. `era` is what the transport found for a single
   * message, which is then not classified again.
   */
  admit(messages: readonly Classified[], batch: boolean, era?: Era): Admission;
  /** The client showed a sign of life without sending a message (it opened or resumed a stream). */
  touch(): void;
  /** Server-to-client requests can reach the client now (Streamable HTTP: its GET stream opened). */
  backChannelOpened(): void;
  /**
   * The same principal came back with a fresher credential (HTTP authenticates every request): the
   * session keeps it, so scopes granted since (step-up) count, and handlers see the latest.
   */
  renewPrincipal(principal: unknown): void;
  /** A guest's session changed on its owner (`logging/setLevel`): it goes on as `record` says now. */
  renewRecord(record: SessionRecord): void;
  /** The transport lost the connection. */
  closed(reason: string): void;
  /** End the session and close the connection (DELETE, idle timeout, eviction). */
  close(reason: string): void;
}

/** A 2026-07-28 request in progress, which its transport may cancel (Streamable HTTP: the client closed its stream). */
export interface CancellableRequest {
  cancel(reason: string): void;
}

/** Something the server must shut down with itself (a listening transport). */
export interface Closable {
  /** The server begins to drain (`close({ drainMs })`): what it holds may go on elsewhere. */
  drain?(): void;
  close(): Promise<void>;
}

/** What a transport needs from the server, and all it gets. */
export interface ServerPort {
  /** Which eras the server serves: the era classifier's input. */
  readonly eras: ServedEras;
  /** A connection opened: one session per connection. `principal` is what the transport's auth hook returned. */
  connect(channel: Channel, principal?: unknown): Connection;
  /**
   * Serve one 2026-07-28 request whose responses go through `channel` alone. `onStart` gets the means to
   * cancel it before its handler runs; it is not called when the request was answered at once.
   */
  serveStateless(request: JsonRpcRequest, from: { channel: Channel; principal: unknown; onStart: (request: CancellableRequest) => void }): void;
  /**
   * Go on with a 2025 session another instance began (its owner is gone): a connection for session
   * `sessionId`, ready, as `record` left it. `sessionAdopted` fires.
   */
  adopt(channel: Channel, principal: unknown, sessionId: string, record: SessionRecord): Connection;
  /**
   * Serve requests for a 2025 session another instance holds, as `record` left it, without taking it
   * over: a connection the server does not count among its sessions, which fires no session event, and
   * whose requests to the client take string ids `<idPrefix><n>`, counted over every guest with that
   * prefix (the prefix names this instance, so that a reply is found wherever it lands).
   */
  guest(channel: Channel, principal: unknown, sessionId: string, record: SessionRecord, idPrefix: string): Connection;
  /** The server's `maxSessions` when it holds that many sessions over every transport; otherwise undefined. */
  sessionLimitReached(): number | undefined;
  /** A message the transport answered with -32700 or -32600 itself (a binary frame, an unparseable body). */
  countInvalidMessage(): void;
  /** The server is draining: transports refuse new sessions and requests (503). */
  readonly draining: boolean;
  /** Readiness for `/readyz`. */
  readiness(): { ready: boolean; reason?: string };
  /** Stop `transport` when the server closes. Returns what undoes that. */
  register(transport: Closable): () => void;
  /** Something failed that no request can be answered with. */
  reportError(error: unknown, connection?: Connection): void;
}

/**
 * What Streamable HTTP alone asks about a request before it runs: its Mcp-Param-* headers and its OAuth
 * scope step-up. Kept off `ServerPort`, which every transport holds; HTTP gets it with `httpNeedsOf`.
 */
export interface HttpNeeds {
  /** The tools by name, with the arguments each mirrors in Mcp-Param-* headers (SEP-2243), as [property, header name]. */
  readonly tools: { get(name: string): { readonly headerParams: readonly (readonly [string, string])[] | undefined } | undefined };
  /** The OAuth scopes a request needs (its tool's, prompt's or resource's `scopes`), with what needs them; undefined when none. */
  requiredScopes(method: string, params: Record<string, unknown> | undefined): { scopes: readonly string[]; what: string } | undefined;
}

/**
 * The server a transport is built on: an McpServer. Transports reach it only through `portOf`; this
 * type names just enough of it to catch passing something else.
 */
export interface PortOwner {
  readonly info: Readonly<Implementation>;
  close(): Promise<void>;
}

const ports = new WeakMap<PortOwner, ServerPort>();
const httpNeeds = new WeakMap<PortOwner, HttpNeeds>();

/** Called once by each McpServer for itself. */
export function registerPort(owner: PortOwner, port: ServerPort, needs: HttpNeeds): void {
  ports.set(owner, port);
  httpNeeds.set(owner, needs);
}

/** The port of `server`; a TypeError for anything that is not an McpServer. */
export function portOf(server: PortOwner, transport: string): ServerPort {
  const port = typeof server === 'object' && server !== null ? ports.get(server) : undefined;
  if (!port) throw new TypeError(`${transport} needs an McpServer: new ${transport}(server, options)`);
  return port;
}

/** What Streamable HTTP asks of `server` beyond its port (call after `portOf`, which checks `server`). */
export function httpNeedsOf(server: PortOwner): HttpNeeds {
  return httpNeeds.get(server)!;
}
