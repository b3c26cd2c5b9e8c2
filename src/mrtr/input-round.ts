/**
 * One round of input for one request, as its handler sees it: the answers so far, and what it asks next.
 * On 2026-07-28 `ctx.elicit` (and friends) take their answers here; a form asked with a Standard schema
 * is read by that schema's own check when the handler asks again, the rest as the retry comes in (rounds.ts).
 */
import { checkedByStandard, elicitationKind, formAnswer } from '../elicitation/elicit.js';
import type { ClientOutcome, ClientRequestKind, KindContext } from '../elicitation/kind.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import { ErrorCode, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { InputRequired, InputRequiredSignal, type InputMethod, type InputRequest } from './input-required.js';
import type { AskedQuestion, StatePayload } from './request-state.js';

/** The kind that asks each input method, with its checks and its reading of the answer. */
export const KINDS: Record<InputMethod, ClientRequestKind<never, unknown>> = {
  'elicitation/create': elicitationKind,
  'sampling/createMessage': samplingKind,
  'roots/list': rootsKind,
} as Record<InputMethod, ClientRequestKind<never, unknown>>;

const KEY_PREFIX: Record<InputMethod, string> = { 'elicitation/create': 'elicit', 'sampling/createMessage': 'sample', 'roots/list': 'roots' };

/** Questions `require` checked already: asked as they are, not checked again when the round ends. */
const PREPARED = new WeakSet<InputRequest>();

/** Whether `request` is a question `require` checked as the handler asked it. */
export function wasPrepared(request: InputRequest): boolean {
  return PREPARED.has(request);
}

/** Told of each answer a retry brings to what the last round asked, read: a result, or why it is none. */
export type AnswerListener = (key: string, asked: AskedQuestion, outcome: ClientOutcome<unknown>) => void;

/** Where a request keeps its current round (the handler's context): `ctx.inputResponses` and friends read it. */
export interface RoundHolder {
  input: InputRound | undefined;
  /** Aborts when the request is cancelled or its session ends. */
  readonly signal: AbortSignal;
}

/** One round of input for one request: the answers so far, and what the handler asks next. */
export class InputRound {
  /** Keys for asks without an explicit key count up in call order, so a replay finds its answers. */
  private counter = 0;
  pending: InputRequired | undefined;
  /** Keys this round asked with a Standard form schema, whose answers the next round reads when the handler asks again. */
  readonly standardKeys = new Set<string>();
  /** Standard schemas' checks of answers under way: the round ends once they have, so none is lost to a sibling ask unwinding first. */
  private readonly checks: Promise<unknown>[] = [];

  constructor(
    private readonly kinds: KindContext,
    /** Validated answers, by key, from this and earlier rounds. */
    readonly answers: Record<string, unknown>,
    /** The handler's state from the previous round. */
    readonly state: unknown,
    /** What earlier rounds asked, by key. */
    readonly asked: StatePayload['asked'],
    readonly round: number,
    /** This retry's inputResponses, as sent. */
    private readonly responses: Record<string, unknown> | undefined = undefined,
    /** This retry's answers to questions asked with a Standard schema: only the handler's asking again brings the schema that reads them. */
    private readonly held: Map<string, { asked: AskedQuestion; answer: unknown }> = new Map(),
    private readonly onAnswer: AnswerListener | undefined = undefined,
    /** The request's signal, read only by a check that does not end at once (reading it makes an AbortController). */
    private readonly signal: (() => AbortSignal) | undefined = undefined,
  ) {}

  /**
   * `ctx.elicit` (and friends) on 2026-07-28: the answer to `request` if it has come, under `key` or the
   * next automatic key; otherwise the question joins this round's input-required, and the handler unwinds.
   */
  require(capabilities: ClientCapabilities, request: InputRequest, key: string | undefined): unknown {
    const kind = KINDS[request.method];
    // The same checks as a pushed request; what they give back also reads the answer (a form's compiled schema).
    const prepared = kind.prepare(this.kinds, capabilities, (request.params ?? {}) as never);
    const asking: InputRequest = { method: request.method, params: prepared as Record<string, unknown> };
    PREPARED.add(asking);
    const k = key ?? `${KEY_PREFIX[request.method]}-${++this.counter}`;
    if (checkedByStandard(prepared)) {
      const answer = this.standardAnswer(k, asking, kind, prepared);
      this.checks.push(answer.catch(() => undefined));
      return answer;
    }
    const answer = this.answer(k, asking, kind, prepared);
    if (answer !== undefined) return answer;
    this.ask(k, asking);
    throw new InputRequiredSignal(k);
  }

  /**
   * The answer to `request` under `key`: from earlier rounds, or from this retry's inputResponses if it
   * fits the question being asked now (a client may answer without echoing requestState).
   */
  private answer(key: string, request: InputRequest, kind: ClientRequestKind<never, unknown>, prepared: never): unknown {
    const known = this.answers[key];
    if (known !== undefined && sameQuestion(this.asked[key], describeRequest(request))) return known;
    const raw = this.responses?.[key];
    if (!isObject(raw)) return undefined;
    let answer: unknown;
    try {
      answer = kind.interpret(this.kinds, raw, prepared);
    } catch {
      return undefined; // asked again
    }
    this.answers[key] = answer;
    return answer;
  }

  /**
   * A form asked with a Standard schema: the schema's check reads the answer on every replay (its output,
   * defaults applied and transforms run, need not be JSON), and the round keeps the answer as the client
   * gave it, cut to the asked fields. An answer the check refuses is asked again.
   */
  private async standardAnswer(key: string, asking: InputRequest, kind: ClientRequestKind<never, unknown>, prepared: never): Promise<unknown> {
    const question = describeRequest(asking);
    const known = this.answers[key];
    const raw = known !== undefined && sameQuestion(this.asked[key], question) ? known : this.responses?.[key];
    const fresh = this.held.get(key);
    if (isObject(raw)) {
      let outcome: ClientOutcome<unknown>;
      try {
        outcome = { ok: true, result: await this.bounded(kind, kind.interpret(this.kinds, raw, prepared)) };
      } catch (err) {
        outcome = { ok: false, error: asMcpError(err) };
      }
      if (fresh?.answer === raw) {
        this.held.delete(key);
        this.onAnswer?.(key, fresh.asked, outcome);
      }
      if (outcome.ok) {
        this.answers[key] = formAnswer(raw, question.schema as object);
        return outcome.result;
      }
      // Only an answer at fault (-32602) is asked again; a check that threw, timed out or was cancelled ends the ask.
      if (outcome.error.code !== ErrorCode.InvalidParams) throw outcome.error;
      delete this.answers[key];
    }
    this.ask(key, asking);
    this.standardKeys.add(key);
    throw new InputRequiredSignal(key);
  }

  /**
   * A Standard schema's check that does not end at once, within the request's signal and the kind's
   * timeout: one that outlives either ends the ask as a pushed request's would, and its late result is dropped.
   */
  private bounded<T>(kind: ClientRequestKind<never, unknown>, check: T | Promise<T>): T | Promise<T> {
    if (!(check instanceof Promise)) return check;
    const signal = this.signal?.();
    const timeoutMs = kind.timeoutMs(this.kinds.options);
    return new Promise<T>((resolve, reject) => {
      const end = (settle: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancelled);
        settle();
      };
      const cancelled = () => end(() => reject(new RequestCancelledError(kind.method, reasonOf(signal?.reason))));
      const timer = setTimeout(() => end(() => reject(new RequestTimeoutError(kind.method, timeoutMs))), timeoutMs);
      timer.unref();
      check.then(
        (value) => end(() => resolve(value)),
        (err: unknown) => end(() => reject(err)),
      );
      if (signal?.aborted) cancelled();
      else signal?.addEventListener('abort', cancelled, { once: true });
    });
  }

  /**
   * The handler is done: wait for the checks still under way, then tell this retry's answers to
   * Standard-schema questions it did not ask again: not read, for only the schema can read them. Nothing
   * to wait for without Standard schemas.
   */
  end(): Promise<void> | undefined {
    if (this.checks.length === 0 && this.held.size === 0) return undefined;
    return Promise.all(this.checks).then(() => {
      for (const [key, { asked }] of this.held) this.onAnswer?.(key, asked, { ok: false, error: new RequestCancelledError(asked.method, NOT_READ) });
      this.held.clear();
    });
  }

  ask(key: string, request: InputRequest): void {
    (this.pending ??= new InputRequired()).add(key, request);
  }
}

export function asMcpError(err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(ErrorCode.InvalidParams, String(err));
}

/** Only the schema, which the handler brings by asking again, can read an answer to a Standard-schema question. */
const NOT_READ = 'the handler did not ask it again, so its answer went unread';

function reasonOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : typeof reason === 'string' ? reason : 'aborted';
}

/** An earlier answer stands only for the same question: the same method and, for a form, the same schema. */
function sameQuestion(asked: AskedQuestion | undefined, now: AskedQuestion): boolean {
  return asked !== undefined && asked.method === now.method && JSON.stringify(asked.schema) === JSON.stringify(now.schema);
}

/**
 * A question as requestState remembers it: its method, a form's schema (which answers must fit), and an
 * elicitation's message and URL, for the response event (a sampling request's messages are not kept).
 */
export function describeRequest(request: InputRequest, standard = false): AskedQuestion {
  const described: AskedQuestion = { method: request.method };
  if (request.method !== 'elicitation/create') return described;
  const params = request.params as { mode?: string; requestedSchema?: object; message?: unknown; url?: unknown } | undefined;
  if (params?.mode === 'url') {
    if (typeof params.url === 'string') described.url = params.url;
  } else if (params?.requestedSchema) described.schema = params.requestedSchema;
  if (typeof params?.message === 'string') described.message = params.message;
  if (standard) described.standard = true;
  return described;
}
