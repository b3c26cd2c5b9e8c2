/**
 * JSON-RPC 2.0 framing: classify what arrives, dispatch it by kind, build what leaves. Ids are a string
 * or an integer, never null. Also what every layer asks of the JSON values it carries: whether one is
 * an object, and its canonical form (keys sorted).
 */
import { ErrorCode, type JsonRpcErrorObject } from './errors.js';
import type { RequestId } from './types.js';

/** JSON's "object": not null, not an array. */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether a record has no enumerable keys (without the array Object.keys makes). */
export function isEmptyRecord(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

/** JSON with object keys sorted, so the order a client or an auth hook used does not matter. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.keys(value as object)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: RequestId;
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcNotification {
  jsonrpc: '2.0';
  method: string;
  params?: Record<string, unknown>;
}

export interface JsonRpcResultResponse {
  jsonrpc: '2.0';
  id: RequestId;
  result: Record<string, unknown>;
}

export interface JsonRpcErrorResponse {
  jsonrpc: '2.0';
  id: RequestId | null;
  error: JsonRpcErrorObject;
}

export type JsonRpcResponse = JsonRpcResultResponse | JsonRpcErrorResponse;
export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcResponse;

/** What one decoded value turned out to be. `invalid` carries the error to answer with. */
export type Classified =
  | { kind: 'request'; message: JsonRpcRequest }
  | { kind: 'notification'; message: JsonRpcNotification }
  | { kind: 'response'; message: JsonRpcResponse }
  | { kind: 'invalid'; id: RequestId | null; error: JsonRpcErrorObject };

/** The result of decoding one frame, line or body: a single value, a batch (array), or a parse error. */
export type Decoded = { kind: 'single'; value: unknown } | { kind: 'batch'; values: unknown[] } | { kind: 'parse-error'; error: JsonRpcErrorObject };

export function decode(text: string): Decoded {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    return { kind: 'parse-error', error: { code: ErrorCode.ParseError, message: `Parse error: ${(err as Error).message}` } };
  }
  return Array.isArray(value) ? { kind: 'batch', values: value } : { kind: 'single', value };
}

export function isRequestId(value: unknown): value is RequestId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function invalid(id: RequestId | null, message: string): Classified {
  return { kind: 'invalid', id, error: { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` } };
}

/** Classify one decoded JSON value as a request, notification or response, or say why it is none of them. */
export function classify(value: unknown): Classified {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid(null, 'a JSON-RPC message must be an object');
  }
  const msg = value as Record<string, unknown>;
  const hasId = 'id' in msg && msg.id !== undefined;
  const id = isRequestId(msg.id) ? msg.id : null;
  if (msg.jsonrpc !== '2.0') return invalid(id, 'jsonrpc must be "2.0"');

  if ('method' in msg) {
    if (typeof msg.method !== 'string' || msg.method.length === 0) return invalid(id, 'method must be a non-empty string');
    if (msg.params !== undefined && (typeof msg.params !== 'object' || msg.params === null || Array.isArray(msg.params))) {
      return invalid(id, 'params must be an object');
    }
    if (!hasId) return { kind: 'notification', message: msg as unknown as JsonRpcNotification };
    if (id === null) return invalid(null, 'id must be a string or an integer, never null');
    return { kind: 'request', message: msg as unknown as JsonRpcRequest };
  }

  const hasResult = 'result' in msg;
  const hasError = 'error' in msg;
  if (hasResult === hasError) return invalid(id, 'a message needs a method, or exactly one of result and error');
  if (hasResult) {
    if (id === null) return invalid(null, 'a result needs a string or integer id');
    return { kind: 'response', message: msg as unknown as JsonRpcResultResponse };
  }
  const error = msg.error as Record<string, unknown> | null;
  if (typeof error !== 'object' || error === null || !Number.isInteger(error.code) || typeof error.message !== 'string') {
    return invalid(id, 'error must be an object with an integer code and a string message');
  }
  // An error about an unreadable request may carry id null (JSON-RPC) or omit it (MCP 2025-11-25).
  if (hasId && msg.id !== null && id === null) return invalid(null, 'id must be a string or an integer');
  return { kind: 'response', message: { jsonrpc: '2.0', id, error: error as unknown as JsonRpcErrorObject } };
}

/**
 * The one dispatch by kind, the same for either end: a reply goes to what settles this end's requests,
 * a notification and a request to their handlers, and what is not JSON-RPC is refused. `Via` (where an
 * answer goes) and `How` (how a request is admitted) are whatever the end needs, passed through as
 * they are, so that nothing is allocated per message.
 */
export interface MessageReceiver<Via, How> {
  onResponse(response: JsonRpcResponse, via: Via): void;
  onNotification(notification: JsonRpcNotification, via: Via): void;
  onRequest(request: JsonRpcRequest, via: Via, how: How): void;
  /** A message that is not JSON-RPC: `id` is its id when it had a usable one. */
  onInvalid(id: RequestId | null, error: JsonRpcErrorObject, via: Via): void;
}

export function dispatch<Via, How>(message: Classified, to: MessageReceiver<Via, How>, via: Via, how: How): void {
  switch (message.kind) {
    case 'response':
      return to.onResponse(message.message, via);
    case 'notification':
      return to.onNotification(message.message, via);
    case 'request':
      return to.onRequest(message.message, via, how);
    case 'invalid':
      return to.onInvalid(message.id, message.error, via);
  }
}

export function resultResponse(id: RequestId, result: Record<string, unknown>): JsonRpcResultResponse {
  return { jsonrpc: '2.0', id, result };
}

export function errorResponse(id: RequestId | null, error: JsonRpcErrorObject): JsonRpcErrorResponse {
  return { jsonrpc: '2.0', id, error };
}

export function isErrorResponse(message: JsonRpcResponse): message is JsonRpcErrorResponse {
  return 'error' in message;
}
