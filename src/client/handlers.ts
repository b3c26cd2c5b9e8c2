/**
 * What the client answers when the server asks: elicitation, sampling, roots and ping, through the
 * application's handlers. The same answer serves both eras: a reply to a pushed request (legacy), or
 * an entry of `inputResponses` (2026-07-28).
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { SafeEmitter } from '../protocol/safe-emitter.js';
import type { ClientCapabilities, CreateMessageParams, ElicitParams, ElicitUrlParams } from '../protocol/types.js';
import type { ElicitationHandler, HandlerContext, McpClientEvents, RootsHandler, SamplingHandler } from './api.js';
import { ClientElicitation } from './elicitation.js';

/** URL-mode elicitations remembered for their completion notification; the oldest are forgotten first. */
const MAX_REMEMBERED_URL_ELICITATIONS = 100;

/** What the handlers need of the client: its events. */
export type HandlerHost = Pick<SafeEmitter<McpClientEvents>, 'emit' | 'reportError'>;

export class ClientHandlers {
  elicitation: ElicitationHandler | undefined;
  sampling: SamplingHandler | undefined;
  roots: RootsHandler | undefined;
  /** What the client declared at connect. */
  declared: ClientCapabilities = {};
  private readonly elicitations = new ClientElicitation();
  private readonly urlElicitations = new Map<string, ElicitUrlParams>();

  constructor(
    private readonly host: HandlerHost,
    private readonly validateElicitation: boolean,
  ) {}

  /** The capabilities the handlers can answer: form elicitation (URL only when declared), sampling, roots. */
  derivedCapabilities(): ClientCapabilities {
    const capabilities: ClientCapabilities = {};
    if (this.elicitation) capabilities.elicitation = { form: {} };
    if (this.sampling) capabilities.sampling = {};
    if (this.roots) capabilities.roots = { listChanged: true };
    return capabilities;
  }

  /** The result for one thing the server asks; throws McpError to answer with an error. */
  async answer(method: string, params: Record<string, unknown>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    switch (method) {
      case 'ping':
        return {};
      case 'elicitation/create':
        return this.elicit(params, ctx);
      case 'sampling/createMessage': {
        const handler = this.sampling;
        if (!handler || !this.declared.sampling) throw new McpError(ErrorCode.MethodNotFound, 'Method not found: this client does not do sampling');
        this.host.emit('samplingCreateMessage', params as unknown as CreateMessageParams, ctx);
        return (await handler(params as unknown as CreateMessageParams, ctx)) as unknown as Record<string, unknown>;
      }
      case 'roots/list': {
        const handler = this.roots;
        if (!handler || !this.declared.roots) throw new McpError(ErrorCode.MethodNotFound, 'Method not found: this client has no roots');
        this.host.emit('rootsList', ctx);
        return (await handler(ctx)) as unknown as Record<string, unknown>;
      }
      default:
        throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${method}`);
    }
  }

  /** An McpError is the answer; anything else a handler threw is reported, and the server gets "Internal error". */
  errorFor(method: string, err: unknown): { code: number; message: string; data?: unknown } {
    if (err instanceof McpError) return err.toJSON();
    const error = err instanceof Error ? err : new Error(String(err));
    this.host.reportError(new Error(`The ${method} handler failed: ${error.message}`, { cause: error }));
    return { code: ErrorCode.InternalError, message: 'Internal error' };
  }

  /** The answers to a 2026-07-28 `input_required`, by key; one the client cannot give fails the call. */
  async fulfil(inputRequests: Record<string, unknown>, signal: AbortSignal | undefined, taskId?: string): Promise<Record<string, unknown>> {
    const control = new AbortController();
    const onAbort = () => control.abort(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const entries = await Promise.all(Object.entries(inputRequests).map(([key, request]) => this.fulfilOne(key, request, control.signal, taskId)));
      return Object.fromEntries(entries);
    } catch (err) {
      control.abort();
      throw err;
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  /** notifications/elicitation/complete: the URL-mode request it finishes, if the client saw it. */
  completed(elicitationId: string): ElicitUrlParams | undefined {
    const request = this.urlElicitations.get(elicitationId);
    this.urlElicitations.delete(elicitationId);
    return request;
  }

  private async fulfilOne(key: string, request: unknown, signal: AbortSignal, taskId: string | undefined): Promise<readonly [string, Record<string, unknown>]> {
    if (!isObject(request) || typeof request.method !== 'string') {
      throw new McpError(ErrorCode.InternalError, `The server's input request ${JSON.stringify(key)} has no method`);
    }
    const params = isObject(request.params) ? request.params : {};
    try {
      const ctx: HandlerContext = { signal, era: 'modern', inputKey: key, progress: noProgress };
      if (taskId !== undefined) ctx.taskId = taskId;
      return [key, await this.answer(request.method, params, ctx)];
    } catch (err) {
      const error = this.errorFor(request.method, err);
      throw new McpError(error.code, `Could not answer the server's ${request.method} (input ${JSON.stringify(key)}): ${error.message}`, error.data);
    }
  }

  private async elicit(params: Record<string, unknown>, ctx: HandlerContext): Promise<Record<string, unknown>> {
    const request = params as unknown as ElicitParams;
    this.host.emit('elicitationCreate', request, ctx);
    const elicitation = this.declared.elicitation;
    const answer = await this.elicitations.answer(
      params,
      {
        handler: this.elicitation,
        declared: { form: elicitation?.form !== undefined, url: elicitation?.url !== undefined },
        validate: this.validateElicitation,
      },
      ctx,
    );
    if (!answer.ok) {
      if (answer.cause) this.host.reportError(answer.cause);
      throw new McpError(answer.error.code, answer.error.message, answer.error.data);
    }
    if (request.mode === 'url' && typeof request.elicitationId === 'string') this.rememberUrlElicitation(request);
    return answer.result as unknown as Record<string, unknown>;
  }

  private rememberUrlElicitation(params: ElicitUrlParams): void {
    this.urlElicitations.set(params.elicitationId!, params);
    if (this.urlElicitations.size > MAX_REMEMBERED_URL_ELICITATIONS) this.urlElicitations.delete(this.urlElicitations.keys().next().value!);
  }
}

/** An input request of a 2026-07-28 round has no progress token: its progress goes nowhere. */
function noProgress(): void {}
