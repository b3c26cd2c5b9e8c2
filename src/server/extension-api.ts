/** What an extension gives the server (`server.useExtension`): its id, its declaration, its methods and hooks. */
import type { CallToolResult, ClientCapabilities, Tool } from '../protocol/types.js';
import type { McpSession, RequestContext } from './api.js';
import type { Registration } from './registry.js';
import type { ExtensionToolConfig, ToolHandler } from './tools.js';

/** One request to an extension method (or listen filter), as its handler sees it. */
export interface ExtensionRequest {
  params: Record<string, unknown>;
  /** What the client declared (in `initialize`, or the request's `_meta` on 2026-07-28). */
  clientCapabilities: ClientCapabilities;
  /** Who the transport's `auth` hook said the client is (undefined without one). */
  principal: unknown;
  /** The request's protocol version (a legacy-era session's negotiated one, or the 2026-07-28 request's own). */
  protocolVersion: string | undefined;
  /** Aborted when the client cancels the request, or it ends otherwise. */
  signal: AbortSignal;
}

export interface ExtensionMethod {
  handler: (request: ExtensionRequest) => Record<string, unknown> | Promise<Record<string, unknown>>;
  /** Its results carry caching hints on 2026-07-28 (`ttlMs`, `cacheScope`), as list and read results do. */
  cacheable?: boolean;
  /** Served only to clients that declared the extension (in `initialize`, or the request's `_meta`); others get -32021. */
  requiresClientExtension?: boolean;
}

/** A question a detached tool run asks its client (`ctx.elicit`, `ctx.createMessage`, `ctx.listRoots`). */
export interface ClientQuestion {
  method: 'elicitation/create' | 'sampling/createMessage' | 'roots/list';
  /** Checked against the client's capabilities (and a form's schema against the elicitation subset) already. */
  params: Record<string, unknown>;
  /** Unique over the run: the handler's own `key` option, made unique, or `elicit-1`, `sample-2`, ... */
  key: string;
}

export interface DetachOptions {
  /** Aborting it cancels the run: the handler's `ctx.signal` aborts and its pending questions reject. */
  signal: AbortSignal;
  /**
   * Deliver a question and resolve with the client's answer (the result object, `{action, content}` for
   * an elicitation). An answer that does not fit what was asked is asked again under a new key; reject
   * to make the handler's ask fail.
   */
  ask(question: ClientQuestion): Promise<Record<string, unknown>>;
  /** Run this instead of the tool's registered handler; argument checks and `confirm` still apply. */
  handler?: ToolHandler;
  /** The handler's `ctx.progress` (a detached run has no progress token of the client's to report to). */
  onProgress?(progress: number, total: number | undefined, message: string | undefined): void;
}

/** A `tools/call` an extension may take over (`ServerExtension.callTool`). */
export interface ToolCall {
  readonly tool: Readonly<Tool>;
  readonly arguments: Record<string, unknown>;
  /** The call's own session: its era, what the client declared, its principal. */
  readonly session: McpSession;
  /** The call's own context: input asked here is asked on the call itself (MRTR on 2026-07-28). */
  readonly ctx: RequestContext;
  /**
   * The arguments as the tool's `inputSchema` reads them (`{ args }`: defaults applied), or the `isError`
   * result it gives them (`{ refused }`): check before asking anything on the call, so no one is asked
   * for a call that cannot succeed.
   */
  checkArguments(): Promise<{ args: Record<string, unknown>; refused?: undefined } | { args?: undefined; refused: CallToolResult }>;
  /**
   * Run the tool apart from this request, which can be answered meanwhile: its argument checks, its
   * confirmation and its handler, with a context of their own whose questions go to `options.ask`.
   * Resolves with the tool's result, `isError` results included (a handler that throws an Error gives
   * one); rejects with the `McpError` a handler threw, or one for a result its outputSchema refuses.
   */
  detach(options: DetachOptions): Promise<CallToolResult>;
}

/** A key an extension adds to `subscriptions/listen`'s `notifications` filter. */
export interface ListenFilter {
  /**
   * Read the client's value for this key: resolve with what the server honours (echoed in the
   * acknowledgement), or undefined to leave the key out. Throw an `McpError` to refuse the listen.
   */
  accept(value: unknown, request: ExtensionRequest): unknown | Promise<unknown>;
}

export interface ServerExtension {
  /** The extension's identifier, `vendor.prefix/name` (e.g. `io.modelcontextprotocol/skills`). */
  readonly id: string;
  /** What the server declares under `capabilities.extensions[id]`. */
  readonly settings: Record<string, unknown>;
  readonly methods: Readonly<Record<string, ExtensionMethod>>;
  /**
   * Take over a `tools/call`: return the result to answer with (a promise of it), or undefined to let
   * the tool run as usual. Runs after a `requestTool` listener has declined, for registered tools only.
   */
  callTool?(call: ToolCall): Record<string, unknown> | Promise<Record<string, unknown>> | undefined;
  /** Keys it adds to `subscriptions/listen`'s notifications filter. */
  readonly listenFilters?: Readonly<Record<string, ListenFilter>>;
  /** What another instance sharing this server's `scale` told of with its handle's `share` (never this instance's own). */
  shared?(news: Record<string, unknown>): void;
  /**
   * The server is closing (`server.close()`): end what the extension runs. Runs before sessions and
   * transports close, once requests under way have finished; `drainUntil` (epoch ms) is when the drain
   * (`close({ drainMs })`) runs out, until which what it runs may finish (the past without a drain).
   */
  close?(drainUntil: number): void | Promise<void>;
}

/** What `server.useExtension` gives back: the extension's way to reach clients, and to serve tools it runs. */
export interface ExtensionHandle {
  /**
   * Register a tool whose `execution` this extension serves (`taskSupport` 'optional' or 'required', which
   * `server.registerTool` refuses): otherwise as `server.registerTool`. The extension's `callTool` runs its calls.
   */
  registerTool(name: string, config: ExtensionToolConfig, handler: ToolHandler): Registration;
  /**
   * Send a notification on each `subscriptions/listen` stream whose honoured value under `key` (one of
   * the extension's `listenFilters`) satisfies `select`. Returns how many streams it went to.
   */
  notifyListeners(key: string, select: (honoured: unknown) => boolean, method: string, params: Record<string, unknown>): number;
  /**
   * Tell the other instances sharing the server's `scale` (JSON): each hands it to the same extension's
   * `shared`. Nothing without a `scale` that broadcasts; a broadcast that fails is reported on `error`.
   */
  share(news: Record<string, unknown>): void;
}
