/** The object `requestTool`, `requestPrompt`, `requestResource` and `completionComplete` listeners receive. */
import type { RequestContext } from './context.js';
import type { InputRequired } from '../mrtr/input-required.js';

export class RequestEvent<Params, Result> {
  private answer: { value: Result | Promise<Result> } | undefined;

  constructor(
    readonly params: Params,
    readonly ctx: RequestContext,
  ) {}

  get id() {
    return this.ctx.requestId;
  }

  /** Whether a listener answered the request. */
  get answered(): boolean {
    return this.answer !== undefined;
  }

  /**
   * Answer the request from the listener (call it synchronously, inside the listener). The registered
   * handler, if any, then does not run; with no handler registered this is how the request gets answered.
   */
  respond(result: Result | Promise<Result>): void {
    if (this.answer) throw new Error(`request ${JSON.stringify(this.id)} was already answered by another listener`);
    this.answer = { value: result };
  }

  /**
   * Ask the client for input instead of answering (tools/call, prompts/get and resources/read): add
   * questions here, and respond with anything (or let the registered handler run). See `ctx.inputRequired`.
   */
  get inputRequired(): InputRequired {
    return this.ctx.inputRequired;
  }

  /** The client's answers to earlier input requests (`ctx.inputResponses`). */
  get inputResponses(): Readonly<Record<string, unknown>> | undefined {
    return this.ctx.inputResponses;
  }

  /** What was kept with the last input-required (`ctx.requestState`). */
  get requestState(): unknown {
    return this.ctx.requestState;
  }

  /** @internal */
  get response(): Result | Promise<Result> | undefined {
    return this.answer?.value;
  }
}
