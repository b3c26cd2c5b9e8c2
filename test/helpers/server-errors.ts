/** The errors a server may report on its `error` event for what clients send it; anything else is a defect. */

/** Documented: replies that match nothing the server asked, and a client's error about a message it could not read. */
export const DOCUMENTED_ERRORS = [/^Ignored an? (unknown|late) reply from the client for request id /, /^The client could not process a message: /];

/** The reported errors that are not documented, as text. */
export function unexpectedErrors(errors: Error[]): string[] {
  return errors.filter((e) => !DOCUMENTED_ERRORS.some((pattern) => pattern.test(e.message))).map((e) => `${e.name}: ${e.message}`);
}
