/** `elicitation/create` in form and URL mode (client/elicitation.mdx): capability gating, schema checks, answer validation. */
import { randomUUID } from 'node:crypto';
import { ElicitationNotSupportedError, ElicitationValidationError, ErrorCode, McpError, UnexpectedElicitActionError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import { checkElicitationUrl } from '../protocol/elicitation-url.js';
import type { ClientCapabilities, ElicitParams, ElicitResult, ElicitValue } from '../protocol/types.js';
import type { SchemaCompiler, SchemaViolation, Validator } from '../schema/compiler.js';
import type { CheckResult } from '../schema/schema-source.js';
import { isStandardSchema } from '../schema/standard.js';
import { type FormSchema, type StandardForm, standardForm } from './form-schema.js';
import type { ClientRequestKind } from './kind.js';
import { checkRequestedSchema } from './schema-subset.js';

/*
 * The JSON of a form schema keys the subset check and the compiled validator. A handler that writes its
 * schema inline makes a new object on every call, with the same content: comparing it with private copies
 * of the last few schemas finds its JSON in a quarter of the time serialising takes.
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

/** Schemas (by their JSON) already found to lie in the subset: the check is a pure function of the content. */
const checkedSchemas = new Set<string>();
const CHECKED_SCHEMAS_LIMIT = 4096;
/** How a request reads an accepted form, from `prepare` to `interpret`: ajv's validator, or a Standard schema's check. */
type FormReader = Validator | StandardForm;

/**
 * A form's params as prepared for one request: a copy of what was asked that carries its reader in a
 * private field, which no serialisation, spread or comparison sees (a tenth of a WeakMap entry's cost).
 */
class PreparedForm {
  readonly #reader: FormReader;
  /** The schema's JSON, when `prepare` had it (a JSON Schema's): its caches are found by it again. */
  readonly #json: string | undefined;

  constructor(params: object, reader: FormReader, json: string | undefined) {
    Object.assign(this, params);
    this.#reader = reader;
    this.#json = json;
  }

  static readerOf(params: object): FormReader | undefined {
    return params instanceof PreparedForm ? params.#reader : undefined;
  }

  static jsonOf(params: object): string | undefined {
    return params instanceof PreparedForm ? params.#json : undefined;
  }
}

function preparedForm(params: ElicitParams<FormSchema>, reader: FormReader, json: string | undefined): ElicitParams<FormSchema> {
  return new PreparedForm(params, reader, json) as unknown as ElicitParams<FormSchema>;
}

/** The JSON of a prepared form's schema (what `checkFormSchema` gives), without serialising or comparing it again. */
export function preparedSchemaJson(schemas: SchemaCompiler, prepared: object, schema: unknown): string {
  return PreparedForm.jsonOf(prepared) ?? checkFormSchema(schemas, schema);
}
/** Standard form schemas whose wire form was found in the subset. */
const checkedForms = new WeakSet<StandardForm>();

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

/** Whether the client declared an elicitation mode (after normalisation). */
export function supportsElicitationMode(capabilities: ClientCapabilities, mode: 'form' | 'url'): boolean {
  return isObject(capabilities.elicitation?.[mode]);
}

export const elicitationKind: ClientRequestKind<ElicitParams<FormSchema>, ElicitResult> = {
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
    const source = params.requestedSchema;
    // A form seen lately is JSON Schema, found by its content; only one not seen may be a Standard schema.
    const known = recentJson(source);
    if (known === undefined && isStandardSchema(source)) {
      const form = standardForm(source, ctx.schemas);
      if (!checkedForms.has(form)) {
        // An inline schema is a new object per call: its JSON finds the check done by an equal one before.
        checkFormSchema(ctx.schemas, form.json);
        checkedForms.add(form);
      }
      // Always its own check, whatever validateElicitation says: the asker chose it, and the answer's type is its output.
      const prepared = preparedForm(params, form, undefined);
      (prepared as { requestedSchema: unknown }).requestedSchema = form.json;
      return prepared;
    }
    const key = known ?? checkFormSchema(ctx.schemas, source);
    if (!ctx.options.validateElicitation) return params;
    // A copy per request, so the validator found here belongs to this request alone.
    return preparedForm(params, ctx.schemas.compile(source, key), key);
  },
  timeoutMs: (options) => options.elicitationTimeoutMs,
  interpret(ctx, result, params) {
    if (params.mode === 'url') return readElicitResult(result, undefined, undefined);
    const schema = params.requestedSchema;
    const reader = PreparedForm.readerOf(params);
    if (reader !== undefined && typeof reader !== 'function') return readStandardAnswer(result, schema, reader);
    if (!ctx.options.validateElicitation) return readElicitResult(result, schema, undefined);
    return readElicitResult(result, schema, reader ?? ctx.schemas.compile(schema));
  },
};

/** Whether a prepared form's answers are checked by a Standard schema (whose check may be async, and whose output the asker gets). */
export function checkedByStandard(prepared: unknown): boolean {
  const reader = typeof prepared === 'object' && prepared !== null ? PreparedForm.readerOf(prepared) : undefined;
  return reader !== undefined && typeof reader !== 'function';
}

/**
 * Check a client's elicitation answer: the action, and on a form accept the content against `validate`
 * (none: validation is off), keeping only the fields asked for. `schema` is undefined for URL mode, whose
 * accept carries no content. Throws a typed McpError.
 */
export function readElicitResult(result: Record<string, unknown>, schema: object | undefined, validate: Validator | undefined): ElicitResult {
  const action = actionOf(result);
  // Content only means something on a form-mode accept; elsewhere it is ignored.
  if (action !== 'accept' || !schema) return { action };
  const content = contentOf(result);
  if (!validate) return { action, content: content as Record<string, ElicitValue> }; // validateElicitation: false
  const violations = validate(content);
  if (violations) throw validationError(violations);
  return { action, content: askedFields(schema, content) as Record<string, ElicitValue> };
}

/**
 * A form answer with only the fields asked for, before any check of their values: what a Standard
 * schema's check is given, and what a 2026-07-28 round keeps of an answer that check accepted.
 */
export function formAnswer(result: Record<string, unknown>, schema: object): ElicitResult {
  const action = actionOf(result);
  if (action !== 'accept') return { action };
  return { action, content: askedFields(schema, contentOf(result)) as Record<string, ElicitValue> };
}

/** A form answer checked by its Standard schema, whose output (defaults applied, transforms run) is the content. */
function readStandardAnswer(result: Record<string, unknown>, schema: object, form: StandardForm): ElicitResult | Promise<ElicitResult> {
  const answer = formAnswer(result, schema);
  if (answer.action !== 'accept') return answer;
  let checked: CheckResult | Promise<CheckResult>;
  try {
    checked = form.check(answer.content as Record<string, unknown>);
  } catch (err) {
    throw checkFailed(err);
  }
  return checked instanceof Promise ? checked.then(standardContent, (err: unknown) => Promise.reject(checkFailed(err))) : standardContent(checked);
}

/** A schema whose own check throws is the server's fault, not the answer's: -32603, never asked again. */
function checkFailed(err: unknown): McpError {
  return new McpError(ErrorCode.InternalError, `The requestedSchema's own check threw: ${err instanceof Error ? err.message : String(err)}`);
}

function standardContent(checked: CheckResult): ElicitResult {
  if (checked.violations) throw validationError(checked.violations);
  return { action: 'accept', content: checked.value as Record<string, ElicitValue> };
}

function actionOf(result: Record<string, unknown>): ElicitResult['action'] {
  const action = result.action;
  if (action !== 'accept' && action !== 'decline' && action !== 'cancel') throw new UnexpectedElicitActionError(action);
  return action;
}

function contentOf(result: Record<string, unknown>): Record<string, unknown> {
  const content = result.content === undefined ? {} : result.content;
  if (!isObject(content)) throw new McpError(ErrorCode.InvalidParams, 'The client accepted elicitation/create with content that is not an object', { result });
  return content;
}

function validationError(violations: SchemaViolation[]): ElicitationValidationError {
  return new ElicitationValidationError(violations.map((v) => ({ property: topLevelProperty(v.path), rule: v.rule, message: v.message })));
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
