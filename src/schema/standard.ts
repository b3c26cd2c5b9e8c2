/**
 * Standard Schema v1 and Standard JSON Schema v1 (standardschema.dev), declared here as the spec invites,
 * so the published declarations need no package of theirs: zod 4, valibot (with @valibot/to-json-schema)
 * and ArkType 2 values satisfy them as they are.
 */

/** The Standard Schema interface: a value that validates unknown input. */
export interface StandardSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output>;
}

export declare namespace StandardSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly validate: (value: unknown, options?: Options | undefined) => Result<Output> | Promise<Result<Output>>;
    readonly types?: Types<Input, Output> | undefined;
  }
  type Result<Output> = SuccessResult<Output> | FailureResult;
  interface SuccessResult<Output> {
    readonly value: Output;
    readonly issues?: undefined;
  }
  interface FailureResult {
    readonly issues: ReadonlyArray<Issue>;
  }
  interface Options {
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
  interface Issue {
    readonly message: string;
    readonly path?: ReadonlyArray<PropertyKey | PathSegment> | undefined;
  }
  interface PathSegment {
    readonly key: PropertyKey;
  }
  interface Types<Input = unknown, Output = Input> {
    readonly input: Input;
    readonly output: Output;
  }
}

/** The Standard JSON Schema interface: a value that can say what it accepts as JSON Schema. */
export interface StandardJSONSchemaV1<Input = unknown, Output = Input> {
  readonly '~standard': StandardJSONSchemaV1.Props<Input, Output>;
}

export declare namespace StandardJSONSchemaV1 {
  interface Props<Input = unknown, Output = Input> {
    readonly version: 1;
    readonly vendor: string;
    readonly jsonSchema: Converter;
    readonly types?: StandardSchemaV1.Types<Input, Output> | undefined;
  }
  interface Converter {
    readonly input: (options: Options) => Record<string, unknown>;
    readonly output: (options: Options) => Record<string, unknown>;
  }
  type Target = 'draft-2020-12' | 'draft-07' | 'openapi-3.0' | ({} & string);
  interface Options {
    readonly target: Target;
    readonly libraryOptions?: Record<string, unknown> | undefined;
  }
}

/** A schema that validates (Standard Schema) and says what it accepts (Standard JSON Schema): what a tool, prompt or form takes. */
export interface StandardSchemaWithJSON<Input = unknown, Output = Input> {
  readonly '~standard': StandardSchemaV1.Props<Input, Output> & StandardJSONSchemaV1.Props<Input, Output>;
}

/** What a Standard Schema's value is once validated (its output type). */
export type StandardOutput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly output: infer O }
    ? O
    : unknown
  : never;

/** What a Standard Schema accepts (its input type): what a client sends. */
export type StandardInput<S> = S extends { readonly '~standard': { readonly types?: infer T } }
  ? NonNullable<T> extends { readonly input: infer I }
    ? I
    : unknown
  : never;

/** Whether `value` carries a `~standard` property of version 1. */
export function isStandardSchema(value: unknown): value is StandardSchemaV1 {
  if ((typeof value !== 'object' && typeof value !== 'function') || value === null) return false;
  const props = (value as { '~standard'?: unknown })['~standard'];
  return typeof props === 'object' && props !== null && (props as { version?: unknown }).version === 1;
}

/**
 * The JSON Schema a Standard Schema accepts, for the wire (draft 2020-12, the default dialect of
 * 2025-11-25). Throws a TypeError that says what to do when the schema cannot give one.
 */
export function standardJsonSchema(schema: StandardSchemaV1, what: string): Record<string, unknown> {
  const props = schema['~standard'] as Partial<StandardSchemaV1.Props & StandardJSONSchemaV1.Props>;
  if (typeof props.validate !== 'function') throw new TypeError(`${what}: a Standard Schema needs ~standard.validate`);
  const convert = props.jsonSchema?.input;
  if (typeof convert !== 'function') {
    throw new TypeError(
      `${what}: this ${props.vendor ?? 'Standard'} schema does not implement Standard JSON Schema (~standard.jsonSchema), which the wire needs; ` +
        'use zod 4, ArkType 2, or valibot wrapped in toStandardJsonSchema from @valibot/to-json-schema',
    );
  }
  let json: unknown;
  try {
    json = convert({ target: 'draft-2020-12', ...(props.vendor === 'valibot' ? VALIBOT_OPTIONS : {}) });
  } catch (err) {
    throw new TypeError(`${what}: the ${props.vendor} schema could not be turned into JSON Schema: ${(err as Error).message}`);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw new TypeError(`${what}: the ${props.vendor} schema gave no JSON Schema object`);
  const { $schema, ...rest } = json as Record<string, unknown>;
  // 2020-12 is the default dialect: naming it only trips older clients' draft-07 validators.
  return $schema === DRAFT_2020_12 ? rest : (json as Record<string, unknown>);
}

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

/** Refinements JSON Schema cannot say are left to validate, as zod and ArkType leave them: valibot throws on them unless told. */
const VALIBOT_OPTIONS = { libraryOptions: { ignoreActions: ['check', 'check_items'] } };
