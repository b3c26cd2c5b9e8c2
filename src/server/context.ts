/** A handler's context: one small object per client request, which asks and notifies through its session. */
import { elicitationKind } from '../elicitation/elicit.js';
import type { ElicitResultFor, FormSchema } from '../elicitation/form-schema.js';
import { type ClientOutcome, type ClientRequestKind, untypedKind } from '../elicitation/kind.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import { InputRequired } from '../mrtr/input-required.js';
import type { InputRound, RoundHolder } from '../mrtr/input-round.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type {
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ListRootsResult,
  LoggingLevel,
  Meta,
  ProgressToken,
  RequestId,
} from '../protocol/types.js';
import type { InputOptions, McpSession, OutgoingRequest, RequestContext, SessionRequestOptions } from './api.js';
import { type KeepAliveTarget, nextKeepAliveProgress, type ProgressKeepAlive } from './progress-keep-alive.js';

/** What a context asks through: its session's back channel, which it holds from the start. */
export interface ContextBackChannel {
  /** A request pushed to the client: `session.request`, `session.elicit`, `server.request*`, `ctx.request`. */
  send<P, R>(
    kind: ClientRequestKind<P, R>,
    params: P,
    options: SessionRequestOptions,
    parent?: Context,
    onDone?: (outcome: ClientOutcome<R>, request: OutgoingRequest) => void,
  ): OutgoingRequest;
  /** `ctx.elicit`, `ctx.createMessage`, `ctx.listRoots`: ask on behalf of a request, in whichever way the session's era asks. */
  ask<P, R>(ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R>;
}

/** What a context needs of its session, besides what applications see. */
export interface ContextSession extends McpSession {
  readonly backChannel: ContextBackChannel;
  notifyRelated(method: string, params: Record<string, unknown> | undefined, relatedRequestId: RequestId): boolean;
  logRelated(level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId): boolean;
  closeStream(requestId: RequestId): boolean;
  /** Cancel the server-to-client requests made for `ctx` that are still pending. */
  cancelRequestsFor(ctx: Context, reason: string): void;
}

/** A request sent through `send`, as a promise of its outcome. */
export function sent<R>(start: (done: (outcome: ClientOutcome<R>) => void) => void): Promise<R> {
  return new Promise((resolve, reject) => start((outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error))));
}

/** Opens a request's first round when its handler first looks at it (legacy era: most never do). */
export interface RoundOpener {
  openRound(): InputRound;
}

const NO_INPUT = (method: string) =>
  new McpError(ErrorCode.InvalidRequest, `${method} cannot ask for input: only tools/call, prompts/get and resources/read can`);

export class Context implements RequestContext, RoundHolder, KeepAliveTarget {
  /** The handler's own last progress (it must increase); the wire may be a keep-alive step past it. */
  private lastProgress = Number.NEGATIVE_INFINITY;
  private sentProgress = Number.NEGATIVE_INFINITY;
  private lastTotal: number | undefined;
  // The AbortController is made only when a handler asks for the signal: most never do, and it is
  // the costliest allocation of a request.
  private controller: AbortController | undefined;
  private abortReason: unknown;
  /** Whether the request was cancelled, or its session ended: then nothing more is sent for it. */
  aborted = false;
  /** Whether the request was answered (or dropped): its keep-alive ends with it. */
  ended = false;
  /** Its progress while it waits on a person (made by the first question that needs it). */
  keepAlive: ProgressKeepAlive | undefined;
  /** The MRTR round of this request (tools/call, prompts/get and resources/read). */
  input: InputRound | undefined;
  /** Opens `input` on first use, where the round is made only when looked at. */
  roundOpener: RoundOpener | undefined;
  /** How this request reaches its client: its session's, taken once. */
  readonly backChannel: ContextBackChannel;

  constructor(
    readonly session: ContextSession,
    readonly requestId: RequestId,
    readonly method: string,
    readonly meta: Meta | undefined,
  ) {
    this.backChannel = session.backChannel;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.abortReason);
    }
    return this.controller.signal;
  }

  /** Cancel the request: its signal aborts, the requests it made are cancelled, and nothing more is sent for it. */
  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.abortReason = reason;
    this.keepAlive?.stop();
    this.controller?.abort(reason);
    // The requests it made are cancelled with it.
    this.session.cancelRequestsFor(this, reason instanceof Error ? reason.message : String(reason));
  }

  /** The pipeline is done with the request. */
  end(): void {
    this.ended = true;
    this.keepAlive?.stop();
  }

  /** A cancellable request (the port's `CancellableRequest`): the transport ends it. */
  cancel(reason: string): void {
    this.abort(new McpError(ErrorCode.RequestCancelled, reason));
  }

  get progressToken(): ProgressToken | undefined {
    const token = this.meta?.progressToken;
    return typeof token === 'string' || typeof token === 'number' ? token : undefined;
  }

  progress(progress: number, total?: number, message?: string): void {
    if (!this.hearsProgress() || this.aborted) return;
    if (!(progress > this.lastProgress)) {
      throw new RangeError(`progress must increase with each notification: got ${progress} after ${this.lastProgress}`);
    }
    this.lastProgress = progress;
    this.lastTotal = total;
    // A keep-alive may have taken the wire a hair past it; the wire never goes back (with no step left, the client saw as much).
    const wire = progress > this.sentProgress ? progress : nextKeepAliveProgress(this.sentProgress, total);
    if (wire === undefined) return;
    this.sentProgress = wire;
    this.reportProgress(wire, total, message);
  }

  /** A keep-alive step on from what was sent, with the handler's last total (progress-keep-alive.ts). */
  sendKeepAlive(message: string): boolean {
    if (this.aborted || this.ended || !this.hearsProgress()) return false;
    const next = nextKeepAliveProgress(this.sentProgress, this.lastTotal);
    if (next === undefined) return false;
    this.sentProgress = next;
    this.reportProgress(next, this.lastTotal, message);
    return true;
  }

  /** Whether anyone hears this request's progress: its client, when the request carried a progress token. */
  protected hearsProgress(): boolean {
    return this.progressToken !== undefined;
  }

  /** Tell whoever hears it (checked already: it increases, and the request goes on). */
  protected reportProgress(progress: number, total: number | undefined, message: string | undefined): void {
    const params: Record<string, unknown> = { progressToken: this.progressToken, progress };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.session.notifyRelated('notifications/progress', params, this.requestId);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): void {
    if (!this.aborted) this.session.logRelated(level, data, logger, this.requestId);
  }

  notify(method: string, params?: Record<string, unknown>): void {
    if (!this.aborted) this.session.notifyRelated(method, params, this.requestId);
  }

  closeStream(): boolean {
    return this.session.closeStream(this.requestId);
  }

  elicit<const P extends ElicitParams<FormSchema>>(params: P, options: InputOptions = {}): Promise<ElicitResultFor<P>> {
    return this.backChannel.ask(this, elicitationKind, params, options) as Promise<ElicitResultFor<P>>;
  }

  createMessage(params: CreateMessageParams, options: InputOptions = {}): Promise<CreateMessageResult> {
    return this.backChannel.ask(this, samplingKind, params, options);
  }

  listRoots(options: InputOptions = {}): Promise<ListRootsResult> {
    return this.backChannel.ask(this, rootsKind, {}, options);
  }

  request(method: string, params?: Record<string, unknown>, options: SessionRequestOptions = {}): Promise<Record<string, unknown>> {
    return sent((done) => this.backChannel.send(untypedKind(method), params ?? {}, options, this, done));
  }

  /** The round, for asking input; only tools/call, prompts/get and resources/read have one. */
  round(): InputRound {
    const input = this.currentRound();
    if (!input) throw NO_INPUT(this.method);
    return input;
  }

  get inputResponses(): Readonly<Record<string, unknown>> | undefined {
    return this.currentRound()?.answers;
  }

  get requestState(): unknown {
    return this.currentRound()?.state;
  }

  private currentRound(): InputRound | undefined {
    if (this.input === undefined && this.roundOpener !== undefined) this.input = this.roundOpener.openRound();
    return this.input;
  }

  get inputRequired(): InputRequired {
    const round = this.round();
    return (round.pending ??= new InputRequired());
  }
}
