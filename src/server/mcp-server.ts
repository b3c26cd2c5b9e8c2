/** McpServer: the component. Configure it, register tools, prompts and resources, and subscribe to its events. */
import type { CreateMessageParams, ElicitParams, Implementation, LoggingLevel, RequestId, ServerCapabilities } from '../protocol/types.js';
import { elicitationKind } from '../elicitation/elicit.js';
import { sendClientRequest, type ClientRequestOptions } from './client-requests.js';
import { rootsKind } from './roots.js';
import { samplingKind } from './sampling.js';
import type { JsonRpcMessage } from '../protocol/jsonrpc.js';
import type { Channel, Closable } from './channel.js';
import type { McpServerEvents } from './events.js';
import { routeInbound } from './inbound.js';
import { resolveServerOptions, type McpServerOptions, type ResolvedServerOptions } from './options.js';
import { createPromptEntry, type PromptConfig, type PromptEntry, type PromptHandler } from './prompts.js';
import { Registry, type Registration } from './registry.js';
import {
  createResourceEntry,
  createResourceTemplateEntry,
  type ResourceConfig,
  type ResourceEntry,
  type ResourceHandler,
  type ResourceTemplateConfig,
  type ResourceTemplateEntry,
  type ResourceTemplateHandler,
} from './resources.js';
import { SafeEmitter } from './safe-emitter.js';
import { SchemaCompiler } from './schema-compiler.js';
import type { Subscription } from './subscriptions.js';
import { handleModernRequest, type ModernRequestHooks } from './modern.js';
import type { JsonRpcRequest } from '../protocol/jsonrpc.js';
import { RequestStateCodec } from '../mrtr/request-state.js';
import { McpSession } from './session.js';
import { createToolEntry, type ToolConfig, type ToolEntry, type ToolHandler } from './tools.js';

export interface ServerInfo extends Implementation {
  /** Sent as `instructions` in the `initialize` result. */
  instructions?: string;
}

/** Counters for input that was handled but worth knowing about. */
export interface ServerStats {
  /** Client replies whose id matches no request we sent. */
  unknownResponses: number;
  /** Client replies to requests that had already timed out or been cancelled. */
  lateResponses: number;
  /** A second reply to a request that was already answered. */
  duplicateResponses: number;
  /** Messages answered with -32700 or -32600. */
  invalidMessages: number;
  /** Client results that were not what the request asks for (bad action, content, or failed validation). */
  invalidResults: number;
}

type ListKind = 'tools' | 'prompts' | 'resources';
const LIST_FILTER = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' } as const;

export class McpServer extends SafeEmitter<McpServerEvents> {
  readonly info: Readonly<Implementation>;
  readonly instructions: string | undefined;
  readonly options: ResolvedServerOptions;
  /** Initialized sessions, by id. */
  readonly sessions: ReadonlyMap<string, McpSession>;
  readonly stats: ServerStats = { unknownResponses: 0, lateResponses: 0, duplicateResponses: 0, invalidMessages: 0, invalidResults: 0 };

  /** @internal */ readonly tools = new Registry<ToolEntry>('Tool', () => this.listChanged('tools'));
  /** @internal */ readonly prompts = new Registry<PromptEntry>('Prompt', () => this.listChanged('prompts'));
  /** @internal */ readonly resources = new Registry<ResourceEntry>('Resource', () => this.listChanged('resources'));
  /** @internal */ readonly resourceTemplates = new Registry<ResourceTemplateEntry>('Resource template', () => this.listChanged('resources'));
  /** @internal */ readonly schemas = new SchemaCompiler();
  /** @internal Signs (and seals) MRTR requestState. */ readonly requestStates: RequestStateCodec;

  /** @internal Open 2026-07-28 `subscriptions/listen` streams. */
  readonly subscriptions = new Set<Subscription>();
  private readonly sessionMap = new Map<string, McpSession>();
  private readonly connections = new Set<McpSession>();
  private readonly transports = new Set<Closable>();
  private readonly changedLists = new Set<ListKind>();
  private closing: Promise<void> | undefined;

  constructor(info: ServerInfo, options: McpServerOptions = {}) {
    super();
    if (typeof info?.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version) {
      throw new TypeError('McpServer needs server info with a name and a version, e.g. new McpServer({ name: "my-server", version: "1.0.0" })');
    }
    const { instructions, ...implementation } = info;
    this.info = Object.freeze(implementation);
    this.instructions = instructions;
    this.options = resolveServerOptions(options);
    this.requestStates = new RequestStateCodec(this.options.requestState);
    this.sessions = this.sessionMap;
  }

  /** What the server declares in `initialize`: everything it serves, plus `options.capabilities`. */
  get capabilities(): ServerCapabilities {
    return {
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
      ...this.options.capabilities,
    };
  }

  registerTool(name: string, config: ToolConfig, handler: ToolHandler): Registration {
    return this.tools.add(name, createToolEntry(name, config ?? {}, handler, this.schemas));
  }

  registerPrompt(name: string, config: PromptConfig, handler: PromptHandler): Registration {
    return this.prompts.add(name, createPromptEntry(name, config ?? {}, handler));
  }

  registerResource(uri: string, config: ResourceConfig, handler: ResourceHandler): Registration {
    return this.resources.add(uri, createResourceEntry(uri, config, handler));
  }

  registerResourceTemplate(uriTemplate: string, config: ResourceTemplateConfig, handler: ResourceTemplateHandler): Registration {
    return this.resourceTemplates.add(uriTemplate, createResourceTemplateEntry(uriTemplate, config, handler));
  }

  /**
   * Send `elicitation/create` to a session. Returns the JSON-RPC id it used; the outcome arrives as
   * exactly one `responseElicitationCreate` event. Throws at once when the schema is outside the
   * elicitation subset, the client did not declare the mode, or there is no channel to send on.
   */
  requestElicitationCreate(session: McpSession | string, params: ElicitParams, options: ClientRequestOptions = {}): RequestId {
    return sendClientRequest(this, this.sessionFor(session), elicitationKind, params, options).id;
  }

  /** Send `sampling/createMessage`; the outcome arrives as one `responseSamplingCreateMessage` event. */
  requestSamplingCreateMessage(session: McpSession | string, params: CreateMessageParams, options: ClientRequestOptions = {}): RequestId {
    return sendClientRequest(this, this.sessionFor(session), samplingKind, params, options).id;
  }

  /** Send `roots/list`; the outcome arrives as one `responseRootsList` event. */
  requestRootsList(session: McpSession | string, options: ClientRequestOptions = {}): RequestId {
    return sendClientRequest(this, this.sessionFor(session), rootsKind, {}, options).id;
  }

  /** Tell the client a URL-mode elicitation finished (`notifications/elicitation/complete`). */
  notifyElicitationComplete(session: McpSession | string, elicitationId: string): boolean {
    return this.sessionFor(session).notify('notifications/elicitation/complete', { elicitationId });
  }

  /** Tell every session subscribed to `uri` that it changed. Returns how many were told. */
  sendResourceUpdated(uri: string): number {
    let told = 0;
    for (const session of this.sessionMap.values()) {
      if (session.subscriptions.has(uri) && session.notify('notifications/resources/updated', { uri })) told++;
    }
    for (const subscription of this.subscriptions) {
      if (subscription.filter.resourceSubscriptions?.includes(uri)) {
        subscription.notify('notifications/resources/updated', { uri });
        told++;
      }
    }
    return told;
  }

  /** Send a log message to one session, or to every session whose log level lets it through. Returns how many got it. */
  sendLogMessage(level: LoggingLevel, data: unknown, options: { logger?: string; session?: McpSession | string } = {}): number {
    const target = typeof options.session === 'string' ? this.sessionMap.get(options.session) : options.session;
    if (options.session !== undefined) return target?.log(level, data, options.logger) ? 1 : 0;
    let told = 0;
    for (const session of this.sessionMap.values()) if (session.log(level, data, options.logger)) told++;
    return told;
  }

  /** End every session (each gets `sessionEnd`, each pending request an error) and stop every transport. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      // Listen streams end gracefully: their requests complete before the transports go.
      for (const subscription of this.subscriptions) subscription.end();
      if (this.subscriptions.size > 0) await new Promise((resolve) => setImmediate(resolve));
      for (const session of [...this.connections]) session.close('server closed');
      await Promise.all([...this.transports].map((t) => t.close()));
      this.transports.clear();
    })();
    return this.closing;
  }

  private sessionFor(session: McpSession | string): McpSession {
    if (typeof session !== 'string') return session;
    const found = this.sessionMap.get(session);
    if (!found) throw new Error(`No session with id ${session}; it may have ended (see the sessionEnd event)`);
    return found;
  }

  /** @internal A transport opened a connection: one session per connection (WebSocket, stdio). */
  openSession(channel: Channel): McpSession {
    const session = new McpSession(this, channel);
    this.connections.add(session);
    this.emit('connect', session);
    return session;
  }

  /**
   * @internal Handle one 2026-07-28 request: a per-request session on `channel`, which carries the
   * response and anything related to it.
   */
  handleModernRequest(channel: Channel, request: JsonRpcRequest, hooks?: ModernRequestHooks): Promise<void> {
    return handleModernRequest(this, channel, request, hooks);
  }

  /** @internal A transport that `close()` must stop. */
  trackTransport(transport: Closable): void {
    this.transports.add(transport);
  }

  /** @internal */
  untrackTransport(transport: Closable): void {
    this.transports.delete(transport);
  }

  /** @internal */
  receive(session: McpSession, text: string): void {
    routeInbound(this, session, text).catch((err) => this.reportError(err, session));
  }

  /** @internal `initialize` succeeded. */
  sessionStarted(session: McpSession): void {
    this.sessionMap.set(session.id, session);
    this.emit('sessionNew', session);
  }

  /** @internal */
  sessionEnded(session: McpSession, reason: string, wasInitialized: boolean): void {
    this.connections.delete(session);
    if (wasInitialized && this.sessionMap.delete(session.id)) this.emit('sessionEnd', session, reason);
    this.emit('disconnect', session, reason);
  }

  /** @internal */
  traceMessage(session: McpSession, direction: 'in' | 'out', message: JsonRpcMessage | JsonRpcMessage[] | unknown): void {
    if (this.listenerCount('message') > 0) this.emit('message', session, direction, message);
  }

  /** Registry changes in one tick become one `list_changed` per list per session. */
  private listChanged(kind: ListKind): void {
    if (this.sessionMap.size === 0 && this.subscriptions.size === 0) return;
    if (this.changedLists.size === 0) queueMicrotask(() => this.flushListChanged());
    this.changedLists.add(kind);
  }

  private flushListChanged(): void {
    for (const kind of this.changedLists) {
      for (const session of this.sessionMap.values()) {
        if (session.state === 'ready') session.notify(`notifications/${kind}/list_changed`);
      }
      const wanted = LIST_FILTER[kind];
      for (const subscription of this.subscriptions) if (subscription.filter[wanted]) subscription.notify(`notifications/${kind}/list_changed`);
    }
    this.changedLists.clear();
  }
}
