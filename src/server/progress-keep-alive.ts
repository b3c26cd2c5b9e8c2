/**
 * Progress that keeps a client request alive while its handler waits on a person (an elicitation, or
 * sampling a person may have to approve): clients time a request out unless they hear progress
 * (the SDKs' `resetTimeoutOnProgress`), and a person may take longer than that.
 */
import { Deadline, type Deadlines } from '../rpc/requests.js';

/** Server-to-client requests that wait on a person. */
const WAITS_ON_A_PERSON: ReadonlySet<string> = new Set(['elicitation/create', 'sampling/createMessage']);

/**
 * What a keep-alive notification says while `method` waits: an elicitation's own message, or what is
 * awaited; undefined for requests that do not wait on a person.
 */
export function keepAliveMessage(method: string, params: Record<string, unknown>): string | undefined {
  if (!WAITS_ON_A_PERSON.has(method)) return undefined;
  return typeof params.message === 'string' ? params.message : `Waiting for the client to answer ${method}`;
}

/**
 * The progress a keep-alive sends after `sent` (the last value on the wire; -Infinity before any): 0
 * first, then steps of 2^-30 of the scale (a power of two, so the sums are exact) that leave a progress
 * bar where it was. Always below `total` (progress.mdx: progress MUST increase, and a total caps it);
 * undefined when no such value is left, e.g. the handler reported its total.
 */
export function nextKeepAliveProgress(sent: number, total: number | undefined): number | undefined {
  if (sent === Number.NEGATIVE_INFINITY) return total === undefined || total > 0 ? 0 : undefined;
  const scale = 2 ** Math.ceil(Math.log2(Math.max(1, Math.abs(sent), total ?? 0)));
  const next = sent + scale * 2 ** -30;
  if (total === undefined || next < total) return next;
  const between = sent + (total - sent) / 2;
  return between > sent && between < total ? between : undefined;
}

/** The request a keep-alive speaks for: false when nothing can be sent for it any more. */
export interface KeepAliveTarget {
  sendKeepAlive(message: string): boolean;
}

/**
 * One client request's keep-alive: while any of its questions waits, a notification every `periodMs`
 * carrying the message of the latest one. On the server's shared deadlines, so it holds no timer of its own.
 */
export class ProgressKeepAlive extends Deadline {
  /** The questions waiting, oldest first. */
  private readonly waiting: { message: string }[] = [];

  constructor(
    private readonly target: KeepAliveTarget,
    private readonly deadlines: Deadlines,
    private readonly periodMs: number,
  ) {
    super();
  }

  /** A question went out: keep alive until the returned release is called (it may be called again). */
  hold(message: string): () => void {
    const question = { message };
    this.waiting.push(question);
    if (this.waiting.length === 1) this.deadlines.set(this, this.periodMs);
    return () => {
      const index = this.waiting.indexOf(question);
      if (index < 0) return;
      this.waiting.splice(index, 1);
      if (this.waiting.length === 0) this.deadlines.clear(this);
    };
  }

  /** The request ended or was cancelled: nothing more is sent for it. */
  stop(): void {
    this.waiting.length = 0;
    this.deadlines.clear(this);
  }

  due(): void {
    const latest = this.waiting.at(-1);
    if (latest === undefined) return;
    if (this.target.sendKeepAlive(latest.message)) this.deadlines.set(this, this.periodMs);
    else this.stop();
  }
}
