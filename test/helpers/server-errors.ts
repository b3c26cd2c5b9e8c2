/**
 * The errors a server may report on its `error` event for what clients send it, and the defects the fuzz
 * properties found that it still has. A broad property passes over a known defect by name (its error,
 * or the input that sets it off: see `Traffic.knownDefects`), so that it keeps guarding everything else;
 * test/fuzz/known-defects.test.ts reproduces each one.
 *
 * Known defect, fatal: some values the message path turns into text at once, before any handler runs.
 * The reason of a notifications/cancelled that names a request id goes through String(): an object whose
 * toString is no function ({"toString":0}) throws TypeError, an array nested some thousands deep
 * RangeError. A 2026-07-28 `_meta` log level (JSON.stringify in the -32602 message) or protocol version
 * (JSON.stringify of the -32022 answer that carries it) nested some thousands deep throws RangeError.
 * Either escapes the WebSocket message listener (and stdio's): an uncaughtException that ends a process
 * with no handler for it, before or after initialize; with one, the socket reads no further frame, its
 * session never ends and `server.close()` never resolves. On Streamable HTTP the same input, or an
 * argument mirrored in an Mcp-Param-* header nested deep, gets a 500 and is reported on `error`.
 */

/** Documented: replies that match nothing the server asked, and a client's error about a message it could not read. */
export const DOCUMENTED_ERRORS = [/^Ignored an? (unknown|late) reply from the client for request id /, /^The client could not process a message: /];

/**
 * Known defect: a `cursor` (tools/list, prompts/list, resources/list, resources/templates/list), a
 * logging/setLevel `level` or a completion/complete `ref.type` nested some thousands deep makes the
 * handler overflow the stack building its -32602 message (JSON.stringify or String of the value); the
 * request is answered -32603 and the failure reported.
 */
export const DEEP_PARAM_OVERFLOW =
  /^(tools\/list|prompts\/list|resources\/list|resources\/templates\/list|logging\/setLevel|completion\/complete) handler failed: Maximum call stack size exceeded$/;

/** The reported errors that are neither documented nor a known defect, as text. */
export function unexpectedErrors(errors: Error[]): string[] {
  return errors
    .filter((e) => !DOCUMENTED_ERRORS.some((pattern) => pattern.test(e.message)) && !DEEP_PARAM_OVERFLOW.test(e.message))
    .map((e) => `${e.name}: ${e.message}`);
}

/** The reported errors that are a known defect. */
export function knownDefectErrors(errors: Error[]): Error[] {
  return errors.filter((e) => DEEP_PARAM_OVERFLOW.test(e.message));
}
