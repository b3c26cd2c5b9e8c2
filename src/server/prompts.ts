/** Prompt registrations and `prompts/get` semantics (server/prompts.mdx). */
import { checkScopes } from './scopes.js';
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { GetPromptResult, Icon, Meta, Prompt, PromptArgument } from '../protocol/types.js';
import type { RequestContext } from './api.js';
import type { Completer } from './completions.js';
import { InputRequired } from '../mrtr/input-required.js';

export interface PromptConfig {
  title?: string;
  description?: string;
  icons?: Icon[];
  arguments?: PromptArgument[];
  /** Completers for argument values, by argument name (`completion/complete`). */
  complete?: Record<string, Completer>;
  _meta?: Meta;
  /** OAuth scopes a caller needs (see `ToolConfig.scopes`). */
  scopes?: readonly string[];
}

export type PromptHandler = (args: Record<string, string>, ctx: RequestContext) => GetPromptResult | InputRequired | Promise<GetPromptResult | InputRequired>;

export interface PromptEntry {
  descriptor: Prompt;
  handler: PromptHandler;
  complete: Record<string, Completer> | undefined;
  required: string[];
  scopes: readonly string[] | undefined;
}

export function createPromptEntry(name: string, config: PromptConfig, handler: PromptHandler): PromptEntry {
  if (!name) throw new TypeError('A prompt needs a non-empty name');
  if (typeof handler !== 'function') throw new TypeError(`Prompt '${name}' needs a handler function`);
  const scopes = checkScopes(`Prompt '${name}'`, config.scopes);
  const { complete, scopes: _scopes, ...descriptor } = config;
  for (const arg of config.arguments ?? []) {
    if (typeof arg?.name !== 'string' || !arg.name) throw new TypeError(`Prompt '${name}': every argument needs a name`);
  }
  return {
    descriptor: { name, ...descriptor },
    handler,
    complete,
    required: (config.arguments ?? []).filter((a) => a.required).map((a) => a.name),
    scopes,
  };
}

export async function getPrompt(entry: PromptEntry, args: unknown, ctx: RequestContext): Promise<GetPromptResult | InputRequired> {
  const name = entry.descriptor.name;
  if (args !== undefined && (typeof args !== 'object' || args === null || Array.isArray(args))) {
    throw new McpError(ErrorCode.InvalidParams, `Arguments for prompt ${name} must be an object of strings`);
  }
  const values = (args ?? {}) as Record<string, unknown>;
  for (const [key, value] of Object.entries(values)) {
    if (typeof value !== 'string') throw new McpError(ErrorCode.InvalidParams, `Argument '${key}' for prompt ${name} must be a string`);
  }
  const missing = entry.required.filter((arg) => values[arg] === undefined);
  if (missing.length) {
    throw new McpError(ErrorCode.InvalidParams, `Missing required argument${missing.length > 1 ? 's' : ''} for prompt ${name}: ${missing.join(', ')}`);
  }
  const result = await entry.handler(values as Record<string, string>, ctx);
  if (result instanceof InputRequired) return result;
  if (!result || !Array.isArray(result.messages)) {
    throw new McpError(ErrorCode.InternalError, `Prompt ${name} returned no messages array; return a GetPromptResult`);
  }
  return result;
}
