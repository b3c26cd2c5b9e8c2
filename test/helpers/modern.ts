/**
 * 2026-07-28 (stateless) test peers: the per-request `_meta` envelope, a POST that sets the headers
 * SEP-2243 asks for (MCP-Protocol-Version, Mcp-Method, Mcp-Name) from the body unless told otherwise,
 * and, for MRTR tests, a numbered client (a fresh id per round) and the shapes of the requestState tokens.
 */
import { mcpName } from '../../src/protocol/mcp-name.js';
import { expect } from 'vitest';
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
  const named = mcpName(method, params);
  if (named) headers['mcp-name'] = named.value;
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

/** Client capability sets, as a 2026-07-28 request declares them in `_meta`. */
export const MODERN_CAPS = {
  none: {},
  /** `elicitation: {}` means form only. */
  elicitationEmpty: { elicitation: {} },
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  formAndUrl: { elicitation: { form: {}, url: {} } },
  sampling: { sampling: {} },
  roots: { roots: {} },
  all: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
} as const;

/**
 * `params` with the `_meta` envelope of `ModernClient` added (protocolVersion and `capabilities`, no
 * clientInfo), keeping any `_meta` keys already there.
 */
export function withEnvelope(params: Json, capabilities: Json): Json {
  return {
    ...params,
    _meta: { ...(params._meta as Json | undefined), ...modernMeta({ [META_KEYS.clientCapabilities]: capabilities, [META_KEYS.clientInfo]: undefined }) },
  };
}

export interface Reply {
  /** The HTTP status. */
  status: number;
  /** The JSON-RPC response (from a JSON body, or the last message of an SSE stream). */
  body: Json;
}

/** POST one JSON-RPC message and wait for the whole answer. */
export async function postMessage(url: string, message: Json, headers: Record<string, string>): Promise<Reply> {
  const res = await send(url, 'POST', headers, message);
  if (res.isSse) {
    const body = await res.nextMessage({ id: message.id });
    await res.ended;
    return { status: res.status, body };
  }
  return { status: res.status, body: await res.json() };
}

/**
 * A 2026-07-28 client: every request carries the envelope with `capabilities`, gets the next id
 * (1, 2, 3, ...) and the matching headers. `extraHeaders` go on every request (e.g. credentials).
 */
export class ModernClient {
  nextId = 1;

  constructor(
    readonly url: string,
    public capabilities: Json = MODERN_CAPS.all,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  request(method: string, params: Json = {}): Promise<Reply> {
    const message = { jsonrpc: '2.0', id: this.nextId++, method, params: withEnvelope(params, this.capabilities) };
    return postMessage(this.url, message, { ...modernHeaders(method, params), ...this.extraHeaders });
  }

  /** `tools/call` with `extra` (inputResponses, requestState) beside name and arguments. */
  callTool(name: string, args: Json = {}, extra: Json = {}): Promise<Reply> {
    return this.request('tools/call', { name, arguments: args, ...extra });
  }

  getPrompt(name: string, args: Json = {}, extra: Json = {}): Promise<Reply> {
    return this.request('prompts/get', { name, arguments: args, ...extra });
  }

  readResource(uri: string, extra: Json = {}): Promise<Reply> {
    return this.request('resources/read', { uri, ...extra });
  }
}

/** A requestState as the server mints it: `v1.<key id>.<payload>.<mac>` when signed only. */
export const SIGNED_STATE: unknown = expect.stringMatching(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
/** A sealed requestState: `s1.<key id>.<iv + ciphertext + tag>`. */
export const SEALED_STATE: unknown = expect.stringMatching(/^s1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);

/** The JSON payload of a signed (not sealed) requestState, as anyone holding the token can read it. */
export function readSignedState(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[2], 'base64url').toString('utf8')) as Json;
}
