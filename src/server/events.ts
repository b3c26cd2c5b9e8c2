/** The events an McpServer emits, with their arguments. */
import type { ClientResponse } from '../elicitation/kind.js';
import type { InputRequired } from '../mrtr/input-required.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type {
  CallToolResult,
  CancelledParams,
  CompleteParams,
  CompleteResult,
  ElicitAction,
  GetPromptResult,
  InitializeParams,
  InitializeResult,
  LoggingLevel,
  ProgressParams,
  Role,
  Root,
} from '../protocol/types.js';
import type { McpSession, OutgoingRequest, RequestEvent } from './api.js';
import type { ReadOutput } from './resources.js';

/** `content` is what the asker got, and a Standard schema's output need not be JSON (a number, a Date, a transformed value). */
export type ElicitationResponse = ClientResponse<{ action: ElicitAction; content: Record<string, unknown> | undefined }>;
export type SamplingResponse = ClientResponse<{
  role: Role;
  content: Record<string, unknown> | Record<string, unknown>[];
  model: string;
  stopReason: string | undefined;
}>;
export type RootsResponse = ClientResponse<{ roots: Root[] }>;

export type ToolRequestEvent = RequestEvent<{ name: string; arguments: Record<string, unknown> }, CallToolResult | string | InputRequired>;
export type PromptRequestEvent = RequestEvent<{ name: string; arguments: Record<string, string> }, GetPromptResult | InputRequired>;
export type ResourceRequestEvent = RequestEvent<{ uri: string }, ReadOutput | InputRequired>;
export type CompletionRequestEvent = RequestEvent<CompleteParams, CompleteResult | string[]>;

export interface McpServerEvents {
  /** A transport connection opened (WebSocket, stdio). The session is not initialized yet. */
  connect: [session: McpSession];
  /** A transport connection closed. */
  disconnect: [session: McpSession, reason: string];
  /** A session completed `initialize`. */
  sessionNew: [session: McpSession];
  /** An initialized session ended. */
  sessionEnd: [session: McpSession, reason: string];
  /**
   * A 2025 session another instance began goes on here (that instance drained or died; scale-out): ready,
   * with what its record kept (protocol version, client info and capabilities, log level, subscriptions).
   * Its `data` starts empty. It ends with `sessionEnd`, as any.
   */
  sessionAdopted: [session: McpSession];
  /**
   * Server-to-client requests can reach the session without riding on a client request: right after
   * `sessionNew` on WebSocket and stdio, and each time a Streamable HTTP client opens its GET stream.
   * Requests sent before that wait for it (up to their timeout).
   */
  backChannelOpen: [session: McpSession];
  /** `initialize` is about to be answered; listeners may change `result`. */
  initialize: [session: McpSession, params: InitializeParams, result: InitializeResult];
  /** The client sent `notifications/initialized`. */
  initialized: [session: McpSession];
  requestTool: [session: McpSession, request: ToolRequestEvent];
  requestPrompt: [session: McpSession, request: PromptRequestEvent];
  requestResource: [session: McpSession, request: ResourceRequestEvent];
  requestCompletion: [session: McpSession, request: CompletionRequestEvent];
  /** The client reported progress on a server-to-client request. */
  progress: [session: McpSession, params: ProgressParams];
  /** The client cancelled one of its requests. */
  cancelled: [session: McpSession, params: CancelledParams];
  loggingSetLevel: [session: McpSession, level: LoggingLevel];
  resourceSubscribe: [session: McpSession, uri: string];
  resourceUnsubscribe: [session: McpSession, uri: string];
  /** The client sent `notifications/roots/list_changed`. */
  rootsListChanged: [session: McpSession];
  /** A notification the server has no use for (it is otherwise ignored, as the spec says). */
  notification: [session: McpSession, method: string, params: Record<string, unknown> | undefined];
  /** The one ending of an `elicitation/create` this server sent: result, error reply, timeout, cancellation or close. */
  responseElicitationCreate: [session: McpSession, request: OutgoingRequest, response: ElicitationResponse];
  responseSamplingCreateMessage: [session: McpSession, request: OutgoingRequest, response: SamplingResponse];
  responseRootsList: [session: McpSession, request: OutgoingRequest, response: RootsResponse];
  /**
   * Every message in and out, once each, for tracing. Parse failures arrive as the raw text. What arrives
   * on a WebSocket or stdio connection comes with the connection's session; a 2026-07-28 request's answer
   * goes out with the request's own session.
   */
  message: [session: McpSession, direction: 'in' | 'out', message: JsonRpcMessage | JsonRpcMessage[] | unknown];
  /** Something worth knowing that is no failure (a client's second reply to a request, already answered). */
  debug: [message: string, session?: McpSession];
  /** Something went wrong that no one else was told about: a listener threw, a handler failed, a reply matched nothing. */
  error: [error: Error, session?: McpSession];
}
