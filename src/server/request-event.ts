/** The object `requestTool`, `requestPrompt`, `requestResource` and `completionComplete` listeners receive. */
import type { RequestContext } from './context.js';

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

  /** @internal */
  get response(): Result | Promise<Result> | undefined {
    return this.answer?.value;
  }
}
