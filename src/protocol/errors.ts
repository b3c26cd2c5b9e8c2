/** JSON-RPC and MCP error codes, the one error class that travels on the wire, and its typed subclasses. */
import { checkElicitationUrl } from './elicitation-url.js';
import { quote } from './quote.js';

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
  /** An HTTP header disagrees with the body, or a required one is missing (2026-07-28). */
  HeaderMismatch: -32020,
  /** The client did not declare a capability the request needs (2026-07-28's MissingRequiredClientCapability). */
  MissingRequiredClientCapability: -32021,
  /** The requested protocol version is not served (2026-07-28). */
  UnsupportedProtocolVersion: -32022,
  /** Local cause: there is no way to push a request to this client (Switchboard's own code). */
  NoBackChannel: -32010,
  /** A session sent more requests than may be in flight at once (Switchboard's own code); answered, never run. */
  TooManyRequestsInFlight: -32011,
  /** The principal lacks a scope the tool, prompt or resource needs (Switchboard's own code; HTTP answers 403 first). */
  InsufficientScope: -32012,
  /** The server is draining before it stops (Switchboard's own code; HTTP answers 503): send the request again, elsewhere. */
  ShuttingDown: -32013,
  /**
   * A transport refused the message before the MCP layer saw it (Switchboard's own code): on the server an
   * HTTP request refused for its headers, method, Host, Origin, credentials or a limit (the HTTP status
   * says which); on the client an HTTP answer that carries no JSON-RPC response (`data.httpStatus`), or
   * one larger than `maxMessageBytes`.
   */
  TransportRefused: -32030,
  /** The `Mcp-Session-Id` names no session: it ended or never existed (Switchboard's own code; HTTP answers 404). Initialize anew. */
  SessionNotFound: -32031,
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
    return this.data === undefined ? { code: this.code, message: this.message } : { code: this.code, message: this.message, data: this.data };
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

/** The client never declared the capability a server-to-client request needs, so it is not sent. */
export class ClientCapabilityError extends McpError {
  override name = 'ClientCapabilityError';
  constructor(message: string, requiredCapabilities: Record<string, unknown>) {
    super(ErrorCode.MissingRequiredClientCapability, message, { requiredCapabilities });
  }
}

/** The client did not declare elicitation, or not the mode asked for (`elicitation: {}` means form only). */
export class ElicitationNotSupportedError extends ClientCapabilityError {
  override name = 'ElicitationNotSupportedError';
  constructor(readonly mode: 'form' | 'url') {
    super(
      `The client did not declare ${mode}-mode elicitation (capabilities.elicitation.${mode}); ask another way, or use ${mode === 'url' ? 'form' : 'url'} mode if it declared that`,
      { elicitation: { [mode]: {} } },
    );
  }
}

export class SamplingNotSupportedError extends ClientCapabilityError {
  override name = 'SamplingNotSupportedError';
  constructor(what = 'sampling') {
    super(
      what === 'sampling'
        ? 'The client did not declare the sampling capability; it cannot be asked for sampling/createMessage'
        : `The client did not declare ${what}; send the request without tools and toolChoice`,
      what === 'sampling' ? { sampling: {} } : { sampling: { tools: {} } },
    );
  }
}

export class RootsNotSupportedError extends ClientCapabilityError {
  override name = 'RootsNotSupportedError';
  constructor() {
    super('The client did not declare the roots capability; it cannot be asked for roots/list', { roots: {} });
  }
}

/** There is no channel to push a server-to-client request on (for example a stateless request). */
export class NoBackChannelError extends McpError {
  override name = 'NoBackChannelError';
  constructor(method: string, why: string) {
    super(ErrorCode.NoBackChannel, `Cannot send ${method}: ${why}`);
  }
}

export interface ElicitationViolation {
  property: string;
  rule: string;
  message: string;
}

/** The client accepted an elicitation with content that does not fit the requested schema. */
export class ElicitationValidationError extends McpError {
  override name = 'ElicitationValidationError';
  readonly violations: ElicitationViolation[];
  constructor(violations: ElicitationViolation[]) {
    super(
      ErrorCode.InvalidParams,
      `The elicitation answer does not match requestedSchema: ${violations.map((v) => `${v.property || '(content)'} ${v.message}`).join('; ')}`,
      { violations },
    );
    this.violations = violations;
  }
}

/** The client answered `elicitation/create` with an action other than accept, decline or cancel. */
export class UnexpectedElicitActionError extends McpError {
  override name = 'UnexpectedElicitActionError';
  constructor(readonly action: unknown) {
    super(ErrorCode.InvalidParams, `The client answered elicitation/create with action ${quote(action)}; expected accept, decline or cancel`, {
      action,
    });
  }
}

/** Throw from a handler to answer its request with -32042 and the URL elicitations the user must complete first. */
export class UrlElicitationRequiredError extends McpError {
  override name = 'UrlElicitationRequiredError';
  readonly elicitations: { mode: 'url'; message: string; url: string; elicitationId: string }[];
  /** Each elicitation without an `elicitationId` gets a random one. */
  constructor(
    elicitations: { mode?: 'url'; message: string; url: string; elicitationId?: string }[],
    message = 'This request requires more information: complete the linked page(s), then retry.',
  ) {
    for (const e of elicitations) checkElicitationUrl(e.url);
    const complete = elicitations.map((e) => ({
      mode: 'url' as const,
      message: e.message,
      url: e.url,
      elicitationId: e.elicitationId ?? globalThis.crypto.randomUUID(),
    }));
    super(ErrorCode.UrlElicitationRequired, message, { elicitations: complete });
    this.elicitations = complete;
  }
}

/** A server-to-client request was asked of a 2026-07-28 client, which takes none: ask with input-required instead. */
export class LegacyOnlyRequestError extends NoBackChannelError {
  override name = 'LegacyOnlyRequestError';
  constructor(method: string) {
    super(
      method,
      'the client speaks 2026-07-28, where servers send no requests; return an input-required result instead (ctx.elicit, ctx.createMessage and ctx.listRoots do it for you, or use ctx.inputRequired)',
    );
  }
}

export class UnsupportedProtocolVersionError extends McpError {
  override name = 'UnsupportedProtocolVersionError';
  constructor(requested: unknown, supported: readonly string[]) {
    // What was asked is echoed when it is a version-like value; anything else is no version, and may not even serialise.
    const echoed = typeof requested === 'string' || typeof requested === 'number' ? requested : requested === undefined ? undefined : quote(requested);
    super(ErrorCode.UnsupportedProtocolVersion, 'Unsupported protocol version', { supported: [...supported], requested: echoed });
  }
}

export class HeaderMismatchError extends McpError {
  override name = 'HeaderMismatchError';
  constructor(message: string) {
    super(ErrorCode.HeaderMismatch, message);
  }
}

/** A requestState that fails verification, has expired, or belongs to another request or principal. */
export class InvalidRequestStateError extends McpError {
  override name = 'InvalidRequestStateError';
  constructor(readonly reason: string) {
    super(ErrorCode.InvalidParams, 'Invalid or expired requestState', { reason });
  }
}
