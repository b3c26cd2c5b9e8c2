import { describe, expect, it } from 'vitest';
import { classify, dispatch, type MessageReceiver } from '../../src/protocol/jsonrpc.js';

describe('dispatch: each kind of message to its handler, for either end', () => {
  it('passes where the answer goes and how a request is admitted through as given', () => {
    const calls: unknown[][] = [];
    const receiver: MessageReceiver<string, number> = {
      onResponse: (response, via) => void calls.push(['response', response.id, via]),
      onNotification: (notification, via) => void calls.push(['notification', notification.method, via]),
      onRequest: (request, via, how) => void calls.push(['request', request.id, via, how]),
      onInvalid: (id, error, via) => void calls.push(['invalid', id, error.code, via]),
    };
    for (const value of [
      { jsonrpc: '2.0', id: 1, result: {} },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'ping' },
      { jsonrpc: '2.0', id: 3 },
    ]) {
      dispatch(classify(value), receiver, 'here', 7);
    }
    expect(calls).toEqual([
      ['response', 1, 'here'],
      ['notification', 'notifications/initialized', 'here'],
      ['request', 2, 'here', 7],
      ['invalid', 3, -32600, 'here'],
    ]);
  });
});
