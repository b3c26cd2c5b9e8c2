/**
 * Extensions (`capabilities.extensions`): each adds methods and declares itself under its id. The core
 * knows extensions, not what they do: it finds their methods, gates those that need the client to have
 * declared the extension (-32021 naming it), and lets their results carry caching hints.
 */
import { ClientCapabilityError, ErrorCode, McpError } from '../protocol/errors.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { CallToolResult } from '../protocol/types.js';
import type { McpSession } from './api.js';
import type { Context } from './context.js';
import type { DetachOptions, ExtensionMethod, ListenFilter, ServerExtension, ToolCall } from './extension-api.js';
import { type CheckedArguments, checkArguments, type ToolEntry } from './tools.js';

/** An extension's method as the pipeline runs it. */
export type ExtensionHandler = (
  session: McpSession,
  params: Record<string, unknown>,
  ctx: Context,
) => Record<string, unknown> | Promise<Record<string, unknown>>;

/** Where the pipeline finds a method no era serves, and what else of the extensions a request meets. */
export interface ExtensionMethods {
  handler(method: string): ExtensionHandler | undefined;
  /** Whether its results carry caching hints on 2026-07-28. */
  cacheable(method: string): boolean;
  /** Whether any extension may take over a tools/call (most servers have none: then `callTool` is not asked). */
  readonly takesToolCalls: boolean;
  /** An extension's answer to a tools/call in place of the tool's own, if one takes it over. */
  callTool(
    session: McpSession,
    entry: ToolEntry,
    args: Record<string, unknown>,
    ctx: Context,
  ): Record<string, unknown> | Promise<Record<string, unknown>> | undefined;
  /** What the extensions honour of a subscriptions/listen filter (their keys), if anything. */
  acceptListen(session: McpSession, requested: unknown, ctx: Context): Promise<Record<string, unknown> | undefined>;
}

/** Runs a tool apart from the call that started it (server/detached.ts), for `ToolCall.detach`. */
export type DetachedRunner = (
  call: McpSession,
  ctx: Context,
  entry: ToolEntry,
  args: Record<string, unknown>,
  options: DetachOptions,
  checked: Record<string, unknown> | undefined,
) => Promise<CallToolResult>;

/** The filter keys subscriptions/listen has of its own (subscriptions.ts). */
const CORE_FILTERS = new Set(['toolsListChanged', 'promptsListChanged', 'resourcesListChanged', 'resourceSubscriptions']);

const EXTENSION_ID = /^[a-z0-9-]+(\.[a-z0-9-]+)+\/[a-z0-9][a-z0-9-_.]*$/i;

export class Extensions implements ExtensionMethods {
  private readonly byId = new Map<string, ServerExtension>();
  /** Each extension method as the pipeline runs it, made once at `add`. */
  private readonly methods = new Map<string, { id: string; handler: ExtensionHandler; cacheable: boolean }>();
  /** The extensions that take over tools/call, in the order they were added; empty costs a call nothing. */
  private readonly toolHooks: NonNullable<ServerExtension['callTool']>[] = [];
  takesToolCalls = false;
  /** subscriptions/listen filter keys, by key. */
  private readonly filters = new Map<string, { id: string; filter: ListenFilter }>();

  constructor(
    private readonly coreMethods: (method: string) => boolean,
    private readonly runDetached: DetachedRunner,
    private readonly reportError: (error: unknown) => void,
  ) {}

  add(extension: ServerExtension): void {
    if (!isObject(extension) || typeof extension.id !== 'string' || !EXTENSION_ID.test(extension.id)) {
      throw new TypeError(`An extension needs an id such as io.modelcontextprotocol/skills; got ${JSON.stringify((extension as { id?: unknown })?.id)}`);
    }
    if (this.byId.has(extension.id)) throw new TypeError(`Extension ${extension.id} is already in use on this server`);
    for (const name of Object.keys(extension.methods)) {
      const taken = this.coreMethods(name) ? 'the core' : this.methods.get(name)?.id;
      if (taken) throw new TypeError(`Extension ${extension.id} cannot serve ${name}: ${taken} serves it already`);
    }
    for (const key of Object.keys(extension.listenFilters ?? {})) {
      const taken = CORE_FILTERS.has(key) ? 'the core' : this.filters.get(key)?.id;
      if (taken) throw new TypeError(`Extension ${extension.id} cannot add the listen filter ${key}: ${taken} has it already`);
    }
    for (const hook of ['callTool', 'shared'] as const) {
      if (extension[hook] !== undefined && typeof extension[hook] !== 'function') throw new TypeError(`Extension ${extension.id}: ${hook} must be a function`);
    }
    this.byId.set(extension.id, extension);
    for (const [name, method] of Object.entries(extension.methods)) {
      this.methods.set(name, { id: extension.id, handler: gated(extension.id, name, method), cacheable: method.cacheable === true });
    }
    for (const [key, filter] of Object.entries(extension.listenFilters ?? {})) this.filters.set(key, { id: extension.id, filter });
    if (extension.callTool) {
      this.toolHooks.push(extension.callTool.bind(extension));
      this.takesToolCalls = true;
    }
  }

  /** The answer an extension gives a tools/call in place of the tool's own, or undefined when none takes it. */
  callTool(
    session: McpSession,
    entry: ToolEntry,
    args: Record<string, unknown>,
    ctx: Context,
  ): Record<string, unknown> | Promise<Record<string, unknown>> | undefined {
    if (this.toolHooks.length === 0) return undefined;
    const runDetached = this.runDetached;
    // Checked once: the detached run takes the arguments as the check read them (a default made once, a lookup run once).
    let checked: Promise<CheckedArguments> | undefined;
    const call: ToolCall = {
      tool: entry.descriptor,
      arguments: args,
      session,
      ctx,
      checkArguments: () => (checked ??= checkArguments(entry, args)),
      detach: async (options) => runDetached(session, ctx, entry, args, options, checked && (await checked).args),
    };
    for (const hook of this.toolHooks) {
      const answer = hook(call);
      if (answer !== undefined) return answer;
    }
    return undefined;
  }

  /** Another instance's news for extension `id`: handed to it (a listener that throws is reported). */
  shared(id: string, news: unknown): void {
    const extension = this.byId.get(id);
    if (!extension?.shared || !isObject(news)) return;
    try {
      extension.shared(news);
    } catch (err) {
      this.reportError(err);
    }
  }

  /** The server is closing: each extension that has something to end ends it (in reverse order of use). */
  async close(drainUntil: number): Promise<void> {
    for (const extension of [...this.byId.values()].reverse()) {
      try {
        await extension.close?.(drainUntil);
      } catch (err) {
        this.reportError(err);
      }
    }
  }

  /** Whether `key` is an extension's listen filter. */
  hasListenFilter(key: string): boolean {
    return this.filters.has(key);
  }

  /** What the extensions honour of a subscriptions/listen filter: their keys only, as each accepts them. */
  async acceptListen(session: McpSession, requested: unknown, ctx: Context): Promise<Record<string, unknown> | undefined> {
    if (this.filters.size === 0 || !isObject(requested)) return undefined;
    let honoured: Record<string, unknown> | undefined;
    for (const [key, { filter }] of this.filters) {
      if (!Object.hasOwn(requested, key)) continue;
      const value = await filter.accept(requested[key], {
        params: requested,
        clientCapabilities: session.clientCapabilities,
        principal: session.principal,
        protocolVersion: session.protocolVersion,
        signal: ctx.signal,
      });
      if (value !== undefined) (honoured ??= {})[key] = value;
    }
    return honoured;
  }

  /** `capabilities.extensions`, or undefined when there are none. */
  declared(): Record<string, Record<string, unknown>> | undefined {
    if (this.byId.size === 0) return undefined;
    const out: Record<string, Record<string, unknown>> = {};
    for (const [id, extension] of this.byId) out[id] = { ...extension.settings };
    return out;
  }

  /** The handler of an extension's method, gated on the client's declaration where the method asks for it. */
  handler(name: string): ExtensionHandler | undefined {
    return this.methods.get(name)?.handler;
  }

  cacheable(name: string): boolean {
    return this.methods.get(name)?.cacheable === true;
  }
}

/** An extension method as the pipeline runs it: refused (-32021) to a client that did not declare the extension, where it asks for that. */
function gated(id: string, name: string, method: ExtensionMethod): ExtensionHandler {
  return (session, params, ctx) => {
    const { clientCapabilities } = session;
    if (method.requiresClientExtension && !(isObject(clientCapabilities.extensions) && isObject(clientCapabilities.extensions[id]))) {
      throw new ClientCapabilityError(`${name} needs the client to declare the extension ${id} (capabilities.extensions["${id}"])`, {
        extensions: { [id]: {} },
      });
    }
    return method.handler({ params, clientCapabilities, principal: session.principal, protocolVersion: session.protocolVersion, signal: ctx.signal });
  };
}

/** -32602 for an extension method's params. */
export function invalidExtensionParams(message: string): McpError {
  return new McpError(ErrorCode.InvalidParams, `Invalid params: ${message}`);
}
