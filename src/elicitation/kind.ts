/**
 * What the server can ask a client for, with a typed answer: elicitation, sampling and roots. The kinds
 * differ only in their checks before sending, their timeout and how they read the answer; the same checks
 * serve a pushed request (legacy era) and a question in an input-required result (modern era).
 */
import type { McpError } from '../protocol/errors.js';
import type { ClientCapabilities, RequestId } from '../protocol/types.js';
import type { SchemaCompiler } from '../schema/compiler.js';

/** The server options the kinds read. */
export interface KindOptions {
  readonly validateElicitation: boolean;
  readonly requestTimeoutMs: number;
  readonly elicitationTimeoutMs: number;
  readonly samplingTimeoutMs: number;
}

/** What a kind needs from the server: its schema compiler and its options. */
export interface KindContext {
  readonly schemas: SchemaCompiler;
  readonly options: KindOptions;
}

export type ResponseEvent = 'responseElicitationCreate' | 'responseSamplingCreateMessage' | 'responseRootsList';

export interface ClientRequestKind<Params, Result> {
  readonly method: string;
  /** The event that reports each request's one ending; none for untyped requests (`session.request`). */
  readonly event: ResponseEvent | undefined;
  /** The result's fields, present (undefined) in the event's response on failure too. */
  readonly fields: readonly string[];
  /**
   * Check the client's capabilities, then the params; throw a typed error before anything is sent.
   * Returns the params to send.
   */
  prepare(ctx: KindContext, capabilities: ClientCapabilities, params: Params): Params;
  timeoutMs(options: KindOptions): number;
  /** Turn the client's result into the typed result, or throw an McpError when it is not one; a Standard schema's check may be async. */
  interpret(ctx: KindContext, result: Record<string, unknown>, params: Params): Result | Promise<Result>;
}

export interface ClientRequestOptions {
  /** Per-call timeout, capped by the server's `maxRequestTimeoutMs`. */
  timeoutMs?: number;
  /** Abort to cancel; the client is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** The client request this one belongs to (on HTTP it then travels on that request's stream). */
  relatedRequestId?: RequestId;
}

export type ClientOutcome<Result> = { ok: true; result: Result } | { ok: false; error: McpError };

/**
 * How one request ended, as its response event carries it. Every field is present on success and on
 * failure alike (absent ones are undefined), so listeners read them without `in` checks.
 */
export type ClientResponse<Fields extends object> =
  | ({ isError: false; errorCode: undefined; errorMessage: undefined; errorData: undefined } & Fields)
  | ({ isError: true; errorCode: number; errorMessage: string; errorData: unknown } & { [K in keyof Fields]: undefined });

/** The response event's payload for an outcome: the same keys whether it succeeded or failed. */
export function toClientResponse(fields: readonly string[], outcome: ClientOutcome<object>): Record<string, unknown> {
  const response: Record<string, unknown> = outcome.ok
    ? { isError: false, errorCode: undefined, errorMessage: undefined, errorData: undefined }
    : { isError: true, errorCode: outcome.error.code, errorMessage: outcome.error.message, errorData: outcome.error.data };
  for (const field of fields) response[field] = undefined;
  return outcome.ok ? Object.assign(response, outcome.result) : response;
}

/** A request of any method, without a typed result: `session.request` and `ping`. */
export function untypedKind(method: string): ClientRequestKind<Record<string, unknown>, Record<string, unknown>> {
  return {
    method,
    event: undefined,
    fields: [],
    prepare: (_ctx, _capabilities, params) => params,
    timeoutMs: (options) => options.requestTimeoutMs,
    interpret: (_ctx, result) => result,
  };
}
