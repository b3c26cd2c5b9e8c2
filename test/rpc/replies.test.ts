import { describe, expect, it } from 'vitest';
import { McpError } from '../../src/protocol/errors.js';
import type { JsonRpcResponse } from '../../src/protocol/jsonrpc.js';
import type { RequestId } from '../../src/protocol/types.js';
import { type ReplyPolicy, receiveReply, PendingRequests, type RequestOutcome } from '../../src/rpc/requests.js';

/** A table with request 0 pending, and a policy that records what it is told, on `owner`. */
function setup(objectResults: boolean) {
  const pending = new PendingRequests();
  const outcomes: RequestOutcome<unknown>[] = [];
  pending.add(pending.nextId(), { method: 'x', timeoutMs: 1000, onSettle: (outcome) => void outcomes.push(outcome) });
  const told: unknown[][] = [];
  const policy: ReplyPolicy<string> = {
    peer: 'client',
    objectResults,
    orphanError: (error, owner) => void told.push(['orphan', error, owner]),
    invalidResult: (owner) => void told.push(['invalid', owner]),
    unmatched: (id: RequestId, match, owner) => void told.push([match, id, owner]),
  };
  const receive = (response: JsonRpcResponse) => receiveReply(response, pending, policy, 'session');
  return { outcomes, told, receive };
}

describe('receiveReply: a reply read once, for either end', () => {
  it('settles the request it answers with its result, or with the McpError of its error', () => {
    const ok = setup(true);
    ok.receive({ jsonrpc: '2.0', id: 0, result: { a: 1 } });
    expect(ok.outcomes).toEqual([{ ok: true, result: { a: 1 } }]);
    const failed = setup(true);
    failed.receive({ jsonrpc: '2.0', id: 0, error: { code: -32601, message: 'Method not found', data: 1 } });
    expect(failed.outcomes).toEqual([{ ok: false, error: new McpError(-32601, 'Method not found', 1) }]);
    expect([...ok.told, ...failed.told]).toEqual([]);
  });

  it('with objectResults, ends a request whose result is not an object with -32602 and says so; without, passes it on', () => {
    const strict = setup(true);
    strict.receive({ jsonrpc: '2.0', id: 0, result: 5 as never });
    expect(strict.outcomes).toEqual([{ ok: false, error: new McpError(-32602, 'The client replied with a result that is not an object', { result: 5 }) }]);
    expect(strict.told).toEqual([['invalid', 'session']]);
    const lenient = setup(false);
    lenient.receive({ jsonrpc: '2.0', id: 0, result: 5 as never });
    expect(lenient.outcomes).toEqual([{ ok: true, result: 5 }]);
  });

  it('tells the policy of an error about no request, and of a duplicate or unknown reply, with the owner', () => {
    const { told, receive } = setup(true);
    receive({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    receive({ jsonrpc: '2.0', id: 0, result: {} });
    receive({ jsonrpc: '2.0', id: 0, result: {} });
    receive({ jsonrpc: '2.0', id: 9, result: {} });
    expect(told).toEqual([
      ['orphan', { code: -32700, message: 'Parse error' }, 'session'],
      ['duplicate', 0, 'session'],
      ['unknown', 9, 'session'],
    ]);
  });
});
