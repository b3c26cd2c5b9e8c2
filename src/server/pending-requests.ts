/**
 * The one table of server-to-client requests a session has in flight, keyed by the session's own
 * outgoing ids. Every entry ends exactly once (result, error reply, timeout, cancellation or close),
 * and leaves the table before its promise settles.
 */
import { ConnectionClosedError, type McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/types.js';

export type RequestOutcome = { ok: true; result: Record<string, unknown> } | { ok: false; error: McpError };

/** How a reply matched the table: it settled a request, came after its request ended, or matches nothing we sent. */
export type ReplyMatch = 'settled' | 'late' | 'duplicate' | 'unknown';

export interface PendingEntryOptions {
  method: string;
  timeoutMs: number;
  /** Upper bound on the whole wait when progress keeps extending it. */
  maxTotalTimeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  signal?: AbortSignal;
  onSettle(outcome: RequestOutcome): void;
}

interface Entry extends PendingEntryOptions {
  startedAt: number;
  timer: NodeJS.Timeout | undefined;
  abortListener: (() => void) | undefined;
}

/** Ids of ended requests are remembered, up to this many, to tell a late or duplicate reply from an unknown one. */
const ENDED_MEMORY = 1024;

export class PendingRequests {
  private readonly entries = new Map<RequestId, Entry>();
  private readonly ended = new Map<RequestId, 'answered' | 'abandoned'>();
  private lastId = -1;

  /**
   * @param onAbandon called when the server gives up on a request (timeout or cancellation) while the
   *   peer may still be working on it, so the session can send `notifications/cancelled`.
   */
  constructor(private readonly onAbandon: (id: RequestId, reason: string) => void) {}

  get size(): number {
    return this.entries.size;
  }

  has(id: RequestId): boolean {
    return this.entries.has(id);
  }

  method(id: RequestId): string | undefined {
    return this.entries.get(id)?.method;
  }

  /** The next outgoing id: integers from 0, never reused within the session. */
  nextId(): number {
    return ++this.lastId;
  }

  add(id: RequestId, options: PendingEntryOptions): void {
    if (this.entries.has(id)) throw new Error(`request id ${JSON.stringify(id)} is already pending; ids must not be reused`);
    const entry: Entry = { ...options, startedAt: Date.now(), timer: undefined, abortListener: undefined };
    this.entries.set(id, entry);
    if (options.signal) {
      if (options.signal.aborted) {
        // Never sent, so there is nothing to tell the peer.
        this.finish(id, 'abandoned', { ok: false, error: new RequestCancelledError(options.method, abortReason(options.signal)) });
        return;
      }
      entry.abortListener = () => this.cancel(id, abortReason(options.signal!));
      options.signal.addEventListener('abort', entry.abortListener, { once: true });
    }
    this.arm(id, entry, options.timeoutMs);
  }

  /** Settle a request with the peer's reply. */
  reply(id: RequestId, outcome: RequestOutcome): ReplyMatch {
    if (this.finish(id, 'answered', outcome)) return 'settled';
    const ended = this.ended.get(id);
    if (ended === 'abandoned') return 'late';
    if (ended === 'answered') return 'duplicate';
    return 'unknown';
  }

  /** Progress from the peer: extends the timeout when the request asked for it, within its overall cap. */
  progress(id: RequestId): void {
    const entry = this.entries.get(id);
    if (!entry?.resetTimeoutOnProgress) return;
    const cap = entry.maxTotalTimeoutMs;
    const remaining = cap === undefined ? entry.timeoutMs : Math.min(entry.timeoutMs, cap - (Date.now() - entry.startedAt));
    this.arm(id, entry, Math.max(0, remaining));
  }

  /** Cancel one request from our side; the peer is told with `notifications/cancelled`. */
  cancel(id: RequestId, reason?: string): boolean {
    const method = this.entries.get(id)?.method;
    if (method === undefined) return false;
    this.finish(id, 'abandoned', { ok: false, error: new RequestCancelledError(method, reason) });
    this.onAbandon(id, reason ?? 'cancelled by the server');
    return true;
  }

  /** End one request locally with `error`, without telling the peer (e.g. the message could not be sent). */
  fail(id: RequestId, error: McpError): boolean {
    return this.finish(id, 'abandoned', { ok: false, error });
  }

  /** End everything still pending: the session or its transport is gone. */
  closeAll(reason: string): void {
    for (const [id, entry] of [...this.entries]) {
      this.finish(id, 'abandoned', { ok: false, error: new ConnectionClosedError(entry.method, reason) });
    }
  }

  private arm(id: RequestId, entry: Entry, ms: number): void {
    if (entry.timer) clearTimeout(entry.timer);
    entry.timer = setTimeout(() => {
      if (this.finish(id, 'abandoned', { ok: false, error: new RequestTimeoutError(entry.method, entry.timeoutMs) })) {
        this.onAbandon(id, `timed out after ${entry.timeoutMs} ms`);
      }
    }, ms);
    entry.timer.unref?.();
  }

  private finish(id: RequestId, how: 'answered' | 'abandoned', outcome: RequestOutcome): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    // Remove before settling, so whatever the settle callback does sees a consistent table.
    this.entries.delete(id);
    this.remember(id, how);
    if (entry.timer) clearTimeout(entry.timer);
    if (entry.abortListener) entry.signal?.removeEventListener('abort', entry.abortListener);
    entry.onSettle(outcome);
    return true;
  }

  private remember(id: RequestId, how: 'answered' | 'abandoned'): void {
    this.ended.set(id, how);
    if (this.ended.size > ENDED_MEMORY) this.ended.delete(this.ended.keys().next().value as RequestId);
  }
}

export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'aborted';
}
