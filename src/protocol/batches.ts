/** JSON-RPC batches in MCP (basic/index.mdx): only in 2025-03-26, never empty, and never carrying `initialize`. */
import { ErrorCode, type JsonRpcErrorObject } from './errors.js';
import { allowsBatches } from './versions.js';

function invalidRequest(message: string): JsonRpcErrorObject {
  return { code: ErrorCode.InvalidRequest, message: `Invalid Request: ${message}` };
}

export const INITIALIZE_IN_BATCH: JsonRpcErrorObject = Object.freeze(invalidRequest('initialize must not be part of a batch'));

/**
 * Why a batch of `size` messages is refused on a session at `version` (undefined: not initialized), if it
 * is. `max` bounds the answer a batch can make the server build.
 */
export function batchRefusal(version: string | undefined, size: number, max = Number.POSITIVE_INFINITY): JsonRpcErrorObject | undefined {
  if (size === 0) return invalidRequest('an empty batch');
  if (!allowsBatches(version)) {
    return invalidRequest(
      `JSON-RPC batches are only accepted on protocol version 2025-03-26 (this session: ${version ?? 'not initialized'}); send one message at a time`,
    );
  }
  if (size > max) return invalidRequest(`a batch of ${size} messages is over the limit of ${max}; send smaller batches`);
  return undefined;
}
