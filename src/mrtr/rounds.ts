/**
 * Running a handler that may need input, in either era. 2026-07-28: answers come in the retry's
 * `inputResponses`, what the handler still needs goes out as input-required, and everything between
 * rounds rides in a signed `requestState`. Handshake era: `ctx.elicit` pushes requests itself, and an
 * input-required a handler returns is fulfilled by pushing its requests and running the handler again.
 */
import { supportsElicitationMode } from '../protocol/capabilities.js';
import {
  ElicitationNotSupportedError,
  ErrorCode,
  McpError,
  RootsNotSupportedError,
  SamplingNotSupportedError,
  UrlElicitationRequiredError,
} from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import type { ClientCapabilities, ElicitParams } from '../protocol/types.js';
import type { RequestContext } from '../server/context.js';
import type { McpServer } from '../server/mcp-server.js';
import { InputRequired, type InputMethod, type InputRequest } from './input-required.js';
import { digest, type StateBinding, type StatePayload } from './request-state.js';
import { checkFormSchema, readElicitResult } from '../elicitation/elicit.js';
import { rootsKind } from '../server/roots.js';
import { samplingKind } from '../server/sampling.js';
import { principalKey, UNKEYED_PRINCIPAL } from '../server/principal.js';
import { errorResult } from '../server/tools.js';

/** One round of input for one request: the answers so far, and what the handler asks next. */
export class InputRound {
  /** Keys for asks without an explicit key count up in call order, so a replay finds its answers. */
  private counter = 0;
  pending: InputRequired | undefined;

  constructor(
    private readonly server: McpServer,
    /** Validated answers, by key, from this and earlier rounds. */
    readonly answers: Record<string, unknown>,
    /** The handler's state from the previous round. */
    readonly state: unknown,
    /** What earlier rounds asked, by key. */
    readonly asked: StatePayload['asked'],
    readonly round: number,
    /** This retry's inputResponses, as sent. */
    private readonly responses: Record<string, unknown> | undefined = undefined,
  ) {}

  nextKey(prefix: string): string {
    return `${prefix}-${++this.counter}`;
  }

  /**
   * The answer to `request` under `key`: from earlier rounds, or from this retry's inputResponses if it
   * fits the question being asked now (a client may answer without echoing requestState).
   */
  answer(key: string, request: InputRequest): unknown {
    const known = this.answers[key];
    if (known !== undefined && sameQuestion(this.asked[key], describeRequest(request))) return known;
    const raw = this.responses?.[key];
    if (raw === undefined) return undefined;
    const answer = validAnswer(this.server, describeRequest(request), raw);
    if (answer !== undefined) this.answers[key] = answer;
    return answer;
  }

  ask(key: string, request: InputRequest): void {
    (this.pending ??= new InputRequired()).add(key, request);
  }
}

const KEY_PREFIX: Record<InputMethod, string> = { 'elicitation/create': 'elicit', 'sampling/createMessage': 'sample', 'roots/list': 'roots' };

export function keyPrefix(method: InputMethod): string {
  return KEY_PREFIX[method];
}

/**
 * Checks before a question goes out: a form must lie in the elicitation subset (a TypeError naming the
 * property), and only kinds the request's clientCapabilities declare may be asked (mrtr.mdx).
 */
export function checkInputRequest(server: McpServer, capabilities: ClientCapabilities, request: InputRequest): void {
  if (request.method === 'elicitation/create' && (request.params as { mode?: string } | undefined)?.mode !== 'url') {
    checkFormSchema(server, (request.params as { requestedSchema?: unknown } | undefined)?.requestedSchema);
  }
  checkInputCapability(capabilities, request);
}

/** Capability gating (mrtr.mdx): only kinds the request's clientCapabilities declare may be asked. */
function checkInputCapability(capabilities: ClientCapabilities, request: InputRequest): void {
  if (request.method === 'elicitation/create') {
    const mode = (request.params as { mode?: string } | undefined)?.mode === 'url' ? 'url' : 'form';
    if (!supportsElicitationMode(capabilities, mode)) throw new ElicitationNotSupportedError(mode);
  } else if (request.method === 'sampling/createMessage') {
    if (!isObject(capabilities.sampling)) throw new SamplingNotSupportedError();
    const params = request.params as { tools?: unknown; toolChoice?: unknown } | undefined;
    if ((params?.tools !== undefined || params?.toolChoice !== undefined) && !isObject(capabilities.sampling.tools))
      throw new SamplingNotSupportedError('sampling.tools');
  } else if (!isObject(capabilities.roots)) {
    throw new RootsNotSupportedError();
  }
}

/** Is `answer` a well-formed result for what was asked? Elicitation content must fit the schema asked. */
function validAnswer(server: McpServer, asked: { method: string; schema?: object }, answer: unknown): unknown {
  if (!isObject(answer)) return undefined;
  // The same checks as for a pushed request's result; an answer that fails them is asked again.
  try {
    if (asked.method === 'elicitation/create') {
      const validate = asked.schema && server.options.validateElicitationResponses ? server.schemas.compile(asked.schema) : undefined;
      return readElicitResult(answer, asked.schema, validate);
    }
    return (asked.method === 'sampling/createMessage' ? samplingKind : rootsKind).interpret(server, answer, {} as never);
  } catch {
    return undefined;
  }
}

/** An earlier answer stands only for the same question: the same method and, for a form, the same schema. */
function sameQuestion(asked: { method: string; schema?: object } | undefined, now: { method: string; schema?: object }): boolean {
  return asked !== undefined && asked.method === now.method && JSON.stringify(asked.schema) === JSON.stringify(now.schema);
}

/** A question as requestState remembers it: its method, and a form's schema, which answers must fit. */
function describeRequest(request: InputRequest): { method: string; schema?: object } {
  const params = request.params as { mode?: string; requestedSchema?: object } | undefined;
  const schema = request.method === 'elicitation/create' && params?.mode !== 'url' ? params?.requestedSchema : undefined;
  return schema ? { method: request.method, schema } : { method: request.method };
}

function describeAsked(pending: InputRequired): StatePayload['asked'] {
  const asked: StatePayload['asked'] = {};
  for (const [key, request] of Object.entries(pending.inputRequests)) asked[key] = describeRequest(request);
  return asked;
}

/** 2026-07-28 has no elicitationId: a URL question goes out without one. */
function wireRequests(pending: InputRequired): Record<string, InputRequest> {
  const out: Record<string, InputRequest> = {};
  for (const [key, request] of Object.entries(pending.inputRequests)) {
    if (request.method === 'elicitation/create' && (request.params as ElicitParams | undefined)?.mode === 'url') {
      const { elicitationId: _dropped, ...params } = request.params as Record<string, unknown>;
      out[key] = { method: request.method, params };
    } else {
      out[key] = request;
    }
  }
  return out;
}

function principalDigest(principal: unknown): string {
  const key = principalKey(principal);
  // Fail closed: a principal that serialises to {} would make every user's state interchangeable.
  if (key === undefined) throw new McpError(ErrorCode.InternalError, `Cannot bind requestState: ${UNKEYED_PRINCIPAL}`);
  return digest(key);
}

export interface InputTarget {
  method: 'tools/call' | 'prompts/get' | 'resources/read';
  /** The tool or prompt name, or the resource URI. */
  target: string;
  /** What the request's answers are bound to (the tool or prompt arguments). */
  arguments: unknown;
}

function roundsExceeded(target: InputTarget, max: number): McpError {
  return new McpError(
    ErrorCode.InvalidParams,
    `${target.method} ${target.target} asked for input ${max} times without finishing; answer every input request in one retry, or raise requestState.maxRounds`,
  );
}

/**
 * Run `invoke` for a request that may need input. On a 2026-07-28 request this reads the retry's
 * `requestState` and `inputResponses` first, and answers input-required when the handler asked for
 * something it has no answer to yet; in the handshake era it fulfils an explicit input-required by
 * pushing the requests to the client and running the handler again.
 */
export async function runWithInput<R>(
  server: McpServer,
  ctx: RequestContext,
  params: Record<string, unknown>,
  target: InputTarget,
  invoke: () => Promise<R | InputRequired>,
): Promise<R | Record<string, unknown>> {
  return ctx.session.era === 'modern' ? runModernRound(server, ctx, params, target, invoke) : runLegacyRounds(server, ctx, target, invoke);
}

async function runModernRound<R>(
  server: McpServer,
  ctx: RequestContext,
  params: Record<string, unknown>,
  target: InputTarget,
  invoke: () => Promise<R | InputRequired>,
) {
  const codec = server.requestStates;
  // Hashing the arguments is only needed when state comes in or goes out: most calls need neither.
  const binding = (): StateBinding => ({
    method: target.method,
    target: target.target,
    argumentsDigest: digest(target.arguments ?? {}),
    principalDigest: principalDigest(ctx.session.principal),
  });
  const previous = params.requestState === undefined ? undefined : await codec.open(params.requestState, binding());
  const answers: Record<string, unknown> = { ...previous?.answers };
  const responses = params.inputResponses;
  if (previous && isObject(responses)) {
    // Only what the last round asked counts; extra keys are ignored, and an answer that does not fit is asked again.
    for (const key of previous.last ?? []) {
      const asked = previous.asked?.[key];
      const answer = asked && validAnswer(server, asked, responses[key]);
      if (answer !== undefined) answers[key] = answer;
    }
  }
  const round = new InputRound(server, answers, previous?.state, previous?.asked ?? {}, previous?.round ?? 0, isObject(responses) ? responses : undefined);
  ctx.input = round;
  let result: R | InputRequired | undefined;
  let failure: unknown;
  try {
    result = await invoke();
  } catch (err) {
    failure = err;
  }
  // -32042 does not exist in 2026-07-28: the URL elicitations it names are asked as input instead.
  if (failure instanceof UrlElicitationRequiredError) {
    for (const e of failure.elicitations) round.ask(e.elicitationId, { method: 'elicitation/create', params: { mode: 'url', message: e.message, url: e.url } });
    failure = undefined;
  }
  const explicit = result instanceof InputRequired;
  if (result instanceof InputRequired) {
    const pending = (round.pending ??= new InputRequired());
    for (const [key, request] of Object.entries(result.inputRequests)) pending.add(key, request);
    if (result.state !== undefined) pending.state = result.state;
  }
  const pending = round.pending;
  // An explicit input-required may carry state alone: "not done yet, come back" (mrtr.mdx).
  if (!pending || (pending.size === 0 && !(explicit && pending.state !== undefined))) {
    if (failure !== undefined) throw failure;
    if (explicit)
      throw new McpError(ErrorCode.InternalError, `${target.method} ${target.target} returned an input-required with neither input requests nor state`);
    return result as R;
  }
  if (round.round + 1 > codec.maxRounds) throw roundsExceeded(target, codec.maxRounds);
  for (const request of Object.values(pending.inputRequests)) checkInputRequest(server, ctx.session.clientCapabilities, request);
  const requestState = codec.mint({
    binding: binding(),
    round: round.round + 1,
    asked: { ...round.asked, ...describeAsked(pending) },
    last: Object.keys(pending.inputRequests),
    answers,
    state: pending.state !== undefined ? pending.state : round.state,
  });
  return pending.size === 0
    ? { resultType: 'input_required', requestState }
    : { resultType: 'input_required', inputRequests: wireRequests(pending), requestState };
}

async function runLegacyRounds<R>(server: McpServer, ctx: RequestContext, target: InputTarget, invoke: () => Promise<R | InputRequired>) {
  let round = new InputRound(server, {}, undefined, {}, 0);
  for (;;) {
    ctx.input = round;
    const result = await invoke();
    const explicit = result instanceof InputRequired;
    const pending = explicit ? result : round.pending;
    if (!pending || (pending.size === 0 && !explicit)) return result as R;
    if (pending.size === 0 && pending.state === undefined) {
      throw new McpError(ErrorCode.InternalError, `${target.method} ${target.target} returned an input-required with neither input requests nor state`);
    }
    if (round.round + 1 > server.requestStates.maxRounds) throw roundsExceeded(target, server.requestStates.maxRounds);
    // The handshake era can push: ask the client for everything at once, then run the handler again.
    const entries = Object.entries(pending.inputRequests);
    let answers: unknown[];
    try {
      for (const [, request] of entries) checkInputRequest(server, ctx.session.clientCapabilities, request);
      answers = await Promise.all(entries.map(([, request]) => push(ctx, request)));
    } catch (err) {
      // In a tool, failing to ask is a tool failure, as when ctx.elicit fails inside it (SEP-1303).
      if (target.method === 'tools/call' && !(err instanceof McpError && err.code === ErrorCode.UrlElicitationRequired)) {
        return errorResult(err instanceof Error ? err.message : String(err)) as R;
      }
      throw err;
    }
    round = new InputRound(server, Object.fromEntries(entries.map(([key], i) => [key, answers[i]])), pending.state, describeAsked(pending), round.round + 1);
  }
}

function push(ctx: RequestContext, request: InputRequest): Promise<unknown> {
  const session = ctx.session;
  const options = { relatedRequestId: ctx.requestId, cancelWith: ctx };
  if (request.method === 'elicitation/create') return session.elicit(request.params as unknown as ElicitParams, options);
  if (request.method === 'sampling/createMessage') return session.createMessage(request.params as never, options);
  return session.listRoots(options);
}
