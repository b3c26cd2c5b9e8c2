/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), on 2026-07-28: a `tools/call` to a
 * task-capable tool, from a request that declares the extension, is answered at once with a task; the
 * handler runs on, and the client polls `tasks/get`, answers the task's questions with `tasks/update`
 * and may `tasks/cancel` it. Input needed before the task exists is asked on the call itself (MRTR).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode, McpError } from '../../protocol/errors.js';
import { isObject } from '../../protocol/jsonrpc.js';
import { MAX_TIMER_MS, positiveInteger } from '../../protocol/option-checks.js';
import { settlesWithin } from '../../rpc/settles-within.js';
import { SafeEmitter } from '../../protocol/safe-emitter.js';
import { type DetailedTask, isTerminalStatus, TASKS_EXTENSION, type TaskStatus } from '../../protocol/tasks.js';
import { isModernProtocolVersion } from '../../protocol/versions.js';
import type { McpSession, RequestContext } from '../../server/api.js';
import type { ExtensionHandle, ExtensionRequest, ToolCall } from '../../server/extension-api.js';
import { invalidExtensionParams } from '../../server/extensions.js';
import type { McpServer } from '../../server/mcp-server.js';
import type { InferSchema } from '../../schema/infer.js';
import type { StructuredOf, ToolConfig, ToolHandler, ToolRegistrationFor, ToolReturn, ToolSchema } from '../../server/tools.js';
import { TaskCaps } from './caps.js';
import { CANCELLED_ELSEWHERE, LiveTask, type LiveTaskHost } from './live-task.js';
import { SharedRuns } from './shared-runs.js';
import { declaresTasks, detailed, missingTasksCapability, ownerOf, reaches, SHUTTING_DOWN, unknownTask } from './shapes.js';
import { checkedStore, MemoryTaskStore, type StoredTask, type TaskStore } from './store.js';

export interface TasksOptions {
  /** Where tasks are kept between polls (default: a `MemoryTaskStore`). */
  store?: TaskStore;
  /** How long a task is kept from its creation, in milliseconds; null keeps it until the server closes (default one hour). */
  ttlMs?: number | null;
  /** How often clients should poll, in milliseconds (default 1000). */
  pollIntervalMs?: number;
  /**
   * The most tasks one principal may hold (default 100); without `auth`, each remote address (an IPv6
   * /64) counts as one. At the cap, its oldest finished task makes room; when none has finished, a new
   * call is refused with -32600.
   */
  maxTasksPerPrincipal?: number;
  /**
   * The most tasks the store may hold, everyone's (default 4000). At the cap, the oldest finished task
   * makes room, whoever it belongs to; when none has finished, a new call is refused with -32600.
   * Instances sharing a store each count their own creations under way, not the others': together they
   * may pass it by as many creations as they have under way at once.
   */
  maxTasks?: number;
  /**
   * With a store several instances share: how long the lease of the instance running a task holds
   * without renewal, in milliseconds (default 20 000; renewed every quarter of it). When it lapses (that
   * instance stopped without a word), any instance ends the task as failed, at most 1.25 leases after
   * the last renewal.
   */
  leaseMs?: number;
  /**
   * With a store several instances share: how long a `tasks/update` for a task running on another
   * instance waits for that instance to apply the answers, in milliseconds (default 5000).
   */
  updateTimeoutMs?: number;
}

/** The events `useTasks(server)` emits, each task as `tasks/get` shows it. */
export interface TasksEvents {
  /** A tools/call became a task; the session is the call's (a task outlives it). */
  taskCreated: [task: DetailedTask, session: McpSession];
  /** A task changed: its status, its questions or its status message (the handler's `ctx.progress`). */
  taskStatus: [task: DetailedTask];
  /** A task asks its client for input: `task.inputRequests` holds every outstanding question. */
  taskInputRequired: [task: DetailedTask];
  /** A task ended: `completed` (its result, `isError` ones included), `failed` (its error) or `cancelled`. */
  taskCompleted: [task: DetailedTask];
}

/**
 * A task tool's handler: its arguments typed by `inputSchema`, its `structuredContent` by `outputSchema`
 * (as `server.registerTool`'s), and `prepared` what `beforeTask` returned (undefined without one).
 */
export type TaskToolHandler<P = undefined, Args = Record<string, unknown>, Structured = undefined> = (
  args: Args,
  ctx: RequestContext,
  prepared: P,
) => ToolReturn<Structured> | Promise<ToolReturn<Structured>>;

export interface TaskToolConfig<
  P = undefined,
  In extends ToolSchema | undefined = ToolSchema | undefined,
  Out extends ToolSchema | undefined = ToolSchema | undefined,
> extends Omit<ToolConfig<In, Out>, 'execution'> {
  /** `optional` (default): a task when the request declares the extension, a plain call otherwise. `required`: a task or -32021. */
  taskSupport?: 'optional' | 'required';
  /**
   * Runs on the call itself, before the task exists: input asked here (`ctx.elicit`) is asked on the
   * call (MRTR in the modern era, pushed in the legacy era), and what it returns is the handler's `prepared`.
   */
  beforeTask?: (args: InferSchema<In>, ctx: RequestContext) => P | Promise<P>;
}

const DEFAULT_TTL_MS = 3_600_000;
const DEFAULT_POLL_INTERVAL_MS = 1000;
const DEFAULT_MAX_PER_PRINCIPAL = 100;
// A task waiting for input holds 17 KB measured (14 KB waiting on anything else, 1 KB once finished): 68 MB at the cap.
const DEFAULT_MAX_TASKS = 4000;
const DEFAULT_LEASE_MS = 20_000;
const DEFAULT_UPDATE_TIMEOUT_MS = 5000;

export class Tasks extends SafeEmitter<TasksEvents> {
  private readonly store: TaskStore;
  /** Whether other instances may share the store (any but the in-process default): a live task's end may be recorded there first. */
  private readonly shared: boolean;
  /** Leases, lapsed runners and answers carried across instances: with a shared store only. */
  private readonly runs: SharedRuns | undefined;
  private readonly ttlMs: number | null;
  private readonly pollIntervalMs: number;
  private readonly caps: TaskCaps;
  private readonly live = new Map<string, LiveTask>();
  /** Each `registerTool` tool's `beforeTask`, by tool name. */
  private readonly before = new Map<
    string,
    { beforeTask: (args: Record<string, unknown>, ctx: RequestContext) => unknown; handler: TaskToolHandler<unknown> }
  >();
  private readonly handle: ExtensionHandle;
  private readonly liveHost: LiveTaskHost;
  private closed = false;

  constructor(
    private readonly server: McpServer,
    options: TasksOptions = {},
  ) {
    super();
    this.store = options.store === undefined ? new MemoryTaskStore() : checkedStore(options.store);
    this.shared = !(this.store instanceof MemoryTaskStore);
    this.ttlMs = options.ttlMs === null ? null : (options.ttlMs ?? DEFAULT_TTL_MS);
    this.pollIntervalMs = options.pollIntervalMs ?? DEFAULT_POLL_INTERVAL_MS;
    const limits = {
      maxTasksPerPrincipal: options.maxTasksPerPrincipal ?? DEFAULT_MAX_PER_PRINCIPAL,
      maxTasks: options.maxTasks ?? DEFAULT_MAX_TASKS,
    };
    if (this.ttlMs !== null) positiveInteger('ttlMs', this.ttlMs);
    positiveInteger('pollIntervalMs', this.pollIntervalMs);
    positiveInteger('maxTasksPerPrincipal', limits.maxTasksPerPrincipal);
    positiveInteger('maxTasks', limits.maxTasks);
    const leaseMs = options.leaseMs ?? DEFAULT_LEASE_MS;
    const updateTimeoutMs = options.updateTimeoutMs ?? DEFAULT_UPDATE_TIMEOUT_MS;
    positiveInteger('leaseMs', leaseMs, MAX_TIMER_MS);
    positiveInteger('updateTimeoutMs', updateTimeoutMs, MAX_TIMER_MS);
    this.caps = new TaskCaps(this.store, limits, (taskId) => this.live.has(taskId));
    this.liveHost = {
      store: this.store,
      announce: (task, status) => this.announce(task, status),
      ended: (live) => this.live.delete(live.task.taskId),
      reportError: (error) => this.reportError(error),
    };
    this.runs = this.shared
      ? new SharedRuns(
          {
            store: this.store,
            live: this.live,
            share: (news) => this.handle.share(news),
            announce: (task) => this.announce(task, task.status),
            reportError: (error) => this.reportError(error),
          },
          { leaseMs, updateTimeoutMs },
        )
      : undefined;
    const gated = { requiresClientExtension: true } as const;
    this.handle = server.useExtension({
      id: TASKS_EXTENSION,
      settings: {},
      methods: {
        'tasks/get': { ...gated, handler: (request) => this.get(request) },
        'tasks/update': { ...gated, handler: (request) => this.update(request) },
        'tasks/cancel': { ...gated, handler: (request) => this.cancel(request) },
      },
      listenFilters: { taskIds: { accept: (value, request) => this.acceptListen(value, request) } },
      callTool: (call) => this.callTool(call),
      shared: (news) => this.heard(news),
      close: (drainUntil) => this.close(drainUntil),
    });
  }

  /**
   * Register a tool that runs as a task, typed as `server.registerTool`'s: the one way to declare one
   * (tools/list shows `execution: { taskSupport }`). With `beforeTask`, that runs on the call and the
   * handler in the task.
   */
  registerTool<
    const Name extends string,
    const In extends ToolSchema | undefined = undefined,
    const Out extends ToolSchema | undefined = undefined,
    P = undefined,
  >(name: Name, config: TaskToolConfig<P, In, Out>, handler: TaskToolHandler<P, InferSchema<In>, StructuredOf<Out>>): ToolRegistrationFor<Name, In, Out> {
    const { taskSupport = 'optional', beforeTask, ...tool } = (config ?? {}) as unknown as TaskToolConfig<unknown>;
    if (taskSupport !== 'optional' && taskSupport !== 'required') {
      throw new TypeError(`Tool '${name}': taskSupport must be 'optional' or 'required'; got ${JSON.stringify(taskSupport)}`);
    }
    if (typeof handler !== 'function') throw new TypeError(`Tool '${name}' needs a handler function`);
    if (beforeTask !== undefined && typeof beforeTask !== 'function') throw new TypeError(`Tool '${name}': beforeTask must be a function`);
    const run = handler as unknown as TaskToolHandler<unknown>;
    const prepareThenRun = beforeTask
      ? async (args: Record<string, unknown>, ctx: RequestContext) => run(args, ctx, await beforeTask(args, ctx))
      : (args: Record<string, unknown>, ctx: RequestContext) => run(args, ctx, undefined);
    const registration = this.handle.registerTool(name, { ...(tool as ToolConfig), execution: { taskSupport } }, prepareThenRun as ToolHandler);
    if (beforeTask) this.before.set(name, { beforeTask, handler: run });
    else this.before.delete(name);
    return {
      remove: () => {
        if (this.before.get(name)?.handler === run) this.before.delete(name);
        registration.remove();
      },
    } as ToolRegistrationFor<Name, In, Out>;
  }

  /** How many tasks run in this process now. */
  get running(): number {
    return this.live.size;
  }

  /** Listener failures go where the server's go: its `error` event. */
  override reportError(error: unknown): void {
    this.server.reportError(error);
  }

  // --- tools/call

  private callTool(call: ToolCall): Promise<Record<string, unknown>> | undefined {
    const support = call.tool.execution?.taskSupport;
    if (support !== 'optional' && support !== 'required') return undefined;
    const { session } = call;
    // The extension is defined for 2026-07-28 (ext-tasks); a legacy-era session is never served tasks.
    const served = isModernProtocolVersion(session.protocolVersion);
    if (served && declaresTasks(session.clientCapabilities)) {
      // Arguments the tool refuses are answered at once, as the tool answers them: never a task, nor a question first.
      return call.checkArguments().then((checked) => checked.refused ?? this.create(call, checked.args));
    }
    if (support === 'optional') return undefined;
    if (served) throw missingTasksCapability(`Tool ${call.tool.name} runs only as a task: it`);
    throw new McpError(
      ErrorCode.MethodNotFound,
      `Tool ${call.tool.name} runs only as a task, and tasks need protocol 2026-07-28 with the extension ${TASKS_EXTENSION}`,
    );
  }

  /** `args`: the arguments as the tool's inputSchema reads them, as its handler and `beforeTask` get them. */
  private async create(call: ToolCall, args: Record<string, unknown>): Promise<Record<string, unknown>> {
    if (this.closed) throw SHUTTING_DOWN();
    const before = this.before.get(call.tool.name);
    // Input before the task is asked on the call itself: an input-required here unwinds as any call's.
    const prepared = before ? await before.beforeTask(args, call.ctx) : undefined;
    if (this.closed) throw SHUTTING_DOWN();
    const owner = ownerOf(call.session.principal, call.session.remoteAddress);
    return this.caps.admit(owner, () => this.start(call, owner, before, prepared));
  }

  private async start(
    call: ToolCall,
    owner: string,
    before: { handler: TaskToolHandler<unknown> } | undefined,
    prepared: unknown,
  ): Promise<Record<string, unknown>> {
    const now = new Date();
    const created = now.toISOString();
    const task: StoredTask = {
      taskId: randomUUID(),
      status: 'working',
      createdAt: created,
      lastUpdatedAt: created,
      ttlMs: this.ttlMs,
      pollIntervalMs: this.pollIntervalMs,
      owner,
      expiresAt: this.ttlMs === null ? null : now.getTime() + this.ttlMs,
    };
    if (this.runs) task.leaseExpiresAt = this.runs.leaseFromNow();
    // SEP-2663: the task must be found by tasks/get before its id goes out.
    await this.store.save(task);
    const live = new LiveTask(task, this.liveHost);
    this.live.set(task.taskId, live);
    // The seed state: the handler may have asked something before this returns.
    const { owner: _owner, expiresAt: _expiresAt, leaseExpiresAt: _lease, ...seed } = task;
    this.emit('taskCreated', detailed(task), call.session);
    call
      .detach({
        signal: live.controller.signal,
        ask: (question) => live.ask(question),
        onProgress: (progress, total, message) => live.progress(progress, total, message),
        handler: before ? (args, ctx) => before.handler(args, ctx, prepared) : undefined,
      })
      .then(
        (result) => live.settle('completed', { result: result as Record<string, unknown> }),
        (err: unknown) => live.failed(err),
      );
    return { resultType: 'task', ...seed };
  }

  /** A task's new state (a live one's, or one this instance ended for a runner that stopped): to the events and the listen streams that asked for it. */
  private announce(task: StoredTask, status: TaskStatus): void {
    const shown = detailed(task);
    this.emit('taskStatus', shown);
    if (status === 'input_required') this.emit('taskInputRequired', shown);
    if (isTerminalStatus(status)) this.emit('taskCompleted', shown);
    const params: Record<string, unknown> = { ...shown };
    this.tellListeners(params);
    // Listen streams on the other instances sharing the store hear it too (there the task is not live).
    if (this.shared) this.handle.share({ task: params });
  }

  /** A task's news to this instance's listen streams that honour its id. */
  private tellListeners(params: Record<string, unknown>): void {
    this.handle.notifyListeners('taskIds', (ids) => (ids as string[]).includes(params.taskId as string), 'notifications/tasks', params);
  }

  /** Another instance's task news: a cancellation it recorded (the run here ends), or a status for this instance's listen streams, which honoured the id against the store. */
  private heard(news: Record<string, unknown>): void {
    if (this.runs?.heard(news)) return;
    if (typeof news.cancelled === 'string') {
      this.live.get(news.cancelled)?.end(new McpError(ErrorCode.RequestCancelled, CANCELLED_ELSEWHERE));
      return;
    }
    const shown = news.task;
    if (!isObject(shown) || typeof shown.taskId !== 'string' || this.live.has(shown.taskId)) return;
    this.tellListeners(shown);
  }

  // --- the methods

  /** The task, if this principal owns it: live ones from memory (their latest state), others from the store. */
  private async find(request: ExtensionRequest): Promise<{ task: StoredTask; live: LiveTask | undefined }> {
    if (!isModernProtocolVersion(request.protocolVersion)) {
      throw new McpError(ErrorCode.MethodNotFound, `Tasks are served on protocol 2026-07-28 only (this session speaks ${request.protocolVersion})`);
    }
    const taskId = request.params.taskId;
    if (typeof taskId !== 'string' || taskId.length === 0) throw invalidExtensionParams('params.taskId must be a non-empty string');
    const live = this.live.get(taskId);
    if (live && this.shared) {
      // Another instance sharing the store may have cancelled it: that end stands here too, at once.
      const stored = await this.store.load(taskId);
      if (stored && isTerminalStatus(stored.status) && !isTerminalStatus(live.task.status)) {
        live.end(new McpError(ErrorCode.RequestCancelled, CANCELLED_ELSEWHERE));
        if (!reaches(request.principal, stored.owner)) throw unknownTask(taskId);
        return { task: stored, live: undefined };
      }
    }
    let task = live?.task ?? (await this.store.load(taskId));
    if (task && !reaches(request.principal, task.owner)) throw unknownTask(taskId);
    // Running elsewhere by its record: if that instance stopped (its lease lapsed), the task ends now.
    if (task && !live && this.runs) task = await this.runs.current(task);
    if (!task) throw unknownTask(taskId);
    return { task, live };
  }

  private async get(request: ExtensionRequest): Promise<Record<string, unknown>> {
    const { task } = await this.find(request);
    return { ...detailed(task) };
  }

  /** Answers to outstanding questions resume the handler; anything else is ignored (SEP-2663). */
  private async update(request: ExtensionRequest): Promise<Record<string, unknown>> {
    const responses = request.params.inputResponses;
    if (!isObject(responses)) throw invalidExtensionParams('tasks/update needs params.inputResponses as an object of answers by key');
    const { task, live } = await this.find(request);
    if (live) {
      live.answer(responses);
      return {};
    }
    if (isTerminalStatus(task.status)) return {};
    if (!this.runs) {
      // A store shared with no way to reach the others (an in-process store two servers use).
      throw new McpError(
        ErrorCode.InternalError,
        `Task ${task.taskId} runs on another server instance: send tasks/update to it (route on the Mcp-Name header, the task id)`,
      );
    }
    // It runs on another instance sharing the store: the answers are carried to it, and applied there.
    if (await this.runs.deliver(task.taskId, responses)) return {};
    // No word from it: it may have ended (or stopped) meanwhile, and then the answers are moot.
    const now = await this.runs.current((await this.store.load(task.taskId)) ?? task);
    if (!now || isTerminalStatus(now.status)) return {};
    throw new McpError(
      ErrorCode.InternalError,
      `The server instance running task ${task.taskId} did not confirm the answers in time; send the tasks/update again (answers already applied are ignored)`,
    );
  }

  /** Idempotent: a finished task stays as it ended. */
  private async cancel(request: ExtensionRequest): Promise<Record<string, unknown>> {
    const { task, live } = await this.find(request);
    if (live) live.end(new McpError(ErrorCode.RequestCancelled, 'The task was cancelled by the client'));
    else if (!isTerminalStatus(task.status)) {
      // Its handler runs on another instance sharing the store (which honours the end at its next save), or
      // nowhere any more (a store that outlived a restart): the store records the end.
      task.status = 'cancelled';
      task.lastUpdatedAt = new Date().toISOString();
      delete task.inputRequests;
      await this.store.save(task);
      // The instance running it ends the run now, not at the handler's next save.
      if (this.shared) this.handle.share({ cancelled: task.taskId });
    }
    return {};
  }

  /** `subscriptions/listen` `taskIds`: the ones this principal owns are honoured. */
  private async acceptListen(value: unknown, request: ExtensionRequest): Promise<string[] | undefined> {
    if (!declaresTasks(request.clientCapabilities)) throw missingTasksCapability('Listening for task notifications (taskIds)');
    if (!Array.isArray(value)) throw invalidExtensionParams('notifications.taskIds must be an array of task ids');
    const honoured: string[] = [];
    for (const id of value) {
      if (typeof id !== 'string' || honoured.includes(id)) continue;
      const task = this.live.get(id)?.task ?? (await this.store.load(id));
      if (task && reaches(request.principal, task.owner)) honoured.push(id);
    }
    return honoured;
  }

  /**
   * The server is closing: no new tasks; those running may finish until `drainUntil` (a drain), and the
   * rest fail with the stopped-server error. Then the store is closed.
   */
  private async close(drainUntil = 0): Promise<void> {
    this.closed = true;
    const wait = drainUntil - Date.now();
    if (wait > 0 && this.live.size > 0) await settlesWithin(() => this.live.size === 0, wait);
    const running = [...this.live.values()];
    for (const live of running) live.stop();
    await Promise.all(running.map((live) => live.saved));
    this.runs?.close();
    await this.store.close?.();
  }
}

/** Serve the Tasks extension on `server`: task-capable tools (`execution.taskSupport`) become tasks for clients that declare it. */
export function useTasks(server: McpServer, options: TasksOptions = {}): Tasks {
  return new Tasks(server, options);
}
