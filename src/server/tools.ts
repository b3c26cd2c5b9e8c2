/** Tool registrations and `tools/call` semantics (server/tools.mdx). */
import { ErrorCode, McpError } from '../protocol/errors.js';
import { errorResult } from '../protocol/results.js';
import type { CallToolResult, Icon, JsonSchemaObject, Meta, Tool, ToolAnnotations, ToolExecution } from '../protocol/types.js';
import { confirm } from '../elicitation/confirm.js';
import { InputRequired, InputRequiredSignal } from '../mrtr/input-required.js';
import type { RequestContext } from './api.js';
import { checkScopes } from './scopes.js';
import { describeViolations, type SchemaCompiler, type Validator } from '../schema/compiler.js';

export interface ToolConfig {
  title?: string;
  description?: string;
  icons?: Icon[];
  /** JSON Schema for the arguments; compiled once, here. Defaults to an object with no properties. */
  inputSchema?: JsonSchemaObject;
  /** JSON Schema the handler's `structuredContent` must match. */
  outputSchema?: JsonSchemaObject;
  annotations?: ToolAnnotations;
  /**
   * `{ taskSupport: 'optional' | 'required' }`: calls may (or must) run as tasks, where the Tasks
   * extension is in use (`useTasks(server)`) and the request declares it. Listed in tools/list as given.
   */
  execution?: ToolExecution;
  _meta?: Meta;
  /**
   * Ask the user to confirm before the handler runs (a yes/no elicitation). Anything but accept stops
   * the call with an `isError` result saying why.
   */
  confirm?: string | ((args: Record<string, unknown>) => string);
  /** OAuth scopes a caller needs (`bearer()`): over HTTP a token without them gets 403 with the step-up challenge. */
  scopes?: readonly string[];
}

/**
 * A tool handler. Return a `CallToolResult`, or a string for a single text block. A thrown error
 * becomes an `isError` result with its message (SEP-1303), except `UrlElicitationRequiredError`,
 * which is answered as the -32042 JSON-RPC error it stands for.
 */
export type ToolHandler = (
  args: Record<string, unknown>,
  ctx: RequestContext,
) => CallToolResult | string | InputRequired | Promise<CallToolResult | string | InputRequired>;

export interface ToolEntry {
  descriptor: Tool;
  /** As tools/list shows it before 2026-07-28: without the keywords only that version gives meaning (`x-mcp-header`). */
  legacyDescriptor: Tool;
  handler: ToolHandler;
  /** Arguments mirrored in HTTP headers (`x-mcp-header` in inputSchema, SEP-2243): property, header name. */
  headerParams: [string, string][] | undefined;
  confirm: ToolConfig['confirm'];
  scopes: readonly string[] | undefined;
  validateInput: Validator;
  validateOutput: Validator | undefined;
}

const NO_ARGUMENTS: JsonSchemaObject = { type: 'object', additionalProperties: false };
const TOOL_NAME = /^[A-Za-z0-9_.\-/]{1,128}$/;

export function createToolEntry(name: string, config: ToolConfig, handler: ToolHandler, schemas: SchemaCompiler): ToolEntry {
  if (!TOOL_NAME.test(name)) throw new TypeError(`Tool name '${name}' is invalid: use 1 to 128 of A-Z a-z 0-9 _ . - / (SEP-986)`);
  if (typeof handler !== 'function') throw new TypeError(`Tool '${name}' needs a handler function`);
  const inputSchema = config.inputSchema ?? NO_ARGUMENTS;
  if (inputSchema.type !== 'object') throw new TypeError(`Tool '${name}': inputSchema must have type "object"`);
  if (config.outputSchema && config.outputSchema.type !== 'object') throw new TypeError(`Tool '${name}': outputSchema must have type "object"`);
  if (config.confirm !== undefined && typeof config.confirm !== 'string' && typeof config.confirm !== 'function') {
    throw new TypeError(`Tool '${name}': confirm must be a message or a function of the arguments that returns one`);
  }
  const taskSupport = config.execution?.taskSupport;
  if (taskSupport !== undefined && taskSupport !== 'forbidden' && taskSupport !== 'optional' && taskSupport !== 'required') {
    throw new TypeError(`Tool '${name}': execution.taskSupport must be 'forbidden', 'optional' or 'required'; got ${JSON.stringify(taskSupport)}`);
  }
  const scopes = checkScopes(`Tool '${name}'`, config.scopes);
  const { confirm: confirmation, scopes: _scopes, ...wire } = config;
  const descriptor: Tool = { name, ...wire, inputSchema };
  const legacyInput = withoutHeaderMarks(inputSchema);
  return {
    descriptor,
    legacyDescriptor: legacyInput === inputSchema ? descriptor : { ...descriptor, inputSchema: legacyInput },
    handler,
    headerParams: headerParams(inputSchema),
    confirm: confirmation,
    scopes,
    validateInput: compileFor(name, 'inputSchema', inputSchema, schemas),
    validateOutput: config.outputSchema && compileFor(name, 'outputSchema', config.outputSchema, schemas),
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

function compileFor(name: string, which: string, schema: object, schemas: SchemaCompiler): Validator {
  try {
    return schemas.compile(schema);
  } catch (err) {
    throw new TypeError(`Tool '${name}': ${which} is not a valid JSON Schema: ${(err as Error).message}`);
  }
}

/** The `isError` result a tool's `inputSchema` gives `args` (SEP-1303), or undefined when they fit. */
export function argumentRefusal(entry: ToolEntry, args: Record<string, unknown>): CallToolResult | undefined {
  const violations = entry.validateInput(args);
  return violations ? errorResult(`Invalid arguments for tool ${entry.descriptor.name}: ${describeViolations(violations)}`) : undefined;
}

/**
 * Run a tool: argument validation and handler failures are `isError` results (SEP-1303), not protocol
 * errors, except an input round unwinding and what `errors.isRequestError` says travels as a JSON-RPC error.
 */
export async function callTool(
  entry: ToolEntry,
  args: Record<string, unknown>,
  ctx: RequestContext,
  errors: { isRequestError(err: unknown): boolean },
): Promise<CallToolResult | InputRequired> {
  const name = entry.descriptor.name;
  const refused = argumentRefusal(entry, args);
  if (refused) return refused;
  let result: CallToolResult;
  try {
    if (entry.confirm !== undefined) await confirm(ctx, typeof entry.confirm === 'string' ? entry.confirm : entry.confirm(args));
    const out = await entry.handler(args, ctx);
    if (out instanceof InputRequired) return out;
    result = typeof out === 'string' ? { content: [{ type: 'text', text: out }] } : out;
  } catch (err) {
    if (err instanceof InputRequiredSignal || errors.isRequestError(err)) throw err;
    return errorResult(err instanceof Error ? err.message : String(err));
  }
  if (typeof result !== 'object' || result === null) {
    throw new McpError(ErrorCode.InternalError, `Tool ${name} returned ${String(result)}; return a CallToolResult or a string`);
  }
  if (entry.validateOutput && !result.isError) {
    const problems =
      result.structuredContent === undefined
        ? [{ path: '', rule: 'required', message: 'structuredContent is missing' }]
        : entry.validateOutput(result.structuredContent);
    if (problems) {
      throw new McpError(
        ErrorCode.InternalError,
        `Tool ${name} returned structuredContent that does not match its outputSchema: ${describeViolations(problems)}`,
      );
    }
  }
  // tools.mdx: structured results SHOULD also be given as serialized JSON in a text block.
  if (result.structuredContent !== undefined && (result.content === undefined || result.content.length === 0)) {
    result = { ...result, content: [{ type: 'text', text: JSON.stringify(result.structuredContent) }] };
  }
  return result.content === undefined ? { ...result, content: [] } : result;
}
