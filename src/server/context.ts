/** What a tool, prompt, resource or completion handler gets besides its arguments: one small object per request. */
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ProgressToken,
  RequestId,
} from '../protocol/types.js';
import type { ClientRequestOptions } from './client-requests.js';
import type { McpSession, SessionRequestOptions } from './session.js';

export class RequestContext {
  private lastProgress = -Infinity;
  // The AbortController is made only when a handler asks for the signal: most never do, and it is
  // the costliest allocation of a request.
  private controller: AbortController | undefined;
  private abortReason: unknown;
  /** @internal Whether the request was cancelled, or its session ended. */
  aborted = false;

  constructor(
    /** The session the request arrived on. */
    readonly session: McpSession,
    /** The JSON-RPC id of the request being handled. */
    readonly requestId: RequestId,
    readonly method: string,
    /** The request's `params._meta`, if any. */
    readonly meta: Meta | undefined,
  ) {}

  /** Aborted when the client cancels the request, or the session ends. */
  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** @internal Cancel the request: its signal aborts, the requests it made are cancelled, and nothing more is sent for it. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.controller?.abort(reason);
    if (this.outgoing) {
      const why = reason instanceof Error ? reason.message : String(reason);
      for (const id of [...this.outgoing]) this.session.cancelRequest(id, why);
    }
  }

  /** Server-to-client requests made for this request and still pending: cancelled with it. */
  private outgoing: Set<RequestId> | undefined;

  /** @internal */
  track(id: RequestId): void {
    (this.outgoing ??= new Set()).add(id);
  }

  /** @internal */
  untrack(id: RequestId): void {
    this.outgoing?.delete(id);
  }

  get progressToken(): ProgressToken | undefined {
    const token = this.meta?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  /**
   * Report progress. Sends `notifications/progress` only when the client asked for it with
   * `_meta.progressToken`; otherwise it does nothing. Progress must increase (basic/utilities/progress).
   */
  progress(progress: number, total?: number, message?: string): void {
    const progressToken = this.progressToken;
    if (progressToken === undefined || this.aborted) return;
    if (!(progress > this.lastProgress)) {
      throw new RangeError(`progress must increase with each notification: got ${progress} after ${this.lastProgress}`);
    }
    this.lastProgress = progress;
    const params: Record<string, unknown> = { progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.session.notify('notifications/progress', params, this.requestId);
  }

  /** Send `notifications/message` related to this request, if the session's log level lets it through (and it is not cancelled). */
  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.aborted) this.session.log(level, data, logger, this.requestId);
  }

  /**
   * Send a notification related to this request (on HTTP it travels on the request's own stream).
   * Once the request is cancelled, its notifications are dropped, as its response is.
   */
  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.aborted) this.session.notify(method, params, this.requestId);
  }

  /**
   * Close the connection this request's SSE stream travels on, without ending the request: the client
   * reconnects with Last-Event-ID and gets the rest (Streamable HTTP on 2025-11-25, SEP-1699). Returns
   * false where that is not possible (other transports, older protocol versions).
   */
  closeStream(): boolean {
    return this.session.closeStream(this.requestId);
  }

  /** `session.elicit`, related to this request (on HTTP it travels on this request's stream) and cancelled with it. */
  elicit(params: ElicitParams, options: ClientRequestOptions = {}): Promise<ElicitResult> {
    return this.session.elicit(params, this.related(options));
  }

  /** `session.createMessage`, related to this request and cancelled with it. */
  createMessage(params: CreateMessageParams, options: ClientRequestOptions = {}): Promise<CreateMessageResult> {
    return this.session.createMessage(params, this.related(options));
  }

  /** `session.listRoots`, related to this request and cancelled with it. */
  listRoots(options: ClientRequestOptions = {}): Promise<ListRootsResult> {
    return this.session.listRoots(this.related(options));
  }

  private related<T extends ClientRequestOptions>(options: T): T {
    return { ...options, relatedRequestId: this.requestId, cancelWith: this };
  }

  /**
   * Send a server-to-client request related to this one. It is cancelled if this request is cancelled.
   */
  request(method: string, params?: Record<string, unknown>, options: SessionRequestOptions = {}): Promise<Record<string, unknown>> {
    return this.session.request(method, params, this.related(options));
  }
}
