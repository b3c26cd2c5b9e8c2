/** The types an application meets on `McpClient`: call options, handler contexts and events. */
import type { JsonRpcNotification } from '../protocol/jsonrpc.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ElicitUrlParams,
  ListRootsResult,
  LoggingLevel,
  ProgressParams,
  RequestId,
} from '../protocol/types.js';

/** Options of one call. */
export interface CallOptions {
  /** Abort the call: the client stops waiting and tells the server (notifications/cancelled, or by closing the stream). */
  signal?: AbortSignal;
  /** Give up after this long (each input round counts anew). Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Progress the server reports for this call (the client sends a progress token when this is given). */
  onProgress?: (progress: ProgressParams) => void;
}

/** Where a server's request to the client came from. */
export interface HandlerContext {
  /** Aborted when the server cancels the request, or the connection ends. */
  signal: AbortSignal;
  /** `legacy`: a request the server pushed; `modern`: an input request inside a 2026-07-28 `input_required` result. */
  era: 'legacy' | 'modern';
  /** The server's request id (legacy). */
  requestId?: RequestId;
  /** The input request's key in `inputRequests` (modern). */
  inputKey?: string;
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
  /** The connection ended; every pending call has failed with ConnectionClosedError. */
  close: (reason: string) => void;
  /** A failure no call reports: a handler that threw, a message the client could not read, a listener that threw. */
  error: (error: Error) => void;
}
