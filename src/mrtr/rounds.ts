/**
 * Running a handler that may need input, in either era. 2026-07-28: answers come in the retry's
 * `inputResponses`, what the handler still needs goes out as input-required, and everything between
 * rounds rides in a signed `requestState`. Legacy era: `ctx.elicit` pushes requests itself, and an
 * input-required a handler returns is fulfilled by pushing its requests and running the handler again.
 */
import { type ClientOutcome, type ClientRequestKind, type KindContext, toClientResponse } from '../elicitation/kind.js';
import { ErrorCode, McpError, UrlElicitationRequiredError } from '../protocol/errors.js';
import { isEmptyRecord, isObject } from '../protocol/jsonrpc.js';
import { quote } from '../protocol/quote.js';
import { NO_PRINCIPAL_KEY, principalKey, UNKEYED_PRINCIPAL } from '../protocol/principal.js';
import { errorResult } from '../protocol/results.js';
import type { ClientCapabilities, ElicitParams } from '../protocol/types.js';
import {
  asMcpError,
  describeRequest,
  InputRound,
  KINDS,
  notAnObject,
  type AnswerListener,
  type HeldAnswer,
  type RoundHolder,
  wasPrepared,
} from './input-round.js';
import { InputRequired, type InputMethod, type InputRequest } from './input-required.js';
import { type AskedQuestion, bindingDigest, type RequestStateCodec, type StateBinding, type StatePayload } from './request-state.js';

const NOTHING: Record<string, never> = Object.freeze({});

/** What the rounds need from the server. */
export interface RoundsContext {
  readonly kinds: KindContext;
  readonly codec: RequestStateCodec;
  /** The input rounds one request may take (the server's `maxRounds`). */
  readonly maxRounds: number;
}

/**
 * A question as it goes out, after the checks a pushed request has: a form must lie in the elicitation
 * subset (a Standard schema is its JSON Schema from here on), and only kinds the request's
 * clientCapabilities declare may be asked (mrtr.mdx).
 */
function preparedRequests(kinds: KindContext, capabilities: ClientCapabilities, requests: Record<string, InputRequest>): Record<string, InputRequest> {
  const out: Record<string, InputRequest> = {};
  for (const key in requests) {
    const request = requests[key];
    // A question ctx.elicit asked was checked as it was asked.
    if (wasPrepared(request)) {
      out[key] = request;
      continue;
    }
    const given = request.params ?? {};
    const params = KINDS[request.method].prepare(kinds, capabilities, given as never) as Record<string, unknown>;
    out[key] = params === given ? request : { method: request.method, params };
  }
  return out;
}

/**
 * How the client answered what was asked: the typed result, or why it is none (then it is asked again).
 * The same reading as a pushed request's result.
 */
function readAnswer(kinds: KindContext, asked: AskedQuestion, answer: unknown): ClientOutcome<unknown> | Promise<ClientOutcome<unknown>> {
  const kind = KINDS[asked.method as InputMethod];
  if (!kind) return { ok: false, error: new McpError(ErrorCode.InvalidParams, `Invalid params: nothing was asked with ${quote(asked.method)}`) };
  if (!isObject(answer)) return { ok: false, error: notAnObject(asked.method) };
  // A URL-mode question has no schema, and its answer no content.
  const params = asked.method === 'elicitation/create' ? (asked.schema ? { requestedSchema: asked.schema } : { mode: 'url' }) : {};
  let result: unknown;
  try {
    result = kind.interpret(kinds, answer, params as never);
  } catch (err) {
    return { ok: false, error: asMcpError(err) };
  }
  return result instanceof Promise
    ? result.then(
        (read) => ({ ok: true, result: read }),
        (err) => ({ ok: false, error: asMcpError(err) }),
      )
    : { ok: true, result };
}

/** Where the response events go: the server's emitter, as the rounds see it. */
export interface AnswerEvents {
  listening(event: string): boolean;
  emit(event: string, ...args: unknown[]): boolean;
}

/** The request a response event names for an input request: its key as id, and the params requestState kept. */
export function askedRequest(key: string, asked: AskedQuestion): { jsonrpc: '2.0'; id: string; method: string; params: Record<string, unknown> } {
  const params: Record<string, unknown> = {};
  if (asked.method === 'elicitation/create') {
    if (asked.url !== undefined) params.mode = 'url';
    if (asked.message !== undefined) params.message = asked.message;
    if (asked.url !== undefined) params.url = asked.url;
    if (asked.schema !== undefined) params.requestedSchema = asked.schema;
  }
  return { jsonrpc: '2.0', id: key, method: asked.method, params };
}

/**
 * Each answer a 2026-07-28 retry brings, told on the same response event as a pushed request's reply
 * (`responseElicitationCreate`, ...): the request is the input request, its key as id; a malformed
 * answer is an error outcome (and is asked again). Only when anyone listens.
 */
export function answerReporter(events: AnswerEvents, session: unknown): AnswerListener {
  return (key, asked, outcome) => {
    const kind = KINDS[asked.method as InputMethod];
    if (!kind?.event || !events.listening(kind.event)) return;
    events.emit(kind.event, session, askedRequest(key, asked), toClientResponse(kind.fields, outcome as ClientOutcome<object>));
  };
}

/** What requestState keeps of each question: a form `ctx.elicit` asked by its digest, the rest as described. */
function describeAsked(requests: Record<string, InputRequest>, remembered?: ReadonlyMap<InputRequest, AskedQuestion>): StatePayload['asked'] {
  const asked: StatePayload['asked'] = {};
  for (const key in requests) asked[key] = remembered?.get(requests[key]) ?? describeRequest(requests[key]);
  return asked;
}

/** 2026-07-28 has no elicitationId: a URL question goes out without one. */
function wireRequests(requests: Record<string, InputRequest>): Record<string, InputRequest> {
  const out: Record<string, InputRequest> = {};
  for (const key in requests) {
    const request = requests[key];
    if (request.method === 'elicitation/create' && (request.params as ElicitParams | undefined)?.mode === 'url') {
      const { elicitationId: _dropped, ...params } = request.params as Record<string, unknown>;
      out[key] = { method: request.method, params };
    } else {
      out[key] = request;
    }
  }
  return out;
}

/** What a request's state is bound to: the request and who sends it. */
function binding(target: InputTarget, principal: unknown): StateBinding {
  // Most requests come with no principal: their key is known without looking.
  const key = principal === undefined ? NO_PRINCIPAL_KEY : principalKey(principal);
  // Fail closed: a principal that serialises to {} would make every user's state interchangeable.
  if (key === undefined) throw new McpError(ErrorCode.InternalError, `Cannot bind requestState: ${UNKEYED_PRINCIPAL}`);
  return bindingDigest({ method: target.method, target: target.target, arguments: target.arguments, principalKey: key });
}

export interface InputTarget {
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** What the request's answers are bound to (the tool or prompt arguments). */
  arguments: unknown;
}

/** The request a round belongs to: what it sent, who sent it, and what its client declared. */
export interface RoundRequest {
  params: Record<string, unknown>;
  capabilities: ClientCapabilities;
  principal: unknown;
  /** Where each answer this retry brings to what the last round asked is told, read (a result, or why it is none)... */
  events?: AnswerEvents | undefined;
  /** ...and whose it is. */
  session?: unknown;
}

function roundsExceeded(target: InputTarget, max: number): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `${target.method} ${target.target} asked for input ${max} times without finishing; answer every input request in one retry, or raise the server's maxRounds`,
  );
}

function emptyInputRequired(target: InputTarget): McpError {
  return new McpError(ErrorCode.InternalError, `${target.method} ${target.target} returned an input-required with neither input requests nor state`);
}

/**
 * 2026-07-28: run `invoke` once. The retry's `requestState` and `inputResponses` are read first; when
 * the handler asks for something it has no answer to yet, the result is input-required, with the state
 * for the next round.
 */
export async function runModernRound<R>(
  rc: RoundsContext,
  holder: RoundHolder,
  request: RoundRequest,
  target: InputTarget,
  invoke: () => Promise<R | InputRequired>,
): Promise<R | Record<string, unknown>> {
  const { codec, kinds } = rc;
  const { params } = request;
  // Hashing the arguments is only needed when state comes in or goes out (most calls need neither), and once at most.
  const bound = params.requestState === undefined ? undefined : binding(target, request.principal);
  const opened = bound === undefined ? undefined : codec.read(params.requestState, bound);
  const previous = opened instanceof Promise ? await opened : opened;
  const answers: Record<string, unknown> = { ...previous?.answers };
  const held = new Map<string, HeldAnswer>();
  if (previous?.unread) {
    for (const [key, answer] of Object.entries(previous.unread)) {
      const asked = previous.asked?.[key];
      if (asked?.form !== undefined) held.set(key, { asked, answer, carried: true });
    }
  }
  const responses = params.inputResponses;
  // Only a retry brings answers to tell.
  const onAnswer = previous && request.events ? answerReporter(request.events, request.session) : undefined;
  if (previous && isObject(responses)) {
    // Only what the last round asked counts; extra keys are ignored, and an answer that does not fit is asked again.
    for (const key of previous.last ?? []) {
      const asked = previous.asked?.[key];
      if (!asked || !Object.hasOwn(responses, key)) continue;
      // A form ctx.elicit asked is read when the replayed handler asks it again: only that brings its schema.
      if (asked.form !== undefined) {
        held.set(key, { asked, answer: responses[key] });
        continue;
      }
      const read = readAnswer(kinds, asked, responses[key]);
      const outcome = read instanceof Promise ? await read : read;
      if (outcome.ok) answers[key] = outcome.result;
      onAnswer?.(key, asked, outcome);
    }
  }
  const round = new InputRound(
    kinds,
    answers,
    previous?.state,
    previous?.asked ?? {},
    previous?.round ?? 0,
    isObject(responses) ? responses : undefined,
    held,
    onAnswer,
    holder,
  );
  holder.input = round;
  let result: R | InputRequired | undefined;
  let failure: unknown;
  try {
    result = await invoke();
  } catch (err) {
    failure = err;
  }
  const ending = round.end();
  if (ending) await ending;
  // -32042 does not exist in 2026-07-28: the URL elicitations it names are asked as input instead.
  if (failure instanceof UrlElicitationRequiredError) {
    for (const e of failure.elicitations) round.ask(e.elicitationId, { method: 'elicitation/create', params: { mode: 'url', message: e.message, url: e.url } });
    failure = undefined;
  }
  const explicit = result instanceof InputRequired;
  if (result instanceof InputRequired) {
    const pending = (round.pending ??= new InputRequired());
    for (const [key, asked] of Object.entries(result.inputRequests)) pending.add(key, asked);
    if (result.state !== undefined) pending.state = result.state;
  }
  const pending = round.pending;
  // An explicit input-required may carry state alone: "not done yet, come back" (mrtr.mdx).
  if (!pending || (pending.size === 0 && !(explicit && pending.state !== undefined))) {
    round.tellUnread();
    if (failure !== undefined) throw failure;
    if (explicit) throw emptyInputRequired(target);
    return result as R;
  }
  let asking: Record<string, InputRequest>;
  try {
    if (round.round + 1 > rc.maxRounds) throw roundsExceeded(target, rc.maxRounds);
    asking = preparedRequests(kinds, request.capabilities, pending.inputRequests);
  } catch (err) {
    round.tellUnread();
    throw err;
  }
  const unread = round.carryUnread(asking);
  const described = describeAsked(asking, round.remembered);
  // A first round has asked nothing before: what it asks now is all there is to remember (no copy).
  const asked = isEmptyRecord(round.asked) && isEmptyRecord(round.read) ? described : { ...round.asked, ...round.read, ...described };
  const requestState = codec.mint({
    binding: bound ?? binding(target, request.principal),
    round: round.round + 1,
    asked,
    last: Object.keys(asking),
    answers,
    unread,
    state: pending.state !== undefined ? pending.state : round.state,
  });
  return pending.size === 0
    ? { resultType: 'input_required', requestState }
    : { resultType: 'input_required', inputRequests: wireRequests(asking), requestState };
}

/** A legacy-era request's first round: nothing answered yet (pushed rounds share the empties). */
export function firstPushedRound(rc: RoundsContext): InputRound {
  return new InputRound(rc.kinds, NOTHING, undefined, NOTHING, 0);
}

/**
 * Legacy era, after a handler's first run answered `result`: while it answers input-required (returned,
 * or asked through the round `holder` holds), push its questions (`push`), then run it again with the
 * answers. `ctx.elicit` pushes by itself; this serves the explicit form.
 */
export async function pushRounds<R>(
  rc: RoundsContext,
  holder: RoundHolder,
  capabilities: ClientCapabilities,
  target: InputTarget,
  invoke: () => Promise<R | InputRequired>,
  push: (request: InputRequest, key: string) => Promise<unknown>,
  result: R | InputRequired,
): Promise<R | Record<string, unknown>> {
  for (;;) {
    const round = holder.input;
    const explicit = result instanceof InputRequired;
    const pending: InputRequired | undefined = result instanceof InputRequired ? result : round?.pending;
    if (!pending || (pending.size === 0 && !explicit)) return result as R;
    if (pending.size === 0 && pending.state === undefined) throw emptyInputRequired(target);
    const number = round?.round ?? 0;
    if (number + 1 > rc.maxRounds) throw roundsExceeded(target, rc.maxRounds);
    // The legacy era can push: ask the client for everything at once, then run the handler again.
    let asking: Record<string, InputRequest>;
    let entries: [string, InputRequest][];
    let answers: unknown[];
    try {
      asking = preparedRequests(rc.kinds, capabilities, pending.inputRequests);
      entries = Object.entries(asking);
      answers = await Promise.all(entries.map(([key, request]) => push(request, key)));
    } catch (err) {
      // In a tool, failing to ask is a tool failure, as when ctx.elicit fails inside it (SEP-1303).
      if (target.method === 'tools/call' && !(err instanceof McpError && err.code === ErrorCode.UrlElicitationRequired)) {
        return errorResult(err instanceof Error ? err.message : String(err)) as R;
      }
      throw err;
    }
    holder.input = new InputRound(rc.kinds, Object.fromEntries(entries.map(([key], i) => [key, answers[i]])), pending.state, describeAsked(asking), number + 1);
    result = await invoke();
  }
}

/** The kind that asks `method` (elicitation/create, sampling/createMessage or roots/list). */
export function inputKind(method: InputMethod): ClientRequestKind<never, unknown> {
  return KINDS[method];
}
