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
import { ErrorCode, McpError } from '../protocol/errors.js';
import { InputRequired, InputRequiredSignal, type InputMethod, type InputRequest } from '../mrtr/input-required.js';
import { checkInputRequest, keyPrefix, type InputRound } from '../mrtr/rounds.js';
import type { ClientRequestOptions } from './client-requests.js';

/** Options of `ctx.elicit`, `ctx.createMessage` and `ctx.listRoots`. */
export interface InputOptions extends ClientRequestOptions {
  /** 2026-07-28: the key of this question in inputRequests. Default: `elicit-1`, `sample-2`, ... in call order. */
  key?: string;
}
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

  /**
   * Ask the user, in either era. Handshake era: `session.elicit`, related to this request (on HTTP it
   * travels on this request's stream) and cancelled with it. 2026-07-28: the answer from the retry's
   * `inputResponses` if it has come; otherwise the client is sent input-required and the handler runs
   * again on the retry, from the start (so whatever it did before asking runs again).
   */
  elicit(params: ElicitParams, options: InputOptions = {}): Promise<ElicitResult> {
    if (this.session.era === 'modern')
      return this.askInput('elicitation/create', params as unknown as Record<string, unknown>, options.key) as Promise<ElicitResult>;
    return this.session.elicit(params, this.related(options));
  }

  /** Sampling in either era, like `elicit`. */
  createMessage(params: CreateMessageParams, options: InputOptions = {}): Promise<CreateMessageResult> {
    if (this.session.era === 'modern')
      return this.askInput('sampling/createMessage', params as unknown as Record<string, unknown>, options.key) as Promise<CreateMessageResult>;
    return this.session.createMessage(params, this.related(options));
  }

  /** The client's roots in either era, like `elicit`. */
  listRoots(options: InputOptions = {}): Promise<ListRootsResult> {
    if (this.session.era === 'modern') return this.askInput('roots/list', {}, options.key) as Promise<ListRootsResult>;
    return this.session.listRoots(this.related(options));
  }

  /** @internal The MRTR round of this request (tools/call, prompts/get and resources/read). */
  input: InputRound | undefined;

  /** Answers the client gave to earlier input requests, by key (only those that fit what was asked). */
  get inputResponses(): Readonly<Record<string, unknown>> | undefined {
    return this.input?.answers;
  }

  /** What the handler kept with its last input-required (`inputRequired.setState`), back from the client. */
  get requestState(): unknown {
    return this.input?.state;
  }

  /**
   * The input-required this request will answer with, in the sgc style: add questions (and state) here,
   * and once the handler returns the client is asked. Works in both eras.
   */
  get inputRequired(): InputRequired {
    if (!this.input) throw new McpError(ErrorCode.InvalidRequest, `${this.method} cannot ask for input: only tools/call, prompts/get and resources/read can`);
    return (this.input.pending ??= new InputRequired());
  }

  private async askInput(method: InputMethod, params: Record<string, unknown>, key: string | undefined): Promise<unknown> {
    const round = this.input;
    if (!round) throw new McpError(ErrorCode.InvalidRequest, `${this.method} cannot ask for input: only tools/call, prompts/get and resources/read can`);
    const request: InputRequest = { method, params };
    checkInputRequest(this.session.server, this.session.clientCapabilities, request);
    const k = key ?? round.nextKey(keyPrefix(method));
    const answer = round.answer(k, request);
    if (answer !== undefined) return answer;
    round.ask(k, request);
    throw new InputRequiredSignal(k);
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
