/**
 * McpClient: the client component. It connects over WebSocket, Streamable HTTP or stdio, speaks either
 * era (initialize and a session, or 2026-07-28 requests that each carry their own `_meta`), answers what
 * the server asks for (elicitation, sampling, roots) through the application's handlers, whether the
 * server pushes a request or returns `input_required`, and reports what happens as events.
 */
import type { Era } from '../protocol/era.js';
import { ErrorCode, McpError, RequestCancelledError, RequestTimeoutError } from '../protocol/errors.js';
import { isObject } from '../protocol/is-object.js';
import { TASKS_EXTENSION } from '../protocol/tasks.js';
import { classify, type JsonRpcNotification, type JsonRpcRequest, type JsonRpcResponse } from '../protocol/jsonrpc.js';
import { MAX_TIMER_MS } from '../protocol/option-checks.js';
import { quote } from '../protocol/quote.js';
import { SafeEmitter } from '../protocol/safe-emitter.js';
import type {
  CallToolResult,
  ClientCapabilities,
  CompleteParams,
  CompleteResult,
  GetPromptResult,
  Implementation,
  LoggingLevel,
  ProgressParams,
  Prompt,
  ReadResourceResult,
  RequestId,
  Resource,
  ResourceTemplate,
  ServerCapabilities,
  Tool,
} from '../protocol/types.js';
import { isLegacyProtocolVersion, isModernProtocolVersion, LEGACY_PROTOCOL_VERSIONS } from '../protocol/versions.js';
import type {
  CallOptions,
  ElicitationHandler,
  HandlerContext,
  ListenNotifications,
  SubscriptionOptions,
  McpClientEvents,
  RootsHandler,
  SamplingHandler,
  Subscription,
} from './api.js';
import type { ToolMap, UntypedTools } from '../schema/tool-map.js';
import { ClientHandlers } from './handlers.js';
import { followTask } from './tasks.js';
import { MODERN_VERSION } from './modern.js';
import { type McpClientOptions, type ResolvedClientOptions, resolveClientOptions } from './options.js';
import { abortReason, PendingRequests } from './pending.js';
import { isNode } from './platform.js';
import { settlesWithin } from './settles-within.js';
import type { ClientSink, ClientTransport } from './transport.js';
import { type EraWire, LegacyWire, ModernWire } from './wire.js';

export interface ListToolsResult {
  tools: Tool[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListPromptsResult {
  prompts: Prompt[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
  [key: string]: unknown;
}
export interface ListResourceTemplatesResult {
  resourceTemplates: ResourceTemplate[];
  nextCursor?: string;
  [key: string]: unknown;
}

/**
 * Pages `listAllTools` follows at most. At a server's usual page of 50 to 100 tools that is 5000 to
 * 10 000 tools, past any real server; a server that makes up a new cursor for each page costs 100 requests.
 */
const MAX_LISTED_PAGES = 100;

/** `callTool`'s arguments, then its options: the arguments may be left out when the tool needs none. */
export type CallToolRest<Args> = Record<string, never> extends Args ? [args?: Args, options?: CallOptions] : [args: Args, options?: CallOptions];

/** A tool's result, its `structuredContent` typed by the tool map (absent on an error result); a `CallToolResult` for an untyped tool. */
export type ToolCallResult<Structured> = [Structured] extends [undefined]
  ? CallToolResult
  : Record<string, unknown> extends Structured
    ? CallToolResult
    : { content: CallToolResult['content']; structuredContent?: Structured; isError?: boolean; _meta?: CallToolResult['_meta'] };

/** Options of `connect`. */
export interface ConnectOptions {
  /** Give up connecting (and negotiating the era) after this long. Default: the client's `requestTimeoutMs`. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

type State = 'new' | 'connecting' | 'connected' | 'closed';

/** The `_meta` key that ties a notification to its subscriptions/listen stream. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

interface Listening {
  acknowledge(honoured: ListenNotifications): void;
  onNotification: ((notification: JsonRpcNotification) => void) | undefined;
}

/** Error codes that mark a modern server's answer to `server/discover` (versioning.mdx, client-side detection). */
const MODERN_ERROR_CODES: ReadonlySet<number> = new Set([
  ErrorCode.UnsupportedProtocolVersion,
  ErrorCode.MissingRequiredClientCapability,
  ErrorCode.HeaderMismatch,
]);

/** How long close() lets answers already given go out before it closes the connection. */
const REPLY_GRACE_MS = 2000;

/** How long `auto` waits for the answer to its `server/discover` probe before it tries `initialize` (stdio: a timeout means legacy). */
const PROBE_TIMEOUT_MS = 10_000;

export class McpClient<Tools extends ToolMap = UntypedTools> extends SafeEmitter<McpClientEvents> {
  readonly info: Readonly<Implementation>;

  private readonly options: ResolvedClientOptions;
  private transport: ClientTransport | undefined;
  private state: State = 'new';
  private closeReason: string | undefined;
  /** How requests go out in the era settled at connect (before that, the probe's or initialize's). */
  private wire: EraWire | undefined;
  private nextId = 1;
  private nextProgressToken = 1;
  private readonly pending = new PendingRequests();
  private readonly progressListeners = new Map<string | number, (progress: ProgressParams) => void>();
  /** Requests the server sent that a handler is still answering, by id: the server may cancel them. */
  private readonly serving = new Map<RequestId, AbortController>();
  /** Answers to the server's requests on their way out: close() lets them go first. */
  private readonly replies = new Set<Promise<void>>();
  /** Open subscriptions/listen streams, by request id: their acknowledgement and notifications. */
  private readonly subscriptions = new Map<RequestId, Listening>();
  private readonly handlers: ClientHandlers;
  private server: { info?: Implementation; capabilities?: ServerCapabilities; instructions?: string } = {};

  constructor(info: Implementation, options: McpClientOptions = {}) {
    super();
    if (!isObject(info) || typeof info.name !== 'string' || !info.name || typeof info.version !== 'string' || !info.version) {
      throw new TypeError('McpClient needs client info with a name and a version, e.g. new McpClient({ name: "my-app", version: "1.0.0" })');
    }
    this.info = { ...info };
    this.options = resolveClientOptions(options);
    this.handlers = new ClientHandlers(this, this.options.validateElicitation);
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
      await this.negotiate(options);
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
    if (this.replies.size > 0) await settlesWithin(Promise.allSettled(this.replies), REPLY_GRACE_MS);
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
    const { signal, onNotification } = options;
    const ackTimeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    // Ends the request: close(), the caller's signal, or no acknowledgement in time.
    const control = new AbortController();
    const onAbort = () => control.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    let id: RequestId | undefined;
    let acknowledge!: (honoured: ListenNotifications) => void;
    const acknowledged = new Promise<ListenNotifications>((resolve) => (acknowledge = resolve));
    const answer = this.send(
      wire,
      'subscriptions/listen',
      { notifications },
      {
        timeoutMs: MAX_TIMER_MS,
        signal: control.signal,
        onSent: (sent) => {
          id = sent;
          this.subscriptions.set(sent, { acknowledge, onNotification });
        },
      },
    );
    const ended = answer.then(
      () => 'completed by the server',
      (err: Error) => err.message,
    );
    void ended.finally(() => {
      if (id !== undefined) this.subscriptions.delete(id);
      signal?.removeEventListener('abort', onAbort);
    });

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new RequestTimeoutError('subscriptions/listen', ackTimeoutMs);
        reject(error);
        control.abort(error.message);
      }, ackTimeoutMs);
    });
    // The request ending before the acknowledgement is the answer: an error, or a server that ended at once.
    const endedFirst = answer.then(
      (): ListenNotifications => {
        throw new McpError(ErrorCode.InternalError, 'The server completed subscriptions/listen without acknowledging it');
      },
      (err: Error) => {
        throw err;
      },
    );
    try {
      const honoured = await Promise.race([acknowledged, endedFirst, timedOut]);
      return { id: id!, notifications: honoured, ended, close: () => control.abort('closed by the client') };
    } finally {
      clearTimeout(timer);
    }
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
    let retry = params;
    for (let round = 0; ; round++) {
      const result = await this.send(wire, method, retry, options);
      const next = wire.inputRound(method, result);
      if (!next) {
        if (result.resultType !== 'task') return result;
        // The 2026-07-28 wire checked the task already; on a legacy-era session one is never valid.
        if (!wire.tasks) throw new McpError(ErrorCode.InternalError, `The server's ${method} result is invalid: a task on a session that cannot have one`);
        return this.followTask(wire, result, options);
      }
      if (round >= this.options.maxRounds) {
        throw new McpError(
          ErrorCode.InternalError,
          `${method} still asked for input after ${this.options.maxRounds} rounds; raise maxRounds if the server needs more`,
          { maxRounds: this.options.maxRounds },
        );
      }
      retry = { ...params };
      if (next.inputRequests) retry.inputResponses = await this.handlers.fulfil(next.inputRequests, options.signal);
      if (next.requestState !== undefined) retry.requestState = next.requestState;
    }
  }

  /** A tools/call answered with a task: polled to its end, its questions answered through the handlers. */
  private followTask(wire: EraWire, created: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
    const { signal: _followed, onProgress: _none, onTask, ...each } = options;
    return followTask(
      {
        send: (method, params) => this.send(wire, method, params, each),
        fulfil: (inputRequests, signal, taskId) => this.handlers.fulfil(inputRequests, signal, taskId),
        changed: (task) => {
          onTask?.(task);
          this.emit('taskStatus', task);
        },
        reportError: (error) => this.reportError(error),
      },
      created,
      options.signal,
    );
  }

  /** Send a notification. */
  async notify(method: string, params?: Record<string, unknown>): Promise<void> {
    this.requireConnected(method);
    const refusal = this.wire!.refusal(method);
    if (refusal) throw new Error(refusal);
    await this.transport!.send(params === undefined ? { jsonrpc: '2.0', method } : { jsonrpc: '2.0', method, params }, this.wire!.context());
  }

  // ---- negotiation ---------------------------------------------------------------------------------------

  private async negotiate(options: ConnectOptions): Promise<void> {
    const timeoutMs = options.timeoutMs ?? this.options.requestTimeoutMs;
    const signal = options.signal;
    const era = this.options.era;
    if (era === 'legacy') return this.initialize(timeoutMs, signal);
    const transport = this.transport!;
    const modern = new ModernWire({ capabilities: this.handlers.declared, clientInfo: this.info }, transport.cancelsByClosingStream, transport.kind === 'http');
    const probe = { timeoutMs: era === 'auto' ? Math.min(timeoutMs, PROBE_TIMEOUT_MS) : timeoutMs, signal };
    for (let attempt = 1; ; attempt++) {
      try {
        this.adoptDiscover(await this.send(modern, 'server/discover', {}, probe));
        this.wire = modern;
        return;
      } catch (err) {
        // versioning.mdx: -32022 lists what the server supports, and the client retries with one of them (once).
        if (attempt === 1 && offersModernVersion(err) && !signal?.aborted) continue;
        if (era === 'modern' || !fallsBackToLegacy(err) || signal?.aborted) throw discoverFailed(err);
        return this.initialize(timeoutMs, signal);
      }
    }
  }

  private adoptDiscover(result: Record<string, unknown>): void {
    const versions = Array.isArray(result.supportedVersions) ? result.supportedVersions : [];
    if (!versions.includes(MODERN_VERSION)) {
      throw new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        `The server's server/discover lists ${JSON.stringify(versions)}, not ${MODERN_VERSION}; connect with era 'legacy' if it speaks one of ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    const meta = isObject(result._meta) ? result._meta : {};
    const info = meta['io.modelcontextprotocol/serverInfo'];
    this.server = {
      ...(isObject(info) ? { info: info as unknown as Implementation } : {}),
      capabilities: isObject(result.capabilities) ? (result.capabilities as ServerCapabilities) : {},
      ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    };
  }

  private async initialize(timeoutMs: number, signal: AbortSignal | undefined): Promise<void> {
    const params = { protocolVersion: this.options.protocolVersion, capabilities: this.handlers.declared, clientInfo: this.info };
    const result = await this.send(new LegacyWire(undefined), 'initialize', params, { timeoutMs, signal });
    const version = result.protocolVersion;
    if (!isLegacyProtocolVersion(version)) {
      throw new McpError(
        ErrorCode.UnsupportedProtocolVersion,
        `The server answered initialize with protocol version ${JSON.stringify(version)}; this client speaks ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
      );
    }
    this.server = {
      ...(isObject(result.serverInfo) ? { info: result.serverInfo as unknown as Implementation } : {}),
      capabilities: isObject(result.capabilities) ? (result.capabilities as ServerCapabilities) : {},
      ...(typeof result.instructions === 'string' ? { instructions: result.instructions } : {}),
    };
    this.wire = new LegacyWire(version);
    await this.transport!.send({ jsonrpc: '2.0', method: 'notifications/initialized' }, this.wire.context());
    this.transport!.sessionReady?.(version);
  }

  // ---- sending -------------------------------------------------------------------------------------------

  /** One request on the wire, ended exactly once: its response, its timeout, the caller's signal, or the connection closing. */
  private send(
    wire: EraWire,
    method: string,
    params: Record<string, unknown>,
    options: {
      timeoutMs?: number | undefined;
      signal?: AbortSignal | undefined;
      onProgress?: ((progress: ProgressParams) => void) | undefined;
      /** Told the request's id before it goes out. */
      onSent?: (id: RequestId) => void;
    },
  ): Promise<Record<string, unknown>> {
    const transport = this.transport;
    if (!transport || this.state === 'closed') return Promise.reject(new Error(`McpClient is closed; cannot send ${method}`));
    const id = this.nextId++;
    let token: number | undefined;
    let withToken = params;
    if (options.onProgress) {
      token = this.nextProgressToken++;
      this.progressListeners.set(token, options.onProgress);
      withToken = { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: token } };
    }
    const { params: sent, context } = wire.outgoing(method, withToken);
    // Aborted when the client gives up: the transport stops waiting for (or resuming) the answer.
    const givenUp = new AbortController();
    context.signal = givenUp.signal;
    const answer = this.pending.add(id, {
      method,
      timeoutMs: options.timeoutMs ?? this.options.requestTimeoutMs,
      ...(options.signal ? { signal: options.signal } : {}),
      onGiveUp: (reason) => {
        givenUp.abort();
        // Closing the stream was the cancellation (2026-07-28 HTTP); initialize is never cancelled (basic/utilities/cancellation).
        if (wire.cancelsByClosingStream || method === 'initialize') return;
        const params = reason === undefined ? { requestId: id } : { requestId: id, reason };
        transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params }, wire.context()).catch(() => {});
      },
    });
    if (options.signal?.aborted) return answer;
    options.onSent?.(id);
    const message: JsonRpcRequest = { jsonrpc: '2.0', id, method, params: sent };
    transport
      .send(message, context)
      .catch((err: Error) => this.pending.fail(id, new McpError(ErrorCode.ConnectionClosed, `${method} could not be sent: ${err.message}`)));
    return token === undefined ? answer : answer.finally(() => this.progressListeners.delete(token));
  }

  // ---- what the server sends -------------------------------------------------------------------------------

  private sink(): ClientSink {
    return {
      message: (message) => this.receive(message),
      error: (error) => this.reportError(error),
      closed: (reason) => this.ended(reason),
    };
  }

  private receive(value: unknown): void {
    const classified = classify(value);
    switch (classified.kind) {
      case 'response':
        this.onResponse(classified.message);
        return;
      case 'notification':
        this.onNotification(classified.message);
        return;
      case 'request':
        void this.serve(classified.message);
        return;
      case 'invalid':
        this.reportError(new Error(`The server sent a message that is not JSON-RPC: ${classified.error.message}`));
    }
  }

  private onResponse(response: JsonRpcResponse): void {
    const { id } = response;
    if (id === null) {
      const { error } = response as { error: { code: number; message: string; data?: unknown } };
      this.reportError(new McpError(error.code, `The server reported an error about no request: ${error.message}`, error.data));
      return;
    }
    if (this.pending.settle(id, 'result' in response ? response : { error: response.error })) return;
    // A late answer to a request the client gave up on is expected; one to a request it never sent is not.
    if (typeof id !== 'number' || !Number.isInteger(id) || id < 1 || id >= this.nextId) {
      this.reportError(new Error(`The server answered request ${quote(id)}, which this client never sent`));
    }
  }

  private onNotification(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    switch (notification.method) {
      case 'notifications/progress':
        this.progressListeners.get(params.progressToken as string | number)?.(params as unknown as ProgressParams);
        this.emit('progress', params as unknown as ProgressParams);
        break;
      case 'notifications/message':
        this.emit('log', { level: params.level as LoggingLevel, ...(typeof params.logger === 'string' ? { logger: params.logger } : {}), data: params.data });
        break;
      case 'notifications/cancelled':
        this.serving.get(params.requestId as RequestId)?.abort(typeof params.reason === 'string' ? params.reason : 'cancelled by the server');
        break;
      case 'notifications/elicitation/complete':
        if (typeof params.elicitationId === 'string') this.emit('elicitationComplete', params.elicitationId, this.handlers.completed(params.elicitationId));
        break;
    }
    const subscriptionId = isObject(params._meta) ? params._meta[SUBSCRIPTION_ID] : undefined;
    const listening = subscriptionId === undefined ? undefined : this.subscriptions.get(subscriptionId as RequestId);
    if (listening) {
      if (notification.method === 'notifications/subscriptions/acknowledged') {
        listening.acknowledge(isObject(params.notifications) ? (params.notifications as ListenNotifications) : {});
      } else listening.onNotification?.(notification);
    }
    this.emit('notification', notification);
  }

  /** A request the server pushed (legacy era): answered exactly once, unless the server cancels it first. */
  private async serve(request: JsonRpcRequest): Promise<void> {
    const control = new AbortController();
    this.serving.set(request.id, control);
    const ctx: HandlerContext = { signal: control.signal, era: 'legacy', requestId: request.id, progress: this.progressOf(request, control.signal) };
    let response: JsonRpcResponse;
    try {
      response = { jsonrpc: '2.0', id: request.id, result: await this.handlers.answer(request.method, request.params ?? {}, ctx) };
    } catch (err) {
      response = { jsonrpc: '2.0', id: request.id, error: this.handlers.errorFor(request.method, err) };
    } finally {
      this.serving.delete(request.id);
    }
    // basic/utilities/cancellation: a cancelled request gets no response.
    if (control.signal.aborted || this.state === 'closed' || !this.transport || !this.wire) return;
    const sent = this.transport.send(response, this.wire.context()).catch((err: Error) => this.reportError(err));
    this.replies.add(sent);
    void sent.finally(() => this.replies.delete(sent));
  }

  /** How a handler reports progress on the server's `request`: to its progressToken, while the request is still being answered. */
  private progressOf(request: JsonRpcRequest, answered: AbortSignal): HandlerContext['progress'] {
    const meta = request.params?._meta;
    const token = isObject(meta) ? meta.progressToken : undefined;
    if (typeof token !== 'string' && typeof token !== 'number') return () => {};
    return (progress, total, message) => {
      if (answered.aborted || !this.serving.has(request.id) || !this.transport || !this.wire) return;
      const params: Record<string, unknown> = { progressToken: token, progress };
      if (total !== undefined) params.total = total;
      if (message !== undefined) params.message = message;
      this.transport.send({ jsonrpc: '2.0', method: 'notifications/progress', params }, this.wire.context()).catch((err: Error) => this.reportError(err));
    };
  }

  // ---- bookkeeping ---------------------------------------------------------------------------------------------

  private ended(reason: string): void {
    if (this.state === 'closed') return;
    this.state = 'closed';
    this.closeReason = reason;
    this.pending.closeAll(reason);
    for (const control of this.serving.values()) control.abort(reason);
    this.serving.clear();
    this.progressListeners.clear();
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

/**
 * After a failed `server/discover`: a modern answer (-32022 naming 2026-07-28, -32021, -32020) means
 * stay modern and fail; anything else (a legacy server's error, HTTP 400/404/405, a timeout) means try
 * `initialize`. A -32022 naming only legacy versions is a dual-era server that does not serve 2026-07-28.
 */
function offersModernVersion(err: unknown): boolean {
  return err instanceof McpError && err.code === ErrorCode.UnsupportedProtocolVersion && supportedVersions(err).includes(MODERN_VERSION);
}

function supportedVersions(err: McpError): unknown[] {
  return isObject(err.data) && Array.isArray(err.data.supported) ? err.data.supported : [];
}

function fallsBackToLegacy(err: unknown): boolean {
  if (!(err instanceof McpError)) return false;
  if (!MODERN_ERROR_CODES.has(err.code)) return true;
  if (err.code !== ErrorCode.UnsupportedProtocolVersion) return false;
  const supported = supportedVersions(err);
  return !supported.some(isModernProtocolVersion) && supported.some(isLegacyProtocolVersion);
}

/** The transport for a URL. Loaded on demand: the client's core imports no Node-only module. */
async function transportFor(target: string | URL): Promise<ClientTransport> {
  const url = new URL(target);
  if (url.protocol === 'http:' || url.protocol === 'https:') {
    const { StreamableHttpClientTransport } = await import('./transports/streamable-http.js');
    return new StreamableHttpClientTransport(url);
  }
  if (url.protocol === 'ws:' || url.protocol === 'wss:') {
    // Under Node the ws package (upgrade headers, a frame limit); elsewhere the platform's WebSocket.
    if (isNode()) {
      const { WebSocketClientTransport } = await import('./transports/websocket.js');
      return new WebSocketClientTransport(url);
    }
    const { BrowserWebSocketClientTransport } = await import('./transports/browser-websocket.js');
    return new BrowserWebSocketClientTransport(url);
  }
  throw new TypeError(
    `McpClient.connect takes an http(s) or ws(s) URL, or a transport (new StdioClientTransport({ command }) spawns a server); got ${url.protocol}`,
  );
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

function discoverFailed(err: unknown): Error {
  if (!(err instanceof McpError)) return err instanceof Error ? err : new Error(String(err));
  return new McpError(err.code, `The server did not accept server/discover at 2026-07-28: ${err.message}`, err.data, { cause: err });
}
