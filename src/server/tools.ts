/** Tool registrations and `tools/call` semantics (server/tools.mdx). */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { errorResult } from '../protocol/results.js';
import type { CallToolResult, ContentBlock, Icon, JsonSchemaObject, Meta, Tool, ToolAnnotations, ToolExecution } from '../protocol/types.js';
import { confirm } from '../elicitation/confirm.js';
import { InputRequired, InputRequiredSignal } from '../mrtr/input-required.js';
import type { RequestContext } from './api.js';
import type { Registration } from './registry.js';
import { checkScopes } from './scopes.js';
import { describeViolations, type SchemaCompiler, type SchemaViolation } from '../schema/compiler.js';
import type { InferSchema, InferSchemaInput } from '../schema/infer.js';
import { type CheckResult, type ResolvedSchema, resolveSchema } from '../schema/schema-source.js';
import type { StandardSchemaWithJSON } from '../schema/standard.js';
import type { ToolTypes } from '../schema/tool-map.js';

/**
 * A tool's `inputSchema` or `outputSchema`: a JSON Schema object (written inline or `as const`, it types
 * the handler too), or a Standard Schema with JSON Schema (zod 4, ArkType 2, valibot through
 * `toStandardJsonSchema`), whose own validate checks the value and whose JSON Schema goes on the wire.
 */
export type ToolSchema = JsonSchemaObject | StandardSchemaWithJSON<object, object>;

export interface ToolConfig<In extends ToolSchema | undefined = ToolSchema | undefined, Out extends ToolSchema | undefined = ToolSchema | undefined> {
  title?: string;
  description?: string;
  icons?: Icon[];
  /** The arguments' schema; resolved once, here. Defaults to an object with no properties. */
  inputSchema?: In;
  /** The schema the handler's `structuredContent` must match. */
  outputSchema?: Out;
  annotations?: ToolAnnotations;
  /**
   * Listed in tools/list as given. A tool whose calls may (or must) run as tasks is registered with
   * `tasks.registerTool(name, { taskSupport, ... }, handler)`, where `tasks = useTasks(server)`.
   */
  execution?: { taskSupport?: 'forbidden' };
  _meta?: Meta;
  /**
   * Ask the user to confirm before the handler runs (a yes/no elicitation). Anything but accept stops
   * the call with an `isError` result saying why.
   */
  confirm?: string | ((args: InferSchema<In>) => string);
  /** OAuth scopes a caller needs (`bearer()`): over HTTP a token without them gets 403 with the step-up challenge. */
  scopes?: readonly string[];
}

/** A tool as the extension that runs its calls registers it (`ExtensionHandle.registerTool`): `execution` as the wire has it. */
export type ExtensionToolConfig = Omit<ToolConfig, 'execution'> & { execution?: ToolExecution };

/** What the handler of a tool with an `outputSchema` returns: its `structuredContent` typed by that schema, or an error result. */
export type StructuredToolResult<Structured> =
  | { content?: ContentBlock[]; structuredContent: Structured; isError?: false; _meta?: Meta }
  | { content: ContentBlock[]; isError: true; structuredContent?: undefined; _meta?: Meta };

/** What a tool handler may return: with no `outputSchema`, a `CallToolResult` or a string; with one, a typed `structuredContent`. */
export type ToolReturn<Structured = undefined> = [Structured] extends [undefined] ? CallToolResult | string : StructuredToolResult<Structured>;

/**
 * A tool handler. Return a `CallToolResult`, or a string for a single text block. A thrown error
 * becomes an `isError` result with its message (SEP-1303), except `UrlElicitationRequiredError`,
 * which is answered as the -32042 JSON-RPC error it stands for.
 */
export type ToolHandler<Args = Record<string, unknown>, Structured = undefined> = (
  args: Args,
  ctx: RequestContext,
) => ToolReturn<Structured> | InputRequired | Promise<ToolReturn<Structured> | InputRequired>;

/** The handler a tool's config types: its arguments from `inputSchema`, its `structuredContent` from `outputSchema`. */
export type ToolHandlerFor<In extends ToolSchema | undefined, Out extends ToolSchema | undefined> = ToolHandler<InferSchema<In>, StructuredOf<Out>>;

/**
 * The `structuredContent` type an `outputSchema` gives: what the schema accepts (a Standard Schema's
 * input type), since that is what is checked and sent; undefined for none, or for a config that may have none.
 */
export type StructuredOf<Out> = undefined extends Out ? undefined : ToolSchema extends Out ? undefined : InferSchemaInput<Out>;

/**
 * A tool's registration, carrying its types for the client: `ToolsOf<typeof a | typeof b>` is the tool
 * map `McpClient<Tools>` checks `callTool`'s name, arguments and `structuredContent` against.
 */
export interface ToolRegistration<Name extends string = string, Args = Record<string, unknown>, Structured = unknown> extends Registration {
  /** Types only, never set: what the tool is called, what it takes, what its `structuredContent` is. */
  readonly '~tool'?: { readonly name: Name; readonly args: Args; readonly structured: Structured };
}

/** The registration `registerTool` gives for a config: arguments as a client sends them, `structuredContent` as the handler gives it. */
export type ToolRegistrationFor<Name extends string, In extends ToolSchema | undefined, Out extends ToolSchema | undefined> = ToolRegistration<
  Name,
  InferSchemaInput<In>,
  StructuredOf<Out>
>;

type RegistrationsIn<T> = T extends { readonly '~tool'?: unknown; remove(): void }
  ? T
  : T extends readonly unknown[]
    ? RegistrationsIn<T[number]>
    : T extends Record<string, unknown>
      ? RegistrationsIn<T[keyof T]>
      : never;

type ToolInfo<R> = R extends { readonly '~tool'?: infer I } ? NonNullable<I> : never;

/**
 * The tool map of some registrations: one (`typeof weather`), a union of them, a tuple, or an object of
 * them (`{ weather, forecast }`). Each tool under its registered name.
 */
export type ToolsOf<T> = {
  [R in RegistrationsIn<T> as ToolInfo<R> extends { readonly name: infer N extends string } ? N : never]: ToolInfo<R> extends {
    readonly args: infer A;
    readonly structured: infer S;
  }
    ? ToolTypes<A, S>
    : never;
};

export interface ToolEntry {
  descriptor: Tool;
  /** As tools/list shows it before 2026-07-28: without the keywords only that version gives meaning (`x-mcp-header`). */
  legacyDescriptor: Tool;
  /** The handler with its types erased: what it returns is checked when it returns. */
  handler: (args: Record<string, unknown>, ctx: RequestContext) => unknown;
  /** Arguments mirrored in HTTP headers (`x-mcp-header` in inputSchema, SEP-2243): property, header name. */
  headerParams: [string, string][] | undefined;
  confirm: string | ((args: Record<string, unknown>) => string) | undefined;
  scopes: readonly string[] | undefined;
  input: ResolvedSchema;
  output: ResolvedSchema | undefined;
}

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', additionalProperties: false };
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

export function createToolEntry(name: string, config: ExtensionToolConfig, handler: ToolHandler<never, never>, schemas: SchemaCompiler): ToolEntry {
  if (!TOOL_NAME.test(name)) throw new TypeError(`Tool name '${name}' is invalid: use 1 to 128 of A-Z a-z 0-9 _ . - / (SEP-986)`);
  if (typeof handler !== 'function') throw new TypeError(`Tool '${name}' needs a handler function`);
  const input = resolveSchema(config.inputSchema ?? NO_ARGUMENTS, `Tool '${name}': inputSchema`, schemas);
  const output = config.outputSchema === undefined ? undefined : resolveSchema(config.outputSchema, `Tool '${name}': outputSchema`, schemas);
  if (input.json.type !== 'object') throw new TypeError(`Tool '${name}': inputSchema must have type "object"`);
  if (output && output.json.type !== 'object') throw new TypeError(`Tool '${name}': outputSchema must have type "object"`);
  if (config.confirm !== undefined && typeof config.confirm !== 'string' && typeof config.confirm !== 'function') {
    throw new TypeError(`Tool '${name}': confirm must be a message or a function of the arguments that returns one`);
  }
  const taskSupport = config.execution?.taskSupport;
  if (taskSupport !== undefined && taskSupport !== 'forbidden' && taskSupport !== 'optional' && taskSupport !== 'required') {
    throw new TypeError(`Tool '${name}': execution.taskSupport must be 'forbidden', 'optional' or 'required'; got ${JSON.stringify(taskSupport)}`);
  }
  const scopes = checkScopes(`Tool '${name}'`, config.scopes);
  const { confirm: confirmation, scopes: _scopes, inputSchema: _in, outputSchema: _out, ...wire } = config;
  const inputSchema = input.json as JsonSchemaObject;
  const descriptor: Tool = output ? { name, ...wire, inputSchema, outputSchema: output.json as JsonSchemaObject } : { name, ...wire, inputSchema };
  const legacyInput = withoutHeaderMarks(inputSchema);
  return {
    descriptor,
    legacyDescriptor: legacyInput === inputSchema ? descriptor : { ...descriptor, inputSchema: legacyInput },
    handler: handler as ToolEntry['handler'],
    headerParams: headerParams(inputSchema),
    confirm: confirmation as ToolEntry['confirm'],
    scopes,
    input,
    output,
  };
}

function headerParams(schema: JsonSchemaObject): [string, string][] | undefined {
  const found: [string, string][] = [];
  for (const [property, definition] of Object.entries(schema.properties ?? {})) {
    const header = (definition as { 'x-mcp-header'?: unknown })['x-mcp-header'];
    if (typeof header === 'string' && header.length > 0) found.push([property, header]);
  }
  return found.length > 0 ? found : undefined;
}

/**
 * `inputSchema` without `x-mcp-header` on its properties, where SEP-2243 reads it: a keyword earlier
 * versions do not define, on which strict validators (Ajv's `strict`) throw. The same object when it has none.
 */
function withoutHeaderMarks(schema: JsonSchemaObject): JsonSchemaObject {
  const marked = (definition: unknown) => typeof definition === 'object' && definition !== null && 'x-mcp-header' in definition;
  const entries = Object.entries(schema.properties ?? {});
  if (!entries.some(([, definition]) => marked(definition))) return schema;
  const unmarked = (definition: object) => {
    if (!marked(definition)) return definition;
    const { 'x-mcp-header': _mark, ...rest } = definition as Record<string, unknown>;
    return rest;
  };
  return { ...schema, properties: Object.fromEntries(entries.map(([property, definition]) => [property, unmarked(definition)])) };
}

/** The arguments as the tool's `inputSchema` reads them, or the `isError` result it gives them (SEP-1303). */
export type CheckedArguments = { args: Record<string, unknown>; refused?: undefined } | { args?: undefined; refused: CallToolResult };

/** Arguments a tool's `inputSchema` refused: its `isError` result. */
class Refused {
  constructor(readonly result: CallToolResult) {}
}

/**
 * The arguments as the tool's `inputSchema` reads them, or Refused. For JSON Schema synchronous and
 * allocation-free on success (the arguments as given); a Standard Schema's validate may be async.
 */
function readArguments(entry: ToolEntry, given: Record<string, unknown>): Record<string, unknown> | Refused | Promise<Record<string, unknown> | Refused> {
  const { validator } = entry.input;
  if (validator) {
    const violations = validator(given);
    return violations ? refusal(entry, violations) : given;
  }
  const checked = entry.input.check(given);
  return checked instanceof Promise ? checked.then((result) => fromCheck(entry, result)) : fromCheck(entry, checked);
}

function fromCheck(entry: ToolEntry, checked: CheckResult): Record<string, unknown> | Refused {
  return checked.violations ? refusal(entry, checked.violations) : (checked.value as Record<string, unknown>);
}

function refusal(entry: ToolEntry, violations: SchemaViolation[]): Refused {
  return new Refused(errorResult(`Invalid arguments for tool ${entry.descriptor.name}: ${describeViolations(violations)}`));
}

/** Check `args` against the tool's `inputSchema` (for extensions, before they run the tool apart). */
export async function checkArguments(entry: ToolEntry, args: Record<string, unknown>): Promise<CheckedArguments> {
  const read = await readArguments(entry, args);
  return read instanceof Refused ? { refused: read.result } : { args: read };
}

/**
 * Run a tool: argument validation and handler failures are `isError` results (SEP-1303), not protocol
 * errors, except an input round unwinding and what `errors.isRequestError` says travels as a JSON-RPC error.
 */
export async function callTool(
  entry: ToolEntry,
  given: Record<string, unknown>,
  ctx: RequestContext,
  errors: { isRequestError(err: unknown): boolean },
  /** The arguments as the schema read them already (an extension checked them first): not checked again. */
  checked?: Record<string, unknown>,
): Promise<CallToolResult | InputRequired> {
  const name = entry.descriptor.name;
  let result: CallToolResult;
  try {
    // Inside: a Standard Schema's validate that throws fails the call as a handler would (SEP-1303).
    let read = checked ?? readArguments(entry, given);
    if (read instanceof Promise) read = await read;
    if (read instanceof Refused) return read.result;
    const args = read;
    if (entry.confirm !== undefined) await confirm(ctx, typeof entry.confirm === 'string' ? entry.confirm : entry.confirm(args));
    const out = await entry.handler(args, ctx);
    if (out instanceof InputRequired) return out;
    result = typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : (out as CallToolResult);
  } catch (err) {
    if (err instanceof InputRequiredSignal || errors.isRequestError(err)) throw err;
    return errorResult(err instanceof Error ? err.message : String(err));
  }
  if (typeof result !== 'object' || result === null) {
    throw new McpError(ErrorCode.InternalError, `Tool ${name} returned ${String(result)}; return a CallToolResult or a string`);
  }
  if (entry.output && !result.isError) result = await checkStructured(entry.output, name, result);
  // tools.mdx: structured results SHOULD also be given as serialized JSON in a text block.
  if (result.structuredContent !== undefined && (result.content === undefined || result.content.length === 0)) {
    result = { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
  }
  return result.content === undefined ? { ...result, content: [] } : result;
}

/** A result whose `structuredContent` does not match the `outputSchema` is a server bug: -32603. */
async function checkStructured(output: ResolvedSchema, name: string, result: CallToolResult): Promise<CallToolResult> {
  const content = result.structuredContent;
  let problems: SchemaViolation[] | null | undefined;
  if (content === undefined) problems = [{ path: '', rule: 'required', message: 'structuredContent is missing' }];
  else if (output.validator) problems = output.validator(content);
  else {
    try {
      problems = (await output.check(content)).violations;
    } catch (err) {
      throw new McpError(ErrorCode.InternalError, `Tool ${name}'s outputSchema check threw: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (problems) {
    throw new McpError(
      ErrorCode.InternalError,
      `Tool ${name} returned structuredContent that does not match its outputSchema: ${describeViolations(problems)}`,
    );
  }
  return result;
}
