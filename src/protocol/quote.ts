/**
 * A client's value, quoted in an error message. Strings and other primitives as JSON (a long string cut),
 * anything else by its kind: a value from the wire may nest thousands deep or carry a `toString` that
 * throws, and building a message about it must not fail.
 */
export function quote(value: unknown, maxLength = 100): string {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value.length > maxLength ? `${value.slice(0, maxLength)}…` : value);
    case 'number':
    case 'boolean':
      return String(value);
    case 'undefined':
      return 'undefined';
    default:
      return value === null ? 'null' : Array.isArray(value) ? 'an array' : `an ${typeof value}`;
  }
}

/** JSON of a value from the wire, or undefined when it has none (too deep, a cycle, a BigInt). */
export function tryJson(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
