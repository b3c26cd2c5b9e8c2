/**
 * The TypeScript type a schema describes, at compile time only: a Standard Schema's output type, or
 * the type a JSON Schema literal (written inline, or `as const`) describes. A schema whose literal
 * types were widened away (a variable without `as const`) gives `Record<string, unknown>`, as before.
 */
import type { StandardInput, StandardOutput } from './standard.js';

type Simplify<T> = { [K in keyof T]: T[K] };

type Primitive = { string: string; number: number; integer: number; boolean: boolean; null: null };

/** A const, an enum, or titled oneOf/anyOf of consts (SEP-1330). */
type Literals<S> = S extends { readonly const: infer C }
  ? C
  : S extends { readonly enum: readonly (infer E)[] }
    ? E
    : S extends { readonly oneOf: readonly (infer O)[] }
      ? FromJsonSchema<O>
      : S extends { readonly anyOf: readonly (infer A)[] }
        ? FromJsonSchema<A>
        : never;

type ByType<S, T> = T extends 'object' ? ObjectOf<S> : T extends 'array' ? ArrayOf<S> : T extends keyof Primitive ? Primitive[T] : unknown;

type ArrayOf<S> = S extends { readonly items: infer I } ? FromJsonSchema<I>[] : unknown[];

/** The names `required` lists; none when it was widened to `string[]` (then every property may be absent). */
type RequiredKeys<S> = S extends { readonly required: readonly (infer R)[] } ? (string extends R ? never : R & string) : never;

/** Nothing more: an object type with no keys of its own, for `&`. */
type NoMore = Record<never, never>;

type Extra<S> = S extends { readonly additionalProperties: false }
  ? NoMore
  : S extends { readonly additionalProperties: infer A extends object }
    ? { [key: string]: FromJsonSchema<A> }
    : NoMore;

type ObjectOf<S> = S extends { readonly properties: infer P extends Record<string, unknown> }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredKeys<S> ? K : never]: FromJsonSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredKeys<S> ? never : K]?: FromJsonSchema<P[K]>;
      } & Extra<S>
    >
  : S extends { readonly additionalProperties: false }
    ? Record<string, never>
    : Extra<S> extends Record<string, never>
      ? Record<string, unknown>
      : Extra<S>;

/** The type a JSON Schema literal describes; `unknown` where it says nothing a type can hold. */
export type FromJsonSchema<S> = [Literals<S>] extends [never]
  ? S extends { readonly type: infer T }
    ? T extends readonly (infer U)[]
      ? ByType<S, U>
      : string extends T
        ? unknown
        : ByType<S, T>
    : S extends { readonly properties: object }
      ? ObjectOf<S>
      : unknown
  : Literals<S>;

/**
 * What a handler receives for `S`: a Standard Schema's output type; the type a JSON Schema literal
 * describes; `Otherwise` (`Record<string, unknown>`) for a widened schema, for none, and for the
 * broad schema types themselves (a config not written out).
 */
export type InferSchema<S, Otherwise = Record<string, unknown>> = undefined extends S
  ? Otherwise
  : [S] extends [{ readonly '~standard': object }]
    ? unknown extends StandardOutput<S>
      ? Otherwise
      : StandardOutput<S>
    : [S] extends [{ readonly type: 'object'; readonly properties?: unknown }]
      ? BroadObject extends S
        ? Otherwise
        : FromJsonSchema<S> extends infer T
          ? unknown extends T
            ? Otherwise
            : T
          : never
      : Otherwise;

/** The JSON Schema object type with nothing written out: it describes no particular arguments. */
type BroadObject = { type: 'object'; properties?: Readonly<Record<string, object>>; required?: readonly string[]; [key: string]: unknown };

/** What a client sends for `S`: a Standard Schema's input type (before defaults and transforms), else as `InferSchema`. */
export type InferSchemaInput<S, Otherwise = Record<string, unknown>> = undefined extends S
  ? Otherwise
  : [S] extends [{ readonly '~standard': object }]
    ? unknown extends StandardInput<S>
      ? Otherwise
      : StandardInput<S>
    : InferSchema<S, Otherwise>;
