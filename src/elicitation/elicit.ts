/** `elicitation/create` in form and URL mode (client/elicitation.mdx): capability gating, schema checks, answer validation. */
import { randomUUID } from 'node:crypto';
import { supportsElicitationMode } from '../protocol/capabilities.js';
import { ElicitationNotSupportedError, ElicitationValidationError, ErrorCode, McpError, UnexpectedElicitActionError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import { checkElicitationUrl } from '../protocol/elicitation-url.js';
import type { ElicitParams, ElicitResult, ElicitValue } from '../protocol/types.js';
import type { SchemaCompiler, Validator } from '../schema/compiler.js';
import type { ClientRequestKind } from './kind.js';
import { recentJson, rememberJson } from './schema-keys.js';
import { checkRequestedSchema } from './schema-subset.js';

/** Schemas (by their JSON) already found to lie in the subset: the check is a pure function of the content. */
const checkedSchemas = new Set<string>();
const CHECKED_SCHEMAS_LIMIT = 4096;
/** The validator of each request in flight, from `prepare` to `interpret`. */
const validators = new WeakMap<object, Validator>();

/**
 * Throw (a TypeError naming the property) unless `schema` lies in the form subset. Returns the schema's
 * JSON: one serialisation per call keys both the subset-check and the validator caches.
 */
export function checkFormSchema(schemas: SchemaCompiler, schema: unknown): string {
  const known = recentJson(schema);
  if (known !== undefined) return known;
  const key = JSON.stringify(schema);
  if (!checkedSchemas.has(key)) {
    checkRequestedSchema(schema, schemas);
    if (checkedSchemas.size >= CHECKED_SCHEMAS_LIMIT) checkedSchemas.clear();
    checkedSchemas.add(key);
  }
  rememberJson(key);
  return key;
}

export const elicitationKind: ClientRequestKind<ElicitParams, ElicitResult> = {
  method: 'elicitation/create',
  event: 'responseElicitationCreate',
  fields: ['action', 'content'],
  prepare(ctx, capabilities, params) {
    if (!isObject(params)) throw new TypeError('elicitation/create needs params: {message, requestedSchema} or {mode: "url", message, url}');
    const mode = params.mode ?? 'form';
    if (mode !== 'form' && mode !== 'url') throw new TypeError(`elicitation mode must be "form" or "url"; got ${JSON.stringify(mode)}`);
    if (typeof params.message !== 'string') throw new TypeError('elicitation/create needs params.message, the text shown to the user');
    // client/elicitation.mdx: a server MUST NOT send a mode the client did not declare.
    if (!supportsElicitationMode(capabilities, mode)) throw new ElicitationNotSupportedError(mode);
    if (params.mode === 'url') {
      checkElicitationUrl(params.url);
      if (params.elicitationId !== undefined && typeof params.elicitationId !== 'string') throw new TypeError('elicitationId must be a string');
      return params.elicitationId === undefined ? { ...params, elicitationId: randomUUID() } : params;
    }
    const key = checkFormSchema(ctx.schemas, params.requestedSchema);
    if (!ctx.options.validateElicitationResponses) return params;
    // A copy per request, so the validator found here belongs to this request alone.
    const prepared = { ...params };
    validators.set(prepared, ctx.schemas.compile(params.requestedSchema, key));
    return prepared;
  },
  timeoutMs: (options) => options.elicitationTimeoutMs,
  interpret(ctx, result, params) {
    if (params.mode === 'url') return readElicitResult(result, undefined, undefined);
    const validate = ctx.options.validateElicitationResponses ? (validators.get(params) ?? ctx.schemas.compile(params.requestedSchema)) : undefined;
    return readElicitResult(result, params.requestedSchema, validate);
  },
};

/**
 * Check a client's elicitation answer: the action, and on a form accept the content against `validate`
 * (none: validation is off), keeping only the fields asked for. `schema` is undefined for URL mode, whose
 * accept carries no content. Throws a typed McpError.
 */
export function readElicitResult(result: Record<string, unknown>, schema: object | undefined, validate: Validator | undefined): ElicitResult {
  const action = result.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') throw new UnexpectedElicitActionError(action);
  // Content only means something on a form-mode accept; elsewhere it is ignored.
  if (action !== 'accept' || !schema) return { action };
  const content = result.content === undefined ? {} : result.content;
  if (!isObject(content)) throw new McpError(ErrorCode.InvalidParams, 'The client accepted elicitation/create with content that is not an object', { result });
  if (!validate) return { action, content: content as Record<string, ElicitValue> }; // validateElicitationResponses: false
  const violations = validate(content);
  if (violations) {
    throw new ElicitationValidationError(violations.map((v) => ({ property: topLevelProperty(v.path), rule: v.rule, message: v.message })));
  }
  return { action, content: askedFields(schema, content) as Record<string, ElicitValue> };
}

/** The form property a violation's JSON pointer starts with (`/tags/0` is `tags`), unescaped (RFC 6901). */
function topLevelProperty(pointer: string): string {
  return pointer.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~') ?? '';
}

/** Only the fields the form asked for: a handler never sees keys (or types) the user was not asked about. */
export function askedFields(schema: object, content: Record<string, unknown>): Record<string, unknown> {
  const properties = (schema as { properties?: Record<string, unknown> }).properties ?? {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(content)) if (Object.hasOwn(properties, key)) out[key] = content[key];
  return out;
}
