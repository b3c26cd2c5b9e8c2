/**
 * What the 2026-07-28 era asks of a client: every request carries its own `_meta` envelope, HTTP
 * requests repeat the method, name and marked arguments in headers (SEP-2243), and results say what
 * they are in `resultType`.
 */
import { mcpName } from '../protocol/mcp-name.js';
import { McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { META } from '../protocol/meta.js';
import { quote } from '../protocol/quote.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { MODERN_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type { ModernHeaders } from './transport.js';

export const MODERN_VERSION = MODERN_PROTOCOL_VERSIONS[0];

/** The methods that may answer `input_required` (basic/patterns/mrtr.mdx). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

export interface Envelope {
  capabilities: ClientCapabilities;
  clientInfo: Implementation;
  logLevel: LoggingLevel | undefined;
}

/** `params` with the per-request `_meta` keys, over whatever `_meta` the caller gave (a progress token). */
export function withEnvelope(params: Record<string, unknown>, envelope: Envelope): Record<string, unknown> {
  const meta: Record<string, unknown> = {
    ...(isObject(params._meta) ? params._meta : {}),
    [META.protocolVersion]: MODERN_VERSION,
    [META.clientCapabilities]: envelope.capabilities,
    [META.clientInfo]: envelope.clientInfo,
  };
  if (envelope.logLevel !== undefined) meta[META.logLevel] = envelope.logLevel;
  return { ...params, _meta: meta };
}

/** A header name SEP-2243 allows after `Mcp-Param-`: an HTTP token, no separators. */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** The property types whose values can travel in a header (SEP-2243). */
const HEADER_TYPES: ReadonlySet<unknown> = new Set(['string', 'integer', 'boolean']);

/**
 * The arguments of a tool that its input schema marks `x-mcp-header`, as [property, header name]; or why
 * the tool cannot be called over HTTP: a marking that is no header name, that repeats another (case
 * aside), or that sits on a property that is not a string, integer or boolean.
 */
export function headerParams(inputSchema: unknown): { mirrored: readonly (readonly [string, string])[] } | { invalid: string } {
  if (!isObject(inputSchema) || !isObject(inputSchema.properties)) return { mirrored: [] };
  const mirrored: [string, string][] = [];
  const names = new Set<string>();
  for (const [property, schema] of Object.entries(inputSchema.properties)) {
    if (!isObject(schema) || !('x-mcp-header' in schema)) continue;
    const name = schema['x-mcp-header'];
    if (typeof name !== 'string' || !HEADER_NAME.test(name))
      return { invalid: `property ${property} is marked x-mcp-header ${quote(name)}, which is no header name` };
    if (names.has(name.toLowerCase())) return { invalid: `header ${name} is marked on two properties` };
    if (!HEADER_TYPES.has(schema.type))
      return { invalid: `property ${property} is marked x-mcp-header but is of type ${quote(schema.type)}, not string, integer or boolean` };
    names.add(name.toLowerCase());
    mirrored.push([property, name]);
  }
  return { mirrored };
}

/** The SEP-2243 headers of one request. */
export function modernHeaders(method: string, params: Record<string, unknown>, mirrored: readonly (readonly [string, string])[] | undefined): ModernHeaders {
  const headers: ModernHeaders = { method };
  const named = mcpName(method, params);
  if (named) headers.name = named.value;
  if (mirrored && mirrored.length > 0 && isObject(params.arguments)) {
    const values: Record<string, string> = {};
    for (const [property, header] of mirrored) {
      const value = params.arguments[property];
      if (value === undefined || value === null) continue;
      values[header] = typeof value === 'string' ? value : JSON.stringify(value);
    }
    headers.params = values;
  }
  return headers;
}

export type ResultKind = 'complete' | 'input_required' | 'task';

/**
 * What a 2026-07-28 result is. An absent `resultType` is a complete result (a legacy server); one the
 * client does not know makes the result invalid (basic/index.mdx). A task (SEP-2663) is valid only for a
 * tools/call from a client that declared the Tasks extension (`tasks`).
 */
export function resultKind(method: string, result: Record<string, unknown>, tasks = false): ResultKind {
  const type = result.resultType;
  if (type === undefined || type === 'complete') return 'complete';
  if (type === 'task') {
    if (!tasks) throw invalidResult(method, `a task came back though the client did not declare ${TASKS_EXTENSION}`);
    if (method !== 'tools/call') throw invalidResult(method, 'only tools/call may answer with a task');
    return 'task';
  }
  if (type === 'input_required') {
    if (!INPUT_METHODS.has(method)) throw invalidResult(method, 'input_required is only allowed on tools/call, prompts/get and resources/read');
    if (result.inputRequests !== undefined && !isObject(result.inputRequests)) throw invalidResult(method, 'inputRequests must be an object');
    if (result.requestState !== undefined && typeof result.requestState !== 'string') throw invalidResult(method, 'requestState must be a string');
    if (result.inputRequests === undefined && result.requestState === undefined) {
      throw invalidResult(method, 'an input_required result needs inputRequests or requestState');
    }
    return 'input_required';
  }
  throw invalidResult(method, `unknown resultType ${quote(type)}`);
}

function invalidResult(method: string, why: string): McpError {
  return new McpError(-32603, `The server's ${method} result is invalid: ${why}`);
}
