/** JSON-RPC and MCP error codes, and the one error class that travels on the wire. */

export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  /** Resource not found (2025-11-25 and earlier). */
  ResourceNotFound: -32002,
  /** URL elicitation required (2025-11-25, SEP-1036). */
  UrlElicitationRequired: -32042,
  /** Local cause: the connection or session ended before a reply arrived (same code as the official SDK). */
  ConnectionClosed: -32000,
  /** Local cause: no reply arrived within the request's timeout (same code as the official SDK). */
  RequestTimeout: -32001,
  /** Local cause: the sender cancelled its own request (the LSP code for the same condition). */
  RequestCancelled: -32800,
} as const;

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode];

export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** An error that becomes a JSON-RPC error object: throw it from a handler to answer with that error. */
export class McpError extends Error {
  override name = 'McpError';
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
    this.data = data;
  }

  toJSON(): JsonRpcErrorObject {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }

  static fromObject(error: JsonRpcErrorObject): McpError {
    return new McpError(error.code, error.message, error.data);
  }
}

/** A server-to-client request got no reply within its timeout. */
export class RequestTimeoutError extends McpError {
  override name = 'RequestTimeoutError';
  constructor(method: string, timeoutMs: number) {
    super(ErrorCode.RequestTimeout, `${method} timed out after ${timeoutMs} ms without a reply; raise timeoutMs if a person has to answer it`, { timeoutMs });
  }
}

/** A server-to-client request was cancelled by the server (its AbortSignal fired, or it was cancelled by id). */
export class RequestCancelledError extends McpError {
  override name = 'RequestCancelledError';
  constructor(method: string, reason?: string) {
    super(ErrorCode.RequestCancelled, `${method} was cancelled${reason ? `: ${reason}` : ''}`, reason === undefined ? undefined : { reason });
  }
}

/** The session or its transport ended while a request was pending, or before it could be sent. */
export class ConnectionClosedError extends McpError {
  override name = 'ConnectionClosedError';
  constructor(method: string, reason: string) {
    super(ErrorCode.ConnectionClosed, `${method} could not complete: ${reason}`, { reason });
  }
}
