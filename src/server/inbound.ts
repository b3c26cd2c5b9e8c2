/** Everything a client sends goes through here: framing rules, batches, and routing by message kind. */
import { ErrorCode, McpError, UnsupportedProtocolVersionError, type JsonRpcErrorObject } from '../protocol/errors.js';
import { modernClaim } from '../protocol/meta.js';
import { supportedVersions } from './modern.js';
import {
  classify,
  decode,
  errorResponse,
  isErrorResponse,
  resultResponse,
  type JsonRpcErrorResponse,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../protocol/jsonrpc.js';
import type { ProgressParams, RequestId } from '../protocol/types.js';
import { allowsBatches } from '../protocol/versions.js';
import { RequestContext } from './context.js';
import type { McpServer } from './mcp-server.js';
import { legacyMethods } from './methods.js';
import type { McpSession } from './session.js';
import { isObject } from '../protocol/is-object.js';

export async function routeInbound(server: McpServer, session: McpSession, text: string): Promise<void> {
  const decoded = decode(text);
  if (decoded.kind === 'parse-error') {
    server.traceMessage(session, 'in', text);
    reply(server, session, errorResponse(null, decoded.error));
    return;
  }
  if (decoded.kind === 'single') {
    server.traceMessage(session, 'in', decoded.value);
    return receiveMessage(server, session, decoded.value);
  }
  server.traceMessage(session, 'in', decoded.values);
  // basic/index.mdx: batches exist only in 2025-03-26, and `initialize` is never batched.
  if (!allowsBatches(session.protocolVersion) || decoded.values.length === 0) {
    const message =
      decoded.values.length === 0
        ? 'Invalid Request: an empty batch'
        : `Invalid Request: JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: ${session.protocolVersion ?? 'not initialized'}); send one message at a time`;
    reply(server, session, errorResponse(null, { code: ErrorCode.InvalidRequest, message }));
    return;
  }
  const responses = (await Promise.all(decoded.values.map((value) => handleValue(server, session, value, true)))).filter(
    (r): r is JsonRpcResponse => r !== undefined,
  );
  for (const response of responses) countInvalid(server, response);
  if (responses.length > 0) session.send(responses);
}

/**
 * Handle one decoded message. Its response, if any, goes out through the session's channel, related to
 * its request, so a transport with a stream per request (HTTP) can route it.
 */
export async function receiveMessage(server: McpServer, session: McpSession, value: unknown, inBatch = false): Promise<void> {
  const response = await handleValue(server, session, value, inBatch);
  if (response) reply(server, session, response);
  // sessionNew fires once the initialize result is on its way, so listeners may talk to the client.
  if (session.state !== 'new' && session.state !== 'closed' && !server.sessions.has(session.id)) server.sessionStarted(session);
}

function reply(server: McpServer, session: McpSession, response: JsonRpcResponse): void {
  countInvalid(server, response);
  session.reply(response);
}

/** `stats.invalidMessages` counts every message answered with -32700 or -32600, wherever the answer came from. */
function countInvalid(server: McpServer, response: JsonRpcResponse): void {
  if (!isErrorResponse(response)) return;
  const code = response.error.code;
  if (code === ErrorCode.ParseError || code === ErrorCode.InvalidRequest) server.stats.invalidMessages++;
}

/** Handle one message; resolves to the response to send, if there is one. */
async function handleValue(server: McpServer, session: McpSession, value: unknown, inBatch = false): Promise<JsonRpcResponse | undefined> {
  const classified = classify(value);
  switch (classified.kind) {
    case 'invalid':
      return errorResponse(classified.id, classified.error);
    case 'response':
      handleResponse(server, session, classified.message);
      return undefined;
    case 'notification':
      handleNotification(server, session, classified.message);
      return undefined;
    case 'request':
      if (inBatch && classified.message.method === 'initialize') {
        return errorResponse(classified.message.id, { code: ErrorCode.InvalidRequest, message: 'Invalid Request: initialize must not be part of a batch' });
      }
      return handleRequest(server, session, classified.message);
  }
}

async function handleRequest(server: McpServer, session: McpSession, request: JsonRpcRequest): Promise<JsonRpcResponse | undefined> {
  const { id, method } = request;
  const reject = (code: number, message: string) => errorResponse(id, { code, message });
  if (session.inflight.has(id)) {
    return reject(ErrorCode.InvalidRequest, `Invalid Request: request id ${JSON.stringify(id)} is already in flight in this session; use a new id`);
  }
  // Era classification, per message: a _meta protocolVersion claim means 2026-07-28 (versioning.mdx).
  const eras = server.options.eras;
  if (eras !== 'legacy' && modernClaim(request.params) !== undefined) {
    await server.handleModernRequest(session.relay, request, {
      principal: session.principal,
      track: (ctx) => {
        session.inflight.set(id, ctx);
        return () => {
          if (session.inflight.get(id) === ctx) session.inflight.delete(id);
        };
      },
    });
    return undefined; // answered through the relay
  }
  if (eras === 'modern') {
    // A modern-only server names its versions in any error to a legacy client, which cannot fall forward.
    const requested = method === 'initialize' ? request.params?.protocolVersion : undefined;
    return errorResponse(id, new UnsupportedProtocolVersionError(requested, supportedVersions(server)).toJSON());
  }
  const handler = legacyMethods[method];
  if (!handler) return reject(ErrorCode.MethodNotFound, `Method not found: ${method}`);
  if (session.state === 'new' && method !== 'initialize' && method !== 'ping') {
    return reject(ErrorCode.InvalidRequest, `Invalid Request: ${method} before initialize; send initialize first`);
  }
  if (session.state === 'closed') return undefined;

  const params = request.params ?? {};
  const ctx = new RequestContext(session, id, method, params._meta as Record<string, unknown> | undefined);
  session.inflight.set(id, ctx);
  let response: JsonRpcResponse;
  try {
    response = resultResponse(id, await handler(server, session, params, ctx));
  } catch (err) {
    response = errorResponse(id, toErrorObject(server, session, method, err));
  } finally {
    if (session.inflight.get(id) === ctx) session.inflight.delete(id);
  }
  // cancellation.mdx: a cancelled request gets no response; neither does one whose session ended.
  if (!ctx.aborted) return response;
  session.requestEnded(id);
  return undefined;
}

function toErrorObject(server: McpServer, session: McpSession, method: string, err: unknown): JsonRpcErrorObject {
  if (err instanceof McpError) return err.toJSON();
  const error = err instanceof Error ? err : new Error(String(err));
  server.reportError(new Error(`${method} handler failed: ${error.message}`, { cause: error }), session);
  return { code: ErrorCode.InternalError, message: `Internal error: ${error.message}` };
}

function handleNotification(server: McpServer, session: McpSession, notification: JsonRpcNotification): void {
  const params = notification.params;
  switch (notification.method) {
    case 'notifications/initialized':
      if (session.state === 'initializing') {
        session.state = 'ready';
        server.emit('initialized', session);
      }
      return;
    case 'notifications/cancelled': {
      const requestId = params?.requestId as RequestId | undefined;
      const ctx = requestId === undefined ? undefined : session.inflight.get(requestId);
      if (ctx) {
        session.inflight.delete(requestId!);
        ctx.abort(new McpError(ErrorCode.RequestCancelled, `cancelled by the client${params?.reason ? `: ${String(params.reason)}` : ''}`));
      }
      server.emit('cancelled', session, { requestId, reason: params?.reason as string | undefined });
      return;
    }
    case 'notifications/progress':
      if (params && (typeof params.progressToken === 'string' || typeof params.progressToken === 'number') && typeof params.progress === 'number') {
        session.progressReceived(params as unknown as ProgressParams);
        server.emit('progress', session, params as unknown as ProgressParams);
      }
      return;
    case 'notifications/roots/list_changed':
      server.emit('rootsListChanged', session);
      return;
    default:
      server.emit('notification', session, notification.method, params);
  }
}

function handleResponse(server: McpServer, session: McpSession, response: JsonRpcResponse): void {
  if (response.id === null) {
    const { error } = response as JsonRpcErrorResponse;
    server.reportError(new McpError(error.code, `The client could not process a message: ${error.message}`, error.data), session);
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
  if (!outcome.ok && !isErrorResponse(response)) server.stats.invalidResults++;
  const match = session.pending.reply(response.id, outcome);
  if (match === 'settled') return;
  const counter = match === 'late' ? 'lateResponses' : match === 'duplicate' ? 'duplicateResponses' : 'unknownResponses';
  server.stats[counter]++;
  server.reportError(
    new Error(`Ignored ${match === 'unknown' ? 'an' : 'a'} ${match} reply from the client for request id ${JSON.stringify(response.id)}`),
    session,
  );
}
