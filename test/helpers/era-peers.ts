/**
 * Both eras over Streamable HTTP as one kind of peer, for tests that expect the same behaviour from each:
 * a 2025-11-25 session (initialize, then Mcp-Session-Id) and 2026-07-28 stateless requests (the `_meta`
 * envelope and SEP-2243 headers). Each request resolves with its HTTP status and JSON-RPC response; each
 * era says how its results and errors look.
 */
import { HttpTestClient } from './http-client.js';
import { modernHeaders, postMessage, type Reply, withEnvelope } from './modern.js';
import type { Json } from './ws-client.js';

export interface EraRequests {
  /** POST one request with this id; resolves with the whole answer, whether JSON or SSE. */
  request(method: string, params: Json, id: string | number): Promise<Reply>;
}

export interface EraPeer {
  name: string;
  /** A peer of this era on the Streamable HTTP endpoint `url`. */
  open(url: string): Promise<EraRequests>;
  /** A result of a list method as this era gives it. */
  listed(result: Json): Json;
  /** A result of any other method as this era gives it. */
  called(result: Json): Json;
  /** The answer carrying `result`. */
  ok(id: string | number, result: Json): Reply;
  /** The answer carrying the JSON-RPC `error` of a request the server accepted and failed. */
  failed(id: string | number, error: Json): Reply;
}

const legacy: EraPeer = {
  name: '2025-11-25 session',
  async open(url) {
    const client = new HttpTestClient(url);
    await client.initialize({ protocolVersion: '2025-11-25' });
    return { request: (method, params, id) => postMessage(url, { jsonrpc: '2.0', id, method, params }, client.headers()) };
  },
  listed: (result) => result,
  called: (result) => result,
  ok: (id, result) => ({ status: 200, body: { jsonrpc: '2.0', id, result } }),
  failed: (id, error) => ({ status: 200, body: { jsonrpc: '2.0', id, error } }),
};

const modern: EraPeer = {
  name: '2026-07-28 stateless request',
  async open(url) {
    return {
      request: (method, params, id) => postMessage(url, { jsonrpc: '2.0', id, method, params: withEnvelope(params, {}) }, modernHeaders(method, params)),
    };
  },
  // 2026-07-28 results say they are complete; list results carry the caching hint (here the default).
  listed: (result) => ({ resultType: 'complete', ...result, ttlMs: 0, cacheScope: 'private' }),
  called: (result) => ({ resultType: 'complete', ...result }),
  ok: (id, result) => ({ status: 200, body: { jsonrpc: '2.0', id, result } }),
  failed: (id, error) => ({ status: 200, body: { jsonrpc: '2.0', id, error } }),
};

export const ERAS: EraPeer[] = [legacy, modern];
