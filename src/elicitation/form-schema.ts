/**
 * A form's `requestedSchema` given as a Standard Schema with JSON Schema (zod 4, ArkType 2, valibot
 * through `toStandardJsonSchema`): its wire form, made once per schema object, its own check of the
 * answers, and the types `elicit` resolves to.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { ElicitAction, ElicitRequestedSchema, ElicitResult, ElicitValue } from '../protocol/types.js';
import type { SchemaCompiler } from '../schema/compiler.js';
import type { InferSchema } from '../schema/infer.js';
import { type CheckResult, resolveSchema } from '../schema/schema-source.js';
import type { StandardSchemaWithJSON } from '../schema/standard.js';

/** What a form's `requestedSchema` may be: JSON Schema in the form subset, or a Standard Schema whose JSON Schema lies in it. */
export type FormSchema = ElicitRequestedSchema | StandardSchemaWithJSON;

/** The content a form gives on accept: a Standard Schema's output type, or the type a JSON Schema literal describes. */
export type FormContent<S> = [S] extends [never]
  ? Record<string, ElicitValue>
  : ElicitRequestedSchema extends S
    ? Record<string, ElicitValue>
    : InferSchema<S, Record<string, ElicitValue>>;

/** A form's answer as a server's `elicit` gives it: content exactly on accept, typed by the form's schema. */
export type ElicitFormResult<Content = Record<string, ElicitValue>> =
  | { action: 'accept'; content: Content }
  | { action: 'decline' | 'cancel'; content?: never };

/** A URL-mode answer: accept means only that the user consented to open the URL; there is no content. */
export interface ElicitUrlResult {
  action: ElicitAction;
  content?: never;
}

/** What `elicit(params)` resolves to: a form's answer, typed by its schema, or a URL elicitation's. */
export type ElicitResultFor<P> = P extends { readonly mode: 'url' }
  ? ElicitUrlResult
  : P extends { readonly requestedSchema: infer S }
    ? ElicitFormResult<FormContent<S>>
    : ElicitResult;

/** A Standard form schema, resolved: the JSON Schema that goes on the wire, and the schema's own check of an answer. */
export interface StandardForm {
  readonly json: ElicitRequestedSchema;
  check(content: Record<string, unknown>): CheckResult | Promise<CheckResult>;
}

/** Standard form schemas resolved already, by identity. */
const forms = new WeakMap<object, StandardForm>();

/** The wire form and check of a Standard form schema (whether the wire form lies in the form subset is the caller's to check). */
export function standardForm(source: StandardSchemaWithJSON, schemas: SchemaCompiler): StandardForm {
  const known = forms.get(source);
  if (known) return known;
  const resolved = resolveSchema(source, 'requestedSchema', schemas);
  const form: StandardForm = { json: formShape(resolved.json) as unknown as ElicitRequestedSchema, check: (content) => resolved.check(content) };
  forms.set(source, form);
  return form;
}

type Obj = Record<string, unknown>;

/**
 * A library's JSON Schema as the form subset spells it, changing only what is spelled otherwise there:
 * literal unions become `enum` (or titled `oneOf`/`anyOf`, SEP-1330), a bare `enum` gets its
 * `type: "string"`, zod's safe-integer bounds go, and so does a top-level `additionalProperties` (answers
 * are cut to the asked fields before the schema checks them). Anything else is left for the subset check.
 */
function formShape(json: Obj): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(json)) {
    if (key === 'additionalProperties') continue;
    out[key] = key === 'properties' && isObject(value) ? mapValues(value, propertyShape) : value;
  }
  return out;
}

function mapValues(object: Obj, map: (value: unknown) => unknown): Obj {
  const out: Obj = {};
  for (const [key, value] of Object.entries(object)) out[key] = map(value);
  return out;
}

function propertyShape(property: unknown): unknown {
  if (!isObject(property)) return property;
  if (property.type === 'integer') return withoutSafeBounds(property);
  if (property.type === 'array' && isObject(property.items)) return { ...property, items: choiceShape(property.items, 'anyOf') ?? property.items };
  return choiceShape(property, 'oneOf') ?? property;
}

/** zod bounds every integer by ±(2^53 - 1): a limit of the representation, not of the answer, which a form would show. */
function withoutSafeBounds(property: Obj): Obj {
  if (property.minimum !== -Number.MAX_SAFE_INTEGER && property.maximum !== Number.MAX_SAFE_INTEGER) return property;
  const out = { ...property };
  if (out.minimum === -Number.MAX_SAFE_INTEGER) delete out.minimum;
  if (out.maximum === Number.MAX_SAFE_INTEGER) delete out.maximum;
  return out;
}

const OPTION_KEYS = new Set(['const', 'title', 'type', 'description']);

/**
 * A set of string literals as the subset spells one: `{type: "string", enum}`, or titled options under
 * `titled` (`oneOf` for a single select, `anyOf` in a multi-select's items). Undefined when `schema` is
 * not a set of string literals, or is spelled so already.
 */
function choiceShape(schema: Obj, titled: 'oneOf' | 'anyOf'): Obj | undefined {
  if (schema.type !== undefined && schema.type !== 'string') return undefined;
  const { type: _type, enum: values, const: only, anyOf, oneOf, ...rest } = schema;
  const union = anyOf ?? oneOf;
  if (anyOf !== undefined && oneOf !== undefined) return undefined;
  if (union === undefined) {
    // A typed enum is spelled so already; a typed const is zod's single literal.
    if (schema.type === undefined && only === undefined && Array.isArray(values) && values.every((v) => typeof v === 'string')) {
      return { type: 'string', ...rest, enum: values };
    }
    return values === undefined && typeof only === 'string' ? { type: 'string', ...rest, enum: [only] } : undefined;
  }
  if (values !== undefined || only !== undefined || !Array.isArray(union) || union.length === 0) return undefined;
  const options = union.map(literalOption);
  if (options.some((option) => option === undefined)) return undefined;
  const literals = options as { const: string; title?: string }[];
  if (literals.every((option) => option.title !== undefined)) {
    const list = literals.map((option) => ({ const: option.const, title: option.title }));
    return titled === 'oneOf' ? { type: 'string', ...rest, oneOf: list } : { ...rest, anyOf: list };
  }
  if (literals.some((option) => option.title !== undefined)) return undefined;
  return { type: 'string', ...rest, enum: literals.map((option) => option.const) };
}

function literalOption(option: unknown): { const: string; title?: string } | undefined {
  if (!isObject(option) || typeof option.const !== 'string') return undefined;
  if (option.type !== undefined && option.type !== 'string') return undefined;
  if (option.title !== undefined && typeof option.title !== 'string') return undefined;
  if (Object.keys(option).some((key) => !OPTION_KEYS.has(key))) return undefined;
  return option.title === undefined ? { const: option.const } : { const: option.const, title: option.title };
}
