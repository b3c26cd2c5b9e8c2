/**
 * Multi Round-Trip Requests (SEP-2322, 2026-07-28): a tools/call, prompts/get or resources/read can
 * answer "input required" with the questions for the client, and get the answers on a retry.
 */
import type { FormSchema } from '../elicitation/form-schema.js';
import type { CreateMessageParams, ElicitParams } from '../protocol/types.js';

export type InputMethod = 'elicitation/create' | 'sampling/createMessage' | 'roots/list';

/** One question for the client: an `elicitation/create`, `sampling/createMessage` or `roots/list` without id. */
export interface InputRequest {
  method: InputMethod;
  params?: Record<string, unknown>;
}

/** The methods input-required may answer (basic/patterns/mrtr.mdx). */
export const INPUT_METHODS: ReadonlySet<string> = new Set(['tools/call', 'prompts/get', 'resources/read']);

/**
 * The input a handler still needs. Return one from a handler (`return inputRequired(...)`), or add to
 * `ctx.inputRequired`; either way the client is asked, and the retry brings `ctx.inputResponses`.
 * `state` comes back as `ctx.requestState`, signed (and sealed if configured) inside `requestState`.
 */
export class InputRequired {
  readonly inputRequests: Record<string, InputRequest> = {};
  state: unknown;

  constructor(init: { inputRequests?: Record<string, InputRequest>; state?: unknown } = {}) {
    if (init.inputRequests) for (const [key, request] of Object.entries(init.inputRequests)) this.add(key, request);
    this.state = init.state;
  }

  get size(): number {
    return Object.keys(this.inputRequests).length;
  }

  /** A form's `requestedSchema` may be a Standard Schema: its JSON Schema is what is asked, and what the answer is checked against. */
  addElicitation(key: string, params: ElicitParams<FormSchema>): this {
    return this.add(key, { method: 'elicitation/create', params: params as unknown as Record<string, unknown> });
  }

  addSampling(key: string, params: CreateMessageParams): this {
    return this.add(key, { method: 'sampling/createMessage', params: params as unknown as Record<string, unknown> });
  }

  addRoots(key: string): this {
    return this.add(key, { method: 'roots/list', params: {} });
  }

  /** Keep `state` for the retry (`ctx.requestState`). */
  setState(state: unknown): this {
    this.state = state;
    return this;
  }

  add(key: string, request: InputRequest): this {
    if (typeof key !== 'string' || key.length === 0) throw new TypeError('An input request needs a non-empty key');
    if (request.method !== 'elicitation/create' && request.method !== 'sampling/createMessage' && request.method !== 'roots/list') {
      throw new TypeError(`Input request '${key}' has method ${JSON.stringify(request.method)}; use elicitation/create, sampling/createMessage or roots/list`);
    }
    this.inputRequests[key] = request;
    return this;
  }
}

/** `return inputRequired({ inputRequests, state })` from a handler. */
export function inputRequired(init: { inputRequests?: Record<string, InputRequest>; state?: unknown } = {}): InputRequired {
  return new InputRequired(init);
}

/**
 * What `ctx.elicit` (and `createMessage`, `listRoots`) rejects with on a 2026-07-28 request whose answer
 * has not come yet: awaiting it, the handler stops there, the client is asked, and the retry runs the
 * handler again. Let it propagate; the runtime sends input-required even if a handler catches it.
 */
export class InputRequiredSignal extends Error {
  override name = 'InputRequiredSignal';
  constructor(readonly key: string) {
    // Without a stack trace it costs a tenth as much to make.
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    super();
    Error.stackTraceLimit = limit;
  }

  /**
   * The signal as the runtime makes it on every first round: an Error by its prototype, made without the
   * Error constructor, which records where it was made even with no frames wanted (a tenth of the cost again).
   */
  static for(key: string): InputRequiredSignal {
    const signal = Object.create(InputRequiredSignal.prototype) as { name: string; key: string };
    signal.name = 'InputRequiredSignal';
    signal.key = key;
    return signal as InputRequiredSignal;
  }
}

// The runtime never reads the message: it is written only when someone does (a handler that logs what it caught).
Object.defineProperty(InputRequiredSignal.prototype, 'message', {
  configurable: true,
  get(this: InputRequiredSignal): string {
    return `input '${this.key}' is required from the client; the handler runs again with the answer (let this error propagate)`;
  },
  set(this: InputRequiredSignal, message: string) {
    Object.defineProperty(this, 'message', { value: message, writable: true, configurable: true });
  },
});

// A signal `for` made has no stack of its own: it reads as one made with no frames does, its name and message.
Object.defineProperty(InputRequiredSignal.prototype, 'stack', {
  configurable: true,
  get(this: InputRequiredSignal): string {
    return `${this.name}: ${this.message}`;
  },
  set(this: InputRequiredSignal, stack: string) {
    Object.defineProperty(this, 'stack', { value: stack, writable: true, configurable: true });
  },
});
