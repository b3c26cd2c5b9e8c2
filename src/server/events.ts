/** The events an McpServer emits, with their arguments. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type {
  CallToolResult,
  CancelledParams,
  CompleteParams,
  CompleteResult,
  CreateMessageResult,
  ElicitResult,
  ListRootsResult,
  GetPromptResult,
  InitializeParams,
  InitializeResult,
  LoggingLevel,
  ProgressParams,
} from '../protocol/types.js';
import type { RequestEvent } from './request-event.js';
import type { InputRequired } from '../mrtr/input-required.js';
import type { ReadOutput } from './resources.js';
import type { McpSession, OutgoingRequest } from './session.js';
import type { ClientResponse } from './client-requests.js';

export type ElicitationResponse = ClientResponse<ElicitResult>;
export type SamplingResponse = ClientResponse<CreateMessageResult>;
export type RootsResponse = ClientResponse<ListRootsResult>;

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
  /** `initialize` is about to be answered; listeners may change `result`. */
  initialize: [session: McpSession, params: InitializeParams, result: InitializeResult];
  /** The client sent `notifications/initialized`. */
  initialized: [session: McpSession];
  requestTool: [session: McpSession, request: ToolRequestEvent];
  requestPrompt: [session: McpSession, request: PromptRequestEvent];
  requestResource: [session: McpSession, request: ResourceRequestEvent];
  completionComplete: [session: McpSession, request: CompletionRequestEvent];
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
   * A Streamable HTTP request arrived, before any check. Answer `res` or set `control.handled` to take it
   * over (health checks, custom routes, your own auth).
   */
  httpRequest: [req: IncomingMessage, res: ServerResponse, control: { handled: boolean }];
  /** A Streamable HTTP response finished (or its connection closed); `res.statusCode` says how it went. */
  httpResponse: [req: IncomingMessage, res: ServerResponse];
  /** Every message in and out, for tracing. Parse failures arrive as the raw text. */
  message: [session: McpSession, direction: 'in' | 'out', message: JsonRpcMessage | JsonRpcMessage[] | unknown];
  /** Something went wrong that no one else was told about: a listener threw, a handler failed, a reply matched nothing. */
  error: [error: Error, session?: McpSession];
}
