/**
 * One client's session: its negotiated version and capabilities, and its traffic in both directions. A
 * transport sees it as a Connection, applications as an McpSession, handlers' contexts as a ContextSession.
 * How it reaches the client (push, or input-required on 2026-07-28) is its back channel, chosen at creation.
 */
import { randomUUID } from 'node:crypto';
import { type ClientRequestKind, untypedKind } from '../elicitation/kind.js';
import { elicitationKind } from '../elicitation/elicit.js';
import type { ElicitResultFor, FormSchema } from '../elicitation/form-schema.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import type { InputRequired } from '../mrtr/input-required.js';
import type { InputTarget } from '../mrtr/rounds.js';
import type { Era } from '../protocol/era.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { type Classified, errorResponse, type JsonRpcMessage, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { isLevelEnabled } from '../protocol/logging.js';
import type {
  ClientCapabilities,
  CreateMessageParams,
  CreateMessageResult,
  ElicitParams,
  ElicitResult,
  Implementation,
  ListRootsResult,
  LoggingLevel,
  RequestId,
  ServerCapabilities,
} from '../protocol/types.js';
import type { ClientRequestOptions } from '../elicitation/kind.js';
import type { InputOptions, McpSession, OutgoingRequest, SessionRequestOptions, SessionState } from './api.js';
import type { Context, ContextSession } from './context.js';
import { IncomingRequests } from './incoming.js';
import { type OnDone, Outgoing, type OutgoingHost, type OutgoingSession } from './outgoing.js';
import type { Catalog } from './catalog.js';
import type { Channel, Connection, Refusal, TransportKind } from './port.js';
import type { Subscription } from './subscriptions.js';
import type { ToolEntry } from './tools.js';

/** How a session reaches its client: push requests (legacy era) or answer input-required (modern era). */
export interface BackChannel {
  /** A request pushed to the client: `session.request`, `session.elicit`, `server.request*`, `ctx.request`. */
  send<P, R>(session: Session, kind: ClientRequestKind<P, R>, params: P, options: SessionRequestOptions, parent?: Context, onDone?: OnDone<R>): OutgoingRequest;
  /** `ctx.elicit`, `ctx.createMessage`, `ctx.listRoots`: ask on behalf of a request. */
  ask<P, R>(session: Session, ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R>;
  /** Run a handler that may answer input-required (tools/call, prompts/get, resources/read). */
  run<R>(
    session: Session,
    ctx: Context,
    params: Record<string, unknown>,
    target: InputTarget,
    invoke: () => Promise<R | InputRequired>,
  ): Promise<R | Record<string, unknown>>;
  /** Whether an error a tool threw answers its call as a JSON-RPC error rather than an `isError` result. */
  isRequestError(err: unknown): boolean;
}

/** What a session, and the handlers that run on it, need of the server. */
export interface SessionHost extends OutgoingHost {
  readonly info: Readonly<Implementation>;
  readonly instructions: string | undefined;
  readonly capabilities: ServerCapabilities;
  readonly catalog: Catalog;
  /** The methods extensions add (server/extensions.ts). */
  readonly extensions: ExtensionMethods;
  /** Open 2026-07-28 `subscriptions/listen` streams. */
  readonly subscriptions: Set<Subscription>;
  /** The server is draining: new requests are refused. */
  readonly draining: boolean;
  /** Decode and handle one frame or line. */
  receive(session: Session, text: string): void;
  /** The first reason to refuse these messages before any runs (for transports that answer with a status). */
  refuse(session: Session, messages: readonly Classified[], batch: boolean): Refusal | undefined;
  /** Handle decoded messages that were not refused. */
  deliver(session: Session, messages: readonly Classified[], batch: boolean): void;
  trace(session: Session, direction: 'in' | 'out', message: unknown): void;
  sessionStarted(session: Session): void;
  sessionEnded(session: Session, reason: string, wasInitialized: boolean): void;
  reportError(error: unknown, session?: McpSession): void;
}

/** Where the pipeline finds a method no era serves: an extension's. */
export interface ExtensionMethods {
  handler(
    method: string,
  ): ((session: Session, params: Record<string, unknown>, ctx: Context) => Record<string, unknown> | Promise<Record<string, unknown>>) | undefined;
  /** Whether its results carry caching hints on 2026-07-28. */
  cacheable(method: string): boolean;
  /** An extension's answer to a tools/call in place of the tool's own, if one takes it over. */
  callTool(
    session: Session,
    entry: ToolEntry,
    args: Record<string, unknown>,
    ctx: Context,
  ): Record<string, unknown> | Promise<Record<string, unknown>> | undefined;
  /** What the extensions honour of a subscriptions/listen filter (their keys), if anything. */
  acceptListen(session: Session, requested: unknown, ctx: Context): Promise<Record<string, unknown> | undefined>;
}

/** What a session knows from the start: a 2026-07-28 request tells everything in its `_meta`. */
export interface SessionInit {
  era: Era;
  backChannel: BackChannel;
  principal: unknown;
  /** The log threshold while the client has set none. */
  defaultLogLevel: LoggingLevel | undefined;
  protocolVersion?: string;
  clientInfo?: Implementation | undefined;
  clientCapabilities?: ClientCapabilities;
  logLevel?: LoggingLevel | undefined;
}

function promised<R>(start: (done: OnDone<R>) => void): Promise<R> {
  return new Promise((resolve, reject) => start((outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error))));
}

export class Session implements McpSession, Connection, ContextSession, OutgoingSession {
  readonly id: string = randomUUID();
  readonly transport: TransportKind;
  readonly remoteAddress: string | undefined;
  readonly era: Era;
  readonly backChannel: BackChannel;
  principal: unknown;
  state: SessionState = 'new';
  protocolVersion: string | undefined;
  clientInfo: Implementation | undefined;
  clientCapabilities: ClientCapabilities = {};
  logLevel: LoggingLevel | undefined;
  lastActivityMs: number;
  private readonly createdMs: number;
  private readonly defaultLogLevel: LoggingLevel | undefined;
  private endReason: string | undefined;
  private subscribed: Set<string> | undefined;
  private dataRecord: Record<string, unknown> | undefined;
  private outgoingRequests: Outgoing | undefined;
  private incomingRequests: IncomingRequests | undefined;
  private relayChannel: Channel | undefined;
  /** Whether the server has been told the session started (sessions born ready, 2026-07-28's, never start). */
  private announced = false;
  /** Whether initialize makes this session (a connection's); one born ready serves a single request. */
  private readonly handshake: boolean;

  constructor(
    readonly host: SessionHost,
    readonly channel: Channel,
    init: SessionInit,
  ) {
    this.transport = channel.kind;
    this.remoteAddress = channel.remoteAddress;
    this.era = init.era;
    this.backChannel = init.backChannel;
    this.principal = init.principal;
    this.defaultLogLevel = init.defaultLogLevel;
    this.createdMs = this.lastActivityMs = Date.now();
    this.handshake = init.protocolVersion === undefined;
    if (init.protocolVersion !== undefined) {
      this.announced = true;
      this.state = 'ready';
      this.protocolVersion = init.protocolVersion;
      this.clientInfo = init.clientInfo;
      this.clientCapabilities = init.clientCapabilities ?? {};
      this.logLevel = init.logLevel;
    }
  }

  renewPrincipal(principal: unknown): void {
    this.principal = principal;
  }

  // --- what applications see

  get createdAt(): Date {
    return new Date(this.createdMs);
  }

  get lastActivity(): Date {
    return new Date(this.lastActivityMs);
  }

  /** The id telemetry reports as `mcp.session.id`: only a session that initialize made has one. */
  get initializedId(): string | undefined {
    return this.handshake && this.announced ? this.id : undefined;
  }

  get closeReason(): string | undefined {
    return this.endReason;
  }

  get subscriptions(): Set<string> {
    return (this.subscribed ??= new Set());
  }

  get data(): Record<string, unknown> {
    return (this.dataRecord ??= {});
  }

  get pendingRequests(): number {
    return this.outgoingRequests?.size ?? 0;
  }

  request(method: string, params?: Record<string, unknown>, options: SessionRequestOptions = {}): Promise<Record<string, unknown>> {
    return promised((done) => this.backChannel.send(this, untypedKind(method), params ?? {}, options, undefined, done));
  }

  elicit<const P extends ElicitParams<FormSchema>>(params: P, options: ClientRequestOptions = {}): Promise<ElicitResultFor<P>> {
    return promised<ElicitResult>((done) => this.backChannel.send(this, elicitationKind, params, options, undefined, done)) as Promise<ElicitResultFor<P>>;
  }

  createMessage(params: CreateMessageParams, options: ClientRequestOptions = {}): Promise<CreateMessageResult> {
    return promised((done) => this.backChannel.send(this, samplingKind, params, options, undefined, done));
  }

  listRoots(options: ClientRequestOptions = {}): Promise<ListRootsResult> {
    return promised((done) => this.backChannel.send(this, rootsKind, {}, options, undefined, done));
  }

  async ping(options: SessionRequestOptions = {}): Promise<void> {
    await this.request('ping', undefined, options);
  }

  cancelRequest(id: RequestId, reason?: string): boolean {
    return this.outgoingRequests?.cancel(id, reason) ?? false;
  }

  notify(method: string, params?: Record<string, unknown>): boolean {
    return this.notifyRelated(method, params, undefined);
  }

  log(level: LoggingLevel, data: unknown, logger?: string): boolean {
    return this.logRelated(level, data, logger, undefined);
  }

  close(reason = 'closed by the server'): void {
    if (this.state === 'closed') return;
    this.end(reason);
    this.channel.close(reason);
  }

  // --- what handlers' contexts use

  ask<P, R>(ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    return this.backChannel.ask(this, ctx, kind, params, options);
  }

  requestFor(ctx: Context, method: string, params: Record<string, unknown> | undefined, options: SessionRequestOptions): Promise<Record<string, unknown>> {
    return promised((done) => this.backChannel.send(this, untypedKind(method), params ?? {}, options, ctx, done));
  }

  notifyRelated(method: string, params: Record<string, unknown> | undefined, relatedRequestId: RequestId | undefined): boolean {
    if (this.state === 'closed') return false;
    return this.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, relatedRequestId);
  }

  logRelated(level: LoggingLevel, data: unknown, logger: string | undefined, relatedRequestId: RequestId | undefined): boolean {
    const threshold = this.logLevel ?? this.defaultLogLevel;
    if (threshold === undefined || !isLevelEnabled(level, threshold)) return false;
    const params: Record<string, unknown> = { level, data };
    if (logger !== undefined) params.logger = logger;
    return this.notifyRelated('notifications/message', params, relatedRequestId);
  }

  closeStream(requestId: RequestId): boolean {
    return this.channel.closeStream?.(requestId) ?? false;
  }

  cancelRequestsFor(ctx: Context, reason: string): void {
    this.outgoingRequests?.cancelFor(ctx, reason);
  }

  // --- what the transport sees (Connection)

  get session(): McpSession {
    return this;
  }

  get busy(): boolean {
    return (this.incomingRequests?.size ?? 0) > 0;
  }

  receive(text: string): void {
    this.lastActivityMs = Date.now();
    this.host.receive(this, text);
  }

  refuse(messages: readonly Classified[], batch: boolean): Refusal | undefined {
    return this.host.refuse(this, messages, batch);
  }

  deliver(messages: readonly Classified[], batch: boolean, raw: unknown): void {
    this.lastActivityMs = Date.now();
    this.host.trace(this, 'in', raw);
    this.host.deliver(this, messages, batch);
  }

  touch(): void {
    this.lastActivityMs = Date.now();
  }

  backChannelOpened(): void {
    if (this.state !== 'ready' && this.state !== 'initializing') return;
    this.outgoingRequests?.flush();
    this.host.events.emit('backChannelOpen', this);
  }

  closed(reason: string): void {
    this.end(reason);
  }

  // --- the server's own

  /** Client requests being handled (made on first use: a 2026-07-28 request on HTTP never needs them). */
  get incoming(): IncomingRequests {
    return (this.incomingRequests ??= new IncomingRequests());
  }

  get inFlight(): IncomingRequests | undefined {
    return this.incomingRequests;
  }

  /** Requests sent to the client (made on first use). */
  get outgoing(): Outgoing {
    return (this.outgoingRequests ??= new Outgoing(this));
  }

  canPush(relatedRequestId: RequestId | undefined): boolean {
    return this.channel.canPush?.(relatedRequestId) ?? true;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean {
    this.host.trace(this, 'out', message);
    return this.channel.send(message, relatedRequestId);
  }

  /**
   * The one ending of a client request: its response, or none (cancelled, or the session ended). A
   * result that cannot be serialised (a BigInt, a cycle) becomes a -32603 error, so the client is never
   * left waiting.
   */
  answer(id: RequestId | null, response: JsonRpcResponse | undefined): void {
    const related = id ?? undefined;
    if (response === undefined) {
      if (related !== undefined) this.channel.requestEnded?.(related);
      return;
    }
    try {
      this.send(response, related);
    } catch (err) {
      this.host.reportError(err, this);
      // The error's message may come from the handler's own data (a toJSON, a getter): told only on request.
      const why = this.host.options.exposeErrors ? ` (${(err as Error).message})` : '';
      // An error whose data cannot be serialised goes without its data.
      const error =
        'result' in response
          ? { code: ErrorCode.InternalError, message: `Internal error: the result could not be serialised${why}` }
          : { code: response.error.code, message: response.error.message };
      this.send(errorResponse(response.id, error), related);
    }
    // sessionNew fires once the initialize result is on its way, so listeners may talk to the client.
    if (!this.announced && this.state !== 'new' && this.state !== 'closed') this.start();
  }

  /**
   * The channel 2026-07-28 requests arriving on this connection answer through: the same connection,
   * with no way to push requests.
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

  /** `initialize` was answered: the session is the server's now. */
  private start(): void {
    this.announced = true;
    this.host.sessionStarted(this);
    if (this.canPush(undefined)) this.host.events.emit('backChannelOpen', this);
  }

  private end(reason: string): void {
    if (this.state === 'closed') return;
    const wasInitialized = this.state !== 'new';
    this.state = 'closed';
    this.endReason = reason;
    // Pending requests first: those a handler made would otherwise end as cancelled when its signal aborts.
    this.outgoingRequests?.closeAll(reason);
    this.incomingRequests?.cancelAll(new McpError(ErrorCode.ConnectionClosed, `session ended: ${reason}`));
    this.host.sessionEnded(this, reason, wasInitialized);
  }
}
