/**
 * The JSON of a form schema, which keys the subset check and the compiled validator. A handler that
 * writes its schema inline makes a new object on every call, with the same content: comparing it with
 * private copies of the last few schemas finds its JSON in a quarter of the time serialising takes.
 */

const RECENT_LIMIT = 8;
/** The last schemas seen, most recent first: each schema's JSON and a copy of it no caller can change. */
const recent: { json: string; copy: unknown }[] = [];

/** The JSON of a schema with the same content as `schema`, if one was seen lately. */
export function recentJson(schema: unknown): string | undefined {
  for (let i = 0; i < recent.length; i++) {
    const seen = recent[i];
    if (!sameJson(schema, seen.copy)) continue;
    if (i > 0) recent.unshift(...recent.splice(i, 1));
    return seen.json;
  }
  return undefined;
}

/** Remember a schema by its JSON (one that passed the subset check). */
export function rememberJson(json: string): void {
  recent.unshift({ json, copy: JSON.parse(json) });
  if (recent.length > RECENT_LIMIT) recent.pop();
}

function isPlainObject(value: object): boolean {
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Whether `value` has the content of `copy` (parsed JSON), key order aside. Anything JSON would drop or
 * change (undefined, NaN, class instances, toJSON) is no match: the caller then serialises.
 */
function sameJson(value: unknown, copy: unknown): boolean {
  if (value === copy) return value !== undefined && (typeof value !== 'number' || Number.isFinite(value));
  if (typeof value !== 'object' || value === null || typeof copy !== 'object' || copy === null) return false;
  if (Array.isArray(value)) {
    if (!Array.isArray(copy) || value.length !== copy.length) return false;
    for (let i = 0; i < value.length; i++) if (!sameJson(value[i], copy[i])) return false;
    return true;
  }
  if (Array.isArray(copy) || !isPlainObject(value)) return false;
  let keys = 0;
  for (const key in value) {
    if (!sameJson((value as Record<string, unknown>)[key], (copy as Record<string, unknown>)[key])) return false;
    keys++;
  }
  for (const _ in copy) keys--;
  return keys === 0;
}
