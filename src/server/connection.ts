/**
 * The connection object a transport holds: one per WebSocket, stdio stream or Streamable HTTP session,
 * with the session it carries. Everything the client sends comes in here: framing rules and batches,
 * each request's era classified once and its admission decided once, then the one pipeline. A transport
 * that answers refusals itself (HTTP, with a status) admits its messages first and delivers them after.
 * Each message is dispatched by kind through the rpc floor, as McpClient's are: replies settle the
 * session's pending table, notifications act on the session, requests go to the pipeline.
 */
import { batchRefusal, INITIALIZE_IN_BATCH } from '../protocol/batches.js';
import { ErrorCode, McpError, UnsupportedProtocolVersionError, type JsonRpcErrorObject } from '../protocol/errors.js';
import {
  type Classified,
  classify,
  decode,
  errorResponse,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  dispatch,
  type MessageReceiver,
} from '../protocol/jsonrpc.js';
import { quote } from '../protocol/quote.js';
import type { ProgressParams, RequestId } from '../protocol/types.js';
import { classifyEra, type Era, MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { type ReplyPolicy, receiveReply, type RequestIds } from '../rpc/requests.js';
import type { SessionState } from './api.js';
import type { BackChannelFactory } from './back-channel.js';
import { legacyDispatch } from './methods.js';
import { type Answers, BatchAnswers, serve } from './pipeline.js';
import type { Admission, Channel, Connection, Refusal, SessionRecord } from './port.js';
import { Session, type SessionInit } from './session.js';
import { serveStateless, type StatelessHost } from './stateless.js';

/** What a connection needs of the server: a session's host, and how each era talks back. */
export interface ConnectionHost extends StatelessHost {
  /** The back channel of a connection's own session: it pushes. */
  readonly push: BackChannelFactory;
}

/** A request that arrives while the server drains: it is not run (the client may send it to another instance). */
export const SHUTTING_DOWN: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.ShuttingDown,
  message: 'The server is shutting down: send the request again (to another instance)',
});

function invalidRequest(message: string): JsonRpcErrorObject {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` };
}

/** Why `request` may not run on `session` now, or undefined when it may. `seen`: the ids admitted before it in the same batch. */
function requestRefusal(session: Session, request: JsonRpcRequest, era: Era, inBatch: boolean, seen?: Set<RequestId>): JsonRpcErrorObject | undefined {
  const { id, method } = request;
  if (session.host.draining) return SHUTTING_DOWN;
  if (inBatch && method === 'initialize') return INITIALIZE_IN_BATCH;
  const inFlight = session.inFlight;
  if (inFlight?.has(id) || seen?.has(id)) return invalidRequest(`request id ${JSON.stringify(id)} is already in flight in this session; use a new id`);
  const { maxRequestsInFlight, eras: served } = session.host.options;
  if ((inFlight?.size ?? 0) + (seen?.size ?? 0) >= maxRequestsInFlight) {
    return {
      code: ErrorCode.TooManyRequestsInFlight,
      message: `Too many requests in flight: this session has ${maxRequestsInFlight} unanswered; wait for answers before sending more`,
    };
  }
  if (era === 'modern') return undefined;
  if (served === 'modern') {
    // A modern-only server names its versions to a legacy-era client, which cannot fall forward.
    const requested = method === 'initialize' ? request.params?.protocolVersion : undefined;
    return new UnsupportedProtocolVersionError(requested, MODERN_PROTOCOL_VERSIONS).toJSON();
  }
  if (!(method in legacyDispatch.methods)) return undefined; // -32601, from the pipeline
  if (method === 'initialize' && session.state !== 'new') return invalidRequest('initialize was already received on this session');
  if (session.state === 'new' && method !== 'initialize' && method !== 'ping') return invalidRequest(`${method} before initialize; send initialize first`);
  return undefined;
}

/** Messages a connection admitted: delivered once, as they were checked. */
class Admitted implements Admission {
  constructor(
    private readonly connection: ServerConnection,
    private readonly messages: readonly Classified[],
    private readonly batch: boolean,
    /** Each request's era, by its index in `messages`. */
    private readonly eras: readonly (Era | undefined)[],
    readonly refusal: Refusal | undefined,
  ) {}

  deliver(raw: unknown): void {
    this.connection.deliver(this.messages, this.batch, this.refusal === undefined ? this.eras : undefined, raw);
  }
}

/** How a request is admitted: already, in its era; or as it runs, alone or as a member of a batch. */
type RequestCheck = Era | 'alone' | 'in-batch';

export class ServerConnection implements Connection, MessageReceiver<Answers, RequestCheck> {
  readonly session: Session;
  private relayChannel: Channel | undefined;

  constructor(
    private readonly host: ConnectionHost,
    channel: Channel,
    principal: unknown,
    adopted?: { id: string; record: SessionRecord; guest?: RequestIds },
  ) {
    const init: SessionInit = { era: 'legacy', backChannel: host.push, principal, defaultLogLevel: host.options.defaultLogLevel };
    if (adopted) {
      const { record } = adopted;
      init.protocolVersion = record.protocolVersion;
      init.clientInfo = record.clientInfo;
      init.clientCapabilities = record.clientCapabilities;
      init.logLevel = record.logLevel;
      init.adopted = { id: adopted.id, subscriptions: record.subscriptions };
      init.guest = adopted.guest;
    }
    this.session = new Session(host, channel, init);
  }

  get id(): string {
    return this.session.id;
  }

  get record(): SessionRecord | undefined {
    return this.session.record;
  }

  awaitsReply(id: RequestId): boolean {
    return this.session.awaitsReply(id);
  }

  get state(): SessionState {
    return this.session.state;
  }

  get protocolVersion(): string | undefined {
    return this.session.protocolVersion;
  }

  get lastActivityMs(): number {
    return this.session.lastActivityMs;
  }

  get busy(): boolean {
    return (this.session.inFlight?.size ?? 0) > 0;
  }

  /** One frame or line (WebSocket, stdio): decoded, and each message handled; a batch is answered as one array. */
  receive(text: string): void {
    const { session, host } = this;
    session.lastActivityMs = Date.now();
    const decoded = decode(text);
    if (decoded.kind === 'parse-error') {
      session.trace('in', text);
      session.answer(null, this.refused(null, decoded.error));
      return;
    }
    if (decoded.kind === 'single') {
      session.trace('in', decoded.value);
      this.handle(classify(decoded.value), session, 'alone');
      return;
    }
    session.trace('in', decoded.values);
    const refused = batchRefusal(session.protocolVersion, decoded.values.length, host.options.maxBatchSize);
    if (refused) {
      session.answer(null, this.refused(null, refused));
      return;
    }
    const batch = new BatchAnswers(session, decoded.values.length);
    for (let i = 0; i < decoded.values.length; i++) this.handle(classify(decoded.values[i]), batch.member(i), 'in-batch');
  }

  admit(messages: readonly Classified[], batch: boolean, era?: Era): Admission {
    const eras: (Era | undefined)[] = new Array(messages.length);
    return new Admitted(this, messages, batch, eras, this.admission(messages, batch, era, eras));
  }

  /** The first of `messages` that would be refused, and why, before any runs; each request's era goes into `eras`. */
  private admission(messages: readonly Classified[], batch: boolean, era: Era | undefined, eras: (Era | undefined)[]): Refusal | undefined {
    const { session, host } = this;
    for (const message of messages) {
      if (message.kind === 'invalid') {
        this.countInvalid(message.error);
        return { id: message.id, error: message.error };
      }
    }
    const batchError = batch ? batchRefusal(session.protocolVersion, messages.length, host.options.maxBatchSize) : undefined;
    if (batchError) {
      this.countInvalid(batchError);
      return { id: null, error: batchError };
    }
    // A single request has no earlier one to share its id with.
    const seen = messages.length > 1 ? new Set<RequestId>() : undefined;
    for (let i = 0; i < messages.length; i++) {
      const message = messages[i]!;
      if (message.kind !== 'request') continue;
      const request = message.message;
      const requestEra = (eras[i] = era ?? classifyEra(request, host.options.eras));
      const error = requestRefusal(session, request, requestEra, batch, seen);
      if (error) {
        this.countInvalid(error);
        return { id: request.id, error };
      }
      seen?.add(request.id);
    }
    return undefined;
  }

  /** What `Admitted.deliver` runs: `eras` are the requests' eras, or undefined when admission refused them (each is then checked as it runs). */
  deliver(messages: readonly Classified[], batch: boolean, eras: readonly (Era | undefined)[] | undefined, raw: unknown): void {
    const { session } = this;
    session.lastActivityMs = Date.now();
    session.trace('in', raw);
    const unchecked = batch ? 'in-batch' : 'alone';
    for (let i = 0; i < messages.length; i++) this.handle(messages[i]!, session, eras?.[i] ?? unchecked);
  }

  touch(): void {
    this.session.lastActivityMs = Date.now();
  }

  backChannelOpened(): void {
    this.session.backChannelOpened();
  }

  renewPrincipal(principal: unknown): void {
    this.session.principal = principal;
  }

  renewRecord(record: SessionRecord): void {
    this.session.logLevel = record.logLevel;
  }

  closed(reason: string): void {
    this.session.end(reason);
  }

  close(reason: string): void {
    this.session.close(reason);
  }

  /** Handle one message; its answer (if it gets one) goes to `answers`, exactly once. */
  private handle(message: Classified, answers: Answers, check: RequestCheck): void {
    try {
      dispatch(message, this, answers, check);
    } catch (err) {
      // A bug of ours must not take the connection (or, from a socket's listener, the process) with it.
      this.host.reportError(err, this.session);
      if (message.kind === 'request') {
        answers.answer(message.message.id, errorResponse(message.message.id, { code: ErrorCode.InternalError, message: 'Internal error' }));
      }
    }
  }

  // --- what the rpc floor's dispatch calls, for each kind of message

  onInvalid(id: RequestId | null, error: JsonRpcErrorObject, answers: Answers): void {
    answers.answer(id, this.refused(id, error));
  }

  onResponse(response: JsonRpcResponse, answers: Answers): void {
    receiveReply(response, this.session.outgoing, clientReplies, this.session);
    answers.answer(null, undefined);
  }

  onNotification(notification: JsonRpcNotification, answers: Answers): void {
    handleNotification(this.session, notification);
    answers.answer(null, undefined);
  }

  onRequest(request: JsonRpcRequest, answers: Answers, check: RequestCheck): void {
    const { session } = this;
    let era: Era;
    if (check === 'legacy' || check === 'modern') era = check;
    else {
      // Era classification, per message: a _meta protocolVersion claim means 2026-07-28 (versioning.mdx).
      era = classifyEra(request, this.host.options.eras);
      const refused = requestRefusal(session, request, era, check === 'in-batch');
      if (refused) {
        answers.answer(request.id, this.refused(request.id, refused));
        return;
      }
    }
    if (era === 'modern') {
      // Answered on this connection, but with no way to push: its session asks with input-required.
      serveStateless(this.host, request, {
        channel: this.relay,
        principal: session.principal,
        table: session.incoming,
        answers: answers === session ? undefined : answers,
      });
    } else if (session.state === 'closed') {
      answers.answer(request.id, undefined);
    } else {
      serve(session, request, legacyDispatch, session.incoming, answers);
    }
  }

  /**
   * The channel 2026-07-28 requests arriving on this connection answer through: the same connection,
   * with no way to push requests.
   */
  private get relay(): Channel {
    const { channel } = this.session;
    return (this.relayChannel ??= {
      kind: channel.kind,
      remoteAddress: channel.remoteAddress,
      send: (message, relatedRequestId) => channel.send(message, relatedRequestId),
      canPush: () => false,
      close: () => {},
    });
  }

  private refused(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
    this.countInvalid(error);
    return errorResponse(id, error);
  }

  /** `stats.invalidMessages` counts every message answered with -32700 or -32600, wherever the answer came from. */
  private countInvalid(error: JsonRpcErrorObject): void {
    if (error.code === ErrorCode.ParseError || error.code === ErrorCode.InvalidRequest) this.host.stats.invalidMessages++;
  }
}

/** What a client's notification does on its session. */
function handleNotification(session: Session, notification: JsonRpcNotification): void {
  const { host } = session;
  const params = notification.params;
  switch (notification.method) {
    case 'notifications/initialized':
      if (session.state === 'initializing') {
        session.state = 'ready';
        host.events.emit('initialized', session);
      }
      return;
    case 'notifications/cancelled': {
      const requestId = params?.requestId as RequestId | undefined;
      if (requestId !== undefined) {
        const reason = params?.reason;
        const why = `cancelled by the client${reason ? `: ${typeof reason === 'string' ? reason : quote(reason)}` : ''}`;
        session.inFlight?.cancel(requestId, new McpError(ErrorCode.RequestCancelled, why));
      }
      host.events.emit('cancelled', session, { requestId, reason: params?.reason as string | undefined });
      return;
    }
    case 'notifications/progress':
      if (params && (typeof params.progressToken === 'string' || typeof params.progressToken === 'number') && typeof params.progress === 'number') {
        session.outgoing.progress(params as unknown as ProgressParams);
        host.events.emit('progress', session, params as unknown as ProgressParams);
      }
      return;
    case 'notifications/roots/list_changed':
      host.events.emit('rootsListChanged', session);
      return;
    default:
      host.events.emit('notification', session, notification.method, params);
  }
}

/** How a client's replies that settle nothing are counted and reported: one policy for every session of every server. */
const clientReplies: ReplyPolicy<Session> = {
  peer: 'client',
  objectResults: true,
  orphanError: (error, session) =>
    session.host.reportError(new McpError(error.code, `The client could not process a message: ${error.message}`, error.data), session),
  invalidResult: (session) => {
    session.host.stats.invalidResults++;
  },
  unmatched: (id, match, session) => {
    const { host } = session;
    if (match === 'duplicate') {
      // A client that takes 204 for failure sends a second, error reply (see replyStatus): worth a note, not an alarm.
      host.stats.duplicateResponses++;
      host.events.emit('debug', `Ignored a duplicate reply from the client for request id ${JSON.stringify(id)}`, session);
      return;
    }
    host.stats[match === 'late' ? 'lateResponses' : 'unknownResponses']++;
    host.reportError(new Error(`Ignored ${match === 'unknown' ? 'an' : 'a'} ${match} reply from the client for request id ${JSON.stringify(id)}`), session);
  },
};
