/** `roots/list` (client/roots.mdx): gated on the client's `roots` capability. */
import { ErrorCode, McpError, RootsNotSupportedError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { ListRootsResult } from '../protocol/types.js';
import type { ClientRequestKind } from './kind.js';

export const rootsKind: ClientRequestKind<Record<string, unknown>, ListRootsResult> = {
  method: 'roots/list',
  event: 'responseRootsList',
  fields: ['roots'],
  prepare(_ctx, capabilities, params) {
    if (!isObject(capabilities.roots)) throw new RootsNotSupportedError();
    return params;
  },
  timeoutMs: (options) => options.requestTimeoutMs,
  interpret(_ctx, result) {
    const roots = result.roots;
    if (!Array.isArray(roots) || !roots.every((r) => isObject(r) && typeof r.uri === 'string')) {
      throw new McpError(ErrorCode.InvalidParams, 'The client answered roots/list without a roots array of {uri, name?}', { result });
    }
    return result as ListRootsResult;
  },
};
