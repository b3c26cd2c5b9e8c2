/**
 * The one place the client's two eras differ: how a request goes on the wire, what its result means,
 * and the few methods each era has its own way of doing. Chosen once, when the era is settled at
 * connect; the rest of the client never asks which era it is in.
 */
import type { Era } from '../protocol/versions.js';
import { isObject } from '../protocol/jsonrpc.js';
import type { ClientCapabilities, Implementation, LoggingLevel } from '../protocol/types.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { headerParams, MODERN_VERSION, modernHeaders, resultKind, withEnvelope } from './modern.js';
import type { SendContext } from './transport.js';

/** The next round a result asks for (2026-07-28 `input_required`). */
export interface InputRound {
  inputRequests: Record<string, unknown> | undefined;
  requestState: string | undefined;
}

export interface EraWire {
  readonly era: Era;
  readonly protocolVersion: string | undefined;
  /** Whether giving up on a request closes its stream (2026-07-28 over HTTP) rather than sending notifications/cancelled. */
  readonly cancelsByClosingStream: boolean;
  /** The params and send context of a request. */
  outgoing(method: string, params: Record<string, unknown>): { params: Record<string, unknown>; context: SendContext };
  /** The context of a notification or a reply. */
  context(): SendContext;
  /** Undefined for a final result; the next round for one that asks for input. Throws McpError for an invalid result. */
  inputRound(method: string, result: Record<string, unknown>): InputRound | undefined;
  /** The request that sets the log level, or undefined where the level travels with every request. */
  setLogLevel(level: LoggingLevel): { method: string; params: Record<string, unknown> } | undefined;
  /** The request that checks the server answers. */
  readonly pingMethod: string;
  /** Whether a tools/call may come back as a task (2026-07-28, with the Tasks extension declared). */
  readonly tasks: boolean;
  /** Why `method` (with these params) cannot be sent in this era, or undefined. */
  refusal(method: string, params?: Record<string, unknown>): string | undefined;
  /**
   * Learn from a tools/list page which arguments travel in headers (first: the list starts anew). Returns
   * the tools that cannot be called this way, by name, with why.
   */
  learnTools(tools: unknown[], first: boolean): Map<string, string>;
  /** Whether a tools/call should first learn the tools' header arguments. */
  readonly wantsToolList: boolean;
}

/** initialize and a session (2024-11-05 to 2025-11-25). `protocolVersion` is undefined until initialize is answered. */
export class LegacyWire implements EraWire {
  readonly era = 'legacy';
  readonly cancelsByClosingStream = false;
  readonly pingMethod = 'ping';
  readonly wantsToolList = false;
  /** Tasks are a 2026-07-28 extension: a legacy-era session is never given one. */
  readonly tasks = false;

  constructor(readonly protocolVersion: string | undefined) {}

  outgoing(_method: string, params: Record<string, unknown>): { params: Record<string, unknown>; context: SendContext } {
    return { params, context: this.context() };
  }

  context(): SendContext {
    return this.protocolVersion === undefined ? {} : { protocolVersion: this.protocolVersion };
  }

  inputRound(): undefined {
    return undefined;
  }

  setLogLevel(level: LoggingLevel): { method: string; params: Record<string, unknown> } {
    return { method: 'logging/setLevel', params: { level } };
  }

  refusal(method: string): string | undefined {
    if (method === 'subscriptions/listen') {
      return 'subscriptions/listen belongs to 2026-07-28; on a legacy session use subscribe(uri), and the list_changed notifications come by themselves';
    }
    return undefined;
  }

  learnTools(): Map<string, string> {
    return new Map();
  }
}

/** What a 2026-07-28 request carries about the client, read afresh for each request. */
export interface ModernIdentity {
  readonly capabilities: ClientCapabilities;
  readonly clientInfo: Implementation;
}

/** 2026-07-28: every request stands alone, with its `_meta` envelope and, over HTTP, its SEP-2243 headers. */
export class ModernWire implements EraWire {
  readonly era = 'modern';
  readonly protocolVersion = MODERN_VERSION;
  readonly pingMethod = 'server/discover';
  private logLevel: LoggingLevel | undefined;
  /** Tool arguments mirrored in Mcp-Param-* headers, by tool; filled by tools/list. */
  private readonly toolHeaders = new Map<string, readonly (readonly [string, string])[]>();
  /** Tools whose markings cannot be honoured over HTTP, with why: left out of tools/list, refused by tools/call. */
  private readonly unusable = new Map<string, string>();
  private toolsListed = false;

  constructor(
    private readonly identity: ModernIdentity,
    readonly cancelsByClosingStream: boolean,
    /** Whether the transport sends headers (HTTP): only then do tool arguments have to be learnt. */
    private readonly headers: boolean,
  ) {}

  /** Whether the client declared the Tasks extension: then a tools/call may answer with a task. */
  get tasks(): boolean {
    const extensions = this.identity.capabilities.extensions;
    return isObject(extensions) && isObject(extensions[TASKS_EXTENSION]);
  }

  get wantsToolList(): boolean {
    return this.headers && !this.toolsListed;
  }

  outgoing(method: string, params: Record<string, unknown>): { params: Record<string, unknown>; context: SendContext } {
    const { capabilities, clientInfo } = this.identity;
    const sent = withEnvelope(params, { capabilities, clientInfo, logLevel: this.logLevel });
    const mirrored = typeof params.name === 'string' ? this.toolHeaders.get(params.name) : undefined;
    return { params: sent, context: { protocolVersion: MODERN_VERSION, modern: modernHeaders(method, params, mirrored) } };
  }

  context(): SendContext {
    return { protocolVersion: MODERN_VERSION };
  }

  inputRound(method: string, result: Record<string, unknown>): InputRound | undefined {
    if (resultKind(method, result, this.tasks) !== 'input_required') return undefined;
    return {
      inputRequests: isObject(result.inputRequests) ? result.inputRequests : undefined,
      requestState: typeof result.requestState === 'string' ? result.requestState : undefined,
    };
  }

  /** logging/setLevel is gone: the level rides in every request's `_meta`, and without it the server logs nothing. */
  setLogLevel(level: LoggingLevel): undefined {
    this.logLevel = level;
    return undefined;
  }

  refusal(method: string, params?: Record<string, unknown>): string | undefined {
    if (method === 'resources/subscribe' || method === 'resources/unsubscribe') {
      return `${method} belongs to the legacy era; on 2026-07-28 use listen({ resourceSubscriptions: [uri] }), a subscriptions/listen stream`;
    }
    if (method === 'notifications/roots/list_changed') return 'a 2026-07-28 server asks for roots each time it needs them';
    const unusable = method === 'tools/call' && typeof params?.name === 'string' ? this.unusable.get(params.name) : undefined;
    if (unusable) return `Tool ${params!.name as string} cannot be called over HTTP: ${unusable} (SEP-2243)`;
    return undefined;
  }

  learnTools(tools: unknown[], first: boolean): Map<string, string> {
    if (first) {
      this.toolHeaders.clear();
      this.unusable.clear();
    }
    this.toolsListed = true;
    const unusable = new Map<string, string>();
    // Without headers (WebSocket, stdio) markings mean nothing, and every tool can be called.
    if (!this.headers) return unusable;
    for (const tool of tools) {
      if (!isObject(tool) || typeof tool.name !== 'string') continue;
      const params = headerParams(tool.inputSchema);
      if ('invalid' in params) unusable.set(tool.name, params.invalid);
      else if (params.mirrored.length > 0) this.toolHeaders.set(tool.name, params.mirrored);
    }
    for (const [name, why] of unusable) this.unusable.set(name, why);
    return unusable;
  }
}
