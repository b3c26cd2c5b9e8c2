/** Resource and resource-template registrations and `resources/read` semantics (server/resources.mdx). */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { ReadResourceResult, Resource, ResourceContents, ResourceTemplate } from '../protocol/types.js';
import type { Completer } from './completions.js';
import { checkCacheHint, type CacheHint } from './options.js';
import type { RequestContext } from './api.js';
import { checkScopes } from './scopes.js';
import { UriTemplate } from './uri-template.js';
import type { InputRequired } from '../mrtr/input-required.js';

/** The resource as `resources/list` shows it, without its URI (given separately), and its read caching hint. */
export type ResourceConfig = Omit<Resource, 'uri'> & {
  /** Caching hint for 2026-07-28 reads of this resource (SEP-2549); default: the server's `cache` option. */
  cache?: CacheHint;
  /** OAuth scopes a reader needs (see `ToolConfig.scopes`). */
  scopes?: readonly string[];
};

export interface ResourceTemplateConfig extends Omit<ResourceConfig, 'size' | 'cache' | 'scopes'> {
  /** OAuth scopes a reader needs (see `ToolConfig.scopes`). */
  scopes?: readonly string[];
  /** Caching hint for 2026-07-28 reads through this template (SEP-2549). */
  cache?: CacheHint;
  /** Completers for template variables, by variable name (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>;
}

/**
 * What a read handler returns: a full result, a list of contents, text (sent with the resource's
 * mimeType), or undefined when there is no such resource (answered with -32002).
 */
export type ReadOutput = ReadResourceResult | ResourceContents[] | string | undefined;
export type ResourceHandler = (uri: string, ctx: RequestContext) => ReadOutput | InputRequired | Promise<ReadOutput | InputRequired>;
export type ResourceTemplateHandler = (
  uri: string,
  variables: Record<string, string>,
  ctx: RequestContext,
) => ReadOutput | InputRequired | Promise<ReadOutput | InputRequired>;

export interface ResourceEntry {
  descriptor: Resource;
  handler: ResourceHandler;
  cache: CacheHint | undefined;
  scopes: readonly string[] | undefined;
}

export interface ResourceTemplateEntry {
  descriptor: ResourceTemplate;
  template: UriTemplate;
  handler: ResourceTemplateHandler;
  complete: Record<string, Completer> | undefined;
  cache: CacheHint | undefined;
  scopes: readonly string[] | undefined;
}

export function createResourceEntry(uri: string, config: ResourceConfig, handler: ResourceHandler): ResourceEntry {
  checkUri(uri, 'Resource');
  if (!config?.name) throw new TypeError(`Resource '${uri}' needs a name`);
  if (typeof handler !== 'function') throw new TypeError(`Resource '${uri}' needs a read handler function`);
  const scopes = checkScopes(`Resource '${uri}'`, config.scopes);
  const { cache, scopes: _scopes, ...descriptor } = config;
  if (cache !== undefined) checkCacheHint(`cache of resource ${uri}`, cache);
  return { descriptor: { uri, ...descriptor }, handler, cache, scopes };
}

export function createResourceTemplateEntry(uriTemplate: string, config: ResourceTemplateConfig, handler: ResourceTemplateHandler): ResourceTemplateEntry {
  if (!config?.name) throw new TypeError(`Resource template '${uriTemplate}' needs a name`);
  if (typeof handler !== 'function') throw new TypeError(`Resource template '${uriTemplate}' needs a read handler function`);
  const scopes = checkScopes(`Resource template '${uriTemplate}'`, config.scopes);
  const { complete, cache, scopes: _scopes, ...descriptor } = config;
  if (cache !== undefined) checkCacheHint(`cache of resource template ${uriTemplate}`, cache);
  return { descriptor: { uriTemplate, ...descriptor }, template: new UriTemplate(uriTemplate), handler, complete, cache, scopes };
}

export function resourceNotFound(uri: string): McpError {
  return new McpError(ErrorCode.ResourceNotFound, `Resource not found: ${uri}`, { uri });
}

export function normalizeReadOutput(output: ReadOutput, uri: string, mimeType: string | undefined): ReadResourceResult {
  if (output === undefined || output === null) throw resourceNotFound(uri);
  if (typeof output === 'string') return { contents: [mimeType ? { uri, mimeType, text: output } : { uri, text: output }] };
  if (Array.isArray(output)) return { contents: output };
  if (output && Array.isArray(output.contents)) return output;
  throw new McpError(ErrorCode.InternalError, `The read handler for ${uri} returned no contents; return a ReadResourceResult, contents or text`);
}

function checkUri(uri: string, what: string): void {
  if (typeof uri !== 'string' || !/^[A-Za-z][A-Za-z0-9+.-]*:/.test(uri)) {
    throw new TypeError(`${what} URI '${uri}' is not an absolute URI (it needs a scheme, like file:// or test://)`);
  }
}
