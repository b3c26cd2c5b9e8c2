/**
 * A reference model of JSON-RPC 2.0 as MCP uses it, written from the specification and the README rather
 * than from the server's code: what kind of message a decoded value is, which answers a frame or body
 * must get, and what a well-formed answer looks like. The fuzz tests check the server against it.
 */

export type WireId = string | number;

/** What one decoded value is: ids are a string or an integer, never null (MCP); `invalid` is answered -32600. */
export type ModelKind =
  | { kind: 'request'; id: WireId; method: string }
  | { kind: 'notification'; method: string }
  | { kind: 'response'; id: WireId | null }
  | { kind: 'invalid'; id: WireId | null };

/** One answer a frame must get: its id, and its error code when the answer must be a refusal. */
export interface ExpectedAnswer {
  id: WireId | null;
  code?: -32700 | -32600;
}

/** What a frame or body must bring back: the answers, whether they come as one array, and how many replies it carried. */
export interface ExpectedFrame {
  answers: ExpectedAnswer[];
  /** The answers come as one array (an accepted batch with at least one answer). */
  array: boolean;
  /** Responses the client sent (each one answers nothing the server asked, so each is reported on `error`). */
  responses: number;
}

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;

export function isWireId(value: unknown): value is WireId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value));
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const has = (object: object, key: string) => Object.hasOwn(object, key);

/** The kind of one decoded value (a batch member, or a single message). */
export function modelKind(value: unknown): ModelKind {
  if (!isPlainObject(value)) return { kind: 'invalid', id: null };
  const id = isWireId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return { kind: 'invalid', id };
  if (has(value, 'method')) {
    const { method, params } = value;
    if (typeof method !== 'string' || method === '') return { kind: 'invalid', id };
    if (has(value, 'params') && !isPlainObject(params)) return { kind: 'invalid', id };
    if (!has(value, 'id')) return { kind: 'notification', method };
    return id === null ? { kind: 'invalid', id: null } : { kind: 'request', id, method };
  }
  if (has(value, 'result') === has(value, 'error')) return { kind: 'invalid', id };
  if (has(value, 'result')) return id === null ? { kind: 'invalid', id: null } : { kind: 'response', id };
  const error = value.error;
  if (!isPlainObject(error) || !Number.isInteger(error.code) || typeof error.message !== 'string') return { kind: 'invalid', id };
  // An error about a message the client could not read has id null, or none at all.
  if (!has(value, 'id') || value.id === null) return { kind: 'response', id: null };
  return id === null ? { kind: 'invalid', id: null } : { kind: 'response', id };
}

/** The answer a value gets, if any, and whether it is a reply of the client's. */
function answerOf(value: unknown): { answer?: ExpectedAnswer; response: boolean } {
  const kind = modelKind(value);
  switch (kind.kind) {
    case 'request':
      return { answer: { id: kind.id }, response: false };
    case 'invalid':
      return { answer: { id: kind.id, code: INVALID_REQUEST }, response: false };
    case 'notification':
      return { response: false };
    case 'response':
      return { response: true };
  }
}

/** The McpServer option maxBatchSize by default: a larger batch is refused whole. */
export const MAX_BATCH_SIZE = 100;

/**
 * What one text frame (WebSocket) must bring back on a session that does or does not take batches:
 * unparseable text gets -32700, a refused batch (empty, too large, or on a session without batches) one
 * -32600, an accepted batch one array with an answer per request and per invalid member, a single message
 * its answer (or none).
 */
export function expectedForText(text: string, batches: boolean): ExpectedFrame {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { answers: [{ id: null, code: PARSE_ERROR }], array: false, responses: 0 };
  }
  if (!Array.isArray(value)) {
    const { answer, response } = answerOf(value);
    return { answers: answer ? [answer] : [], array: false, responses: response ? 1 : 0 };
  }
  if (value.length === 0 || value.length > MAX_BATCH_SIZE || !batches) return { answers: [{ id: null, code: INVALID_REQUEST }], array: false, responses: 0 };
  const members = value.map(answerOf);
  const answers = members.flatMap((m) => (m.answer ? [m.answer] : []));
  return { answers, array: answers.length > 0, responses: members.filter((m) => m.response).length };
}

/** Why `message` is not a well-formed JSON-RPC answer (a response with a string, integer or null id), or undefined. */
export function answerProblem(message: unknown): string | undefined {
  if (!isPlainObject(message)) return 'not an object';
  if (message.jsonrpc !== '2.0') return 'jsonrpc is not "2.0"';
  if (has(message, 'method')) return 'it carries a method: a request or notification, not an answer';
  if (!has(message, 'id') || !(message.id === null || isWireId(message.id))) return 'its id is not a string, an integer or null';
  if (has(message, 'result') === has(message, 'error')) return 'it needs exactly one of result and error';
  if (has(message, 'result')) {
    if (!isPlainObject(message.result)) return 'its result is not an object';
    if (message.id === null) return 'a result with id null';
    return undefined;
  }
  return errorProblem(message.error);
}

/** Why `error` is not a JSON-RPC error object (an integer code and a string message), or undefined. */
export function errorProblem(error: unknown): string | undefined {
  if (!isPlainObject(error)) return 'its error is not an object';
  if (!Number.isInteger(error.code)) return 'its error code is not an integer';
  if (typeof error.message !== 'string') return 'its error message is not a string';
  return undefined;
}

/** The key an id is accounted under: equal ids, as they travel in JSON, share one. */
export function idKey(id: WireId | null): string {
  return JSON.stringify(id);
}
