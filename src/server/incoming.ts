/**
 * The client requests a session is handling, by id: for `notifications/cancelled` and the rule that an id
 * in flight is not reused. The mirror of PendingRequests, which holds the requests we sent.
 */
import type { RequestId } from '../protocol/types.js';
import type { Context } from './context.js';

export class IncomingRequests {
  private readonly byId = new Map<RequestId, Context>();

  get size(): number {
    return this.byId.size;
  }

  has(id: RequestId): boolean {
    return this.byId.has(id);
  }

  add(ctx: Context): void {
    this.byId.set(ctx.requestId, ctx);
  }

  remove(ctx: Context): void {
    if (this.byId.get(ctx.requestId) === ctx) this.byId.delete(ctx.requestId);
  }

  /** Cancel one request: its handler's signal aborts, and it will get no response. */
  cancel(id: RequestId, reason: Error): boolean {
    const ctx = this.byId.get(id);
    if (!ctx) return false;
    this.byId.delete(id);
    ctx.abort(reason);
    return true;
  }

  cancelAll(reason: Error): void {
    const all = [...this.byId.values()];
    this.byId.clear();
    for (const ctx of all) ctx.abort(reason);
  }
}
