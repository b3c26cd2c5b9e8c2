/** One client's session: its negotiated version and capabilities, and its traffic in both directions. */
import { randomUUID } from 'node:crypto';
import { ConnectionClosedError, ErrorCode, LegacyOnlyRequestError, McpError, RequestCancelledError } from '../protocol/errors.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  ProgressParams,
  ProgressToken,
  RequestId,
} from '../protocol/types.js';
import { elicitationKind } from '../elicitation/elicit.js';
import { clientRequest, type ClientRequestOptions } from './client-requests.js';
import { rootsKind } from './roots.js';
import { samplingKind } from './sampling.js';
import type { Channel, TransportKind } from './channel.js';
import type { RequestContext } from './context.js';
import { isLevelEnabled } from './logging.js';
import type { McpServer } from './mcp-server.js';
import { receiveMessage } from './inbound.js';
import { abortReason, PendingRequests, type RequestOutcome } from './pending-requests.js';

/** `new`: waiting for `initialize`; `initializing`: answered, waiting for `notifications/initialized`. */
export type SessionState = 'new' | 'initializing' | 'ready' | 'closed';

export interface SessionRequestOptions {
  /** How long to wait for the reply. Defaults to the server's `requestTimeoutMs`. */
  timeoutMs?: number;
  /** Abort to cancel the request; the client is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** The client request this one belongs to (on HTTP it then travels on that request's stream). */
  relatedRequestId?: RequestId;
  /** Ask the client for progress; each `notifications/progress` for this request is passed here. */
  onProgress?: (progress: ProgressParams) => void;
  /** Restart the timeout on each progress notification, never beyond `maxTotalTimeoutMs`. */
  resetTimeoutOnProgress?: boolean;
  maxTotalTimeoutMs?: number;
  /** @internal The handler context whose cancellation cancels this request. */
  cancelWith?: RequestContext;
}

/** A server-to-client request as it was sent, id included. */
export type OutgoingRequest = JsonRpcRequest & { params: Record<string, unknown> };

export class McpSession {
  readonly id: string = randomUUID();
  readonly transport: TransportKind;
  readonly remoteAddress: string | undefined;
  state: SessionState = 'new';
  /** The negotiated protocol version, once `initialize` has been answered. */
  protocolVersion: string | undefined;
  clientInfo: Implementation | undefined;
  /** What the client declared, normalised (`elicitation: {}` reads as `{form: {}}`). */
  clientCapabilities: ClientCapabilities = {};
  /** Set by `logging/setLevel`; until then the server's `defaultLogLevel` applies. */
  logLevel: LoggingLevel | undefined;
  /** Resource URIs this session subscribed to. */
  readonly subscriptions = new Set<string>();
  /** Free for the application: whatever it wants to keep with the session. */
  readonly data: Record<string, unknown> = {};
  /** Who the transport's `auth` hook said the client is (Streamable HTTP), if it has one. */
  principal: unknown;

  /** @internal Server-to-client requests in flight (made on first use: a 2026-07-28 request never has any). */
  get pending(): PendingRequests {
    return (this.pendingTable ??= new PendingRequests((id, reason) => this.notify('notifications/cancelled', { requestId: id, reason })));
  }

  private pendingTable: PendingRequests | undefined;
  /** @internal Client-to-server requests in flight, for cancellation and duplicate-id checks. */
  readonly inflight = new Map<RequestId, RequestContext>();

  private progressHandlerMap: Map<ProgressToken, (progress: ProgressParams) => void> | undefined;

  private get progressHandlers(): Map<ProgressToken, (progress: ProgressParams) => void> {
    return (this.progressHandlerMap ??= new Map());
  }
  private readonly createdMs = Date.now();
  private lastActivityMs = this.createdMs;
  private endReason: string | undefined;

  /** `legacy`: a handshake session (2024-11-05 to 2025-11-25). `modern`: one stateless 2026-07-28 request. */
  readonly era: 'legacy' | 'modern';

  constructor(
    /** @internal */ readonly server: McpServer,
    private readonly channel: Channel,
    /** For a 2026-07-28 request: what its `_meta` said about the client. */
    modern?: {
      protocolVersion: string;
      clientInfo: Implementation | undefined;
      clientCapabilities: ClientCapabilities;
      logLevel: LoggingLevel | undefined;
      principal: unknown;
    },
  ) {
    this.transport = channel.kind;
    this.remoteAddress = channel.remoteAddress;
    this.era = modern ? 'modern' : 'legacy';
    if (modern) {
      this.state = 'ready';
      this.protocolVersion = modern.protocolVersion;
      this.clientInfo = modern.clientInfo;
      this.clientCapabilities = modern.clientCapabilities;
      this.logLevel = modern.logLevel;
      this.principal = modern.principal;
    }
  }

  get createdAt(): Date {
    return new Date(this.createdMs);
  }

  get lastActivity(): Date {
    return new Date(this.lastActivityMs);
  }

  /** Why the session ended, once it has. */
  get closeReason(): string | undefined {
    return this.endReason;
  }

  /** Send a request to the client and wait for its result. Rejects with an `McpError` (or a subclass for local causes). */
  request(method: string, params?: Record<string, unknown>, options: SessionRequestOptions = {}): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      this.sendRequest(method, params, options, (outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error)));
    });
  }

  /**
   * Send a request and call `onSettle` exactly once with its outcome. Returns the request as sent.
   * @internal the building block for `request()` and the response events.
   */
  sendRequest(
    method: string,
    params: Record<string, unknown> | undefined,
    options: SessionRequestOptions,
    onSettle: (outcome: RequestOutcome, request: OutgoingRequest) => void,
  ): OutgoingRequest {
    const id = this.pending.nextId();
    let outParams = params ?? {};
    if (options.onProgress) {
      outParams = { ...outParams, _meta: { ...(outParams._meta as object | undefined), progressToken: id } };
      this.progressHandlers.set(id, options.onProgress);
    }
    const request: OutgoingRequest = { jsonrpc: '2.0', id, method, params: outParams };
    const parent = options.cancelWith;
    const settle = (outcome: RequestOutcome) => {
      this.progressHandlerMap?.delete(id);
      parent?.untrack(id);
      onSettle(outcome, request);
    };
    // Endings known before sending still come after the caller has the request (and its id).
    if (this.era === 'modern') {
      queueMicrotask(() => settle({ ok: false, error: new LegacyOnlyRequestError(method) }));
      return request;
    }
    if (this.state === 'closed' || this.state === 'new') {
      const why = this.state === 'closed' ? (this.endReason ?? 'the session has ended') : 'the session is not initialized yet';
      queueMicrotask(() => settle({ ok: false, error: new ConnectionClosedError(method, why) }));
      return request;
    }
    if (options.signal?.aborted || parent?.aborted) {
      const reason = options.signal?.aborted ? abortReason(options.signal) : 'the request it belongs to was cancelled';
      queueMicrotask(() => settle({ ok: false, error: new RequestCancelledError(method, reason) }));
      return request;
    }
    parent?.track(id);
    this.pending.add(id, {
      method,
      timeoutMs: Math.min(options.timeoutMs ?? this.server.options.requestTimeoutMs, this.server.options.maxRequestTimeoutMs),
      maxTotalTimeoutMs: options.maxTotalTimeoutMs,
      resetTimeoutOnProgress: options.resetTimeoutOnProgress,
      signal: options.signal,
      onSettle: settle,
    });
    if (this.pending.has(id)) {
      let sent: boolean;
      try {
        sent = this.send(request, options.relatedRequestId);
      } catch (err) {
        this.pending.fail(id, new McpError(ErrorCode.InternalError, `${method} could not be sent: ${(err as Error).message}`));
        return request;
      }
      if (!sent) this.pending.fail(id, new ConnectionClosedError(method, 'the transport could not deliver it'));
    }
    return request;
  }

  /** Cancel a server-to-client request by id; the client is sent `notifications/cancelled`. */
  cancelRequest(id: RequestId, reason?: string): boolean {
    return this.pending.cancel(id, reason);
  }

  /** Ask the user for input through the client (`elicitation/create`). Rejects with a typed error; see the README. */
  elicit(params: ElicitParams, options: ClientRequestOptions = {}): Promise<ElicitResult> {
    return clientRequest(this.server, this, elicitationKind, params, options);
  }

  /** Ask the client's model for a completion (`sampling/createMessage`). */
  createMessage(params: CreateMessageParams, options: ClientRequestOptions = {}): Promise<CreateMessageResult> {
    return clientRequest(this.server, this, samplingKind, params, options);
  }

  /** Ask the client for its roots (`roots/list`). */
  listRoots(options: ClientRequestOptions = {}): Promise<ListRootsResult> {
    return clientRequest(this.server, this, rootsKind, {}, options);
  }

  /** Whether a server-to-client request (related to `relatedRequestId`, if given) can reach the client now. */
  canPush(relatedRequestId?: RequestId): boolean {
    return this.era === 'legacy' && this.state !== 'closed' && (this.channel.canPush?.(relatedRequestId) ?? true);
  }

  /** `ping` the client; resolves when it answers. */
  async ping(options: SessionRequestOptions = {}): Promise<void> {
    await this.request('ping', undefined, options);
  }

  /** Send a notification to the client. Returns false when it could not be delivered. */
  notify(method: string, params?: Record<string, unknown>, relatedRequestId?: RequestId): boolean {
    if (this.state === 'closed') return false;
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, relatedRequestId);
  }

  /** Send `notifications/message` if the session's log level lets `level` through. */
  log(level: LoggingLevel, data: unknown, logger?: string, relatedRequestId?: RequestId): boolean {
    // 2026-07-28: no notifications/message unless the request's _meta asked for a level.
    const threshold = this.logLevel ?? (this.era === 'modern' ? undefined : this.server.options.defaultLogLevel);
    if (threshold === undefined || !isLevelEnabled(level, threshold)) return false;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.notify('notifications/message', params, relatedRequestId);
  }

  /** End the session and close its connection. Pending requests end with `ConnectionClosedError`. */
  close(reason = 'closed by the server'): void {
    if (this.state === 'closed') return;
    this.end(reason);
    this.channel.close(reason);
  }

  /** @internal A transport saw the client: the session is not idle. */
  touch(): void {
    this.lastActivityMs = Date.now();
  }

  /** @internal The transport hands over one received frame, line or body. */
  receive(text: string): void {
    this.lastActivityMs = Date.now();
    this.server.receive(this, text);
  }

  /**
   * @internal A transport that decodes and frames messages itself (HTTP) hands over one message. Its
   * response goes out through the channel, related to its request id.
   */
  receiveMessage(value: unknown, inBatch = false): Promise<void> {
    this.lastActivityMs = Date.now();
    return receiveMessage(this.server, this, value, inBatch);
  }

  /**
   * @internal Send the response to a client request. A result that cannot be serialised (a BigInt, a
   * cycle) becomes a -32603 error, so the client is never left waiting.
   */
  reply(response: JsonRpcResponse): void {
    const related = response.id ?? undefined;
    try {
      this.send(response, related);
    } catch (err) {
      this.server.reportError(err, this);
      if ('result' in response) {
        this.send(
          errorResponse(response.id, {
            code: ErrorCode.InternalError,
            message: `Internal error: the result could not be serialised (${(err as Error).message})`,
          }),
          related,
        );
      }
    }
  }

  /** @internal A request of the client's ended with no response (cancelled). */
  requestEnded(requestId: RequestId): void {
    this.channel.requestEnded?.(requestId);
  }

  /** @internal Ask the transport to close the connection carrying `requestId`'s stream without ending the request (SSE polling). */
  closeStream(requestId: RequestId): boolean {
    return this.channel.closeStream?.(requestId) ?? false;
  }

  /** @internal The transport reports that the connection is gone. */
  transportClosed(reason: string): void {
    this.end(reason);
  }

  /**
   * @internal The channel 2026-07-28 requests arriving on this connection answer through: the same
   * connection, with no way to push requests.
   */
  get relay(): Channel {
    return (this.relayChannel ??= {
      kind: this.channel.kind,
      remoteAddress: this.channel.remoteAddress,
      send: (message, relatedRequestId) => this.channel.send(message, relatedRequestId),
      canPush: () => false,
      close: () => {},
    });
  }

  private relayChannel: Channel | undefined;

  /** @internal */
  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean {
    this.server.traceMessage(this, 'out', message);
    return this.channel.send(message, relatedRequestId);
  }

  /** @internal A client `notifications/progress` for one of our requests. */
  progressReceived(params: ProgressParams): void {
    const handler = this.progressHandlerMap?.get(params.progressToken);
    if (!handler) return;
    this.pending.progress(params.progressToken);
    handler(params);
  }

  private end(reason: string): void {
    if (this.state === 'closed') return;
    const wasInitialized = this.state !== 'new';
    this.state = 'closed';
    this.endReason = reason;
    // Pending requests first: those a handler made would otherwise end as cancelled when its signal aborts.
    this.pendingTable?.closeAll(reason);
    for (const ctx of this.inflight.values()) ctx.abort(new McpError(ErrorCode.ConnectionClosed, `session ended: ${reason}`));
    this.inflight.clear();
    this.server.sessionEnded(this, reason, wasInitialized);
  }
}
