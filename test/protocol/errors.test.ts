import { describe, expect, it } from 'vitest';
import { ConnectionClosedError, ErrorCode, McpError, RequestCancelledError, RequestTimeoutError } from '../../src/protocol/errors.js';

describe('ErrorCode', () => {
  it('has the JSON-RPC, MCP and local codes', () => {
    expect(ErrorCode).toMatchObject({
      ParseError: -32700,
      InvalidRequest: -32600,
      MethodNotFound: -32601,
      InvalidParams: -32602,
      InternalError: -32603,
      ResourceNotFound: -32002,
      UrlElicitationRequired: -32042,
      ConnectionClosed: -32000,
      RequestTimeout: -32001,
      RequestCancelled: -32800,
    });
  });
});

describe('McpError', () => {
  it('carries code, message and data', () => {
    const err = new McpError(-32602, 'Invalid params: x', { field: 'x' });
    expect(err.code).toBe(-32602);
    expect(err.message).toBe('Invalid params: x');
    expect(err.data).toEqual({ field: 'x' });
    expect(err.name).toBe('McpError');
    expect(err).toBeInstanceOf(Error);
  });

  it('toJSON includes data when it is set', () => {
    expect(new McpError(-32002, 'Resource not found', { uri: 'file:///x' }).toJSON()).toStrictEqual({
      code: -32002,
      message: 'Resource not found',
      data: { uri: 'file:///x' },
    });
  });

  it('toJSON omits the data key when data is undefined', () => {
    const json = new McpError(-32601, 'Method not found: x').toJSON();
    expect(json).toStrictEqual({ code: -32601, message: 'Method not found: x' });
    expect(Object.keys(json)).toEqual(['code', 'message']);
  });

  it('toJSON keeps falsy data that is not undefined', () => {
    expect(new McpError(1, 'a', null).toJSON()).toStrictEqual({ code: 1, message: 'a', data: null });
    expect(new McpError(1, 'a', 0).toJSON()).toStrictEqual({ code: 1, message: 'a', data: 0 });
    expect(new McpError(1, 'a', '').toJSON()).toStrictEqual({ code: 1, message: 'a', data: '' });
  });

  it('JSON.stringify uses toJSON', () => {
    expect(JSON.stringify(new McpError(-32603, 'Internal error'))).toBe('{"code":-32603,"message":"Internal error"}');
  });

  it('keeps a cause', () => {
    const cause = new Error('root');
    expect(new McpError(-32603, 'Internal error', undefined, { cause }).cause).toBe(cause);
  });

  it('fromObject builds an McpError from a wire error object', () => {
    const err = McpError.fromObject({ code: -32042, message: 'This request requires more information.', data: { elicitations: [] } });
    expect(err).toBeInstanceOf(McpError);
    expect(err.code).toBe(-32042);
    expect(err.message).toBe('This request requires more information.');
    expect(err.data).toEqual({ elicitations: [] });
    expect(err.toJSON()).toStrictEqual({ code: -32042, message: 'This request requires more information.', data: { elicitations: [] } });
  });

  it('fromObject without data round-trips to an object without data', () => {
    expect(McpError.fromObject({ code: -1, message: 'User rejected sampling request' }).toJSON()).toStrictEqual({
      code: -1,
      message: 'User rejected sampling request',
    });
  });
});

describe('typed McpError subclasses', () => {
  it('RequestTimeoutError has code -32001, names the method and the timeout, and carries timeoutMs', () => {
    const err = new RequestTimeoutError('elicitation/create', 5000);
    expect(err).toBeInstanceOf(McpError);
    expect(err).toBeInstanceOf(RequestTimeoutError);
    expect(err.name).toBe('RequestTimeoutError');
    expect(err.code).toBe(-32001);
    expect(err.message).toBe('elicitation/create timed out after 5000 ms without a reply; raise timeoutMs if a person has to answer it');
    expect(err.toJSON()).toStrictEqual({ code: -32001, message: err.message, data: { timeoutMs: 5000 } });
  });

  it('RequestCancelledError has code -32800 and names the method and reason', () => {
    const err = new RequestCancelledError('sampling/createMessage', 'user left');
    expect(err).toBeInstanceOf(McpError);
    expect(err.name).toBe('RequestCancelledError');
    expect(err.code).toBe(-32800);
    expect(err.message).toBe('sampling/createMessage was cancelled: user left');
    expect(err.toJSON()).toStrictEqual({ code: -32800, message: 'sampling/createMessage was cancelled: user left', data: { reason: 'user left' } });
  });

  it('RequestCancelledError without a reason has no data', () => {
    const err = new RequestCancelledError('roots/list');
    expect(err.message).toBe('roots/list was cancelled');
    expect(err.data).toBeUndefined();
    expect(err.toJSON()).toStrictEqual({ code: -32800, message: 'roots/list was cancelled' });
  });

  it('ConnectionClosedError has code -32000 and names the method and reason', () => {
    const err = new ConnectionClosedError('elicitation/create', 'session closed');
    expect(err).toBeInstanceOf(McpError);
    expect(err.name).toBe('ConnectionClosedError');
    expect(err.code).toBe(-32000);
    expect(err.message).toBe('elicitation/create could not complete: session closed');
    expect(err.toJSON()).toStrictEqual({ code: -32000, message: 'elicitation/create could not complete: session closed', data: { reason: 'session closed' } });
  });

  it('the subclasses are distinct classes', () => {
    expect(new RequestTimeoutError('m', 1)).not.toBeInstanceOf(RequestCancelledError);
    expect(new RequestCancelledError('m')).not.toBeInstanceOf(ConnectionClosedError);
    expect(new ConnectionClosedError('m', 'r')).not.toBeInstanceOf(RequestTimeoutError);
  });
});
