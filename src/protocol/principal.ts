/** Comparing and binding principals (what a transport's auth hook returned) without trusting how they serialise. */
import { canonicalJson } from './jsonrpc.js';

/** The key of no principal: no auth hook, or one that let the request through without one. */
export const NO_PRINCIPAL_KEY = 'none';

/**
 * A key that is equal for the same principal and different for different ones: its `id` when it has a
 * string or number one, its JSON when it is plain data. Undefined for anything else (class instances,
 * Maps, Dates): those serialise to `{}`, so comparing them would let any two principals match.
 */
export function principalKey(principal: unknown): string | undefined {
  if (principal === undefined || principal === null) return NO_PRINCIPAL_KEY;
  if (typeof principal !== 'object') return `${typeof principal}:${String(principal)}`;
  const id = (principal as { id?: unknown }).id;
  if (typeof id === 'string' || typeof id === 'number') return `id:${typeof id}:${id}`;
  const proto = Object.getPrototypeOf(principal);
  if (proto === Object.prototype || proto === null || Array.isArray(principal)) return `json:${canonicalJson(principal)}`;
  return undefined;
}

export const UNKEYED_PRINCIPAL =
  'the auth hook returned a principal that is neither plain data nor has a string or number id; give it an id so sessions and requestState can be bound to it (samePrincipal covers sessions only)';

/** What an `auth` hook returns for "not authenticated": nothing, or false. */
export function isPrincipal(value: unknown): boolean {
  return value !== undefined && value !== null && value !== false;
}

/**
 * Whether two principals are the same (see principalKey). Undefined when either cannot be compared:
 * callers fail closed on that.
 */
export function samePrincipal(a: unknown, b: unknown): boolean | undefined {
  const keyA = principalKey(a);
  const keyB = principalKey(b);
  if (keyA === undefined || keyB === undefined) return undefined;
  return keyA === keyB;
}

/** The scopes a principal was granted: its `scopes` (an array of strings, as `bearer()` gives), else none. */
export function scopesOf(principal: unknown): readonly string[] {
  const scopes = typeof principal === 'object' && principal !== null ? (principal as { scopes?: unknown }).scopes : undefined;
  return Array.isArray(scopes) ? scopes.filter((scope): scope is string => typeof scope === 'string') : [];
}

/** The scopes of `required` that `principal` was not granted (none when it was granted them all). */
export function missingScopes(principal: unknown, required: readonly string[]): string[] {
  const granted = scopesOf(principal);
  return required.filter((scope) => !granted.includes(scope));
}

/** What a refusal for missing scopes says: `Tool x needs the scope a`, or `... the scopes a b`. */
export function scopeShortfall(what: string, missing: readonly string[]): string {
  return `${what} needs the scope${missing.length === 1 ? '' : 's'} ${missing.join(' ')}`;
}
