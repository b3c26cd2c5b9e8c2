/** Prompt registrations and `prompts/get` semantics (server/prompts.mdx). */
import { checkScopes } from './scopes.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { GetPromptResult, Icon, Meta, Prompt, PromptArgument } from '../protocol/types.js';
import { describeViolations, type SchemaCompiler } from '../schema/compiler.js';
import type { InferSchema } from '../schema/infer.js';
import { type ResolvedSchema, resolveSchema, type SchemaSource } from '../schema/schema-source.js';
import type { RequestContext } from './api.js';
import type { Completer } from './completions.js';
import { InputRequired } from '../mrtr/input-required.js';

/**
 * A prompt's arguments: the list `prompts/list` shows, or a schema of string properties that list is
 * made from and `prompts/get` checks against: a JSON Schema object (written inline, it types the
 * handler) or a Standard Schema with JSON Schema (zod 4, ArkType 2, valibot through `toStandardJsonSchema`).
 */
export type PromptArguments = readonly PromptArgument[] | SchemaSource;

export interface PromptConfig<A extends PromptArguments | undefined = PromptArguments | undefined> {
  title?: string;
  description?: string;
  icons?: Icon[];
  /**
   * The arguments, as a list, or as a schema: then each property is an argument (its `title` and
   * `description` shown, `required` from the schema's), and the handler gets them as the schema reads them.
   */
  arguments?: A;
  /** Completers for argument values, by argument name (`completion/complete`). */
  complete?: Record<string, Completer>;
  _meta?: Meta;
  /** OAuth scopes a caller needs (see `ToolConfig.scopes`). */
  scopes?: readonly string[];
}

export type PromptHandler<Args = Record<string, string>> = (
  args: Args,
  ctx: RequestContext,
) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;

/** The arguments a prompt's handler gets: typed by a schema (its output type); strings by name for a list. */
export type PromptArgsOf<A> = A extends readonly unknown[] ? Record<string, string> : InferSchema<A, Record<string, string>>;

/** The handler a prompt's config types. */
export type PromptHandlerFor<A> = PromptHandler<PromptArgsOf<A>>;

export interface PromptEntry {
  descriptor: Prompt;
  handler: PromptHandler<never>;
  complete: Record<string, Completer> | undefined;
  /** The arguments a list marks required (a schema checks its own). */
  required: string[];
  /** The schema the arguments were given as, which checks them. */
  schema: ResolvedSchema | undefined;
  scopes: readonly string[] | undefined;
}

export function createPromptEntry(name: string, config: PromptConfig, handler: PromptHandler<never>, schemas: SchemaCompiler): PromptEntry {
  if (!name) throw new TypeError('A prompt needs a non-empty name');
  if (typeof handler !== 'function') throw new TypeError(`Prompt '${name}' needs a handler function`);
  const scopes = checkScopes(`Prompt '${name}'`, config.scopes);
  const { complete, scopes: _scopes, arguments: given, ...descriptor } = config;
  let list: PromptArgument[] | undefined;
  let schema: ResolvedSchema | undefined;
  if (given === undefined || Array.isArray(given)) {
    list = given as PromptArgument[] | undefined;
    for (const arg of list ?? []) {
      if (typeof arg?.name !== 'string' || !arg.name) throw new TypeError(`Prompt '${name}': every argument needs a name`);
    }
  } else {
    schema = resolveSchema(given as SchemaSource, `Prompt '${name}': arguments`, schemas);
    list = argumentList(name, schema);
  }
  return {
    descriptor: list === undefined ? { name, ...descriptor } : { name, ...descriptor, arguments: list },
    handler,
    complete,
    required: schema ? [] : (list ?? []).filter((a) => a.required).map((a) => a.name),
    schema,
    scopes,
  };
}

/** The argument list a schema makes, once: each property, in order, with its title, description and whether it is required. */
function argumentList(name: string, schema: ResolvedSchema): PromptArgument[] {
  const { json } = schema;
  if (json.type !== 'object') throw new TypeError(`Prompt '${name}': arguments must be a list of arguments or a schema of type "object"`);
  const properties = isObject(json.properties) ? json.properties : {};
  const required = new Set(Array.isArray(json.required) ? json.required : []);
  return Object.entries(properties).map(([property, definition]) => {
    const described = isObject(definition) ? definition : {};
    // Arguments arrive as strings and ajv does not coerce; a Standard schema's own check may.
    if (!schema.standard && described.type !== undefined && described.type !== 'string') {
      throw new TypeError(`Prompt '${name}': arguments.properties.${property} must be of type "string": prompt arguments arrive as strings`);
    }
    const arg: PromptArgument = { name: property };
    if (typeof described.title === 'string') arg.title = described.title;
    if (typeof described.description === 'string') arg.description = described.description;
    arg.required = required.has(property);
    return arg;
  });
}

export async function getPrompt(entry: PromptEntry, args: unknown, ctx: RequestContext): Promise<GetPromptResult | InputRequired> {
  const name = entry.descriptor.name;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new McpError(ErrorCode.InvalidParams, `Arguments for prompt ${name} must be an object of strings`);
  }
  let values = (args ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'string') throw new McpError(ErrorCode.InvalidParams, `Argument '${key}' for prompt ${name} must be a string`);
  }
  if (entry.schema) {
    let checked: Awaited<ReturnType<typeof entry.schema.check>>;
    try {
      checked = await entry.schema.check(values);
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `Prompt ${name}'s arguments check threw: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (checked.violations) throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${name}: ${describeViolations(checked.violations)}`);
    values = checked.value as Record<string, unknown>;
  }
  const missing = entry.required.filter((arg) => values[arg] === undefined);
  if (missing.length) {
    throw new McpError(ErrorCode.InvalidParams, `Missing required argument${missing.length > 1 ? 's' : ''} for prompt ${name}: ${missing.join(', ')}`);
  }
  const result = await (entry.handler as PromptHandler<Record<string, unknown>>)(values, ctx);
  if (result instanceof InputRequired) return result;
  if (!result || !Array.isArray(result.messages)) {
    throw new McpError(ErrorCode.InternalError, `Prompt ${name} returned no messages array; return a GetPromptResult`);
  }
  return result;
}
