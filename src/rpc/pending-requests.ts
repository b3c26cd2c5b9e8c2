/**
 * The one table of the requests one end has sent and not seen end, keyed by its own outgoing ids: a
 * server session's requests to its client, and the client's to its server. Every entry ends exactly
 * once (result, error reply, timeout, cancellation or close), and leaves the table before it settles.
 * A reply whose reading is async (a form's own check) keeps its entry here until the reading ends, so
 * the deadline, cancellation and close still reach it.
 */
import { ConnectionClosedError, type McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/types.js';
import { abortReason } from './abort-reason.js';
import { Deadline, Deadlines, monotonicNow } from './deadlines.js';

/**
 * The ids one end gives its own requests: integers counted up, never reused on one connection, so an
 * answer can be told from one to a request this end never sent.
 */
export class RequestIds {
  private last: number;

  /** @param first the first id given (a server's sessions count from 0, the client from 1). */
  constructor(private readonly first = 0) {
    this.last = first - 1;
  }

  next(): number {
    return ++this.last;
  }

  /** Whether `id` is one this allocator gave out. */
  issued(id: RequestId): boolean {
    return typeof id === 'number' && Number.isInteger(id) && id >= this.first && id <= this.last;
  }
}

export type RequestOutcome<Result = Record<string, unknown>> = { ok: true; result: Result } | { ok: false; error: McpError };

/** How a reply matched the table: it settled a request, came after its request ended, or matches nothing we sent. */
export type ReplyMatch = 'settled' | 'late' | 'duplicate' | 'unknown';

export interface PendingEntryOptions {
  method: string;
  timeoutMs: number;
  /** Upper bound on the whole wait when progress keeps extending it. */
  maxTotalTimeoutMs?: number;
  resetTimeoutOnProgress?: boolean;
  signal?: AbortSignal;
  /** Reads a reply's result into what the request settles with; a promise it returns never rejects. */
  read?(result: Record<string, unknown>): RequestOutcome<unknown> | Promise<RequestOutcome<unknown>>;
  onSettle(outcome: RequestOutcome<unknown>): void;
  /** This request was given up (timeout, cancellation) while the peer may still be working on it: how the peer is told. */
  onAbandon?(reason: string): void;
}

class Entry extends Deadline {
  readonly startedAt = monotonicNow();
  /** The deadline set last is the overall cap (`maxTotalTimeoutMs`), not the timeout. */
  capped = false;
  /** The peer replied and its result is being read: a second reply is a duplicate, and the peer is not told of an ending. */
  reading = false;
  abortListener: (() => void) | undefined = undefined;

  constructor(
    readonly id: RequestId,
    readonly options: PendingEntryOptions,
    private readonly table: PendingRequests,
  ) {
    super();
  }

  due(): void {
    this.table.timedOut(this);
  }
}

/** Ids of ended requests are remembered, up to this many, to tell a late or duplicate reply from an unknown one. */
const ENDED_MEMORY = 1024;

export class PendingRequests {
  private readonly entries = new Map<RequestId, Entry>();
  /** Ids of ended requests, in two generations: the current one, and the one before it. */
  private ended = new Map<RequestId, 'answered' | 'abandoned'>();
  private endedBefore = new Map<RequestId, 'answered' | 'abandoned'>();

  /**
   * @param onAbandon called when this end gives up on a request (timeout or cancellation) while the
   *   peer may still be working on it, so it can send `notifications/cancelled` (after the entry's own `onAbandon`).
   */
  constructor(
    private readonly onAbandon: (id: RequestId, reason: string, entry: PendingEntryOptions) => void = () => {},
    /** Where the timeouts wait: shared by every session of a server, so they take one timer. */
    private readonly deadlines: Deadlines = new Deadlines(),
    private readonly ids: RequestIds = new RequestIds(),
  ) {}

  get size(): number {
    return this.entries.size;
  }

  has(id: RequestId): boolean {
    return this.entries.has(id);
  }

  method(id: RequestId): string | undefined {
    return this.entries.get(id)?.options.method;
  }

  /** The entries still pending, as [id, options] (a copy: ending one while iterating is fine). */
  pending(): [RequestId, PendingEntryOptions][] {
    return Array.from(this.entries, ([id, entry]) => [id, entry.options]);
  }

  /** The next outgoing id: integers counted up (a session's from 0), never reused on this table. */
  nextId(): number {
    return this.ids.next();
  }

  /** Whether `id` was ever given out here: an `unknown` reply to one that was is merely older than the memory of ended ids. */
  issued(id: RequestId): boolean {
    return this.ids.issued(id);
  }

  /**
   * Add a request about to go out. False when it ended before it could: its signal had aborted, or
   * `cancelledBefore` says why (the request it was made for was cancelled). It then settles as cancelled
   * in a microtask, after the caller has its id, and nothing goes out, so nobody is told.
   */
  add(id: RequestId, options: PendingEntryOptions, cancelledBefore?: string): boolean {
    if (this.entries.has(id)) throw new Error(`request id ${JSON.stringify(id)} is already pending; ids must not be reused`);
    const signal = options.signal;
    const early = signal?.aborted ? abortReason(signal) : cancelledBefore;
    if (early !== undefined) {
      this.remember(id, 'abandoned');
      queueMicrotask(() => options.onSettle({ ok: false, error: new RequestCancelledError(options.method, early) }));
      return false;
    }
    const entry = new Entry(id, options, this);
    this.entries.set(id, entry);
    if (signal) {
      entry.abortListener = () => this.cancel(id, abortReason(signal));
      signal.addEventListener('abort', entry.abortListener, { once: true });
    }
    this.deadlines.set(entry, options.timeoutMs);
    return true;
  }

  /** Settle a request with the peer's reply. */
  reply(id: RequestId, outcome: RequestOutcome): ReplyMatch {
    const entry = this.entries.get(id);
    if (entry?.reading) return 'duplicate';
    if (entry) {
      const read = outcome.ok && entry.options.read ? entry.options.read(outcome.result) : outcome;
      if (!(read instanceof Promise)) this.finish(id, 'answered', read);
      else {
        entry.reading = true;
        // A reading that ends after its request did (timeout, cancellation, close) is dropped.
        read.then((late) => {
          if (this.entries.get(id) === entry) this.finish(id, 'answered', late);
        });
      }
      return 'settled';
    }
    const ended = this.ended.get(id) ?? this.endedBefore.get(id);
    if (ended === 'abandoned') return 'late';
    if (ended === 'answered') return 'duplicate';
    return 'unknown';
  }

  /** Progress from the peer: extends the timeout when the request asked for it, within its overall cap. */
  progress(id: RequestId): void {
    const entry = this.entries.get(id);
    if (!entry?.options.resetTimeoutOnProgress || entry.reading) return;
    const { timeoutMs, maxTotalTimeoutMs: cap } = entry.options;
    const left = cap === undefined ? timeoutMs : cap - (monotonicNow() - entry.startedAt);
    entry.capped = left < timeoutMs;
    this.deadlines.set(entry, Math.max(0, Math.min(timeoutMs, left)), timeoutMs);
  }

  /** Cancel one request from our side; the peer is told with `notifications/cancelled`. */
  cancel(id: RequestId, reason?: string): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    this.finish(id, 'abandoned', { ok: false, error: new RequestCancelledError(entry.options.method, reason) });
    if (!entry.reading) this.abandoned(id, reason ?? 'cancelled by the server', entry.options);
    return true;
  }

  /** End one request locally with `error`, without telling the peer (e.g. the message could not be sent). */
  fail(id: RequestId, error: McpError): boolean {
    return this.finish(id, 'abandoned', { ok: false, error });
  }

  /** End everything still pending: the session or its transport is gone. */
  closeAll(reason: string): void {
    for (const [id, entry] of [...this.entries]) {
      this.finish(id, 'abandoned', { ok: false, error: new ConnectionClosedError(entry.options.method, reason) });
    }
  }

  /** The entry's deadline came (it calls this). */
  timedOut(entry: Entry): void {
    const { method, timeoutMs, maxTotalTimeoutMs } = entry.options;
    // Ended by the overall cap while progress kept extending it: the time it waited is the cap.
    const waited = entry.capped && maxTotalTimeoutMs !== undefined ? maxTotalTimeoutMs : timeoutMs;
    if (this.finish(entry.id, 'abandoned', { ok: false, error: new RequestTimeoutError(method, waited) }) && !entry.reading) {
      this.abandoned(entry.id, `timed out after ${waited} ms`, entry.options);
    }
  }

  private abandoned(id: RequestId, reason: string, options: PendingEntryOptions): void {
    options.onAbandon?.(reason);
    this.onAbandon(id, reason, options);
  }

  private finish(id: RequestId, how: 'answered' | 'abandoned', outcome: RequestOutcome<unknown>): boolean {
    const entry = this.entries.get(id);
    if (!entry) return false;
    // Remove before settling, so whatever the settle callback does sees a consistent table.
    this.entries.delete(id);
    // The peer answered one being read: another reply from it is a duplicate, not late.
    this.remember(id, entry.reading ? 'answered' : how);
    this.deadlines.clear(entry);
    if (entry.abortListener) entry.options.signal?.removeEventListener('abort', entry.abortListener);
    entry.options.onSettle(outcome);
    return true;
  }

  /** Between ENDED_MEMORY and twice that many are remembered; a full generation is dropped whole, without iterating. */
  private remember(id: RequestId, how: 'answered' | 'abandoned'): void {
    this.ended.set(id, how);
    if (this.ended.size < ENDED_MEMORY) return;
    this.endedBefore = this.ended;
    this.ended = new Map();
  }
}
