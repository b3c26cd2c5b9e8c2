/** McpServer: the component. Configure it, register tools, prompts and resources, and subscribe to its events. */
import type { EventEmitter } from 'eventemitter3';
import { elicitationKind } from '../elicitation/elicit.js';
import type { FormSchema } from '../elicitation/form-schema.js';
import type { ClientRequestOptions } from '../elicitation/kind.js';
import { rootsKind } from '../elicitation/roots.js';
import { samplingKind } from '../elicitation/sampling.js';
import { SafeEmitter } from '../protocol/safe-emitter.js';
import type { CreateMessageParams, ElicitParams, Implementation, LoggingLevel, RequestId, ServerCapabilities } from '../protocol/types.js';
import type { McpSession } from './api.js';
import { ServerCore } from './core.js';
import type { McpServerEvents } from './events.js';
import type { ExtensionHandle, ServerExtension } from './extension-api.js';
import { type McpServerOptions, type ResolvedServerOptions, resolveServerOptions } from './options.js';
import { registerPort } from './port.js';
import { createPromptEntry, type PromptArguments, type PromptConfig, type PromptHandler, type PromptHandlerFor } from './prompts.js';
import type { Registration } from './registry.js';
import {
  createResourceEntry,
  createResourceTemplateEntry,
  type ResourceConfig,
  type ResourceHandler,
  type ResourceTemplateConfig,
  type ResourceTemplateHandler,
} from './resources.js';
import { Session } from './session.js';
import type { ServerStats } from './stats.js';
import { createToolEntry, type ToolConfig, type ToolHandler, type ToolHandlerFor, type ToolRegistrationFor, type ToolSchema } from './tools.js';

export interface ServerInfo extends Implementation {
  /** Sent as `instructions` in the `initialize` result (and in `server/discover`). */
  instructions?: string;
}

type EventName = EventEmitter.EventNames<McpServerEvents>;
type Listener<E extends EventName> = EventEmitter.EventListener<McpServerEvents, E>;

export class McpServer {
  readonly info: Readonly<Implementation>;
  readonly instructions: string | undefined;
  /** The options as the server runs with them: defaults filled in, checked. */
  readonly options: ResolvedServerOptions;
  /** Initialized sessions, by id. */
  readonly sessions: ReadonlyMap<string, McpSession>;
  readonly stats: ServerStats;
  private readonly core: ServerCore;
  /** Only the server fires its events: listeners subscribe through `on`, `once` and `off`. */
  private readonly events = new SafeEmitter<McpServerEvents>();

  constructor(info: ServerInfo, options: McpServerOptions = {}) {
    if (typeof info?.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version) {
      throw new TypeError('McpServer needs server info with a name and a version, e.g. new McpServer({ name: "my-server", version: "1.0.0" })');
    }
    const { instructions, ...implementation } = info;
    this.info = Object.freeze(implementation);
    this.instructions = instructions;
    this.options = resolveServerOptions(options);
    this.core = new ServerCore(this.events, this.info, instructions, this.options);
    this.sessions = this.core.sessions;
    this.stats = this.core.stats;
    registerPort(this, this.core, this.core.httpNeeds);
  }

  /**
   * Listen for an event (McpServerEvents). A listener that throws or rejects is reported through
   * `error`, and the other listeners still run.
   */
  on<E extends EventName>(event: E, listener: Listener<E>): this {
    this.events.on(event, listener, this);
    return this;
  }

  /** Listen for the next emission of an event only. */
  once<E extends EventName>(event: E, listener: Listener<E>): this {
    this.events.once(event, listener, this);
    return this;
  }

  /** Stop `listener` listening for an event; without one, every listener of the event. */
  off<E extends EventName>(event: E, listener?: Listener<E>): this {
    this.events.off(event, listener);
    return this;
  }

  /** Tell the `error` event of a failure no one else hears of (stderr while it has no listener); never throws. For extensions. */
  reportError(error: unknown, session?: McpSession): void {
    this.events.reportError(error, session);
  }

  /** What the server declares in `initialize`: everything it serves, plus `options.capabilities`. */
  get capabilities(): ServerCapabilities {
    return this.core.capabilities;
  }

  /**
   * Serve a tool. Its handler's arguments are typed by `inputSchema` (a Standard Schema's output type, or
   * the type a JSON Schema literal describes), and its `structuredContent` by `outputSchema`.
   */
  registerTool<const Name extends string, const In extends ToolSchema | undefined = undefined, const Out extends ToolSchema | undefined = undefined>(
    name: Name,
    config: ToolConfig<In, Out>,
    handler: ToolHandlerFor<In, Out>,
  ): ToolRegistrationFor<Name, In, Out> {
    const taskSupport = (config?.execution as { taskSupport?: unknown } | undefined)?.taskSupport;
    if (taskSupport === 'optional' || taskSupport === 'required') {
      throw new TypeError(
        `Tool '${name}': a tool that runs as a task is registered with tasks.registerTool('${name}', { taskSupport: '${taskSupport}', ... }, handler), where tasks = useTasks(server)`,
      );
    }
    return this.core.catalog.tools.add(
      name,
      createToolEntry(name, (config ?? {}) as unknown as ToolConfig, handler as ToolHandler<never, never>, this.core.schemas),
    );
  }

  /**
   * Serve a prompt. Given as a schema (a Standard Schema, or a JSON Schema object of string properties),
   * `arguments` makes the list `prompts/list` shows, checks `prompts/get`'s arguments and types the handler's.
   */
  registerPrompt<const A extends PromptArguments | undefined = undefined>(name: string, config: PromptConfig<A>, handler: PromptHandlerFor<A>): Registration {
    return this.core.catalog.prompts.add(name, createPromptEntry(name, (config ?? {}) as PromptConfig, handler as PromptHandler<never>, this.core.schemas));
  }

  registerResource(uri: string, config: ResourceConfig, handler: ResourceHandler): Registration {
    return this.core.catalog.resources.add(uri, createResourceEntry(uri, config, handler));
  }

  /**
   * Serve an extension (`capabilities.extensions[id]`): its methods, gated on the client's declaration
   * where they ask for it. The package's own: `useSkills(server)`.
   */
  useExtension(extension: ServerExtension): ExtensionHandle {
    this.core.extensions.add(extension);
    const core = this.core;
    return {
      notifyListeners: (key, select, method, params) => core.notifyListeners(key, select, method, params),
      share: (news) => core.shareExtensionNews(extension.id, news),
      registerTool: (name, config, handler) =>
        core.catalog.tools.add(name, createToolEntry(name, config ?? {}, handler as ToolHandler<never, never>, core.schemas)),
    };
  }

  registerResourceTemplate(uriTemplate: string, config: ResourceTemplateConfig, handler: ResourceTemplateHandler): Registration {
    return this.core.catalog.resourceTemplates.add(uriTemplate, createResourceTemplateEntry(uriTemplate, config, handler));
  }

  /**
   * Send `elicitation/create` to a session. Returns the JSON-RPC id it used; the outcome arrives as
   * exactly one `responseElicitationCreate` event (a Standard `requestedSchema`'s output as its content).
   * Throws at once when the schema is outside the elicitation subset, the client did not declare the
   * mode, or the session cannot take requests.
   */
  requestElicitationCreate(session: McpSession | string, params: ElicitParams<FormSchema>, options: ClientRequestOptions = {}): RequestId {
    const target = this.sessionFor(session);
    return target.backChannel.send(elicitationKind, params, options).id;
  }

  /** Send `sampling/createMessage`; the outcome arrives as one `responseSamplingCreateMessage` event. */
  requestSamplingCreateMessage(session: McpSession | string, params: CreateMessageParams, options: ClientRequestOptions = {}): RequestId {
    const target = this.sessionFor(session);
    return target.backChannel.send(samplingKind, params, options).id;
  }

  /** Send `roots/list`; the outcome arrives as one `responseRootsList` event. */
  requestRootsList(session: McpSession | string, options: ClientRequestOptions = {}): RequestId {
    const target = this.sessionFor(session);
    return target.backChannel.send(rootsKind, {}, options).id;
  }

  /** Tell the client a URL-mode elicitation finished (`notifications/elicitation/complete`). */
  sendElicitationComplete(session: McpSession | string, elicitationId: string): boolean {
    return this.sessionFor(session).notify('notifications/elicitation/complete', { elicitationId });
  }

  /** Tell every session subscribed to `uri` that it changed. Returns how many were told. */
  sendResourceUpdated(uri: string): number {
    return this.core.sendResourceUpdated(uri);
  }

  /** Send a log message to one session, or to every session whose log level lets it through. Returns how many got it. */
  sendLogMessage(level: LoggingLevel, data: unknown, options: { logger?: string; session?: McpSession | string } = {}): number {
    if (options.session !== undefined) {
      const target = typeof options.session === 'string' ? this.core.sessions.get(options.session) : options.session;
      return target?.log(level, data, options.logger) ? 1 : 0;
    }
    let told = 0;
    for (const session of this.core.sessions.values()) if (session.log(level, data, options.logger)) told++;
    return told;
  }

  private closing: Promise<void> | undefined;

  /**
   * Stop. With `drainMs`, drain first: new sessions and requests are refused (HTTP 503 with Retry-After,
   * WebSocket upgrades 503, -32013 on open connections) and `/readyz` says so, while requests under way
   * finish, for up to `drainMs`; their elicitations may still be answered. Tasks running here (the Tasks
   * extension) may finish in what is left of it; those still running then fail with the stopped-server
   * error. Then every session ends (each
   * gets `sessionEnd`, each pending request a ConnectionClosedError), SSE streams end with a `retry`
   * hint, and every transport stops. Idempotent: a second call returns the first's promise.
   */
  close(options: { drainMs?: number } = {}): Promise<void> {
    const drainMs = options?.drainMs ?? 0;
    if (!Number.isFinite(drainMs) || drainMs < 0) throw new TypeError(`close(): drainMs must be a non-negative number of milliseconds; got ${drainMs}`);
    this.closing ??= this.core.close(drainMs);
    return this.closing;
  }

  /** Whether the server is draining (`close({ drainMs })` under way): it refuses new sessions and requests. */
  get draining(): boolean {
    return this.core.draining;
  }

  /** Readiness for a load balancer (`/readyz`): not while draining, nor while the shared store (`scale`) is unreachable. */
  readiness(): { ready: boolean; reason?: string } {
    return this.core.readiness();
  }

  private sessionFor(session: McpSession | string): Session {
    if (typeof session === 'string') {
      const found = this.core.sessions.get(session);
      if (!found) throw new Error(`No session with id ${session}; it may have ended (see the sessionEnd event)`);
      return found;
    }
    if (!(session instanceof Session)) throw new TypeError('Expected a session this server gave you (from an event or server.sessions), or its id');
    return session;
  }
}
