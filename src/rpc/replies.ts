/**
 * A reply from the other end, read once for both ends: an error reply with no id is reported, any
 * other settles the pending request it answers, or is told apart as late, duplicate or unknown.
 */
import { ErrorCode, type JsonRpcErrorObject, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import { isErrorResponse, type JsonRpcErrorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';
import type { ReplyMatch, RequestOutcome } from './pending-requests.js';

/** Where a reply settles its request: the pending table, or what holds it. */
export interface ReplyTable {
  reply(id: RequestId, outcome: RequestOutcome): ReplyMatch;
}

/** What one end does with the replies that settle nothing, given once for all its connections; `Owner` is the connection a reply came on. */
export interface ReplyPolicy<Owner> {
  /** What the other end is called in an error ('client' or 'server'). */
  readonly peer: string;
  /** Every request of this end wants an object: another result ends it with -32602. */
  readonly objectResults: boolean;
  /** An error reply with a null id: the other end could not process something this end sent. */
  orphanError(error: JsonRpcErrorObject, owner: Owner): void;
  /** A result that was not an object ended its request (with `objectResults`). */
  invalidResult?(owner: Owner): void;
  /** A reply that settled nothing: its request was given up (late), answered already (duplicate), or never pending (unknown). */
  unmatched(id: RequestId, match: Exclude<ReplyMatch, 'settled'>, owner: Owner): void;
}

export function receiveReply<Owner>(response: JsonRpcResponse, table: ReplyTable, policy: ReplyPolicy<Owner>, owner: Owner): void {
  const { id } = response;
  if (id === null) {
    policy.orphanError((response as JsonRpcErrorResponse).error, owner);
    return;
  }
  let outcome: RequestOutcome;
  if (isErrorResponse(response)) outcome = { ok: false, error: McpError.fromObject(response.error) };
  else if (!policy.objectResults || isObject(response.result)) outcome = { ok: true, result: response.result as Record<string, unknown> };
  else {
    policy.invalidResult?.(owner);
    const error = new McpError(ErrorCode.InvalidParams, `The ${policy.peer} replied with a result that is not an object`, { result: response.result });
    outcome = { ok: false, error };
  }
  const match = table.reply(id, outcome);
  if (match !== 'settled') policy.unmatched(id, match, owner);
}
