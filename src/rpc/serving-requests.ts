/**
 * The requests from the other end that this end is still answering, by id: `notifications/cancelled`
 * finds them here (basic/utilities/cancellation), and an id still in flight is not taken twice. The
 * mirror of PendingRequests, which holds the requests this end sent.
 */
import type { RequestId } from '../protocol/types.js';

/** What answering one request can be told to stop: an AbortController, or a server's request context. */
export interface Abortable {
  abort(reason: unknown): void;
}

export class ServingRequests<Entry extends Abortable = AbortController> {
  private readonly byId = new Map<RequestId, Entry>();

  get size(): number {
    return this.byId.size;
  }

  has(id: RequestId): boolean {
    return this.byId.has(id);
  }

  add(id: RequestId, entry: Entry): void {
    this.byId.set(id, entry);
  }

  /** The request ended: its entry goes, unless a later request has taken its id since. */
  remove(id: RequestId, entry: Entry): void {
    if (this.byId.get(id) === entry) this.byId.delete(id);
  }

  /** Cancel one request: it leaves the table, then it is aborted, and it will get no response. */
  cancel(id: RequestId, reason: unknown): boolean {
    const entry = this.byId.get(id);
    if (!entry) return false;
    this.byId.delete(id);
    entry.abort(reason);
    return true;
  }

  /** The connection ended: abort every entry; `reason` may be a function, called only when there is one to abort (an Error costs its stack). */
  cancelAll(reason: unknown): void {
    if (this.byId.size === 0) return;
    if (typeof reason === 'function') reason = reason();
    const all = [...this.byId.values()];
    this.byId.clear();
    for (const entry of all) entry.abort(reason);
  }
}
