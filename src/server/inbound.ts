/**
 * Everything a client sends on a connection comes through here: framing rules, batches, the checks that
 * refuse a message before it runs, and routing by kind. A transport that answers refusals itself (HTTP,
 * with a status) asks for them first with `refuse`; the rest goes through `receive` or `deliver`.
 */
import { batchRefusal, INITIALIZE_IN_BATCH } from '../protocol/batches.js';
import { classifyEra, type Era } from '../protocol/era.js';
import { ErrorCode, McpError, UnsupportedProtocolVersionError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import {
  type Classified,
  classify,
  decode,
  errorResponse,
  isErrorResponse,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import type { ProgressParams, RequestId } from '../protocol/types.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import { legacyDispatch } from './methods.js';
import { type Answers, BatchAnswers, serve } from './pipeline.js';
import type { Refusal } from './port.js';
import type { BackChannel, Session, SessionHost } from './session.js';
import { serveStateless } from './stateless.js';
import { quote } from '../protocol/quote.js';

/** What routing needs of the server beyond a session's host: how 2026-07-28 requests talk back. */
export interface InboundHost extends SessionHost {
  readonly inputRequired: BackChannel;
}

/** A request that arrives while the server drains: it is not run (the client may send it to another instance). */
export const SHUTTING_DOWN: JsonRpcErrorObject = Object.freeze({
  code: ErrorCode.ShuttingDown,
  message: 'The server is shutting down: send the request again (to another instance)',
});

function invalidRequest(message: string): JsonRpcErrorObject {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` };
}

/** Why `request` may not run on `session` now, or undefined when it may. */
function requestRefusal(session: Session, request: JsonRpcRequest, era: Era, inBatch: boolean, seen?: Set<RequestId>): JsonRpcErrorObject | undefined {
  const { id, method } = request;
  if (session.host.draining) return SHUTTING_DOWN;
  if (inBatch && method === 'initialize') return INITIALIZE_IN_BATCH;
  if (session.inFlight?.has(id) || seen?.has(id)) return invalidRequest(`request id ${JSON.stringify(id)} is already in flight in this session; use a new id`);
  const { maxRequestsInFlight, eras: served } = session.host.options;
  if ((session.inFlight?.size ?? 0) + (seen?.size ?? 0) >= maxRequestsInFlight) {
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

/** `stats.invalidMessages` counts every message answered with -32700 or -32600, wherever the answer came from. */
function countInvalid(host: SessionHost, error: JsonRpcErrorObject): void {
  if (error.code === ErrorCode.ParseError || error.code === ErrorCode.InvalidRequest) host.stats.invalidMessages++;
}

function refusedResponse(session: Session, id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  countInvalid(session.host, error);
  return errorResponse(id, error);
}

/** One frame or line (WebSocket, stdio): decoded, and each message handled; a batch is answered as one array. */
export function receive(host: InboundHost, session: Session, text: string): void {
  const decoded = decode(text);
  if (decoded.kind === 'parse-error') {
    host.trace(session, 'in', text);
    session.answer(null, refusedResponse(session, null, decoded.error));
    return;
  }
  if (decoded.kind === 'single') {
    host.trace(session, 'in', decoded.value);
    handle(host, session, classify(decoded.value), false, session);
    return;
  }
  host.trace(session, 'in', decoded.values);
  const refused = batchRefusal(session.protocolVersion, decoded.values.length, host.options.maxBatchSize);
  if (refused) {
    session.answer(null, refusedResponse(session, null, refused));
    return;
  }
  const batch = new BatchAnswers(session, decoded.values.length);
  for (let i = 0; i < decoded.values.length; i++) handle(host, session, classify(decoded.values[i]), true, batch.member(i));
}

/**
 * For transports that answer refusals with a status of their own: the first message of these that would
 * be refused, and why, before any of them runs.
 */
export function refuse(session: Session, messages: readonly Classified[], batch: boolean): Refusal | undefined {
  for (const message of messages) {
    if (message.kind === 'invalid') {
      countInvalid(session.host, message.error);
      return { id: message.id, error: message.error };
    }
  }
  const batchError = batch ? batchRefusal(session.protocolVersion, messages.length, session.host.options.maxBatchSize) : undefined;
  if (batchError) {
    countInvalid(session.host, batchError);
    return { id: null, error: batchError };
  }
  const seen = new Set<RequestId>();
  for (const message of messages) {
    if (message.kind !== 'request') continue;
    const error = requestRefusal(session, message.message, classifyEra(message.message, session.host.options.eras), batch, seen);
    if (error) {
      countInvalid(session.host, error);
      return { id: message.message.id, error };
    }
    seen.add(message.message.id);
  }
  return undefined;
}

/** Messages `refuse` let through: each request is answered on its own, related to its id. */
export function deliver(host: InboundHost, session: Session, messages: readonly Classified[], batch: boolean): void {
  for (const message of messages) handle(host, session, message, batch, session);
}

/** Handle one message; its answer (if it gets one) goes to `answers`, exactly once. */
function handle(host: InboundHost, session: Session, message: Classified, inBatch: boolean, answers: Answers): void {
  try {
    handleMessage(host, session, message, inBatch, answers);
  } catch (err) {
    // A bug of ours must not take the connection (or, from a socket's listener, the process) with it.
    host.reportError(err, session);
    if (message.kind === 'request') {
      answers.answer(message.message.id, errorResponse(message.message.id, { code: ErrorCode.InternalError, message: 'Internal error' }));
    }
  }
}

function handleMessage(host: InboundHost, session: Session, message: Classified, inBatch: boolean, answers: Answers): void {
  switch (message.kind) {
    case 'invalid':
      answers.answer(message.id, refusedResponse(session, message.id, message.error));
      return;
    case 'response':
      handleResponse(host, session, message.message);
      answers.answer(null, undefined);
      return;
    case 'notification':
      handleNotification(host, session, message.message);
      answers.answer(null, undefined);
      return;
    case 'request':
      handleRequest(host, session, message.message, inBatch, answers);
  }
}

function handleRequest(host: InboundHost, session: Session, request: JsonRpcRequest, inBatch: boolean, answers: Answers): void {
  // Era classification, per message: a _meta protocolVersion claim means 2026-07-28 (versioning.mdx).
  const era = classifyEra(request, host.options.eras);
  const refused = requestRefusal(session, request, era, inBatch);
  if (refused) {
    answers.answer(request.id, refusedResponse(session, request.id, refused));
    return;
  }
  if (era === 'modern') {
    // Answered on this connection, but with no way to push: its session asks with input-required.
    serveStateless(host, host.inputRequired, session.relay, request, session.principal, session.incoming, answers === session ? undefined : answers);
  } else if (session.state === 'closed') {
    answers.answer(request.id, undefined);
  } else {
    serve(session, request, legacyDispatch, session.incoming, answers);
  }
}

function handleNotification(host: SessionHost, session: Session, notification: JsonRpcNotification): void {
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

function handleResponse(host: SessionHost, session: Session, response: JsonRpcResponse): void {
  if (response.id === null) {
    const { error } = response as JsonRpcErrorResponse;
    host.reportError(new McpError(error.code, `The client could not process a message: ${error.message}`, error.data), session);
    return;
  }
  const outcome = isErrorResponse(response)
    ? { ok: false as const, error: McpError.fromObject(response.error) }
    : isObject(response.result)
      ? { ok: true as const, result: response.result }
      : {
          ok: false as const,
          error: new McpError(ErrorCode.InvalidParams, 'The client replied with a result that is not an object', { result: response.result }),
        };
  if (!outcome.ok && !isErrorResponse(response)) host.stats.invalidResults++;
  const match = session.outgoing.reply(response.id, outcome);
  if (match === 'settled') return;
  if (match === 'duplicate') {
    // A client that takes 204 for failure sends a second, error reply (see replyStatus): worth a note, not an alarm.
    host.stats.duplicateResponses++;
    host.events.emit('debug', `Ignored a duplicate reply from the client for request id ${JSON.stringify(response.id)}`, session);
    return;
  }
  host.stats[match === 'late' ? 'lateResponses' : 'unknownResponses']++;
  host.reportError(
    new Error(`Ignored ${match === 'unknown' ? 'an' : 'a'} ${match} reply from the client for request id ${JSON.stringify(response.id)}`),
    session,
  );
}
