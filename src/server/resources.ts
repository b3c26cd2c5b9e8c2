/** Resource and resource-template registrations and `resources/read` semantics (server/resources.mdx). */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { Annotations, Icon, Meta, ReadResourceResult, Resource, ResourceContents, ResourceTemplate } from '../protocol/types.js';
import type { Completer } from './completions.js';
import type { RequestContext } from './context.js';
import { UriTemplate } from './uri-template.js';

/** The resource as `resources/list` shows it, without its URI (given separately). */
export type ResourceConfig = Omit<Resource, 'uri'>;

export interface ResourceTemplateConfig extends Omit<ResourceConfig, 'size'> {
  /** Completers for template variables, by variable name (`completion/complete` with `ref/resource`). */
  complete?: Record<string, Completer>;
}

/**
 * What a read handler returns: a full result, a list of contents, text (sent with the resource's
 * mimeType), or undefined when there is no such resource (answered with -32002).
 */
export type ReadOutput = ReadResourceResult | ResourceContents[] | string | undefined;
export type ResourceHandler = (uri: string, ctx: RequestContext) => ReadOutput | Promise<ReadOutput>;
export type ResourceTemplateHandler = (uri: string, variables: Record<string, string>, ctx: RequestContext) => ReadOutput | Promise<ReadOutput>;

export interface ResourceEntry {
  descriptor: Resource;
  handler: ResourceHandler;
}

export interface ResourceTemplateEntry {
  descriptor: ResourceTemplate;
  template: UriTemplate;
  handler: ResourceTemplateHandler;
  complete: Record<string, Completer> | undefined;
}

export function createResourceEntry(uri: string, config: ResourceConfig, handler: ResourceHandler): ResourceEntry {
  checkUri(uri, 'Resource');
  if (!config?.name) throw new TypeError(`Resource '${uri}' needs a name`);
  if (typeof handler !== 'function') throw new TypeError(`Resource '${uri}' needs a read handler function`);
  return { descriptor: { uri, ...config }, handler };
}

export function createResourceTemplateEntry(uriTemplate: string, config: ResourceTemplateConfig, handler: ResourceTemplateHandler): ResourceTemplateEntry {
  if (!config?.name) throw new TypeError(`Resource template '${uriTemplate}' needs a name`);
  if (typeof handler !== 'function') throw new TypeError(`Resource template '${uriTemplate}' needs a read handler function`);
  const { complete, ...descriptor } = config;
  return { descriptor: { uriTemplate, ...descriptor }, template: new UriTemplate(uriTemplate), handler, complete };
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
