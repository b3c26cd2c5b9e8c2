/**
 * McpClient: the client component. It connects over WebSocket, Streamable HTTP or stdio, speaks either
 * era (initialize and a session, or 2026-07-28 requests that each carry their own `_meta`), answers what
 * the server asks for (elicitation, sampling, roots) through the application's handlers, whether the
 * server pushes a request or returns `input_required`, and reports what happens as events.
 */
import type { Era } from '../protocol/versions.js';
import { ErrorCode, McpError, RequestCancelledError } from '../protocol/errors.js';
import { type JsonRpcNotification, isObject } from '../protocol/jsonrpc.js';
import { quote } from '../protocol/quote.js';
import { SafeEmitter } from '../protocol/safe-emitter.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import type {
  ClientCapabilities,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ProgressParams,
  ReadResourceResult,
  ServerCapabilities,
  Tool,
} from '../protocol/types.js';
import { abortReason } from '../rpc/abort-reason.js';
import { RpcPeer } from '../rpc/peer.js';
import type { ToolMap, UntypedTools } from '../schema/tool-map.js';
import type {
  CallOptions,
  CallToolRest,
  ConnectOptions,
  ElicitationHandler,
  ListPromptsResult,
  ListResourcesResult,
  ListResourceTemplatesResult,
  ListToolsResult,
  ListenNotifications,
  McpClientEvents,
  RootsHandler,
  SamplingHandler,
  Subscription,
  SubscriptionOptions,
  ToolCallResult,
} from './api.js';
import { ClientHandlers } from './handlers.js';
import { type RoundsHost, untilFinal } from './input-rounds.js';
import { Subscriptions } from './listen.js';
import { type NegotiationHost, negotiate, type ServerFacts } from './negotiation.js';
import { type McpClientOptions, type ResolvedClientOptions, resolveClientOptions } from './options.js';
import { OutgoingRequests, type SendOptions } from './outgoing.js';
import { PushedRequests } from './pushed-requests.js';
import type { ClientSink, ClientTransport, SendContext } from './transport.js';
import { transportFor } from './transport-for-url.js';
import type { EraWire } from './wire.js';

export type { CallToolRest, ConnectOptions, ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, ListToolsResult, ToolCallResult };

/**
 * Pages `listAllTools` follows at most. At a server's usual page of 50 to 100 tools that is 5000 to
 * 10 000 tools, past any real server; a server that makes up a new cursor for each page costs 100 requests.
 */
const MAX_LISTED_PAGES = 100;

type State = 'new' | 'connecting' | 'connected' | 'closed';

/** How long close() lets answers already given go out before it closes the connection. */
const REPLY_GRACE_MS = 2000;

export class McpClient<Tools extends ToolMap = UntypedTools> extends SafeEmitter<McpClientEvents> {
  readonly info: Readonly<Implementation>;

  private readonly options: ResolvedClientOptions;
  private transport: ClientTransport | undefined;
  private state: State = 'new';
  private closeReason: string | undefined;
  /** How requests go out in the era settled at connect (before that, the probe's or initialize's). */
  private wire: EraWire | undefined;
  private readonly handlers: ClientHandlers;
  /** One end of the conversation: the pending table, and what the server sends dispatched by kind. */
  private readonly peer: RpcPeer<SendContext>;
  private readonly outgoing: OutgoingRequests;
  /** What following a request to its final result (input rounds, tasks) needs. */
  private readonly rounds: RoundsHost;
  private readonly subscriptions = new Subscriptions();
  private server: ServerFacts = {};

  constructor(info: Implementation, options: McpClientOptions = {}) {
    super();
    if (!isObject(info) || typeof info.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version) {
      throw new TypeError('McpClient needs client info with a name and a version, e.g. new McpClient({ name: "my-app", version: "1.0.0" })');
    }
    this.info = { ...info };
    this.options = resolveClientOptions(options);
    this.handlers = new ClientHandlers(this, this.options.validateElicitation);
    const pushed = new PushedRequests({
      handlers: this.handlers,
      isServing: (id) => this.peer.isServing(id),
      sendNotification: (notification) => {
        const context = this.replyContext();
        if (context) this.transport!.send(notification, context).catch((err: Error) => this.reportError(err));
      },
    });
    this.peer = new RpcPeer<SendContext>(
      {
        send: (message, context) => this.transport!.send(message, context),
        answer: (request, signal) => pushed.answer(request, signal),
        errorFor: (request, err) => pushed.errorFor(request, err),
        notification: (notification) => this.onNotification(notification),
        replyContext: () => this.replyContext(),
        reportError: (error) => this.reportError(error),
      },
      { peer: 'server', self: 'client', firstId: 1 },
    );
    this.outgoing = new OutgoingRequests(this.peer, this.options.requestTimeoutMs, () => (this.state === 'closed' ? undefined : this.transport));
    this.rounds = {
      handlers: this.handlers,
      maxRounds: this.options.maxRounds,
      send: (wire, method, params, options) => this.outgoing.send(wire, method, params, options),
      taskChanged: (task) => this.emit('taskStatus', task),
      reportError: (error) => this.reportError(error),
    };
  }

  // ---- handlers --------------------------------------------------------------------------------------

  /** Answer the server's elicitation requests (form, and URL when declared). Without one they get -32601. */
  onElicitation(handler: ElicitationHandler): this {
    this.handlers.elicitation = checkHandler('onElicitation', handler);
    return this;
  }

  /** Answer the server's sampling/createMessage requests. Without one they get -32601. */
  onSampling(handler: SamplingHandler): this {
    this.handlers.sampling = checkHandler('onSampling', handler);
    return this;
  }

  /** Answer the server's roots/list requests. Without one they get -32601. */
  onRoots(handler: RootsHandler): this {
    this.handlers.roots = checkHandler('onRoots', handler);
    return this;
  }

  // ---- what was negotiated -----------------------------------------------------------------------------

  /** `legacy` (the legacy era: initialize) or `modern` (the modern era, 2026-07-28), once connected. */
  get era(): Era | undefined {
    return this.wire?.era;
  }

  /** The protocol version settled at connect. */
  get protocolVersion(): string | undefined {
    return this.wire?.protocolVersion;
  }

  get serverInfo(): Implementation | undefined {
    return this.server.info;
  }

  get serverCapabilities(): ServerCapabilities | undefined {
    return this.server.capabilities;
  }

  get instructions(): string | undefined {
    return this.server.instructions;
  }

  /** What the client declared at connect. */
  get capabilities(): ClientCapabilities {
    return this.handlers.declared;
  }

  get connected(): boolean {
    return this.state === 'connected';
  }

  // ---- connection ------------------------------------------------------------------------------------

  /**
   * Connect: an `http(s)` URL speaks Streamable HTTP, a `ws(s)` URL WebSocket; or pass a transport
   * (`new StdioClientTransport({ command, args })` spawns a server). Then the era is settled: `auto`
   * asks `server/discover` and falls back to `initialize`.
   */
  async connect(target: string | URL | ClientTransport, options: ConnectOptions = {}): Promise<void> {
    if (this.state !== 'new') throw new Error('McpClient.connect may be called once; create another McpClient to connect again');
    this.state = 'connecting';
    const declared = this.options.capabilities;
    this.handlers.declared = declared ? normalizeCapabilities(declared) : this.handlers.derivedCapabilities();
    if (this.options.tasks) {
      this.handlers.declared.extensions = { ...this.handlers.declared.extensions, [TASKS_EXTENSION]: {} };
    }
    try {
      this.transport = typeof target === 'string' || target instanceof URL ? await transportFor(target) : target;
      await this.transport.start(this.sink());
      await negotiate(this.negotiationHost(), options.timeoutMs ?? this.options.requestTimeoutMs, options.signal);
    } catch (err) {
      await this.shutDown(`could not connect: ${err instanceof Error ? err.message : String(err)}`);
      throw err;
    }
    if (this.state === 'connecting') this.state = 'connected';
  }

  /**
   * Close the connection; pending calls fail with ConnectionClosedError. Answers the handlers have already
   * given still go out first (up to 2 s). Idempotent.
   */
  async close(): Promise<void> {
    if (this.state === 'closed') return;
    // A handler that returned just now (even one that called close() itself) has its answer on the way.
    await new Promise((resolve) => setTimeout(resolve, 0));
    await this.peer.repliesSent(REPLY_GRACE_MS);
    await this.shutDown('closed by the client');
  }

  private async shutDown(reason: string): Promise<void> {
    if (this.state !== 'closed') this.ended(reason);
    await this.transport?.close();
  }

  // ---- calls -------------------------------------------------------------------------------------------

  async listTools(cursor?: string, options?: CallOptions): Promise<ListToolsResult> {
    const result = (await this.request('tools/list', cursor === undefined ? {} : { cursor }, options)) as ListToolsResult;
    if (!Array.isArray(result.tools)) return result;
    const unusable = this.wire!.learnTools(result.tools, cursor === undefined);
    if (unusable.size === 0) return result;
    // SEP-2243: a tool whose x-mcp-header markings cannot be honoured is left out, and said why.
    for (const [name, why] of unusable) this.reportError(new Error(`Tool ${name} is left out of tools/list: ${why}`));
    return { ...result, tools: result.tools.filter((tool) => !unusable.has(tool.name)) };
  }

  /**
   * Every tool, page after page. A server is not trusted to end its listing: a `nextCursor` it gave before,
   * or a page past MAX_LISTED_PAGES, ends it with the tools listed so far, and says so on `error`.
   */
  async listAllTools(options?: CallOptions): Promise<Tool[]> {
    const tools: Tool[] = [];
    const seen = new Set<string>();
    let cursor: string | undefined;
    for (let pages = 1; ; pages++) {
      const page = await this.listTools(cursor, options);
      if (!Array.isArray(page.tools)) throw new McpError(ErrorCode.InternalError, "The server's tools/list result is invalid: tools is not an array");
      tools.push(...page.tools);
      const next = page.nextCursor;
      if (typeof next !== 'string') return tools;
      const cut = seen.has(next)
        ? `the server gave the cursor ${quote(next)} again`
        : pages === MAX_LISTED_PAGES
          ? `the server still gave a nextCursor after ${MAX_LISTED_PAGES} pages`
          : undefined;
      if (cut) {
        this.reportError(new Error(`tools/list stopped after ${pages} pages (${tools.length} tools), the rest not listed: ${cut}`));
        return tools;
      }
      seen.add(next);
      cursor = next;
    }
  }

  /** Call a tool. On 2026-07-28 an `input_required` answer is fulfilled through the handlers and retried. */
  /**
   * Call a tool. On a client given a server's tool map (`new McpClient<ToolsOf<...>>`), `name`, `args`
   * and the result's `structuredContent` are checked against that tool's types.
   */
  callTool<const Name extends keyof Tools & string>(
    name: Name,
    ...rest: CallToolRest<Tools[Name]['args']>
  ): Promise<ToolCallResult<Tools[Name]['structured']>> {
    const [args = {}, options] = rest as [Record<string, unknown> | undefined, CallOptions | undefined];
    return this.request('tools/call', { name, arguments: args }, options) as Promise<ToolCallResult<Tools[Name]['structured']>>;
  }

  listPrompts(cursor?: string, options?: CallOptions): Promise<ListPromptsResult> {
    return this.request('prompts/list', cursor === undefined ? {} : { cursor }, options) as Promise<ListPromptsResult>;
  }

  getPrompt(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<GetPromptResult> {
    return this.request('prompts/get', { name, arguments: args }, options) as Promise<GetPromptResult>;
  }

  listResources(cursor?: string, options?: CallOptions): Promise<ListResourcesResult> {
    return this.request('resources/list', cursor === undefined ? {} : { cursor }, options) as Promise<ListResourcesResult>;
  }

  listResourceTemplates(cursor?: string, options?: CallOptions): Promise<ListResourceTemplatesResult> {
    return this.request('resources/templates/list', cursor === undefined ? {} : { cursor }, options) as Promise<ListResourceTemplatesResult>;
  }

  readResource(uri: string, options?: CallOptions): Promise<ReadResourceResult> {
    return this.request('resources/read', { uri }, options) as Promise<ReadResourceResult>;
  }

  /** Watch a resource for notifications/resources/updated (legacy era: a session to send them on). */
  async subscribe(uri: string, options?: CallOptions): Promise<void> {
    await this.request('resources/subscribe', { uri }, options);
  }

  async unsubscribe(uri: string, options?: CallOptions): Promise<void> {
    await this.request('resources/unsubscribe', { uri }, options);
  }

  /**
   * 2026-07-28: open a `subscriptions/listen` stream for the change notifications named. Resolves once the
   * server acknowledges, with what it honours; its notifications then reach `onNotification` and the
   * `notification` event until the server completes it, `close()` or the signal ends it, or the
   * connection does. (Legacy sessions get list_changed by themselves, and use `subscribe(uri)`.)
   */
  async listen(notifications: ListenNotifications, options: SubscriptionOptions = {}): Promise<Subscription> {
    this.requireConnected('subscriptions/listen');
    const wire = this.wire!;
    const refusal = wire.refusal('subscriptions/listen');
    if (refusal) throw new Error(refusal);
    const send = (params: Record<string, unknown>, sendOptions: SendOptions) => this.outgoing.send(wire, 'subscriptions/listen', params, sendOptions);
    return this.subscriptions.listen(send, notifications, options, this.options.requestTimeoutMs);
  }

  complete(params: CompleteParams, options?: CallOptions): Promise<CompleteResult> {
    return this.request('completion/complete', params as unknown as Record<string, unknown>, options) as Promise<CompleteResult>;
  }

  /**
   * The least severe log messages the server should send. Legacy: logging/setLevel. 2026-07-28: sent in
   * every request's `_meta` from now on (without it, a modern server sends none).
   */
  async setLogLevel(level: LoggingLevel, options?: CallOptions): Promise<void> {
    this.requireConnected('logging/setLevel');
    const request = this.wire!.setLogLevel(level);
    if (request) await this.request(request.method, request.params, options);
  }

  /** Check the server answers: ping (legacy), server/discover (2026-07-28, where ping is gone). */
  async ping(options?: CallOptions): Promise<void> {
    this.requireConnected('ping');
    await this.request(this.wire!.pingMethod, {}, options);
  }

  /** Tell the server the roots changed (legacy; a 2026-07-28 server asks for roots each time it needs them). */
  async sendRootsListChanged(): Promise<void> {
    await this.notify('notifications/roots/list_changed');
  }

  /**
   * Any request. On 2026-07-28 it carries the `_meta` envelope, and tools/call, prompts/get and
   * resources/read follow `input_required` to the end: each round's answers come from the handlers, and
   * the retry is a new request with the original params, those answers and the `requestState` as sent.
   */
  async request(method: string, params: Record<string, unknown> = {}, options: CallOptions = {}): Promise<Record<string, unknown>> {
    this.requireConnected(method);
    const wire = this.wire!;
    const refusal = wire.refusal(method, params);
    if (refusal) throw new Error(refusal);
    if (options.signal?.aborted) throw new RequestCancelledError(method, abortReason(options.signal));
    if (method === 'tools/call' && wire.wantsToolList) await this.learnToolHeaders(options);
    return untilFinal(this.rounds, wire, method, params, options);
  }

  /** Send a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.requireConnected(method);
    const refusal = this.wire!.refusal(method);
    if (refusal) throw new Error(refusal);
    await this.transport!.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, this.wire!.context());
  }

  // ---- negotiation, sending, what the server sends -----------------------------------------------------------

  private negotiationHost(): NegotiationHost {
    return {
      options: this.options,
      info: this.info,
      declared: this.handlers.declared,
      transport: this.transport!,
      send: (wire, method, params, options) => this.outgoing.send(wire, method, params, options),
      settled: (wire, server) => {
        this.server = server;
        this.wire = wire;
      },
    };
  }

  /** How a reply or a notification goes out now: undefined before the era is settled, and once closed. */
  private replyContext(): SendContext | undefined {
    return this.state === 'closed' || !this.transport || !this.wire ? undefined : this.wire.context();
  }

  private sink(): ClientSink {
    return {
      message: (message) => this.peer.receive(message),
      error: (error) => this.reportError(error),
      closed: (reason) => this.ended(reason),
    };
  }

  private onNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/progress':
        this.outgoing.progress(params as unknown as ProgressParams);
        this.emit('progress', params as unknown as ProgressParams);
        break;
      case 'notifications/message':
        this.emit('log', { level: params.level as LoggingLevel, ...(typeof params.logger === 'string' ? { logger: params.logger } : {}), data: params.data });
        break;
      case 'notifications/elicitation/complete':
        if (typeof params.elicitationId === 'string') this.emit('elicitationComplete', params.elicitationId, this.handlers.completed(params.elicitationId));
        break;
    }
    this.subscriptions.route(notification);
    this.emit('notification', notification);
  }

  // ---- bookkeeping ---------------------------------------------------------------------------------------------

  private ended(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closeReason = reason;
    this.peer.close(reason);
    this.outgoing.clear();
    this.emit('close', reason);
  }

  private requireConnected(method: string): void {
    if (this.state === 'closed') throw new Error(`McpClient is closed (${this.closeReason}); cannot send ${method}`);
    if (this.state !== 'connected') throw new Error(`McpClient is not connected; await client.connect(url) before ${method}`);
  }

  /** Before the first tools/call over 2026-07-28 HTTP: which arguments go in headers comes from tools/list. */
  private async learnToolHeaders(options: CallOptions): Promise<void> {
    await this.listAllTools(options.signal ? { signal: options.signal } : {});
  }
}

/** `elicitation: {}` means form (client/elicitation.mdx); other capabilities are copied as given. */
function normalizeCapabilities(capabilities: ClientCapabilities): ClientCapabilities {
  const copy: ClientCapabilities = { ...capabilities };
  if (isObject(copy.elicitation) && copy.elicitation.form === undefined && copy.elicitation.url === undefined) copy.elicitation = { form: {} };
  return copy;
}

function checkHandler<T>(name: string, handler: T): T {
  if (typeof handler !== 'function') throw new TypeError(`McpClient.${name} takes a function`);
  return handler;
}
