/**
 * The two ways a session reaches its client, chosen when the session is made: a legacy-era session pushes
 * requests on its connection; a 2026-07-28 request asks with an input-required result and gets the
 * answers on the retry. Code above this never asks which era it is in.
 */
import { type ClientOutcome, type ClientRequestKind, toClientResponse } from '../elicitation/kind.js';
import type { InputMethod, InputRequest } from '../mrtr/input-required.js';
import type { AskedQuestion } from '../mrtr/request-state.js';
import { askedRequest, inputKind, type RoundsContext, runModernRound, runPushedRounds } from '../mrtr/rounds.js';
import { ErrorCode, LegacyOnlyRequestError, McpError } from '../protocol/errors.js';
import type { InputOptions } from './api.js';
import type { Context } from './context.js';
import type { BackChannel, Session } from './session.js';

function isUrlElicitationRequired(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.UrlElicitationRequired;
}

/** Legacy era: requests go out on the connection and wait for the client's reply. */
export class PushBackChannel implements BackChannel {
  constructor(private readonly rounds: RoundsContext) {}

  send: BackChannel['send'] = (session, kind, params, options, parent, onDone) => session.outgoing.send(kind, params, options, parent, onDone);

  ask<P, R>(session: Session, ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    return new Promise((resolve, reject) => {
      session.outgoing.send(kind, params, options, ctx, (outcome) => (outcome.ok ? resolve(outcome.result) : reject(outcome.error)));
    });
  }

  run: BackChannel['run'] = (session, ctx, _params, target, invoke) =>
    runPushedRounds(this.rounds, ctx, session.clientCapabilities, target, invoke, (request: InputRequest) =>
      this.ask(session, ctx, inputKind(request.method), (request.params ?? {}) as never, {}),
    );

  /** -32042 asks the client to run URL elicitations and retry; everything else a tool throws is a tool failure. */
  isRequestError(err: unknown): boolean {
    return isUrlElicitationRequired(err);
  }
}

/** 2026-07-28 requests: the server sends no requests; what a handler asks goes out as input-required. */
export class InputRequiredBackChannel implements BackChannel {
  constructor(private readonly rounds: RoundsContext) {}

  send: BackChannel['send'] = (_session, kind) => {
    throw new LegacyOnlyRequestError(kind.method);
  };

  async ask<P, R>(session: Session, ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    const request: InputRequest = { method: kind.method as InputMethod, params: params as Record<string, unknown> };
    return ctx.round().require(session.clientCapabilities, request, options.key) as R;
  }

  run: BackChannel['run'] = (session, ctx, params, target, invoke) =>
    runModernRound(
      this.rounds,
      ctx,
      {
        params,
        capabilities: session.clientCapabilities,
        principal: session.principal,
        onAnswer: (key, asked, outcome) => reportAnswer(session, key, asked, outcome),
      },
      target,
      invoke,
    );

  /** -32021 too: the client may retry, declaring the capability the request needs. */
  isRequestError(err: unknown): boolean {
    return isUrlElicitationRequired(err) || (err instanceof McpError && err.code === ErrorCode.MissingRequiredClientCapability);
  }
}

/**
 * An answer a 2026-07-28 retry brought, on the same response event as a pushed request's reply
 * (`responseElicitationCreate`, ...): the request is the input request, its key as id; a malformed answer
 * is an error outcome (and is asked again).
 */
export function reportAnswer(session: Session, key: string, asked: AskedQuestion, outcome: ClientOutcome<unknown>): void {
  const kind = inputKind(asked.method as InputMethod);
  const events = session.host.events;
  if (!kind?.event || !events.listening(kind.event)) return;
  (events.emit as (event: string, ...args: unknown[]) => boolean)(
    kind.event,
    session,
    askedRequest(key, asked),
    toClientResponse(kind.fields, outcome as ClientOutcome<object>),
  );
}
