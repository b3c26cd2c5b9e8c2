/**
 * 2026-07-28 (stateless) test peers: the per-request `_meta` envelope, and a POST that sets the headers
 * SEP-2243 asks for (MCP-Protocol-Version, Mcp-Method, Mcp-Name) from the body, unless told otherwise.
 */
import { ACCEPT_BOTH, send, type OpenResponse } from './http-client.js';
import type { Json } from './ws-client.js';

export const MODERN_VERSION = '2026-07-28';

export const META_KEYS = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  logLevel: 'io.modelcontextprotocol/logLevel',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
  subscriptionId: 'io.modelcontextprotocol/subscriptionId',
} as const;

export const TEST_CLIENT_INFO = { name: 'modern-test', version: '1.0.0' };

/**
 * The `_meta` envelope of a 2026-07-28 request: protocolVersion, clientCapabilities ({}) and clientInfo
 * by default. Keys in `overrides` replace them; a key set to `undefined` is left out.
 */
export function modernMeta(overrides: Record<string, unknown> = {}): Json {
  const meta: Json = {
    [META_KEYS.protocolVersion]: MODERN_VERSION,
    [META_KEYS.clientCapabilities]: {},
    [META_KEYS.clientInfo]: TEST_CLIENT_INFO,
  };
  for (const [key, value] of Object.entries(overrides)) {
    if (value === undefined) delete meta[key];
    else meta[key] = value;
  }
  return meta;
}

/** A whole 2026-07-28 request message: `params` with the envelope (built from `meta` overrides) in `_meta`. */
export function modernRequest(id: string | number, method: string, params: Json = {}, meta: Record<string, unknown> = {}): Json {
  return { jsonrpc: '2.0', id, method, params: { ...params, _meta: modernMeta(meta) } };
}

export interface ModernPostOptions {
  /** Extra headers, merged over the defaults; a header set to `undefined` is not sent. */
  headers?: Record<string, string | undefined>;
  /** `_meta` overrides (see `modernMeta`). */
  meta?: Record<string, unknown>;
  /** The JSON-RPC id. Default 1. */
  id?: string | number;
}

/** The headers a well-behaved 2026-07-28 client sends for this request. */
export function modernHeaders(method: string, params: Json = {}, version: unknown = MODERN_VERSION): Record<string, string> {
  const headers: Record<string, string> = {
    accept: ACCEPT_BOTH,
    'content-type': 'application/json',
    'mcp-protocol-version': String(version),
    'mcp-method': method,
  };
  if ((method === 'tools/call' || method === 'prompts/get') && typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (method === 'resources/read' && typeof params.uri === 'string') headers['mcp-name'] = params.uri;
  return headers;
}

/** POST one 2026-07-28 request; resolves once status and headers are in. */
export function modernPost(url: string, method: string, params: Json = {}, options: ModernPostOptions = {}): Promise<OpenResponse> {
  const body = modernRequest(options.id ?? 1, method, params, options.meta);
  const version = body.params._meta[META_KEYS.protocolVersion] ?? MODERN_VERSION;
  const headers: Record<string, string | undefined> = { ...modernHeaders(method, params, version), ...options.headers };
  const sent: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) sent[name] = value;
  return send(url, 'POST', sent, body);
}

/** POST a 2026-07-28 request and resolve with its response message, whether it came as JSON or on an SSE stream. */
export async function modernCall(url: string, method: string, params: Json = {}, options: ModernPostOptions = {}): Promise<Json> {
  const res = await modernPost(url, method, params, options);
  if (res.isSse) return res.nextMessage({ id: options.id ?? 1 });
  return res.json();
}

/** `=?base64?...?=` of a UTF-8 string, as SEP-2243 encodes header values that are not safe ASCII. */
export function base64Header(value: string): string {
  return `=?base64?${Buffer.from(value, 'utf8').toString('base64')}?=`;
}
