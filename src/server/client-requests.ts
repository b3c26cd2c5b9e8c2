/**
 * Server-to-client requests with a typed result: elicitation, sampling and roots. Each ends in exactly
 * one response event (`responseElicitationCreate`, ...) carrying `isError` and the content, and, for
 * the promise forms, in a resolved result or a typed rejection.
 */
import { ErrorCode, LegacyOnlyRequestError, McpError, NoBackChannelError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/types.js';
import type { RequestContext } from './context.js';
import type { McpServer } from './mcp-server.js';
import type { OutgoingRequest, McpSession } from './session.js';

export interface ClientRequestOptions {
  /** Per-call timeout, capped by the server's `maxRequestTimeoutMs`. */
  timeoutMs?: number;
  /** Abort to cancel; the client is sent `notifications/cancelled`. */
  signal?: AbortSignal;
  /** The client request this one belongs to (on HTTP it then travels on that request's stream). */
  relatedRequestId?: RequestId;
  /** @internal The handler context whose cancellation cancels this request (`ctx.elicit` sets it). */
  cancelWith?: RequestContext;
}

/** How one request ended, as the response events carry it. */
export type ClientResponse<Fields> =
  | ({ isError: false; errorCode?: undefined; errorMessage?: undefined; errorData?: undefined } & Fields)
  | ({ isError: true; errorCode: number; errorMessage: string; errorData?: unknown } & Partial<Fields>);

export type ResponseEvent = 'responseElicitationCreate' | 'responseSamplingCreateMessage' | 'responseRootsList';

/** What differs between elicitation, sampling and roots. */
export interface ClientRequestKind<Params, Result> {
  readonly method: string;
  readonly event: ResponseEvent;
  /** Check the session's capabilities and the params; throw a typed error before anything is sent. Returns the params to send. */
  prepare(server: McpServer, session: McpSession, params: Params): Params;
  defaultTimeoutMs(server: McpServer): number;
  /** Turn the client's result into the typed result, or throw an McpError when it is not one. */
  interpret(server: McpServer, result: Record<string, unknown>, params: Params): Result;
}

export type ClientOutcome<Result> = { ok: true; result: Result } | { ok: false; error: McpError };

/**
 * Send one typed request. Programmer errors and missing capabilities throw synchronously; every other
 * ending, including the client's error replies, reaches `onDone` and the response event exactly once.
 */
export function sendClientRequest<Params extends object, Result extends object>(
  server: McpServer,
  session: McpSession,
  kind: ClientRequestKind<Params, Result>,
  params: Params,
  options: ClientRequestOptions,
  onDone?: (outcome: ClientOutcome<Result>, request: OutgoingRequest) => void,
): OutgoingRequest {
  // The era gate: a 2026-07-28 client takes no server requests; it is asked through input-required.
  if (session.era === 'modern') throw new LegacyOnlyRequestError(kind.method);
  if (session.state === 'closed') throw new NoBackChannelError(kind.method, `the session has ended (${session.closeReason})`);
  if (session.state === 'new') throw new NoBackChannelError(kind.method, 'the session has not completed initialize');
  const prepared = kind.prepare(server, session, params);
  if (!session.canPush(options.relatedRequestId)) throw new NoBackChannelError(kind.method, 'the transport has no open channel to the client for it');
  const timeoutMs = Math.min(options.timeoutMs ?? kind.defaultTimeoutMs(server), server.options.maxRequestTimeoutMs);
  return session.sendRequest(
    kind.method,
    prepared as Record<string, unknown>,
    { timeoutMs, signal: options.signal, relatedRequestId: options.relatedRequestId, cancelWith: options.cancelWith },
    (outcome, request) => {
      let typed: ClientOutcome<Result>;
      if (outcome.ok) {
        try {
          typed = { ok: true, result: kind.interpret(server, outcome.result, prepared) };
        } catch (err) {
          server.stats.invalidResults++;
          typed = { ok: false, error: err instanceof McpError ? err : new McpError(ErrorCode.InvalidParams, String(err)) };
        }
      } else {
        typed = outcome;
      }
      const response = typed.ok
        ? { isError: false, ...typed.result }
        : { isError: true, errorCode: typed.error.code, errorMessage: typed.error.message, errorData: typed.error.data };
      (server.emit as (event: string, ...args: unknown[]) => boolean)(kind.event, session, request, response);
      onDone?.(typed, request);
    },
  );
}

/** The promise form: resolves with the typed result, rejects with the typed error. */
export function clientRequest<Params extends object, Result extends object>(
  server: McpServer,
  session: McpSession,
  kind: ClientRequestKind<Params, Result>,
  params: Params,
  options: ClientRequestOptions,
): Promise<Result> {
  return new Promise((resolve, reject) => {
    sendClientRequest(server, session, kind, params, options, (outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error)));
  });
}
