/**
 * The client's requests awaiting an answer: each ends exactly once, by its response, its timeout, its
 * caller's signal, or the connection closing.
 */
import { ConnectionClosedError, type JsonRpcErrorObject, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import type { RequestId } from '../protocol/types.js';

export interface PendingOptions {
  method: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Runs once the request ended early (timeout, the caller's abort): the client tells the server, with the reason when there is one. */
  onGiveUp: (reason: string | undefined) => void;
}

interface Entry {
  readonly method: string;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
  readonly cleanup: () => void;
}

export class PendingRequests {
  private readonly entries = new Map<RequestId, Entry>();

  get size(): number {
    return this.entries.size;
  }

  /** Wait for the answer to request `id`. */
  add(id: RequestId, options: PendingOptions): Promise<Record<string, unknown>> {
    return new Promise((resolve, reject) => {
      const { method, timeoutMs, signal, onGiveUp } = options;
      // Given up before it started: nothing goes out, so there is nobody to tell.
      if (signal?.aborted) return reject(new RequestCancelledError(method, abortReason(signal)));
      const giveUp = (error: McpError, reason: string | undefined) => {
        const entry = this.end(id);
        if (!entry) return;
        entry.reject(error);
        onGiveUp(reason);
      };
      const timer = setTimeout(() => giveUp(new RequestTimeoutError(method, timeoutMs), `timed out after ${timeoutMs} ms`), timeoutMs);
      const onAbort = () => {
        const reason = abortReason(signal);
        giveUp(new RequestCancelledError(method, reason), reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const cleanup = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      this.entries.set(id, { method, resolve, reject, cleanup });
    });
  }

  /** The server answered `id`; false when nothing waits for it (answered, given up on, or never asked). */
  settle(id: RequestId, outcome: { result: Record<string, unknown> } | { error: JsonRpcErrorObject }): boolean {
    const entry = this.end(id);
    if (!entry) return false;
    if ('result' in outcome) entry.resolve(outcome.result);
    else entry.reject(new McpError(outcome.error.code, outcome.error.message, outcome.error.data));
    return true;
  }

  /** Fail `id` with `error` (it could not be sent); false when nothing waits for it. */
  fail(id: RequestId, error: Error): boolean {
    const entry = this.end(id);
    entry?.reject(error);
    return entry !== undefined;
  }

  /** The connection ended: everything still waiting fails. */
  closeAll(reason: string): void {
    for (const id of [...this.entries.keys()]) {
      const entry = this.end(id);
      entry?.reject(new ConnectionClosedError(entry.method, reason));
    }
  }

  private end(id: RequestId): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    this.entries.delete(id);
    entry.cleanup();
    return entry;
  }
}

/** Why `signal` aborted, as a cancellation reason: its message or string, undefined for a bare abort(). */
export function abortReason(signal: AbortSignal | undefined): string | undefined {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error) return reason.name === 'AbortError' ? undefined : reason.message;
  return typeof reason === 'string' ? reason : undefined;
}
