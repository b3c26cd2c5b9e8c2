import { describe, expect, it } from 'vitest';
import { ErrorCode } from '../../src/protocol/errors.js';
import { classify, decode, errorResponse, isErrorResponse, isRequestId, resultResponse } from '../../src/protocol/jsonrpc.js';
import { parseErrorMessage } from '../helpers/parse-error.js';

function invalidRequest(id: string | number | null, reason: string) {
  return { kind: 'invalid', id, error: { code: -32600, message: `Invalid Request: ${reason}` } };
}

describe('decode', () => {
  it('returns a single object as kind single', () => {
    expect(decode('{"jsonrpc":"2.0","id":1,"method":"ping"}')).toEqual({ kind: 'single', value: { jsonrpc: '2.0', id: 1, method: 'ping' } });
  });

  it('returns a non-object JSON value as kind single, leaving the judgement to classify', () => {
    expect(decode('42')).toEqual({ kind: 'single', value: 42 });
    expect(decode('null')).toEqual({ kind: 'single', value: null });
    expect(decode('"text"')).toEqual({ kind: 'single', value: 'text' });
  });

  it('returns an array as kind batch with its elements in order', () => {
    expect(decode('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":"x","method":"b"}]')).toEqual({
      kind: 'batch',
      values: [
        { jsonrpc: '2.0', method: 'a' },
        { jsonrpc: '2.0', id: 'x', method: 'b' },
      ],
    });
  });

  it('returns an empty array as an empty batch', () => {
    expect(decode('[]')).toEqual({ kind: 'batch', values: [] });
  });

  it.each(['{"jsonrpc":"2.0",', 'not json', '', "{'a':1}"])('returns a -32700 parse error for %j', (text) => {
    expect(decode(text)).toEqual({ kind: 'parse-error', error: { code: -32700, message: `Parse error: ${parseErrorMessage(text)}` } });
  });

  it('uses ErrorCode.ParseError for parse errors', () => {
    const decoded = decode('{');
    expect(decoded.kind).toBe('parse-error');
    if (decoded.kind === 'parse-error') expect(decoded.error.code).toBe(ErrorCode.ParseError);
  });
});

describe('classify: requests', () => {
  it('classifies a request with an integer id', () => {
    const message = { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'abc' } };
    expect(classify(message)).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: 7, method: 'tools/list', params: { cursor: 'abc' } } });
  });

  it('classifies a request with a string id', () => {
    expect(classify({ jsonrpc: '2.0', id: '123', method: 'ping' })).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: '123', method: 'ping' } });
  });

  it('classifies a request with id 0, an empty string id and a negative id', () => {
    expect(classify({ jsonrpc: '2.0', id: 0, method: 'ping' })).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: 0, method: 'ping' } });
    expect(classify({ jsonrpc: '2.0', id: '', method: 'ping' })).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: '', method: 'ping' } });
    expect(classify({ jsonrpc: '2.0', id: -3, method: 'ping' })).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: -3, method: 'ping' } });
  });

  it('accepts a request whose integer id was written as 5.0 in JSON', () => {
    const decoded = decode('{"jsonrpc":"2.0","id":5.0,"method":"ping"}');
    expect(decoded.kind).toBe('single');
    if (decoded.kind === 'single') expect(classify(decoded.value)).toEqual({ kind: 'request', message: { jsonrpc: '2.0', id: 5, method: 'ping' } });
  });

  it('rejects a request with id null as invalid with id null', () => {
    expect(classify({ jsonrpc: '2.0', id: null, method: 'ping' })).toEqual(invalidRequest(null, 'id must be a string or an integer, never null'));
  });

  it.each([1.5, true, { n: 1 }, [1]])('rejects a request with id %j as invalid with id null', (id) => {
    expect(classify({ jsonrpc: '2.0', id, method: 'ping' })).toEqual(invalidRequest(null, 'id must be a string or an integer, never null'));
  });

  it('rejects an empty method and keeps the request id', () => {
    expect(classify({ jsonrpc: '2.0', id: 3, method: '' })).toEqual(invalidRequest(3, 'method must be a non-empty string'));
  });

  it.each([5, null, true, {}])('rejects a non-string method %j', (method) => {
    expect(classify({ jsonrpc: '2.0', id: 'r', method })).toEqual(invalidRequest('r', 'method must be a non-empty string'));
  });

  it.each([[[1, 2]], ['text'], [null], [5], [false]])('rejects a request whose params are %j', (params) => {
    expect(classify({ jsonrpc: '2.0', id: 4, method: 'tools/call', params })).toEqual(invalidRequest(4, 'params must be an object'));
  });

  it('accepts empty params', () => {
    expect(classify({ jsonrpc: '2.0', id: 4, method: 'ping', params: {} })).toEqual({
      kind: 'request',
      message: { jsonrpc: '2.0', id: 4, method: 'ping', params: {} },
    });
  });
});

describe('classify: notifications', () => {
  it('classifies a message with a method and no id as a notification', () => {
    expect(classify({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/initialized' },
    });
  });

  it('keeps a notification’s params', () => {
    const params = { requestId: '123', reason: 'User requested cancellation' };
    expect(classify({ jsonrpc: '2.0', method: 'notifications/cancelled', params })).toEqual({
      kind: 'notification',
      message: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: '123', reason: 'User requested cancellation' } },
    });
  });

  it('rejects a notification with array params as invalid with id null', () => {
    expect(classify({ jsonrpc: '2.0', method: 'notifications/progress', params: [1] })).toEqual(invalidRequest(null, 'params must be an object'));
  });

  it('rejects a notification with an empty method as invalid with id null', () => {
    expect(classify({ jsonrpc: '2.0', method: '' })).toEqual(invalidRequest(null, 'method must be a non-empty string'));
  });
});

describe('classify: responses', () => {
  it('classifies a result response', () => {
    expect(classify({ jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { name: 'a' } } })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 0, result: { action: 'accept', content: { name: 'a' } } },
    });
  });

  it('classifies a result response with a string id and an empty result', () => {
    expect(classify({ jsonrpc: '2.0', id: '123', result: {} })).toEqual({ kind: 'response', message: { jsonrpc: '2.0', id: '123', result: {} } });
  });

  it('rejects a result with id null', () => {
    expect(classify({ jsonrpc: '2.0', id: null, result: {} })).toEqual(invalidRequest(null, 'a result needs a string or integer id'));
  });

  it('rejects a result without an id', () => {
    expect(classify({ jsonrpc: '2.0', result: {} })).toEqual(invalidRequest(null, 'a result needs a string or integer id'));
  });

  it('rejects a result with a float id', () => {
    expect(classify({ jsonrpc: '2.0', id: 2.5, result: {} })).toEqual(invalidRequest(null, 'a result needs a string or integer id'));
  });

  it('classifies an error response, keeping data', () => {
    expect(classify({ jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params', data: { field: 'x' } } })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: 2, error: { code: -32602, message: 'Invalid params', data: { field: 'x' } } },
    });
  });

  it('accepts an error response with id null (JSON-RPC form) and keeps id null', () => {
    expect(classify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } })).toEqual({
      kind: 'response',
      message: { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } },
    });
  });

  it('accepts an error response with the id omitted (MCP 2025-11-25 form) as id null', () => {
    const classified = classify({ jsonrpc: '2.0', error: { code: -32600, message: 'Invalid Request' } });
    expect(classified).toEqual({ kind: 'response', message: { jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid Request' } } });
    if (classified.kind === 'response') expect(classified.message.id).toBeNull();
  });

  it('rejects an error response with a float id as invalid with id null', () => {
    expect(classify({ jsonrpc: '2.0', id: 1.5, error: { code: -1, message: 'x' } })).toEqual(invalidRequest(null, 'id must be a string or an integer'));
  });

  it('rejects an error response with a boolean id as invalid with id null', () => {
    expect(classify({ jsonrpc: '2.0', id: true, error: { code: -1, message: 'x' } })).toEqual(invalidRequest(null, 'id must be a string or an integer'));
  });

  it('rejects a message with both result and error', () => {
    expect(classify({ jsonrpc: '2.0', id: 9, result: {}, error: { code: -1, message: 'x' } })).toEqual(
      invalidRequest(9, 'a message needs a method, or exactly one of result and error'),
    );
  });

  it('rejects a message with neither method, result nor error', () => {
    expect(classify({ jsonrpc: '2.0', id: 9 })).toEqual(invalidRequest(9, 'a message needs a method, or exactly one of result and error'));
    expect(classify({ jsonrpc: '2.0' })).toEqual(invalidRequest(null, 'a message needs a method, or exactly one of result and error'));
  });

  it.each([
    ['a string', 'boom'],
    ['null', null],
    ['an array', [-32600, 'x']],
    ['a float code', { code: 1.5, message: 'x' }],
    ['a string code', { code: '-32600', message: 'x' }],
    ['no code', { message: 'x' }],
    ['no message', { code: -32600 }],
    ['a non-string message', { code: -32600, message: 42 }],
  ])('rejects an error that is %s, keeping the id', (_label, error) => {
    expect(classify({ jsonrpc: '2.0', id: 'e', error })).toEqual(invalidRequest('e', 'error must be an object with an integer code and a string message'));
  });
});

describe('classify: envelope', () => {
  it.each([[null], [42], ['text'], [true], [[]], [[{ jsonrpc: '2.0', method: 'a' }]]])('rejects the non-object %j with id null', (value) => {
    expect(classify(value)).toEqual(invalidRequest(null, 'a JSON-RPC message must be an object'));
  });

  it('rejects a message without jsonrpc, keeping a readable id', () => {
    expect(classify({ id: 1, method: 'ping' })).toEqual(invalidRequest(1, 'jsonrpc must be "2.0"'));
  });

  it.each([['1.0'], [2], [null], ['2.0 ']])('rejects jsonrpc %j', (jsonrpc) => {
    expect(classify({ jsonrpc, id: 'a', method: 'ping' })).toEqual(invalidRequest('a', 'jsonrpc must be "2.0"'));
  });

  it('rejects a wrong jsonrpc with an unreadable id as id null', () => {
    expect(classify({ jsonrpc: '1.0', id: 1.5, method: 'ping' })).toEqual(invalidRequest(null, 'jsonrpc must be "2.0"'));
  });

  it('uses ErrorCode.InvalidRequest for every invalid message', () => {
    const classified = classify(7);
    expect(classified.kind).toBe('invalid');
    if (classified.kind === 'invalid') expect(classified.error.code).toBe(ErrorCode.InvalidRequest);
  });
});

describe('builders and guards', () => {
  it('resultResponse builds a result response', () => {
    expect(resultResponse(3, { ok: true })).toEqual({ jsonrpc: '2.0', id: 3, result: { ok: true } });
  });

  it('errorResponse builds an error response, with id null when the id was unreadable', () => {
    expect(errorResponse('a', { code: -32601, message: 'Method not found: x' })).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: { code: -32601, message: 'Method not found: x' },
    });
    expect(errorResponse(null, { code: -32700, message: 'Parse error' })).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: 'Parse error' },
    });
  });

  it('isErrorResponse tells error responses from result responses', () => {
    expect(isErrorResponse(errorResponse(1, { code: -1, message: 'x' }))).toBe(true);
    expect(isErrorResponse(resultResponse(1, {}))).toBe(false);
  });

  it('isRequestId accepts strings and integers only', () => {
    expect([0, 5, -1, '', 'a'].map(isRequestId)).toEqual([true, true, true, true, true]);
    expect([null, undefined, 1.5, NaN, Infinity, true, {}, []].map(isRequestId)).toEqual([false, false, false, false, false, false, false, false]);
  });
});
