/** Counters for input that was handled but worth knowing about, and what is in flight now. */
export interface ServerStats {
  /** Client replies whose id matches no request we sent. */
  readonly unknownResponses: number;
  /** Client replies to requests that had already timed out or been cancelled. */
  readonly lateResponses: number;
  /** A second reply to a request that was already answered. */
  readonly duplicateResponses: number;
  /** Messages answered with -32700 or -32600. */
  readonly invalidMessages: number;
  /** Client results that were not what the request asks for (bad action, content, or failed validation). */
  readonly invalidResults: number;
  /** Server-to-client requests waiting for a reply (or for a way to reach the client), over all sessions. */
  readonly pendingRequests: number;
  /** Client requests being handled now, both eras, every transport. */
  readonly requestsInFlight: number;
  /** Open 2026-07-28 `subscriptions/listen` streams. */
  readonly subscriptions: number;
}

export type MutableStats = { -readonly [K in keyof ServerStats]: ServerStats[K] };

export function newStats(): MutableStats {
  return {
    unknownResponses: 0,
    lateResponses: 0,
    duplicateResponses: 0,
    invalidMessages: 0,
    invalidResults: 0,
    pendingRequests: 0,
    requestsInFlight: 0,
    subscriptions: 0,
  };
}
