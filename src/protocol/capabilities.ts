/** Capability normalisation: the shapes users read are the 2025-11-25 shapes, whatever the client sent. */
import type { ClientCapabilities } from './types.js';
import { isObject } from './is-object.js';

/**
 * Normalise what a client declared. `elicitation: {}` (the 2025-06-18 form) means `{form: {}}`
 * (client/elicitation.mdx); a non-object capability value is dropped rather than trusted.
 */
export function normalizeClientCapabilities(raw: unknown): ClientCapabilities {
  if (!isObject(raw)) return {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const value = raw[key];
    if (isObject(value)) out[key] = value;
  }
  const elicitation = out.elicitation as Record<string, unknown> | undefined;
  if (elicitation && !isObject(elicitation.form) && !isObject(elicitation.url)) {
    out.elicitation = { ...elicitation, form: {} };
  }
  return out as ClientCapabilities;
}

/** Whether the client declared an elicitation mode (after normalisation). */
export function supportsElicitationMode(capabilities: ClientCapabilities, mode: 'form' | 'url'): boolean {
  return isObject(capabilities.elicitation?.[mode]);
}
