/**
 * One shape for every schema a tool, prompt or form takes: a JSON Schema object (checked by ajv) or a
 * Standard Schema with JSON Schema (checked by its own validate). Each gives the JSON Schema that goes on
 * the wire once, and a check that yields the value as the schema reads it or the violations, alike.
 */
import type { JsonSchemaObject } from '../protocol/types.js';
import type { SchemaCompiler, SchemaViolation, Validator } from './compiler.js';
import { isStandardSchema, type StandardSchemaV1, type StandardSchemaWithJSON, standardJsonSchema } from './standard.js';

/** A schema as applications give it. */
export type SchemaSource = JsonSchemaObject | StandardSchemaWithJSON;

/** A checked value: as the schema reads it (a Standard Schema may apply defaults or transforms), or why it does not fit. */
export type CheckResult = { readonly value: unknown; readonly violations?: undefined } | { readonly value?: undefined; readonly violations: SchemaViolation[] };

export interface ResolvedSchema {
  /** The JSON Schema the wire shows (`tools/list`, `elicitation/create`), made once. */
  readonly json: Record<string, unknown>;
  /** Whether the check is the schema's own (`~standard.validate`), which may be async, rather than ajv's. */
  readonly standard: boolean;
  /** A JSON Schema's ajv validator (the value fits as it is, or not): the hot path's check, with nothing to allocate. */
  readonly validator?: Validator;
  check(value: unknown): CheckResult | Promise<CheckResult>;
}

/** Standard Schemas resolved already, by identity: a form schema defined once is converted once. */
const resolvedStandard = new WeakMap<object, ResolvedSchema>();

/**
 * Resolve `source` for use: its wire JSON Schema and its check. `what` names it in errors (`Tool 'x':
 * inputSchema`); a JSON Schema ajv cannot compile, or a Standard Schema without a JSON Schema, throws a
 * TypeError saying so.
 */
export function resolveSchema(source: SchemaSource, what: string, schemas: SchemaCompiler): ResolvedSchema {
  if (isStandardSchema(source)) {
    const known = resolvedStandard.get(source);
    if (known) return known;
    const resolved = resolveStandard(source, what);
    resolvedStandard.set(source, resolved);
    return resolved;
  }
  let validate: Validator;
  try {
    validate = schemas.compile(source);
  } catch (err) {
    throw new TypeError(`${what} is not a valid JSON Schema: ${(err as Error).message}`);
  }
  return {
    json: source,
    standard: false,
    validator: validate,
    check(value) {
      const violations = validate(value);
      return violations ? { violations } : { value };
    },
  };
}

function resolveStandard(source: StandardSchemaV1, what: string): ResolvedSchema {
  const json = standardJsonSchema(source, what);
  const validate = source['~standard'].validate;
  return {
    json,
    standard: true,
    check(value) {
      const result = validate(value);
      return result instanceof Promise ? result.then(fromStandardResult) : fromStandardResult(result);
    },
  };
}

function fromStandardResult(result: StandardSchemaV1.Result<unknown>): CheckResult {
  if (!result.issues) return { value: result.value };
  return { violations: result.issues.map(toViolation) };
}

/** A Standard issue as the JSON Schema path reports one: a JSON pointer, a rule, a message. */
function toViolation(issue: StandardSchemaV1.Issue): SchemaViolation {
  let path = '';
  for (const segment of issue.path ?? []) {
    const key = typeof segment === 'object' && segment !== null ? segment.key : segment;
    path += `/${String(key).replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  // The vendor's own code where it gives one (zod and ArkType do), as ajv gives its keyword.
  const code = (issue as { code?: unknown }).code ?? (issue as { type?: unknown }).type;
  // ArkType's message names the property again ("city must be ..."); its `problem` is the rest alone.
  const problem = (issue as { problem?: unknown }).problem;
  return { path, rule: typeof code === 'string' ? code : 'invalid', message: typeof problem === 'string' ? problem : issue.message };
}
