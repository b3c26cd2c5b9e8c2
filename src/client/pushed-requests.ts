/**
 * The requests a legacy-era server pushes (elicitation, sampling, roots, ping): each reaches the
 * application's handler with its context, and may report progress to the token it came with while it
 * is still being answered. The rpc peer sends the answer, or none when the server cancelled it.
 */
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import { type JsonRpcNotification, type JsonRpcRequest, isObject } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';
import type { HandlerContext } from './api.js';
import type { ClientHandlers } from './handlers.js';

/** What answering needs of the client. */
export interface PushedRequestHost {
  readonly handlers: ClientHandlers;
  /** Whether the server's request `id` is still being answered. */
  isServing(id: RequestId): boolean;
  /** Send a notification on the settled wire, if there still is one; a failure is reported, not thrown. */
  sendNotification(notification: JsonRpcNotification): void;
}

export class PushedRequests {
  constructor(private readonly host: PushedRequestHost) {}

  answer(request: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>> {
    const ctx: HandlerContext = { signal, era: 'legacy', requestId: request.id, progress: this.progressOf(request, signal) };
    return this.host.handlers.answer(request.method, request.params ?? {}, ctx);
  }

  errorFor(request: JsonRpcRequest, err: unknown): JsonRpcErrorObject {
    return this.host.handlers.errorFor(request.method, err);
  }

  /** How a handler reports progress on the server's `request`: to its progressToken, while the request is still being answered. */
  private progressOf(request: JsonRpcRequest, answered: AbortSignal): HandlerContext['progress'] {
    const meta = request.params?._meta;
    const token = isObject(meta) ? meta.progressToken : undefined;
    if (typeof token !== 'string' && typeof token !== 'number') return () => {};
    return (progress, total, message) => {
      if (answered.aborted || !this.host.isServing(request.id)) return;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      this.host.sendNotification({ jsonrpc: '2.0', method: 'notifications/progress', params });
    };
  }
}
