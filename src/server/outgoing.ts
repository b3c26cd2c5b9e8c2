/**
 * A session's requests to its client: the one pending table, progress, and the wait for a way to reach
 * the client. Every request ends exactly once (result, error reply, timeout, cancellation or close): in
 * its response event, if its kind has one, and in the caller's `onDone`.
 */
import { type ClientOutcome, type ClientRequestKind, type KindContext, toClientResponse } from '../elicitation/kind.js';
import { ConnectionClosedError, ErrorCode, McpError, NoBackChannelError } from '../protocol/errors.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { SafeEmitter } from '../protocol/safe-emitter.js';
import type { ProgressParams, ProgressToken, RequestId } from '../protocol/types.js';
import type { McpSession, OutgoingRequest, SessionRequestOptions } from './api.js';
import type { Context } from './context.js';
import { asMcpError } from '../mrtr/input-round.js';
import { type Deadlines, type PendingEntryOptions, PendingRequests, type ReplyMatch, RequestIds, type RequestOutcome } from '../rpc/requests.js';
import type { McpServerEvents } from './events.js';
import type { ResolvedServerOptions } from './options.js';
import { keepAliveMessage, ProgressKeepAlive } from './progress-keep-alive.js';
import type { MutableStats } from './stats.js';
import type { ClientSpan } from '../telemetry/client-span.js';
import type { Telemetry } from '../telemetry/telemetry.js';

/** What sending needs of the server. */
export interface OutgoingHost {
  readonly kinds: KindContext;
  readonly options: ResolvedServerOptions;
  readonly stats: MutableStats;
  readonly events: SafeEmitter<McpServerEvents>;
  readonly deadlines: Deadlines;
  /** Present only with `options.telemetry`. */
  readonly telemetry?: Telemetry | undefined;
}

/** What sending needs of the session. */
export interface OutgoingSession extends McpSession {
  readonly host: OutgoingHost;
  /** The id of a session that initialize made (telemetry's `mcp.session.id`). */
  readonly initializedId: string | undefined;
  /** Whether a request (related to `relatedRequestId`) can reach the client now. */
  canPush(relatedRequestId: RequestId | undefined): boolean;
  send(message: JsonRpcMessage, relatedRequestId?: RequestId): boolean;
  /** The first id its requests take (0; from the epoch ms for a session taken over, past the old owner's). */
  readonly firstRequestId: number;
  /** A guest session's ids, which name the instance that asked (they replace `firstRequestId`'s count). */
  readonly guestIds: RequestIds | undefined;
}

export type OnDone<Result> = (outcome: ClientOutcome<Result>, request: OutgoingRequest) => void;

/** One request in flight: the table's entry and everything its ending needs, in one object. */
class Outbound<P, R> implements PendingEntryOptions {
  /** Whether it went out: one that never did is not cancelled at the client. */
  sent = false;
  /** Ends the keep-alive of the client request it waits for, if it holds one. */
  release: (() => void) | undefined = undefined;
  /** The error its kind read the client's result as, if it refused it: counted once it ends the request. */
  refused: McpError | undefined = undefined;

  constructor(
    private readonly owner: Outgoing,
    readonly kind: ClientRequestKind<P, R>,
    readonly request: OutgoingRequest,
    readonly prepared: P,
    readonly related: RequestId | undefined,
    readonly parent: Context | undefined,
    readonly onDone: OnDone<R> | undefined,
    readonly timeoutMs: number,
    readonly signal: AbortSignal | undefined,
    readonly resetTimeoutOnProgress: boolean | undefined,
    readonly maxTotalTimeoutMs: number | undefined,
    readonly span: ClientSpan | undefined,
  ) {}

  get method(): string {
    return this.kind.method;
  }

  read(result: Record<string, unknown>): RequestOutcome<R> | Promise<RequestOutcome<R>> {
    const refuse = (err: unknown): RequestOutcome<R> => {
      this.refused = asMcpError(err);
      return { ok: false, error: this.refused };
    };
    let read: R | Promise<R>;
    try {
      read = this.kind.interpret(this.owner.kinds, result, this.prepared);
    } catch (err) {
      return refuse(err);
    }
    return read instanceof Promise ? read.then((typed): RequestOutcome<R> => ({ ok: true, result: typed }), refuse) : { ok: true, result: read };
  }

  onSettle(outcome: RequestOutcome<unknown>): void {
    this.owner.settled(this, outcome as ClientOutcome<R>);
  }
}

export class Outgoing {
  readonly kinds: KindContext;
  private readonly table: PendingRequests;
  private progressHandlers: Map<ProgressToken, (progress: ProgressParams) => void> | undefined;
  /** Requests waiting for a way to reach the client (Streamable HTTP, before its GET stream opens). */
  private waiting: Outbound<unknown, unknown>[] | undefined;

  constructor(private readonly session: OutgoingSession) {
    this.kinds = session.host.kinds;
    this.table = new PendingRequests(
      (id, reason, entry) => this.abandoned(id, reason, entry),
      session.host.deadlines,
      session.guestIds ?? new RequestIds(session.firstRequestId),
    );
  }

  /** Whether a request with this id waits for the client's reply here. */
  awaits(id: RequestId): boolean {
    return this.table.has(id);
  }

  /** Requests waiting for a reply (or for a way to reach the client). */
  get size(): number {
    return this.table.size;
  }

  /**
   * Send a request of `kind`. The checks that can fail before anything is sent throw here: the session is
   * not initialized (`NoBackChannelError`) or has ended (`ConnectionClosedError`), the client did not
   * declare the capability, the params are wrong. Every other ending reaches the response event and `onDone`.
   * With no way to reach the client yet, the request waits for one, within its timeout.
   */
  send<P, R>(kind: ClientRequestKind<P, R>, params: P, options: SessionRequestOptions, parent?: Context, onDone?: OnDone<R>): OutgoingRequest {
    const session = this.session;
    if (session.state === 'new')
      throw new NoBackChannelError(kind.method, 'the session has not completed initialize; send requests from the sessionNew event on');
    if (session.state === 'closed') throw new ConnectionClosedError(kind.method, session.closeReason ?? 'the session has ended');
    const host = session.host;
    const prepared = kind.prepare(host.kinds, session.clientCapabilities, params);
    const id = this.table.nextId();
    let wire = (prepared ?? {}) as Record<string, unknown>;
    if (options.onProgress) {
      wire = { ...wire, _meta: { ...(wire._meta as object | undefined), progressToken: id } };
      (this.progressHandlers ??= new Map()).set(id, options.onProgress);
    }
    const span = host.telemetry?.clientSpan(session, kind.method, id);
    if (span) wire = span.inject(wire);
    const request: OutgoingRequest = { jsonrpc: '2.0', id, method: kind.method, params: wire };
    const timeoutMs = Math.min(options.timeoutMs ?? kind.timeoutMs(host.options), host.options.maxRequestTimeoutMs);
    const related = options.relatedRequestId ?? parent?.requestId;
    const entry = new Outbound(
      this,
      kind,
      request,
      prepared,
      related,
      parent,
      onDone,
      timeoutMs,
      options.signal,
      options.resetTimeoutOnProgress,
      options.maxTotalTimeoutMs,
      span,
    );
    host.stats.pendingRequests++;
    // Endings known before sending (its signal, or its request's cancellation) still come after the caller has the request.
    if (!this.table.add(id, entry, parent?.aborted ? 'the request it belongs to was cancelled' : undefined)) return request;
    if (parent) this.keepAlive(entry as Outbound<unknown, unknown>, parent, wire);
    if (session.canPush(related)) this.transmit(entry as Outbound<unknown, unknown>);
    else this.wait(entry as Outbound<unknown, unknown>);
    return request;
  }

  /** A reply from the client: settles its request, or says why it settled nothing. */
  reply(id: RequestId, outcome: RequestOutcome): ReplyMatch {
    return this.table.reply(id, outcome);
  }

  /** A client `notifications/progress` for one of our requests. */
  progress(params: ProgressParams): void {
    const handler = this.progressHandlers?.get(params.progressToken);
    if (!handler) return;
    this.table.progress(params.progressToken);
    handler(params);
  }

  /** A question that waits on a person keeps the request it was asked for alive, where its client hears progress. */
  private keepAlive(entry: Outbound<unknown, unknown>, parent: Context, params: Record<string, unknown>): void {
    const periodMs = this.session.host.options.progressKeepAliveMs;
    if (periodMs === 0 || parent.progressToken === undefined || parent.ended || !this.table.has(entry.request.id)) return;
    const message = keepAliveMessage(entry.kind.method, params);
    if (message === undefined) return;
    parent.keepAlive ??= new ProgressKeepAlive(parent, this.session.host.deadlines, periodMs);
    entry.release = parent.keepAlive.hold(message);
  }

  private wait(entry: Outbound<unknown, unknown>): void {
    const waiting = (this.waiting ??= []);
    // Entries that ended while waiting (timeout, cancellation) are dropped now and then, not kept until a flush.
    if (waiting.length >= 16 && waiting.length > 2 * this.table.size) this.waiting = waiting.filter((e) => this.table.has(e.request.id));
    this.waiting.push(entry);
  }

  /** The client can be reached now: what waited goes out, in the order it was sent. */
  flush(): void {
    const waiting = this.waiting;
    if (!waiting) return;
    this.waiting = undefined;
    for (const entry of waiting) if (this.table.has(entry.request.id)) this.transmit(entry);
  }

  cancel(id: RequestId, reason?: string): boolean {
    return this.table.cancel(id, reason);
  }

  /** Cancel what was sent for the client request `parent` (it was cancelled, or its session ended). */
  cancelFor(parent: Context, reason: string): void {
    for (const [id, entry] of this.table.pending()) if ((entry as Outbound<unknown, unknown>).parent === parent) this.table.cancel(id, reason);
  }

  closeAll(reason: string): void {
    this.table.closeAll(reason);
  }

  /** The one ending of a request, its result read already (its table entry calls this): the response event's listeners and the caller are told. */
  settled<P, R>(entry: Outbound<P, R>, outcome: ClientOutcome<R>): void {
    const { request, kind } = entry;
    const host = this.session.host;
    this.progressHandlers?.delete(request.id);
    entry.release?.();
    host.stats.pendingRequests--;
    if (!outcome.ok && outcome.error === entry.refused) host.stats.invalidResults++;
    entry.span?.end(outcome.ok ? undefined : outcome.error);
    if (kind.event !== undefined && host.events.listening(kind.event)) {
      (host.events.emit as (event: string, ...args: unknown[]) => boolean)(
        kind.event,
        this.session,
        request,
        toClientResponse(kind.fields, outcome as ClientOutcome<object>),
      );
    }
    entry.onDone?.(outcome, request);
  }

  private transmit(entry: Outbound<unknown, unknown>): void {
    const { request } = entry;
    let sent: boolean;
    try {
      sent = this.session.send(request, entry.related);
    } catch (err) {
      this.table.fail(request.id, new McpError(ErrorCode.InternalError, `${request.method} could not be sent: ${(err as Error).message}`));
      return;
    }
    if (sent) entry.sent = true;
    else this.table.fail(request.id, new ConnectionClosedError(request.method, 'the transport could not deliver it'));
  }

  /** We gave up on a request (timeout or cancellation): a client that has it is told. */
  private abandoned(id: RequestId, reason: string, entry: PendingEntryOptions): void {
    if ((entry as Outbound<unknown, unknown>).sent) this.session.notify('notifications/cancelled', { requestId: id, reason });
  }
}
