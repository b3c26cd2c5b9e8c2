/**
 * How a session reaches its client, chosen when the session is made: a legacy-era session pushes
 * requests on its connection; a 2026-07-28 request asks with an input-required result and gets the
 * answers on the retry. Each back channel serves one session, given at construction. Code above this
 * never asks which era it is in.
 */
import type { ClientRequestKind } from '../elicitation/kind.js';
import { type InputMethod, type InputRequest, InputRequired } from '../mrtr/input-required.js';
import type { InputRound } from '../mrtr/input-round.js';
import { firstPushedRound, type InputTarget, inputKind, pushRounds, type RoundsContext, runModernRound } from '../mrtr/rounds.js';
import { ErrorCode, LegacyOnlyRequestError, McpError } from '../protocol/errors.js';
import type { SafeEmitter } from '../protocol/safe-emitter.js';
import type { InputOptions, McpSession } from './api.js';
import { type Context, type ContextBackChannel, type RoundOpener, sent } from './context.js';
import type { McpServerEvents } from './events.js';
import type { Outgoing } from './outgoing.js';

/** How one session reaches its client: what its handlers' contexts ask through, and how input rounds run. */
export interface BackChannel extends ContextBackChannel {
  /** Run a handler that may answer input-required (tools/call, prompts/get, resources/read). */
  run<R>(ctx: Context, params: Record<string, unknown>, target: InputTarget, invoke: () => Promise<R | InputRequired>): Promise<R | Record<string, unknown>>;
  /** Whether an error a tool threw answers its call as a JSON-RPC error rather than an `isError` result. */
  isRequestError(err: unknown): boolean;
}

/** What a back channel needs of the session it serves. */
export interface BackChannelSession extends McpSession {
  /** Requests sent to the client (made on first use). */
  readonly outgoing: Outgoing;
  readonly host: { readonly events: SafeEmitter<McpServerEvents> };
}

/** Makes the back channel of each new session (one per era, chosen when the session is made). */
export type BackChannelFactory = (session: BackChannelSession) => BackChannel;

function isUrlElicitationRequired(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.UrlElicitationRequired;
}

/** Legacy era: requests go out on the connection and wait for the client's reply. */
class PushBackChannel implements BackChannel, RoundOpener {
  constructor(
    private readonly rounds: RoundsContext,
    private readonly session: BackChannelSession,
  ) {}

  send: BackChannel['send'] = (kind, params, options, parent, onDone) => this.session.outgoing.send(kind, params, options, parent, onDone);

  ask<P, R>(ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    return sent((done) => this.session.outgoing.send(kind, params, options, ctx, done));
  }

  run: BackChannel['run'] = async (ctx, _params, target, invoke) => {
    ctx.roundOpener = this;
    const result = await invoke();
    // Most calls neither look at their round nor answer input-required: then there is no round to run.
    if (ctx.input === undefined && !(result instanceof InputRequired)) return result;
    return pushRounds(
      this.rounds,
      ctx,
      this.session.clientCapabilities,
      target,
      invoke,
      (request: InputRequest) => this.ask(ctx, inputKind(request.method), (request.params ?? {}) as never, {}),
      result,
    );
  };

  openRound(): InputRound {
    return firstPushedRound(this.rounds);
  }

  /** -32042 asks the client to run URL elicitations and retry; everything else a tool throws is a tool failure. */
  isRequestError(err: unknown): boolean {
    return isUrlElicitationRequired(err);
  }
}

/** 2026-07-28 requests: the server sends no requests; what a handler asks goes out as input-required. */
class InputRequiredBackChannel implements BackChannel {
  constructor(
    private readonly rounds: RoundsContext,
    private readonly session: BackChannelSession,
  ) {}

  send: BackChannel['send'] = (kind) => {
    throw new LegacyOnlyRequestError(kind.method);
  };

  ask<P, R>(ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    const request: InputRequest = { method: kind.method as InputMethod, params: params as Record<string, unknown> };
    let round: InputRound;
    try {
      // The round is there for tools/call, prompts/get and resources/read; ctx.round() says why it is not.
      round = ctx.input ?? ctx.round();
    } catch (err) {
      return Promise.reject(err);
    }
    return round.require(this.session.clientCapabilities, request, options.key) as Promise<R>;
  }

  run: BackChannel['run'] = (ctx, params, target, invoke) => {
    const { session } = this;
    const request = { params, capabilities: session.clientCapabilities, principal: session.principal, events: session.host.events, session };
    return runModernRound(this.rounds, ctx, request, target, invoke);
  };

  /** -32021 too: the client may retry, declaring the capability the request needs. */
  isRequestError(err: unknown): boolean {
    return isUrlElicitationRequired(err) || (err instanceof McpError && err.code === ErrorCode.MissingRequiredClientCapability);
  }
}

/** Legacy-era sessions push. */
export function pushBackChannel(rounds: RoundsContext): BackChannelFactory {
  return (session) => new PushBackChannel(rounds, session);
}

/** 2026-07-28 requests answer input-required. */
export function inputRequiredBackChannel(rounds: RoundsContext): BackChannelFactory {
  return (session) => new InputRequiredBackChannel(rounds, session);
}
