/**
 * What applications receive from the server and never construct: a session, a handler's context, and the
 * request a `request*` listener answers. Each is an interface; the runtime's own classes implement them.
 */
import type { Era } from '../protocol/versions.js';
import type { ElicitResultFor, FormSchema } from '../elicitation/form-schema.js';
import type { ClientRequestOptions } from '../elicitation/kind.js';
import type { InputRequired } from '../mrtr/input-required.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ProgressParams,
  ProgressToken,
  RequestId,
} from '../protocol/types.js';

/** `new`: waiting for `initialize`; `initializing`: answered, waiting for `notifications/initialized`. */
export type SessionState = 'new' | 'initializing' | 'ready' | 'closed';

export interface SessionRequestOptions extends ClientRequestOptions {
  /** Ask the client for progress; each `notifications/progress` for this request is passed here. */
  onProgress?: (progress: ProgressParams) => void;
  /** Restart the timeout on each progress notification, never beyond `maxTotalTimeoutMs`. */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
}

/** A server-to-client request as it was sent, id included. */
export type OutgoingRequest = JsonRpcRequest & { params: Record<string, unknown> };

/** Options of `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots`. */
export interface InputOptions extends ClientRequestOptions {
  /** 2026-07-28: the key of this question in inputRequests. Default: `elicit-1`, `sample-2`, ... in call order. */
  key?: string;
}

/**
 * One client's session: its negotiated version and capabilities, and its traffic in both directions. A
 * 2026-07-28 request gets a session of its own (`era: 'modern'`), which lives as long as the request.
 */
export interface McpSession {
  readonly id: string;
  /** `legacy`: a session of the legacy era (2024-11-05 to 2025-11-25). `modern`: one request of the modern era (2026-07-28). */
  readonly era: Era;
  readonly transport: 'websocket' | 'stdio' | 'http';
  readonly remoteAddress: string | undefined;
  readonly state: SessionState;
  /** The negotiated protocol version, once `initialize` has been answered. */
  readonly protocolVersion: string | undefined;
  readonly clientInfo: Implementation | undefined;
  /** What the client declared, normalised (`elicitation: {}` reads as `{form: {}}`). */
  readonly clientCapabilities: ClientCapabilities;
  /** Set by `logging/setLevel` (2026-07-28: by the request's `_meta`); until then the server's `defaultLogLevel` applies. */
  readonly logLevel: LoggingLevel | undefined;
  /** Resource URIs this session subscribed to. */
  readonly subscriptions: ReadonlySet<string>;
  /** Who the transport's `auth` hook said the client is, if it has one. */
  readonly principal: unknown;
  /** Free for the application: whatever it wants to keep with the session. */
  readonly data: Record<string, unknown>;
  readonly createdAt: Date;
  readonly lastActivity: Date;
  /** Why the session ended, once it has. */
  readonly closeReason: string | undefined;
  /** Server-to-client requests still waiting for the client's reply (or for a way to reach it). */
  readonly pendingRequests: number;

  /** Send a request to the client and wait for its result. Rejects with an `McpError` (or a subclass for local causes). */
  request(method: string, params?: Record<string, unknown>, options?: SessionRequestOptions): Promise<Record<string, unknown>>;
  /**
   * Ask the user for input through the client (`elicitation/create`). A form's `requestedSchema` (JSON
   * Schema, or a Standard Schema) types the accepted content. Rejects with a typed error; see the README.
   */
  elicit<const P extends ElicitParams<FormSchema>>(params: P, options?: ClientRequestOptions): Promise<ElicitResultFor<P>>;
  /** Ask the client's model for a completion (`sampling/createMessage`). */
  createMessage(params: CreateMessageParams, options?: ClientRequestOptions): Promise<CreateMessageResult>;
  /** Ask the client for its roots (`roots/list`). */
  listRoots(options?: ClientRequestOptions): Promise<ListRootsResult>;
  /** `ping` the client; resolves when it answers. */
  ping(options?: SessionRequestOptions): Promise<void>;
  /** Cancel a server-to-client request by id; the client is sent `notifications/cancelled`. */
  cancelRequest(id: RequestId, reason?: string): boolean;
  /** Send a notification to the client. Returns false when it could not be delivered. */
  notify(method: string, params?: Record<string, unknown>): boolean;
  /** Send `notifications/message` if the session's log level lets `level` through. */
  log(level: LoggingLevel, data: unknown, logger?: string): boolean;
  /** End the session and close its connection. Pending requests end with `ConnectionClosedError`. */
  close(reason?: string): void;
}

/** What a tool, prompt, resource or completion handler gets besides its arguments: one small object per request. */
export interface RequestContext {
  /** The session the request arrived on. */
  readonly session: McpSession;
  /** The JSON-RPC id of the request being handled. */
  readonly requestId: RequestId;
  readonly method: string;
  /** The request's `params._meta`, if any. */
  readonly meta: Meta | undefined;
  /** Aborted when the client cancels the request, or the session ends. */
  readonly signal: AbortSignal;
  readonly progressToken: ProgressToken | undefined;
  /**
   * Report progress. Sends `notifications/progress` only when the client asked for it with
   * `_meta.progressToken`; otherwise it does nothing. Progress must increase (basic/utilities/progress).
   * While the request waits on an elicitation or sampling request, the server's keep-alive
   * (`progressKeepAliveMs`) sends steps of a billionth of the scale on from your last value, below its total.
   */
  progress(progress: number, total?: number, message?: string): void;
  /** Send `notifications/message` related to this request, if the session's log level lets it through. */
  log(level: LoggingLevel, data: unknown, logger?: string): void;
  /** Send a notification related to this request (on HTTP it travels on the request's own stream). */
  notify(method: string, params?: Record<string, unknown>): void;
  /**
   * Close the connection this request's SSE stream travels on, without ending the request: the client
   * reconnects with Last-Event-ID and gets the rest (Streamable HTTP on 2025-11-25, SEP-1699). Returns
   * false where that is not possible (other transports, older protocol versions).
   */
  closeStream(): boolean;
  /**
   * Ask the user, in either era. Legacy era: `elicitation/create`, related to this request (on HTTP it
   * travels on this request's stream) and cancelled with it. 2026-07-28: the answer from the retry's
   * `inputResponses` if it has come; otherwise the client is sent input-required and the handler runs
   * again on the retry, from the start (so whatever it did before asking runs again). A form's
   * `requestedSchema` may be JSON Schema or a Standard Schema (zod, ArkType, valibot): on accept, the
   * content is as that schema reads it (a Standard one's output, defaults applied), typed by it.
   */
  elicit<const P extends ElicitParams<FormSchema>>(params: P, options?: InputOptions): Promise<ElicitResultFor<P>>;
  /** Sampling in either era, like `elicit`. */
  createMessage(params: CreateMessageParams, options?: InputOptions): Promise<CreateMessageResult>;
  /** The client's roots in either era, like `elicit`. */
  listRoots(options?: InputOptions): Promise<ListRootsResult>;
  /** Send a server-to-client request related to this one, cancelled with it (legacy era only). */
  request(method: string, params?: Record<string, unknown>, options?: SessionRequestOptions): Promise<Record<string, unknown>>;
  /**
   * The input-required this request will answer with, built by hand: add questions (and state) here,
   * and once the handler returns the client is asked. Works in both eras (tools/call, prompts/get and
   * resources/read).
   */
  readonly inputRequired: InputRequired;
  /** Answers the client gave to earlier input requests, by key (only those that fit what was asked). */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  /** What the handler kept with its last input-required (`inputRequired.setState`), back from the client. */
  readonly requestState: unknown;
}

/** The object `requestTool`, `requestPrompt`, `requestResource` and `requestCompletion` listeners receive. */
export interface RequestEvent<Params, Result> {
  readonly params: Params;
  readonly ctx: RequestContext;
  readonly id: RequestId;
  /** Whether a listener answered the request. */
  readonly answered: boolean;
  /**
   * Answer the request from the listener (call it synchronously, inside the listener). The registered
   * handler, if any, then does not run; with no handler registered this is how the request gets answered.
   */
  respond(result: Result | Promise<Result>): void;
  /**
   * Ask the client for input instead of answering (tools/call, prompts/get and resources/read): add
   * questions here, and respond with anything (or let the registered handler run). See `ctx.inputRequired`.
   */
  readonly inputRequired: InputRequired;
  /** The client's answers to earlier input requests (`ctx.inputResponses`). */
  readonly inputResponses: Readonly<Record<string, unknown>> | undefined;
  /** What was kept with the last input-required (`ctx.requestState`). */
  readonly requestState: unknown;
}
