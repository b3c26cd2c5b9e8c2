/**
 * Scopes an operation needs (a tool's, prompt's or resource's `scopes`): the principal must have been
 * granted every one. Over HTTP the transport answers 403 with the step-up challenge before the request
 * runs; this is the same check where there is no status to answer with (WebSocket, stdio), and the
 * backstop everywhere. It fails closed: a principal without scopes (or no auth at all) has none.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { missingScopes, scopeShortfall } from '../protocol/principal.js';

type Scoped = { readonly scopes: readonly string[] | undefined } | undefined;
type Lookup = { get(key: string): Scoped };

/** What finding the scopes needs of the catalog (structural: the catalog's entries import this file). */
export interface ScopedCatalog {
  readonly tools: Lookup;
  readonly prompts: Lookup;
  readonly resources: Lookup;
  readonly resourceTemplates: Lookup;
  findResource(uri: string): { resource?: Scoped; template?: Scoped } | undefined;
}

/** The scopes a request needs, and what needs them. */
export interface ScopeNeed {
  scopes: readonly string[];
  what: string;
}

/**
 * What a request needs: its tool's, prompt's or resource's `scopes` (completions need those of the
 * prompt or template they complete for, subscriptions those of the resource). Undefined when nothing.
 */
export function scopeNeeds(catalog: ScopedCatalog, method: string, params: Record<string, unknown> | undefined): ScopeNeed | undefined {
  const name = params?.name;
  const uri = params?.uri;
  switch (method) {
    case 'tools/call':
      return typeof name === 'string' ? need(catalog.tools.get(name)?.scopes, `Tool ${name}`) : undefined;
    case 'prompts/get':
      return typeof name === 'string' ? need(catalog.prompts.get(name)?.scopes, `Prompt ${name}`) : undefined;
    case 'resources/read':
    case 'resources/subscribe': {
      if (typeof uri !== 'string') return undefined;
      const match = catalog.findResource(uri);
      return need(match?.resource?.scopes ?? match?.template?.scopes, `Resource ${uri}`);
    }
    case 'completion/complete': {
      const ref = params?.ref;
      if (!isObject(ref)) return undefined;
      if (ref.type === 'ref/prompt' && typeof ref.name === 'string') return need(catalog.prompts.get(ref.name)?.scopes, `Prompt ${ref.name}`);
      if (ref.type === 'ref/resource' && typeof ref.uri === 'string') {
        const scopes = catalog.resourceTemplates.get(ref.uri)?.scopes ?? catalog.resources.get(ref.uri)?.scopes;
        return need(scopes, `Resource ${ref.uri}`);
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function need(scopes: readonly string[] | undefined, what: string): ScopeNeed | undefined {
  return scopes && { scopes, what };
}

/** The `scopes` option of a registration: checked once, kept as given (undefined or non-empty). */
export function checkScopes(what: string, scopes: unknown): readonly string[] | undefined {
  if (scopes === undefined) return undefined;
  if (!Array.isArray(scopes) || scopes.length === 0 || !scopes.every((s) => typeof s === 'string' && /^[\x21\x23-\x5B\x5D-\x7E]+$/.test(s))) {
    throw new TypeError(`${what}: scopes must be a non-empty list of OAuth scope tokens (RFC 6749 §3.3); got ${JSON.stringify(scopes)}`);
  }
  return Object.freeze([...scopes]);
}

/** -32012 when `principal` lacks any of `required`. */
export function requireScopes(principal: unknown, required: readonly string[] | undefined, what: string): void {
  if (!required) return;
  const missing = missingScopes(principal, required);
  if (missing.length === 0) return;
  throw new McpError(ErrorCode.InsufficientScope, `${scopeShortfall(what, missing)}: get a token that grants ${required.join(' ')}`, {
    requiredScopes: [...required],
  });
}
