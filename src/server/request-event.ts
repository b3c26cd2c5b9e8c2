/** The object `requestTool`, `requestPrompt`, `requestResource` and `requestCompletion` listeners receive. */
import type { InputRequired } from '../mrtr/input-required.js';
import type { RequestId } from '../protocol/types.js';
import type { RequestContext, RequestEvent } from './api.js';

export class ListenerRequest<Params, Result> implements RequestEvent<Params, Result> {
  private reply: { value: Result | Promise<Result> } | undefined;

  constructor(
    readonly params: Params,
    readonly ctx: RequestContext,
  ) {}

  get id(): RequestId {
    return this.ctx.requestId;
  }

  get answered(): boolean {
    return this.reply !== undefined;
  }

  respond(result: Result | Promise<Result>): void {
    if (this.reply) throw new Error(`request ${JSON.stringify(this.id)} was already answered by another listener`);
    this.reply = { value: result };
  }

  get inputRequired(): InputRequired {
    return this.ctx.inputRequired;
  }

  get inputResponses(): Readonly<Record<string, unknown>> | undefined {
    return this.ctx.inputResponses;
  }

  get requestState(): unknown {
    return this.ctx.requestState;
  }

  /** What a listener answered with, if one did. */
  get response(): Result | Promise<Result> | undefined {
    return this.reply?.value;
  }
}
