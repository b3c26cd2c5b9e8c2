/**
 * One round of input for one request, as its handler sees it: the answers so far, and what it asks next.
 * On 2026-07-28 `ctx.elicit` (and friends) take their answers here; a form it asked is read when the
 * replayed handler asks it again (requestState keeps only its digest), the rest as the retry comes in (rounds.ts).
 */
import { checkedByStandard, elicitationKind, formAnswer, preparedSchemaJson } from '../elicitation/elicit.js';
import type { ClientOutcome, ClientRequestKind, KindContext } from '../elicitation/kind.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import { ErrorCode, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { abortReason } from '../rpc/abort-reason.js';
import { unref } from '../rpc/unref.js';
import type { ClientCapabilities } from '../protocol/types.js';
import { InputRequired, InputRequiredSignal, type InputMethod, type InputRequest } from './input-required.js';
import { type AskedQuestion, shortDigest, type StatePayload } from './request-state.js';

/** The kind that asks each input method, with its checks and its reading of the answer. */
export const KINDS: Record<InputMethod, ClientRequestKind<never, unknown>> = {
  'elicitation/create': elicitationKind,
  'sampling/createMessage': samplingKind,
  'roots/list': rootsKind,
} as Record<InputMethod, ClientRequestKind<never, unknown>>;

/** How an ask without a key of its own is named: the prefix, then its count in the request (`elicit-1`). */
export const KEY_PREFIX: Readonly<Record<InputMethod, string>> = { 'elicitation/create': 'elicit', 'sampling/createMessage': 'sample', 'roots/list': 'roots' };

/** Each form's digest by its JSON (ajv's check, then a Standard schema's): a handler asks the same few forms on every replay. */
const FORM_DIGESTS = [new Map<string, string>(), new Map<string, string>()];
const FORM_DIGESTS_LIMIT = 1024;

function formDigest(json: string, standard: boolean): string {
  const digests = FORM_DIGESTS[standard ? 1 : 0];
  let digest = digests.get(json);
  if (digest === undefined) {
    // How the answer is checked is part of the question: a Standard schema's output is not ajv's.
    digest = shortDigest(standard ? `standard:${json}` : json);
    if (digests.size >= FORM_DIGESTS_LIMIT) digests.clear();
    digests.set(json, digest);
  }
  return digest;
}

/** A question `require` checked already: asked as it is, not checked again when the round ends (a WeakSet entry cost ten times as much). */
class PreparedRequest implements InputRequest {
  constructor(
    readonly method: InputMethod,
    readonly params: Record<string, unknown>,
  ) {}
}

/** Whether `request` is a question `require` checked as the handler asked it. */
export function wasPrepared(request: InputRequest): boolean {
  return request instanceof PreparedRequest;
}

/** Told of each answer a retry brings to what the last round asked, read: a result, or why it is none. */
export type AnswerListener = (key: string, asked: AskedQuestion, outcome: ClientOutcome<unknown>) => void;

/** An answer to a form `ctx.elicit` asked, not read yet: from this retry, or `carried` from an earlier one that did not ask it again. */
export interface HeldAnswer {
  asked: AskedQuestion;
  answer: unknown;
  carried?: true;
}

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
  /** How requestState remembers each form this round's handler asked, by the question it asked: a digest, read when it asks again. */
  readonly remembered = new Map<InputRequest, AskedQuestion>();
  /** The question each answer read in this round answers, by key: an answer stands for that question only. */
  readonly read: Record<string, AskedQuestion> = {};
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
    /** Answers to forms `ctx.elicit` asked, not read yet: only the handler's asking again brings the schema that reads them. */
    private readonly held: Map<string, HeldAnswer> = new Map(),
    private readonly onAnswer: AnswerListener | undefined = undefined,
    /** Whose signal a check that does not end at once reads (reading it makes an AbortController). */
    private readonly holder: { readonly signal: AbortSignal } | undefined = undefined,
  ) {}

  /**
   * `ctx.elicit` (and friends) on 2026-07-28: the answer to `request` if it has come, under `key` or the
   * next automatic key; otherwise the question joins this round's input-required, and the promise rejects
   * with the signal the handler unwinds with. Rejected, never thrown: V8 records where each exception is
   * thrown, and under load that throw was most of what a first round's ask cost.
   */
  require(capabilities: ClientCapabilities, request: InputRequest, key: string | undefined): Promise<unknown> {
    try {
      const answer = this.answerOrAsk(capabilities, request, key);
      return answer instanceof InputRequiredSignal ? Promise.reject(answer) : Promise.resolve(answer);
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private answerOrAsk(capabilities: ClientCapabilities, request: InputRequest, key: string | undefined): unknown {
    const kind = KINDS[request.method];
    // The same checks as a pushed request; what they give back also reads the answer (a form's compiled schema).
    const prepared = kind.prepare(this.kinds, capabilities, (request.params ?? {}) as never);
    const asking: InputRequest = new PreparedRequest(request.method, prepared as Record<string, unknown>);
    const k = key ?? `${KEY_PREFIX[request.method]}-${++this.counter}`;
    const standard = checkedByStandard(prepared);
    const form = this.formOf(asking, standard);
    if (standard) {
      const answer = this.standardAnswer(k, asking, kind, prepared, form as AskedQuestion);
      this.checks.push(answer.catch(() => undefined));
      return answer;
    }
    const answer = this.answer(k, asking, kind, prepared, form);
    if (answer !== undefined) return answer;
    this.askAnew(k, asking);
    return InputRequiredSignal.for(k);
  }

  /**
   * A form question as requestState keeps it: its method and a digest of its schema (and of how it is
   * checked), where the schema and message would cost a state five times the size. Undefined for others.
   */
  private formOf(asking: InputRequest, standard: boolean): AskedQuestion | undefined {
    const params = asking.params as { mode?: string; requestedSchema?: object };
    if (asking.method !== 'elicitation/create' || params.mode === 'url' || !params.requestedSchema) return undefined;
    // The JSON prepare keyed its caches with (kept with the prepared form, else found again by content): one serialisation per round.
    const json = preparedSchemaJson(this.kinds.schemas, params, params.requestedSchema);
    const remembered: AskedQuestion = { method: asking.method, form: formDigest(json, standard) };
    this.remembered.set(asking, remembered);
    return remembered;
  }

  /**
   * The answer to `request` under `key`: from earlier rounds, or from this retry's inputResponses if it
   * fits the question being asked now (a client may answer without echoing requestState). A form's answer
   * in this retry is read here, against the form asked now, and told to the response listener.
   */
  private answer(key: string, request: InputRequest, kind: ClientRequestKind<never, unknown>, prepared: never, form: AskedQuestion | undefined): unknown {
    const known = this.answers[key];
    if (known !== undefined && sameQuestion(this.asked[key], request, form)) return known;
    const { raw, telling } = this.candidate(key, form);
    if (!isObject(raw)) {
      if (telling) this.onAnswer?.(key, describeRequest(request), { ok: false, error: notAnObject(request.method) });
      return undefined;
    }
    let outcome: ClientOutcome<unknown>;
    try {
      outcome = { ok: true, result: kind.interpret(this.kinds, raw, prepared) };
    } catch (err) {
      outcome = { ok: false, error: asMcpError(err) };
    }
    if (telling) this.onAnswer?.(key, describeRequest(request), outcome);
    if (!outcome.ok) return undefined; // asked again
    this.answers[key] = outcome.result;
    if (form) this.read[key] = form;
    return outcome.result;
  }

  /**
   * The answer under `key` not read yet: one an earlier retry brought to this very form, else this
   * retry's. `telling` when it answers what requestState says was asked (then it leaves `held`, to be told).
   */
  private candidate(key: string, form: AskedQuestion | undefined): { raw: unknown; telling: boolean } {
    const held = this.held.get(key);
    if (held?.carried) {
      this.held.delete(key);
      if (held.asked.form === form?.form) return { raw: held.answer, telling: true };
      // Another question under the key now: the answer kept was to the old one.
      this.tellNotRead(key, held.asked);
    }
    const raw = this.responses?.[key];
    const telling = held !== undefined && !held.carried && held.answer === raw;
    if (telling) this.held.delete(key);
    return { raw, telling };
  }

  /**
   * A form asked with a Standard schema: the schema's check reads the answer on every replay (its output,
   * defaults applied and transforms run, need not be JSON), and the round keeps the answer as the client
   * gave it, cut to the asked fields. An answer the check refuses is asked again.
   */
  private async standardAnswer(
    key: string,
    asking: InputRequest,
    kind: ClientRequestKind<never, unknown>,
    prepared: never,
    form: AskedQuestion,
  ): Promise<unknown> {
    const question = describeRequest(asking);
    const known = this.answers[key];
    const { raw, telling } = known !== undefined && sameQuestion(this.asked[key], asking, form) ? { raw: known, telling: false } : this.candidate(key, form);
    if (isObject(raw)) {
      let outcome: ClientOutcome<unknown>;
      try {
        outcome = { ok: true, result: await this.bounded(kind, kind.interpret(this.kinds, raw, prepared)) };
      } catch (err) {
        outcome = { ok: false, error: asMcpError(err) };
      }
      if (telling) this.onAnswer?.(key, question, outcome);
      if (outcome.ok) {
        this.answers[key] = formAnswer(raw, question.schema as object);
        this.read[key] = form;
        return outcome.result;
      }
      // Only an answer at fault (-32602) is asked again; a check that threw, timed out or was cancelled ends the ask.
      if (outcome.error.code !== ErrorCode.InvalidParams) throw outcome.error;
    }
    this.askAnew(key, asking);
    throw InputRequiredSignal.for(key);
  }

  /**
   * A Standard schema's check that does not end at once, within the request's signal and the kind's
   * timeout: one that outlives either ends the ask as a pushed request's would, and its late result is dropped.
   */
  private bounded<T>(kind: ClientRequestKind<never, unknown>, check: T | Promise<T>): T | Promise<T> {
    if (!(check instanceof Promise)) return check;
    const signal = this.holder?.signal;
    const timeoutMs = kind.timeoutMs(this.kinds.options);
    return new Promise<T>((resolve, reject) => {
      const end = (settle: () => void) => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancelled);
        settle();
      };
      const cancelled = () => end(() => reject(new RequestCancelledError(kind.method, abortReason(signal!))));
      const timer = setTimeout(() => end(() => reject(new RequestTimeoutError(kind.method, timeoutMs))), timeoutMs);
      unref(timer);
      check.then(
        (value) => end(() => resolve(value)),
        (err: unknown) => end(() => reject(err)),
      );
      if (signal?.aborted) cancelled();
      else signal?.addEventListener('abort', cancelled, { once: true });
    });
  }

  /** The handler is done: wait for the Standard schemas' checks still under way. Nothing to wait for without them. */
  end(): Promise<void> | undefined {
    if (this.checks.length === 0) return undefined;
    return Promise.all(this.checks).then(() => undefined);
  }

  /**
   * The request ends without another round: answers to forms the handler did not ask again are told as
   * not read, for only the form it asks can read them.
   */
  tellUnread(): void {
    for (const [key, { asked }] of this.held) this.tellNotRead(key, asked);
    this.held.clear();
  }

  /**
   * Another round follows: answers to forms the handler did not ask again this time ride along, unread,
   * for a later replay that asks the same form; those under a key asked anew are told as not read.
   */
  carryUnread(asking: Record<string, unknown>): Record<string, unknown> | undefined {
    let unread: Record<string, unknown> | undefined;
    for (const [key, { asked, answer }] of this.held) {
      if (Object.hasOwn(asking, key)) this.tellNotRead(key, asked);
      else (unread ??= {})[key] = answer;
    }
    this.held.clear();
    return unread;
  }

  private tellNotRead(key: string, asked: AskedQuestion): void {
    this.onAnswer?.(key, asked, { ok: false, error: new RequestCancelledError(asked.method, NOT_READ) });
  }

  /** Ask `request` under `key`, whose earlier answer (to another question, or one that did not fit) no longer stands. */
  private askAnew(key: string, request: InputRequest): void {
    delete this.answers[key];
    this.ask(key, request);
  }

  ask(key: string, request: InputRequest): void {
    (this.pending ??= new InputRequired()).add(key, request);
  }
}

export function asMcpError(err: unknown): McpError {
  return err instanceof McpError ? err : new McpError(ErrorCode.InvalidParams, String(err));
}

/** Only the form, which the handler brings by asking again, can read an answer to it. */
const NOT_READ = 'the handler did not ask it again, so its answer went unread';

export function notAnObject(method: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: the answer to a ${method} is not an object`);
}

/**
 * An earlier answer stands only for the same question: the same method and, for a form, the same schema
 * (by digest; a form an input-required asked is kept whole, and its schema is compared as JSON).
 */
function sameQuestion(asked: AskedQuestion | undefined, now: InputRequest, form: AskedQuestion | undefined): boolean {
  if (asked === undefined || asked.method !== now.method) return false;
  if (asked.form !== undefined || form !== undefined) {
    if (asked.form === form?.form) return true;
    if (asked.schema === undefined || form === undefined) return false;
  }
  return JSON.stringify(asked.schema) === JSON.stringify((now.params as { requestedSchema?: object } | undefined)?.requestedSchema);
}

/**
 * A question as its response event names it: its method, a form's schema, and an elicitation's message
 * and URL (a sampling request's messages are not kept). requestState keeps it so for what an
 * input-required asked, and a form `ctx.elicit` asked by digest (`InputRound.remembered`).
 */
export function describeRequest(request: InputRequest): AskedQuestion {
  const described: AskedQuestion = { method: request.method };
  if (request.method !== 'elicitation/create') return described;
  const params = request.params as { mode?: string; requestedSchema?: object; message?: unknown; url?: unknown } | undefined;
  if (params?.mode === 'url') {
    if (typeof params.url === 'string') described.url = params.url;
  } else if (params?.requestedSchema) described.schema = params.requestedSchema;
  if (typeof params?.message === 'string') described.message = params.message;
  return described;
}
