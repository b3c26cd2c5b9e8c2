/**
 * The requests of one JSON-RPC end, the same for a server session and for the client: the ids it gives
 * its own, the table of those it sent with their deadlines and the replies that settle them, and the
 * table of those it is answering.
 */
import { ConnectionClosedError, ErrorCode, type JsonRpcErrorObject, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import { isErrorResponse, isObject, type JsonRpcErrorResponse, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';
import { abortReason } from './abort-reason.js';
import { unref } from './unref.js';

// --- deadlines
// Timeouts of many requests on one timer. A request that waits on a person holds a 10-minute timeout, and
// a Node Timeout object per request (made, unref'd, cleared) was the costliest part of sending one.
// Deadlines of one duration mostly come due in the order they were set, so each duration keeps a list
// ordered by due time, and one timer waits for the earliest head of all. Time is the monotonic clock
// (`performance.now()`), as Node's timers keep it: setting the wall clock moves no deadline.

/** Milliseconds on the monotonic clock. */
export function monotonicNow(): number {
  return performance.now();
}

/** Something with a deadline: `due()` runs when it comes, unless it was cleared first. */
export abstract class Deadline {
  /** When it comes due (monotonic ms); undefined while not set. */
  at: number | undefined = undefined;
  prev: Deadline | undefined = undefined;
  next: Deadline | undefined = undefined;
  list: DeadlineList | undefined = undefined;

  abstract due(): void;
}

class DeadlineList {
  head: Deadline | undefined;
  tail: Deadline | undefined;
}

export class Deadlines {
  private readonly lists = new Map<number, DeadlineList>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  /** When the timer fires (monotonic ms). */
  private timerAt = Number.POSITIVE_INFINITY;

  /** @param onError where a `due()` that throws is reported: the others due with it still run. */
  constructor(private readonly onError: (error: unknown) => void = (error) => console.error('[switchboard]', error)) {}

  /** Set `deadline` to come due `ms` from now; `duration` names its list (the request's own timeout). */
  set(deadline: Deadline, ms: number, duration = ms): void {
    if (deadline.list) this.unlink(deadline);
    const at = monotonicNow() + ms;
    deadline.at = at;
    let list = this.lists.get(duration);
    if (!list) this.lists.set(duration, (list = new DeadlineList()));
    // From the tail: a deadline of the list's own duration is due last, so this is one step.
    let after = list.tail;
    while (after && (after.at as number) > at) after = after.prev;
    deadline.list = list;
    deadline.prev = after;
    deadline.next = after ? after.next : list.head;
    if (deadline.next) deadline.next.prev = deadline;
    else list.tail = deadline;
    if (after) after.next = deadline;
    else list.head = deadline;
    if (at < this.timerAt) this.arm(at);
  }

  clear(deadline: Deadline): void {
    if (deadline.list) this.unlink(deadline);
    deadline.at = undefined;
  }

  private unlink(deadline: Deadline): void {
    const list = deadline.list as DeadlineList;
    if (deadline.prev) deadline.prev.next = deadline.next;
    else list.head = deadline.next;
    if (deadline.next) deadline.next.prev = deadline.prev;
    else list.tail = deadline.prev;
    deadline.prev = deadline.next = deadline.list = undefined;
  }

  private arm(at: number): void {
    if (this.timer) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - monotonicNow()));
    unref(this.timer);
  }

  private fire(): void {
    // A timer never fires before its time, though its clock and ours may differ by a millisecond.
    const now = Math.max(monotonicNow(), this.timerAt);
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const due: Deadline[] = [];
    let next = Number.POSITIVE_INFINITY;
    for (const [duration, list] of this.lists) {
      while (list.head && (list.head.at as number) <= now) {
        const deadline = list.head;
        this.unlink(deadline);
        deadline.at = undefined;
        due.push(deadline);
      }
      if (list.head) next = Math.min(next, list.head.at as number);
      else this.lists.delete(duration);
    }
    // Re-armed before the callbacks run, so a deadline they set finds the timer in place.
    if (next !== Number.POSITIVE_INFINITY) this.arm(next);
    for (const deadline of due) {
      try {
        deadline.due();
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

// --- the requests this end sent
// The one table of the requests one end has sent and not seen end, keyed by its own outgoing ids: a server
// session's requests to its client, and the client's to its server. Every entry ends exactly once (result,
// error reply, timeout, cancellation or close), and leaves the table before it settles. A reply whose
// reading is async (a form's own check) keeps its entry here until the reading ends, so the deadline,
// cancellation and close still reach it.

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

  next(): RequestId {
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
  nextId(): RequestId {
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

// --- their replies
// A reply from the other end, read once for both ends: an error reply with no id is reported, any other
// settles the pending request it answers, or is told apart as late, duplicate or unknown.

/** Where a reply settles its request: the pending table, or what holds it. */
export interface ReplyTable {
  reply(id: RequestId, outcome: RequestOutcome): ReplyMatch;
}

/** What one end does with the replies that settle nothing, given once for all its connections; `Owner` is the connection a reply came on. */
export interface ReplyPolicy<Owner> {
  /** What the other end is called in an error ('client' or 'server'). */
  readonly peer: string;
  /** Every request of this end wants an object: another result ends it with -32602. */
  readonly objectResults: boolean;
  /** An error reply with a null id: the other end could not process something this end sent. */
  orphanError(error: JsonRpcErrorObject, owner: Owner): void;
  /** A result that was not an object ended its request (with `objectResults`). */
  invalidResult?(owner: Owner): void;
  /** A reply that settled nothing: its request was given up (late), answered already (duplicate), or never pending (unknown). */
  unmatched(id: RequestId, match: Exclude<ReplyMatch, 'settled'>, owner: Owner): void;
}

export function receiveReply<Owner>(response: JsonRpcResponse, table: ReplyTable, policy: ReplyPolicy<Owner>, owner: Owner): void {
  const { id } = response;
  if (id === null) {
    policy.orphanError((response as JsonRpcErrorResponse).error, owner);
    return;
  }
  let outcome: RequestOutcome;
  if (isErrorResponse(response)) outcome = { ok: false, error: McpError.fromObject(response.error) };
  else if (!policy.objectResults || isObject(response.result)) outcome = { ok: true, result: response.result as Record<string, unknown> };
  else {
    policy.invalidResult?.(owner);
    const error = new McpError(ErrorCode.InvalidParams, `The ${policy.peer} replied with a result that is not an object`, { result: response.result });
    outcome = { ok: false, error };
  }
  const match = table.reply(id, outcome);
  if (match !== 'settled') policy.unmatched(id, match, owner);
}

// --- the requests this end is answering
// The requests from the other end that this end is still answering, by id: `notifications/cancelled` finds
// them here (basic/utilities/cancellation), and an id still in flight is not taken twice. The mirror of
// PendingRequests, which holds the requests this end sent.

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
