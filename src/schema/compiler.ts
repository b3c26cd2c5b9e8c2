/**
 * JSON Schema validation with ajv. Schemas are compiled once and cached by content, not by object
 * identity: recompiling an inline schema per call is where the official SDK spends most of its
 * elicitation CPU.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { Ajv } from 'ajv';
import type { ErrorObject, ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export interface SchemaViolation {
  /** The property at fault, as a JSON pointer into the value (`""` for the value itself). */
  path: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `maximum`, ...). */
  rule: string;
  message: string;
}

export type Validator = (value: unknown) => SchemaViolation[] | null;

/** 2020-12 is the default dialect (2025-11-25); draft-06 and draft-07 `$schema` values get a draft-07 validator. */
const DRAFT_07_SCHEMAS = /json-schema\.org\/draft-0[67]\/schema/;
const DRAFT_06_SCHEMA = /json-schema\.org\/draft-06\/schema/;
const DRAFT_07_URI = 'http://json-schema.org/draft-07/schema#';

export class SchemaCompiler {
  private modern: Ajv2020 | undefined;
  private draft07: Ajv | undefined;
  /** Least recently used first; bounded, since schemas may be built from client input (a default, a file name). */
  private readonly cache = new Map<string, { validator: Validator; schema: object; ajv: Ajv | Ajv2020 }>();

  /** The key at the end of the cache's order. */
  private newest: string | undefined;

  constructor(private readonly limit = 1000) {}

  /**
   * Compile `schema` (or take it from the cache) into a validator; throws when the schema is not valid
   * JSON Schema. `key` is the schema's JSON, when the caller has it already.
   */
  compile(schema: object, key = JSON.stringify(schema)): Validator {
    const cached = this.cache.get(key);
    if (cached) {
      // Least recently used last: moved to the end, unless it is there already (the common case of one schema in a loop).
      if (key !== this.newest) {
        this.cache.delete(key);
        this.cache.set(key, cached);
        this.newest = key;
      }
      return cached.validator;
    }
    const ajv = this.ajvFor(schema);
    // Draft-06 is validated as draft-07 (a superset: it adds if/then/else), without loading the draft-06 meta-schema.
    const compiled = DRAFT_06_SCHEMA.test(String((schema as { $schema?: unknown }).$schema)) ? { ...schema, $schema: DRAFT_07_URI } : schema;
    const validator = toValidator(ajv.compile(compiled));
    this.cache.set(key, { validator, schema: compiled, ajv });
    this.newest = key;
    if (this.cache.size > this.limit) {
      const [oldest, entry] = this.cache.entries().next().value as [string, { schema: object; ajv: Ajv | Ajv2020 }];
      this.cache.delete(oldest);
      entry.ajv.removeSchema(entry.schema); // ajv keeps every compiled schema too
    }
    return validator;
  }

  /** How many compiled schemas are kept. */
  get size(): number {
    return this.cache.size;
  }

  private ajvFor(schema: object): Ajv | Ajv2020 {
    const dialect = (schema as { $schema?: unknown }).$schema;
    if (typeof dialect === 'string' && DRAFT_07_SCHEMAS.test(dialect)) {
      return (this.draft07 ??= configure(new Ajv(AJV_OPTIONS)));
    }
    return (this.modern ??= configure(new Ajv2020(AJV_OPTIONS)));
  }
}

// strict: false because MCP schemas carry annotations ajv does not know (x-mcp-header, enumNames, ...).
const AJV_OPTIONS = { strict: false, allErrors: true, logger: false } as const;

function configure<T extends Ajv | Ajv2020>(ajv: T): T {
  (addFormats as unknown as (ajv: T) => T)(ajv);
  return ajv;
}

function toValidator(validate: ValidateFunction): Validator {
  return (value) => (validate(value) ? null : violations(validate.errors ?? []));
}

function violations(errors: ErrorObject[]): SchemaViolation[] {
  return errors.map((e) => {
    const missing = e.keyword === 'required' ? (e.params as { missingProperty?: string }).missingProperty : undefined;
    const path = missing === undefined ? e.instancePath : `${e.instancePath}/${missing.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    return { path, rule: e.keyword, message: e.message ?? e.keyword };
  });
}

/** One line that names each violation, for error texts people read. */
export function describeViolations(list: SchemaViolation[]): string {
  return list.map((v) => `${v.path || '(root)'}: ${v.message}`).join('; ');
}
