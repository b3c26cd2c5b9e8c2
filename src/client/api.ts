/** The types an application meets on `McpClient`: call options, handler contexts and events. */
import type { Era } from '../protocol/versions.js';
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type {
  CallToolResult,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ElicitUrlParams,
  ListRootsResult,
  LoggingLevel,
  ProgressParams,
  Prompt,
  RequestId,
  Resource,
  ResourceTemplate,
  Tool,
} from '../protocol/types.js';

/** Options of one call. */
export interface CallOptions {
  /** Abort the call: the client stops waiting and tells the server (notifications/cancelled, or by closing the stream). */
  signal?: AbortSignal;
  /** Give up after this long (each input round counts anew). Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Progress the server reports for this call (the client sends a progress token when this is given). */
  onProgress?: (progress: ProgressParams) => void;
  /** A tools/call that became a task (the `tasks` option): each new state of it, from creation to its end. */
  onTask?: (task: DetailedTask) => void;
}

/** The change notifications a `subscriptions/listen` stream asks for (2026-07-28), and those the server honours. */
export interface ListenNotifications {
  toolsListChanged?: boolean;
  promptsListChanged?: boolean;
  resourcesListChanged?: boolean;
  /** Resources whose notifications/resources/updated the client wants. */
  resourceSubscriptions?: string[];
  /** Tasks whose `notifications/tasks` the client wants (the Tasks extension; declare it with the `tasks` option). */
  taskIds?: string[];
}

export interface SubscriptionOptions {
  /** Ends the subscription (before or after it is acknowledged). */
  signal?: AbortSignal;
  /** How long to wait for the acknowledgement. Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Each notification of this subscription (they also reach the `notification` event). */
  onNotification?: (notification: JsonRpcNotification) => void;
}

/** An acknowledged `subscriptions/listen` stream. */
export interface Subscription {
  /** Its id: the request id every notification of it carries in `_meta["io.modelcontextprotocol/subscriptionId"]`. */
  readonly id: RequestId;
  /** What the server honours, as its acknowledgement said. */
  readonly notifications: ListenNotifications;
  /** Resolves, never rejects, when it ends, with why: the server completed it, `close()`, the signal, an error, the connection. */
  readonly ended: Promise<string>;
  /** End it: the stream is closed (HTTP) or the server is sent notifications/cancelled. */
  close(): void;
}

/** Where a server's request to the client came from. */
export interface HandlerContext {
  /** Aborted when the server cancels the request, or the connection ends. */
  signal: AbortSignal;
  /** `legacy`: a request the server pushed; `modern`: an input request inside a 2026-07-28 `input_required` result. */
  era: Era;
  /** The server's request id (legacy). */
  requestId?: RequestId;
  /** The input request's key in `inputRequests` (modern). */
  inputKey?: string;
  /** The task that asks, when the question came in a task's `inputRequests` (the Tasks extension). */
  taskId?: string;
  /**
   * Tell the server how far the answer has got (notifications/progress), when its request asked for
   * progress with a token (legacy); otherwise it does nothing.
   */
  progress(progress: number, total?: number, message?: string): void;
}

export type ElicitationHandler = (params: ElicitParams, ctx: HandlerContext) => ElicitResult | Promise<ElicitResult>;
export type SamplingHandler = (params: CreateMessageParams, ctx: HandlerContext) => CreateMessageResult | Promise<CreateMessageResult>;
export type RootsHandler = (ctx: HandlerContext) => ListRootsResult | Promise<ListRootsResult>;

/** A log message the server sent (notifications/message). */
export interface LogMessage {
  level: LoggingLevel;
  logger?: string;
  data: unknown;
}

export interface McpClientEvents {
  /** The server asked for input: before the handler runs. */
  elicitationCreate: (params: ElicitParams, ctx: HandlerContext) => void;
  /** A URL-mode elicitation finished out of band (notifications/elicitation/complete); `request` is what asked for it, when the client saw it. */
  elicitationComplete: (elicitationId: string, request: ElicitUrlParams | undefined) => void;
  samplingCreateMessage: (params: CreateMessageParams, ctx: HandlerContext) => void;
  rootsList: (ctx: HandlerContext) => void;
  /** Every notification from the server, whatever it is. */
  notification: (notification: JsonRpcNotification) => void;
  log: (message: LogMessage) => void;
  progress: (progress: ProgressParams) => void;
  /** A task a tools/call became (the `tasks` option) changed: each new state, from creation to its end. */
  taskStatus: (task: DetailedTask) => void;
  /** The connection ended; every pending call has failed with ConnectionClosedError. */
  close: (reason: string) => void;
  /** A failure no call reports: a handler that threw, a message the client could not read, a listener that threw. */
  error: (error: Error) => void;
}

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
  [key: string]: unknown;
}

/** `callTool`'s arguments, then its options: the arguments may be left out when the tool needs none. */
export type CallToolRest<Args> = Record<string, never> extends Args ? [args?: Args, options?: CallOptions] : [args: Args, options?: CallOptions];

/** A tool's result, its `structuredContent` typed by the tool map (absent on an error result); a `CallToolResult` for an untyped tool. */
export type ToolCallResult<Structured> = [Structured] extends [undefined]
  ? CallToolResult
  : Record<string, unknown> extends Structured
    ? CallToolResult
    : { content: CallToolResult['content']; structuredContent?: Structured; isError?: boolean; _meta?: CallToolResult['_meta'] };

/** Options of `connect`. */
export interface ConnectOptions {
  /** Give up connecting (and negotiating the era) after this long. Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}
