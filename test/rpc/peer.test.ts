import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConnectionClosedError, ErrorCode, McpError, RequestCancelledError, RequestTimeoutError } from '../../src/protocol/errors.js';
import type { JsonRpcMessage, JsonRpcNotification, JsonRpcRequest } from '../../src/protocol/jsonrpc.js';
import { type PeerHandlers, RpcPeer } from '../../src/rpc/peer.js';

afterEach(() => {
  vi.useRealTimers();
});

interface End {
  peer: RpcPeer<string>;
  sent: [JsonRpcMessage, string][];
  errors: Error[];
  notifications: JsonRpcNotification[];
  answered: AbortSignal[];
}

/** Handlers that answer every request with {} and drop everything else, with `overrides`. */
function handlers(overrides: Partial<PeerHandlers<string>> = {}): PeerHandlers<string> {
  return {
    send: async () => {},
    answer: async () => ({}),
    errorFor: (_request, err) => (err instanceof McpError ? err.toJSON() : { code: ErrorCode.InternalError, message: 'Internal error' }),
    notification: () => {},
    replyContext: () => 'reply',
    reportError: () => {},
    ...overrides,
  };
}

/** One end whose sends are recorded; `answer` answers the other end's requests. */
function end(answer: PeerHandlers<string>['answer'] = async () => ({}), names = { peer: 'server', self: 'client' }, firstId?: number): End {
  const sent: [JsonRpcMessage, string][] = [];
  const errors: Error[] = [];
  const notifications: JsonRpcNotification[] = [];
  const answered: AbortSignal[] = [];
  const peer = new RpcPeer<string>(
    handlers({
      send: async (message, context) => void sent.push([message, context]),
      answer: (request, signal) => {
        answered.push(signal);
        return answer(request, signal);
      },
      notification: (notification) => void notifications.push(notification),
      reportError: (error) => void errors.push(error),
    }),
    { ...names, ...(firstId === undefined ? {} : { firstId }) },
  );
  return { peer, sent, errors, notifications, answered };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('RpcPeer: the requests it sends', () => {
  it('sends each request with the next id and its context, and settles it once with the response', async () => {
    const { peer, sent } = end(undefined, undefined, 1);
    const answer = peer.request('tools/list', { cursor: 'a' }, { timeoutMs: 1000, context: 'ctx' });
    expect(sent).toEqual([[{ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { cursor: 'a' } }, 'ctx']]);
    peer.receive({ jsonrpc: '2.0', id: 1, result: { tools: [] } });
    peer.receive({ jsonrpc: '2.0', id: 1, result: { tools: ['again'] } });
    expect(await answer).toEqual({ tools: [] });
    expect(peer.pending.size).toBe(0);
  });

  it('rejects with the McpError of an error response', async () => {
    const { peer } = end();
    const answer = peer.request('x', {}, { timeoutMs: 1000, context: '' });
    peer.receive({ jsonrpc: '2.0', id: 0, error: { code: -32602, message: 'bad', data: { why: 1 } } });
    await expect(answer).rejects.toEqual(new McpError(-32602, 'bad', { why: 1 }));
  });

  it('times out with RequestTimeoutError, tells onAbandon the id and why, and takes the late answer quietly', async () => {
    vi.useFakeTimers();
    const { peer, errors } = end();
    const onAbandon = vi.fn();
    const answer = peer.request('slow', {}, { timeoutMs: 50, context: '', onAbandon });
    const failed = answer.catch((err: unknown) => err);
    vi.advanceTimersByTime(50);
    expect(await failed).toEqual(new RequestTimeoutError('slow', 50));
    expect(onAbandon).toHaveBeenCalledExactlyOnceWith(0, 'timed out after 50 ms');
    peer.receive({ jsonrpc: '2.0', id: 0, result: {} });
    expect(errors).toEqual([]);
  });

  it('cancels with RequestCancelledError when its signal aborts, with the abort reason, and tells onAbandon', async () => {
    const { peer } = end();
    const control = new AbortController();
    const onAbandon = vi.fn();
    const answer = peer.request('long', {}, { timeoutMs: 1000, signal: control.signal, context: '', onAbandon });
    control.abort('the user left');
    await expect(answer).rejects.toEqual(new RequestCancelledError('long', 'the user left'));
    expect(onAbandon).toHaveBeenCalledExactlyOnceWith(0, 'the user left');
  });

  it('sends nothing for a request whose signal aborted already, and tells nobody', async () => {
    const { peer, sent } = end();
    const onSent = vi.fn();
    const onAbandon = vi.fn();
    const answer = peer.request('never', {}, { timeoutMs: 1000, signal: AbortSignal.abort('too late'), context: '', onSent, onAbandon });
    await expect(answer).rejects.toEqual(new RequestCancelledError('never', 'too late'));
    expect([sent, onSent.mock.calls, onAbandon.mock.calls]).toEqual([[], [], []]);
  });

  it('tells onSent the id before the request goes out', () => {
    const { peer, sent } = end();
    const seen: unknown[] = [];
    void peer.request('x', {}, { timeoutMs: 1000, context: '', onSent: (id) => seen.push([id, sent.length]) });
    expect(seen).toEqual([[0, 0]]);
  });

  it('fails with ConnectionClosed when the message could not be sent', async () => {
    const peer = new RpcPeer(handlers({ send: () => Promise.reject(new Error('socket gone')) }), { peer: 'server', self: 'client' });
    await expect(peer.request('x', {}, { timeoutMs: 1000, context: '' })).rejects.toEqual(
      new McpError(ErrorCode.ConnectionClosed, 'x could not be sent: socket gone'),
    );
  });

  it('close rejects everything pending with ConnectionClosedError, and nothing after', async () => {
    const { peer } = end();
    const a = peer.request('a', {}, { timeoutMs: 1000, context: '' });
    const b = peer.request('b', {}, { timeoutMs: 1000, context: '' });
    peer.close('bye');
    await expect(a).rejects.toEqual(new ConnectionClosedError('a', 'bye'));
    await expect(b).rejects.toEqual(new ConnectionClosedError('b', 'bye'));
    expect(peer.pending.size).toBe(0);
  });
});

describe('RpcPeer: the responses it receives', () => {
  it('reports an answer to an id it never gave out, but not a late or duplicate one', async () => {
    const { peer, errors } = end(undefined, undefined, 1);
    const answer = peer.request('x', {}, { timeoutMs: 1000, context: '' });
    peer.receive({ jsonrpc: '2.0', id: 1, result: {} });
    await answer;
    peer.receive({ jsonrpc: '2.0', id: 1, result: {} });
    peer.receive({ jsonrpc: '2.0', id: 7, result: {} });
    peer.receive({ jsonrpc: '2.0', id: 'abc', result: {} });
    expect(errors.map((e) => e.message)).toEqual([
      'The server answered request 7, which this client never sent',
      'The server answered request "abc", which this client never sent',
    ]);
  });

  it('takes an answer to a request ended longer ago than the table remembers as late, not as never sent', async () => {
    const { peer, errors } = end();
    for (let i = 0; i < 3000; i++) {
      const answer = peer.request('x', {}, { timeoutMs: 1000, context: '' });
      peer.receive({ jsonrpc: '2.0', id: i, result: {} });
      await answer;
    }
    expect(peer.pending.reply(0, { ok: true, result: {} })).toBe('unknown');
    peer.receive({ jsonrpc: '2.0', id: 0, result: {} });
    expect(errors).toEqual([]);
  });

  it('reports an error response with a null id, and a message that is not JSON-RPC', () => {
    const { peer, errors } = end();
    peer.receive({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    peer.receive({ hello: 'world' });
    expect(errors[0]).toEqual(new McpError(-32700, 'The server reported an error about no request: Parse error'));
    expect(errors[1].message).toMatch(/^The server sent a message that is not JSON-RPC: /);
  });
});

describe('RpcPeer: the requests and notifications it receives', () => {
  it('answers a request once, with the context of the moment, and tells the handler nothing of it', async () => {
    const { peer, sent, notifications } = end(async (request) => ({ echoed: request.params }));
    peer.receive({ jsonrpc: '2.0', id: 'r1', method: 'ping', params: { a: 1 } });
    await flush();
    expect(sent).toEqual([[{ jsonrpc: '2.0', id: 'r1', result: { echoed: { a: 1 } } }, 'reply']]);
    expect(notifications).toEqual([]);
  });

  it("answers a handler's throw with errorFor's error", async () => {
    const { peer, sent } = end(async () => {
      throw new McpError(-32601, 'Method not found: x');
    });
    peer.receive({ jsonrpc: '2.0', id: 3, method: 'x' });
    await flush();
    expect(sent).toEqual([[{ jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found: x' } }, 'reply']]);
  });

  it('aborts a request the other end cancels, with its reason, sends it no answer, and still passes the notification on', async () => {
    let release!: () => void;
    const { peer, sent, answered, notifications } = end(() => new Promise((resolve) => (release = () => resolve({}))));
    peer.receive({ jsonrpc: '2.0', id: 5, method: 'sampling/createMessage' });
    expect(peer.isServing(5)).toBe(true);
    const cancelled: JsonRpcNotification = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5, reason: 'no longer needed' } };
    peer.receive(cancelled);
    expect(answered[0].reason).toBe('no longer needed');
    release();
    await flush();
    expect(sent).toEqual([]);
    expect(notifications).toEqual([cancelled]);
    expect(peer.isServing(5)).toBe(false);
  });

  it('names the other end as the reason of a cancellation that gives none', () => {
    const { peer, answered } = end(() => new Promise(() => {}), { peer: 'client', self: 'server' });
    peer.receive({ jsonrpc: '2.0', id: 5, method: 'x' });
    peer.receive({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 5 } });
    expect(answered[0].reason).toBe('cancelled by the client');
  });

  it('sends no answer once closed, and aborts what it was answering with the reason', async () => {
    let release!: () => void;
    const { peer, sent, answered } = end(() => new Promise((resolve) => (release = () => resolve({}))));
    peer.receive({ jsonrpc: '2.0', id: 5, method: 'x' });
    peer.close('gone');
    expect(answered[0].reason).toBe('gone');
    release();
    await flush();
    expect(sent).toEqual([]);
  });

  it('lets the replies on their way out finish: repliesSent says whether they did in time', async () => {
    let finish!: () => void;
    const slow = new Promise<void>((resolve) => (finish = resolve));
    const peer = new RpcPeer(handlers({ send: () => slow }), { peer: 'server', self: 'client' });
    expect(await peer.repliesSent(10)).toBe(true);
    peer.receive({ jsonrpc: '2.0', id: 1, method: 'ping' } satisfies JsonRpcRequest);
    await flush();
    expect(await peer.repliesSent(10)).toBe(false);
    finish();
    expect(await peer.repliesSent(10)).toBe(true);
  });

  it('passes other notifications to the handler as they came', () => {
    const { peer, notifications } = end();
    peer.receive({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } });
    expect(notifications).toEqual([{ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 1 } }]);
  });
});

describe('RpcPeer: both ends alike', () => {
  it('two peers wired back to back: a request from either end is answered by the other', async () => {
    const client = end(async (request) => ({ from: 'client', method: request.method }), { peer: 'server', self: 'client' }, 1);
    const server = end(async (request) => ({ from: 'server', method: request.method }), { peer: 'client', self: 'server' });
    const pump = async () => {
      for (let i = 0; i < 5; i++) {
        await flush();
        for (const [message] of client.sent.splice(0)) server.peer.receive(message);
        for (const [message] of server.sent.splice(0)) client.peer.receive(message);
      }
    };
    const fromClient = client.peer.request('tools/list', {}, { timeoutMs: 1000, context: '' });
    const fromServer = server.peer.request('roots/list', {}, { timeoutMs: 1000, context: '' });
    await pump();
    expect(await fromClient).toEqual({ from: 'server', method: 'tools/list' });
    expect(await fromServer).toEqual({ from: 'client', method: 'roots/list' });
    expect([client.errors, server.errors]).toEqual([[], []]);
  });
});
