/** The message JSON.parse gives for `text`, so parse-error assertions do not depend on the V8 version. */
export function parseErrorMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error(`${text} parses`);
}
