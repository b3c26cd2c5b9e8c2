/** `roots/list` (client/roots.mdx): gated on the client's `roots` capability. */
import { ErrorCode, McpError, RootsNotSupportedError } from '../protocol/errors.js';
import type { ListRootsResult } from '../protocol/types.js';
import type { ClientRequestKind } from './client-requests.js';

export const rootsKind: ClientRequestKind<Record<string, unknown>, ListRootsResult> = {
  method: 'roots/list',
  event: 'responseRootsList',
  prepare(_server, session, params) {
    if (typeof session.clientCapabilities.roots !== 'object' || session.clientCapabilities.roots === null) throw new RootsNotSupportedError();
    return params;
  },
  defaultTimeoutMs: (server) => server.options.requestTimeoutMs,
  interpret(_server, result) {
    const roots = result.roots;
    if (!Array.isArray(roots) || !roots.every((r) => typeof r === 'object' && r !== null && typeof (r as { uri?: unknown }).uri === 'string')) {
      throw new McpError(ErrorCode.InvalidParams, 'The client answered roots/list without a roots array of {uri, name?}', { result });
    }
    return result as ListRootsResult;
  },
};
