/**
 * Why a signal aborted, as the reason of a cancellation: both ends say it the same way, on the wire
 * (`notifications/cancelled`) and in the `RequestCancelledError` the caller gets.
 */

/**
 * An Error's message (a bare `abort()` reads "This operation was aborted"), a string as given, else
 * 'aborted': a cancellation always says why, so the peer's log and `error.data.reason` are never empty.
 */
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' ? reason : 'aborted';
}
