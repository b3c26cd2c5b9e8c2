/**
 * A tool run apart from the request that started it (an extension's `call.detach`, e.g. a task): the
 * request is answered meanwhile, and what the handler asks goes to the extension, which delivers it
 * however it can and brings the answer back. The run keeps the call's era, capabilities and principal.
 */
import type { ClientOutcome, ClientRequestKind } from '../elicitation/kind.js';
import type { InputMethod, InputRequest } from '../mrtr/input-required.js';
import { asMcpError, describeRequest, KEY_PREFIX } from '../mrtr/input-round.js';
import { answerReporter, firstPushedRound, inputKind, pushRounds, type RoundsContext } from '../mrtr/rounds.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { CallToolResult, Meta } from '../protocol/types.js';
import type { InputOptions, McpSession } from './api.js';
import type { BackChannel, BackChannelSession } from './back-channel.js';
import { Context } from './context.js';
import { abortReason } from '../rpc/abort-reason.js';
import type { ClientQuestion, DetachOptions } from './extension-api.js';
import type { Channel } from './port.js';
import { Session } from './session.js';
import type { SessionHost } from './session-host.js';
import { callTool, type ToolEntry } from './tools.js';

/** How often a question is asked again when its answers do not fit it. */
const MAX_ASKS = 3;

/** Keys unique over one run: a key is never used for two questions (SEP-2663). */
class QuestionKeys {
  private readonly used = new Set<string>();
  private counter = 0;

  next(method: InputMethod, wanted: string | undefined): string {
    let key = wanted ?? `${KEY_PREFIX[method]}-${++this.counter}`;
    for (let n = 2; this.used.has(key); n++) key = wanted ? `${wanted}-${n}` : `${KEY_PREFIX[method]}-${++this.counter}`;
    this.used.add(key);
    return key;
  }
}

/** Questions go to the extension's `ask`; the answers are read as a pushed request's would be. */
class DetachedBackChannel implements BackChannel {
  private readonly keys = new QuestionKeys();
  private readonly onAnswer: ReturnType<typeof answerReporter>;

  constructor(
    private readonly rounds: RoundsContext,
    private readonly options: DetachOptions,
    private readonly session: BackChannelSession,
  ) {
    this.onAnswer = answerReporter(session.host.events, session);
  }

  send: BackChannel['send'] = (kind) => {
    throw new McpError(
      ErrorCode.InvalidRequest,
      `${kind.method} cannot be sent from a detached run (a task): ask with ctx.elicit, ctx.createMessage or ctx.listRoots`,
    );
  };

  async ask<P, R>(ctx: Context, kind: ClientRequestKind<P, R>, params: P, options: InputOptions): Promise<R> {
    const prepared = kind.prepare(this.rounds.kinds, this.session.clientCapabilities, params);
    const method = kind.method as InputMethod;
    for (let asked = 1; ; asked++) {
      if (ctx.aborted) throw abortError(this.options.signal);
      const question: ClientQuestion = {
        method,
        params: prepared as Record<string, unknown>,
        key: this.keys.next(method, options.key),
      };
      const answer = await untilAborted(this.options.ask(question), this.options.signal);
      let outcome: ClientOutcome<R>;
      try {
        // A form's own check may be async: the run's cancellation still ends it.
        outcome = { ok: true, result: await untilAborted(Promise.resolve(kind.interpret(this.rounds.kinds, answer, prepared)), this.options.signal) };
      } catch (err) {
        outcome = { ok: false, error: asMcpError(err) };
      }
      this.onAnswer(question.key, describeRequest(question as InputRequest), outcome as ClientOutcome<unknown>);
      if (outcome.ok) return outcome.result;
      // Only an answer at fault (-32602) is asked again: a check that threw (-32603) would throw again.
      if (outcome.error.code !== ErrorCode.InvalidParams || asked >= MAX_ASKS) throw outcome.error;
    }
  }

  run: BackChannel['run'] = async (ctx, _params, target, invoke) => {
    ctx.input = firstPushedRound(this.rounds);
    const push = (request: InputRequest, key: string) => this.ask(ctx, inputKind(request.method), (request.params ?? {}) as never, { key });
    return pushRounds(this.rounds, ctx, this.session.clientCapabilities, target, invoke, push, await invoke());
  };

  /** A handler's McpError is the run's protocol error; anything else it throws is an `isError` result. */
  isRequestError(err: unknown): boolean {
    return err instanceof McpError;
  }
}

function abortError(signal: AbortSignal): McpError {
  return signal.reason instanceof McpError ? signal.reason : new McpError(ErrorCode.RequestCancelled, abortReason(signal));
}

function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(abortError(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    // Handled even once aborted: a late rejection is dropped, not unhandled.
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (err) => {
        signal.removeEventListener('abort', onAbort);
        reject(err);
      },
    );
  });
}

/** Run `entry` for the call `ctx` made, apart from it: see `ToolCall.detach`. */
export async function runDetached(
  host: SessionHost & RoundsContext,
  call: McpSession,
  ctx: Context,
  entry: ToolEntry,
  args: Record<string, unknown>,
  options: DetachOptions,
  /** The arguments as the tool's schema read them, when they were checked already. */
  checked?: Record<string, unknown>,
): Promise<CallToolResult> {
  // Nothing reaches the client from a detached run but its questions: notifications and logs go nowhere.
  const channel: Channel = { kind: call.transport, remoteAddress: call.remoteAddress, send: () => false, close: () => {} };
  const session = new Session(host, channel, {
    era: call.era,
    backChannel: (detachedSession) => new DetachedBackChannel(host, options, detachedSession),
    principal: call.principal,
    defaultLogLevel: undefined,
    protocolVersion: call.protocolVersion ?? 'unknown',
    clientInfo: call.clientInfo,
    clientCapabilities: call.clientCapabilities,
  });
  const detached = new DetachedContext(session, ctx.requestId, 'tools/call', withoutProgressToken(ctx.meta), options.onProgress);
  const { signal } = options;
  const abort = () => detached.abort(abortError(signal));
  if (signal.aborted) abort();
  else signal.addEventListener('abort', abort, { once: true });
  const run = options.handler ? { ...entry, handler: options.handler } : entry;
  try {
    const { backChannel } = session;
    const result = await backChannel.run(detached, {}, { method: 'tools/call', target: entry.descriptor.name, arguments: args }, () =>
      callTool(run, args, detached, backChannel, checked),
    );
    return result as CallToolResult;
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/** A detached run's context: its progress goes to the extension, which has no client request to report it on. */
class DetachedContext extends Context {
  constructor(
    session: Session,
    requestId: Context['requestId'],
    method: string,
    meta: Meta | undefined,
    private readonly onProgress: DetachOptions['onProgress'],
  ) {
    super(session, requestId, method, meta);
  }

  protected override hearsProgress(): boolean {
    return true;
  }

  protected override reportProgress(progress: number, total: number | undefined, message: string | undefined): void {
    this.onProgress?.(progress, total, message);
  }
}

/** The client's progress token does not reach a detached run: its progress is the extension's to report. */
function withoutProgressToken(meta: Meta | undefined): Meta | undefined {
  if (meta?.progressToken === undefined) return meta;
  const { progressToken: _dropped, ...rest } = meta;
  return rest;
}
