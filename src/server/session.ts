/**
 * One client's session: its negotiated version and capabilities, and its traffic in both directions. A
 * transport holds it through its connection (connection.ts), applications see it as an McpSession,
 * handlers' contexts as a ContextSession. How it reaches the client (push, or input-required on
 * 2026-07-28) is its back channel, made when the session is.
 */
import { randomUUID } from 'node:crypto';
import { untypedKind } from '../elicitation/kind.js';
import { elicitationKind } from '../elicitation/elicit.js';
import type { ElicitResultFor, FormSchema } from '../elicitation/form-schema.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import type { Era } from '../protocol/versions.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { errorResponse, type JsonRpcMessage, type JsonRpcResponse } from '../protocol/jsonrpc.js';
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
} from '../protocol/types.js';
import type { ClientRequestOptions } from '../elicitation/kind.js';
import type { McpSession, SessionRequestOptions, SessionState } from './api.js';
import type { BackChannel, BackChannelFactory, BackChannelSession } from './back-channel.js';
import { type Context, type ContextSession, sent } from './context.js';
import { type RequestIds, ServingRequests } from '../rpc/requests.js';
import type { IncomingRequests } from './incoming.js';
import { Outgoing, type OutgoingSession } from './outgoing.js';
import type { Channel, SessionRecord, TransportKind } from './port.js';
import type { SessionHost } from './session-host.js';

/** What a session knows from the start: a 2026-07-28 request tells everything in its `_meta`. */
export interface SessionInit {
  era: Era;
  /** Makes the session's back channel: how it reaches its client, for its era. */
  backChannel: BackChannelFactory;
  principal: unknown;
  /** The log threshold while the client has set none. */
  defaultLogLevel: LoggingLevel | undefined;
  protocolVersion?: string;
  clientInfo?: Implementation | undefined;
  clientCapabilities?: ClientCapabilities;
  logLevel?: LoggingLevel | undefined;
  /** A 2025 session another instance began, gone on with here: its id and subscriptions (the rest is above). */
  adopted?: { id: string; subscriptions: readonly string[] };
  /**
   * Serves requests for a session another instance holds, not the server's own: no session events, and
   * its requests to the client take their ids from this allocator (they name the instance that asked).
   */
  guest?: RequestIds;
}

export class Session implements McpSession, ContextSession, OutgoingSession, BackChannelSession {
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
  /** Whether the server has been told the session started (sessions born ready, 2026-07-28's, never start). */
  private announced = false;
  /** Whether initialize makes this session (a connection's); one born ready serves a single request. */
  private readonly handshake: boolean;
  private sessionId: string | undefined;
  /** The first id of its requests to the client: a session taken over counts from the epoch ms, past the old owner's. */
  readonly firstRequestId: number = 0;
  /** A guest's: where its requests to the client take their ids (shared by every guest of this instance). */
  readonly guestIds: RequestIds | undefined;

  constructor(
    readonly host: SessionHost,
    readonly channel: Channel,
    init: SessionInit,
  ) {
    this.transport = channel.kind;
    this.remoteAddress = channel.remoteAddress;
    this.era = init.era;
    this.principal = init.principal;
    this.defaultLogLevel = init.defaultLogLevel;
    this.createdMs = this.lastActivityMs = Date.now();
    this.handshake = init.protocolVersion === undefined || init.adopted !== undefined;
    this.guestIds = init.guest;
    if (init.adopted) {
      this.sessionId = init.adopted.id;
      this.firstRequestId = Date.now();
      if (init.adopted.subscriptions.length > 0) this.subscribed = new Set(init.adopted.subscriptions);
    }
    if (init.protocolVersion !== undefined) {
      this.announced = true;
      this.state = 'ready';
      this.protocolVersion = init.protocolVersion;
      this.clientInfo = init.clientInfo;
      this.clientCapabilities = init.clientCapabilities ?? {};
      this.logLevel = init.logLevel;
    }
    this.backChannel = init.backChannel(this);
  }

  // --- what applications see

  /** Made when first read: a session born ready serves one request, and mostly none asks. */
  get id(): string {
    return (this.sessionId ??= randomUUID());
  }

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

  /** What another instance needs to go on with this session: a 2025 one's, once initialize was answered. */
  get record(): SessionRecord | undefined {
    if (!this.handshake || !this.announced || this.protocolVersion === undefined || this.state === 'closed') return undefined;
    const record: SessionRecord = {
      protocolVersion: this.protocolVersion,
      clientCapabilities: this.clientCapabilities,
      subscriptions: this.subscribed ? [...this.subscribed] : [],
    };
    if (this.clientInfo !== undefined) record.clientInfo = this.clientInfo;
    if (this.logLevel !== undefined) record.logLevel = this.logLevel;
    return record;
  }

  /** What `record` holds changed: the transport may keep it elsewhere. */
  recordChanged(): void {
    if (this.handshake && this.announced) this.channel.sessionChanged?.();
  }

  get pendingRequests(): number {
    return this.outgoingRequests?.size ?? 0;
  }

  request(method: string, params?: Record<string, unknown>, options: SessionRequestOptions = {}): Promise<Record<string, unknown>> {
    return sent((done) => this.backChannel.send(untypedKind(method), params ?? {}, options, undefined, done));
  }

  elicit<const P extends ElicitParams<FormSchema>>(params: P, options: ClientRequestOptions = {}): Promise<ElicitResultFor<P>> {
    return sent<ElicitResult>((done) => this.backChannel.send(elicitationKind, params, options, undefined, done)) as Promise<ElicitResultFor<P>>;
  }

  createMessage(params: CreateMessageParams, options: ClientRequestOptions = {}): Promise<CreateMessageResult> {
    return sent((done) => this.backChannel.send(samplingKind, params, options, undefined, done));
  }

  listRoots(options: ClientRequestOptions = {}): Promise<ListRootsResult> {
    return sent((done) => this.backChannel.send(rootsKind, {}, options, undefined, done));
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

  // --- what its connection tells it

  backChannelOpened(): void {
    if (this.state !== 'ready' && this.state !== 'initializing') return;
    this.outgoingRequests?.flush();
    this.host.events.emit('backChannelOpen', this);
  }

  // --- the server's own

  /** Client requests being handled (made on first use: a 2026-07-28 request on HTTP never needs them). */
  get incoming(): IncomingRequests {
    return (this.incomingRequests ??= new ServingRequests<Context>());
  }

  get inFlight(): IncomingRequests | undefined {
    return this.incomingRequests;
  }

  /** Whether a request it sent with this id waits for the client's reply. */
  awaitsReply(id: RequestId): boolean {
    return this.outgoingRequests?.awaits(id) ?? false;
  }

  /** Requests sent to the client (made on first use). */
  get outgoing(): Outgoing {
    return (this.outgoingRequests ??= new Outgoing(this));
  }

  canPush(relatedRequestId: RequestId | undefined): boolean {
    return this.channel.canPush?.(relatedRequestId) ?? true;
  }

  send(message: JsonRpcMessage | JsonRpcMessage[], relatedRequestId?: RequestId): boolean {
    this.trace('out', message);
    return this.channel.send(message, relatedRequestId);
  }

  /** A message as it arrives or leaves, for the `message` event's listeners (there are none, mostly). */
  trace(direction: 'in' | 'out', message: unknown): void {
    const { events } = this.host;
    if (events.listening('message')) events.emit('message', this, direction, message);
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

  /** `initialize` was answered: the session is the server's now. */
  private start(): void {
    this.announced = true;
    this.host.sessionStarted(this);
    this.channel.sessionChanged?.();
    if (this.canPush(undefined)) this.host.events.emit('backChannelOpen', this);
  }

  /** The session ends (its transport lost the connection, or `close`): what is in flight ends with it. */
  end(reason: string): void {
    if (this.state === 'closed') return;
    const wasInitialized = this.state !== 'new';
    this.state = 'closed';
    this.endReason = reason;
    // Pending requests first: those a handler made would otherwise end as cancelled when its signal aborts.
    this.outgoingRequests?.closeAll(reason);
    // An McpError costs its stack trace (~11 µs, 9% of a short session): made only when a request is in flight to end with it.
    this.incomingRequests?.cancelAll(() => new McpError(ErrorCode.ConnectionClosed, `session ended: ${reason}`));
    // A guest was never the server's: its owner's session goes on.
    if (this.guestIds === undefined) this.host.sessionEnded(this, reason, wasInitialized);
  }
}
