/** Capability normalisation: the shapes users read are the 2025-11-25 shapes, whatever the client sent. */
import { isObject } from './jsonrpc.js';
import type { ClientCapabilities } from './types.js';

/**
 * A copy of client-sent JSON with only plain data: no `__proto__` keys (which, assigned, would set a
 * prototype and let a client declare things where lookups find them), and nothing but JSON values.
 */
export function plainJson(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return depth > 32 ? [] : value.map((item) => plainJson(item, depth + 1));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  if (depth > 32) return out;
  for (const key of Object.keys(value)) if (key !== '__proto__') out[key] = plainJson(value[key], depth + 1);
  return out;
}

/**
 * Normalise what a client declared. `elicitation: {}` (the 2025-06-18 form) means `{form: {}}`
 * (client/elicitation.mdx); a non-object capability value is dropped rather than trusted.
 */
export function normalizeClientCapabilities(raw: unknown): ClientCapabilities {
  if (!isObject(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (key !== '__proto__' && isObject(value)) out[key] = plainJson(value);
  }
  const elicitation = out.elicitation as Record<string, unknown> | undefined;
  if (elicitation && !isObject(elicitation.form) && !isObject(elicitation.url)) {
    out.elicitation = { ...elicitation, form: {} };
  }
  return out as ClientCapabilities;
}
