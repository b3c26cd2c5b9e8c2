/**
 * The server's machinery behind McpServer: what it serves, its sessions, and the port its transports
 * use. McpServer is the component applications hold; this is what sessions, handlers and transports talk to.
 */
import type { KindContext } from '../elicitation/kind.js';
import { RequestStateCodec, type RequestStateOptions } from '../mrtr/request-state.js';
import type { RoundsContext } from '../mrtr/rounds.js';
import type { ServedEras } from '../protocol/versions.js';
import type { SafeEmitter } from '../protocol/safe-emitter.js';
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import { SchemaCompiler } from '../schema/compiler.js';
import type { McpSession } from './api.js';
import { type BackChannelFactory, inputRequiredBackChannel, pushBackChannel } from './back-channel.js';
import { Catalog, type ListKind } from './catalog.js';
import { TaggedRequestIds } from '../rpc/tagged-request-ids.js';
import { Deadlines } from '../rpc/requests.js';
import { settlesWithin } from '../rpc/settles-within.js';
import type { McpServerEvents } from './events.js';
import { type ConnectionHost, ServerConnection } from './connection.js';
import type { ResolvedServerOptions } from './options.js';
import { type Channel, type Closable, type Connection, type HttpNeeds, SERVER_CLOSED, type ServerPort, type SessionRecord } from './port.js';
import { scopeNeeds } from './scopes.js';
import type { Session } from './session.js';
import { LocalStateMarks, type SharedEvent } from './shared-state.js';
import { runDetached } from './detached.js';
import { Extensions } from './extensions.js';
import { legacyDispatch } from './methods.js';
import { serveStateless, statelessDispatch } from './stateless.js';
import { newStats } from './stats.js';
import type { Subscription } from './subscriptions.js';
import { Telemetry } from '../telemetry/telemetry.js';

const LIST_FILTER = { tools: 'toolsListChanged', prompts: 'promptsListChanged', resources: 'resourcesListChanged' } as const;

export class ServerCore implements ConnectionHost, ServerPort, RoundsContext, KindContext {
  readonly stats = newStats();
  readonly schemas = new SchemaCompiler();
  readonly codec: RequestStateCodec;
  readonly catalog = new Catalog((kind) => this.listChanged(kind));
  readonly deadlines = new Deadlines((error) => this.reportError(error));
  readonly subscriptions = new Set<Subscription>();
  /** Initialized sessions, by id. */
  readonly sessions = new Map<string, Session>();
  /** The back channels of legacy-era sessions and of 2026-07-28 requests. */
  readonly push: BackChannelFactory = pushBackChannel(this);
  readonly inputRequired: BackChannelFactory = inputRequiredBackChannel(this);
  /** Spans and metrics, with `options.telemetry` only: its instruments are made here, once. */
  readonly telemetry: Telemetry | undefined;
  private readonly connections = new Set<Session>();
  private readonly transports = new Set<Closable>();
  private readonly changedLists = new Set<ListKind>();
  private readonly stopSharing: (() => void) | undefined;
  /** Methods and declarations extensions add (`server.useExtension`). */
  readonly extensions = new Extensions(
    (method) => method in legacyDispatch.methods || method in statelessDispatch.methods,
    (call, ctx, entry, args, options, checked) => runDetached(this, call, ctx, entry, args, options, checked),
    (error) => this.reportError(error),
  );

  constructor(
    readonly events: SafeEmitter<McpServerEvents>,
    readonly info: Readonly<Implementation>,
    readonly instructions: string | undefined,
    readonly options: ResolvedServerOptions,
  ) {
    this.maxRounds = options.maxRounds;
    this.eras = options.eras;
    this.codec = new RequestStateCodec(codecOptions(options));
    this.stopSharing = options.scale?.onBroadcast?.((event) => this.shared(event));
    this.telemetry = options.telemetry && new Telemetry(options.telemetry);
  }

  // Fields, not getters: read on every request, they cost no call.
  readonly kinds: KindContext = this;
  /** The port's 2026-07-28 POST: stateless.ts serves it, with this server as its host. */
  readonly serveStateless: ServerPort['serveStateless'] = serveStateless.bind(undefined, this);
  /** What Streamable HTTP alone asks of a request before it runs. */
  readonly httpNeeds: HttpNeeds = {
    tools: this.catalog.tools,
    requiredScopes: (method, params) => scopeNeeds(this.catalog, method, params),
  };
  readonly maxRounds: number;
  readonly eras: ServedEras;

  /** What the server declares: everything it serves, its extensions, plus `options.capabilities`. */
  get capabilities(): ServerCapabilities {
    const capabilities: ServerCapabilities = {
      logging: {},
      completions: {},
      prompts: { listChanged: true },
      resources: { subscribe: true, listChanged: true },
      tools: { listChanged: true },
    };
    const extensions = this.extensions.declared();
    if (extensions) capabilities.extensions = extensions;
    return { ...capabilities, ...this.options.capabilities };
  }

  // --- the port

  connect(channel: Channel, principal?: unknown): Connection {
    const connection = new ServerConnection(this, channel, principal);
    this.connections.add(connection.session);
    this.events.emit('connect', connection.session);
    return connection;
  }

  adopt(channel: Channel, principal: unknown, sessionId: string, record: SessionRecord): Connection {
    const connection = new ServerConnection(this, channel, principal, { id: sessionId, record });
    const { session } = connection;
    this.connections.add(session);
    this.sessions.set(sessionId, session);
    this.events.emit('sessionAdopted', session);
    return connection;
  }

  guest(channel: Channel, principal: unknown, sessionId: string, record: SessionRecord, idPrefix: string): Connection {
    let ids = this.guestIds.get(idPrefix);
    if (ids === undefined) this.guestIds.set(idPrefix, (ids = new TaggedRequestIds(idPrefix)));
    return new ServerConnection(this, channel, principal, { id: sessionId, record, guest: ids });
  }

  /** The ids of guest sessions' requests to their clients, by prefix (one per transport that serves guests). */
  private readonly guestIds = new Map<string, TaggedRequestIds>();

  sessionLimitReached(): number | undefined {
    const max = this.options.maxSessions;
    return this.connections.size >= max ? max : undefined;
  }

  countInvalidMessage(): void {
    this.stats.invalidMessages++;
  }

  register(transport: Closable): () => void {
    this.transports.add(transport);
    return () => this.transports.delete(transport);
  }

  reportError(error: unknown, at?: McpSession | Connection): void {
    // What a transport reports about its connection is about the session it carries.
    this.events.reportError(error, at instanceof ServerConnection ? at.session : at);
  }

  // --- what sessions need

  sessionStarted(session: Session): void {
    this.sessions.set(session.id, session);
    this.events.emit('sessionNew', session);
  }

  sessionEnded(session: Session, reason: string, wasInitialized: boolean): void {
    this.connections.delete(session);
    if (wasInitialized && this.sessions.delete(session.id)) {
      this.telemetry?.sessionEnded(session);
      this.events.emit('sessionEnd', session, reason);
    }
    this.events.emit('disconnect', session, reason);
  }

  // --- notifications to many

  /** Tell the subscribers of `uri`, here and (through `scale`) on every other instance; returns how many were told here. */
  sendResourceUpdated(uri: string): number {
    this.share({ type: 'resourceUpdated', uri });
    return this.resourceUpdated(uri);
  }

  private resourceUpdated(uri: string): number {
    let told = 0;
    for (const session of this.sessions.values()) {
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

  /** Registry changes in one tick become one `list_changed` per list per session, here and on the other instances. */
  private listChanged(kind: ListKind, shared = true): void {
    // What is registered before any transport serves (at startup, as on every instance) is nobody's news.
    if (shared && this.transports.size > 0) this.share({ type: 'listChanged', list: kind });
    if (this.sessions.size === 0 && this.subscriptions.size === 0) return;
    if (this.changedLists.size === 0) queueMicrotask(() => this.flushListChanged());
    this.changedLists.add(kind);
  }

  private flushListChanged(): void {
    for (const kind of this.changedLists) {
      for (const session of this.sessions.values()) {
        if (session.state === 'ready') session.notify(`notifications/${kind}/list_changed`);
      }
      const wanted = LIST_FILTER[kind];
      for (const subscription of this.subscriptions) if (subscription.filter[wanted]) subscription.notify(`notifications/${kind}/list_changed`);
    }
    this.changedLists.clear();
  }

  /** Tell the other instances (their clients hear of it as this instance's do); a failure is reported, local delivery goes on. */
  private share(event: SharedEvent): void {
    const broadcast = this.options.scale?.broadcast;
    if (!broadcast) return;
    broadcast.call(this.options.scale, event).catch((err: unknown) => this.reportError(err));
  }

  /** An extension's news for the other instances (its handle's `share`). */
  shareExtensionNews(id: string, news: Record<string, unknown>): void {
    this.share({ type: 'extension', id, news });
  }

  /** What another instance broadcast: told to this instance's clients, and not broadcast again. */
  private shared(event: SharedEvent): void {
    if (event.type === 'resourceUpdated') this.resourceUpdated(event.uri);
    else if (event.type === 'listChanged') this.listChanged(event.list, false);
    else this.extensions.shared(event.id, event.news);
  }

  /** A notification for the listen streams whose filter under an extension's `key` satisfies `select`. */
  notifyListeners(key: string, select: (honoured: unknown) => boolean, method: string, params: Record<string, unknown>): number {
    if (!this.extensions.hasListenFilter(key)) throw new TypeError(`No extension in use adds the listen filter ${key}`);
    let told = 0;
    for (const subscription of this.subscriptions) {
      const value = subscription.filter[key];
      if (value !== undefined && select(value)) {
        subscription.notify(method, params);
        told++;
      }
    }
    return told;
  }

  /** Whether the server is draining: new sessions and requests are refused, those under way go on. */
  draining = false;

  /** Live and ready (for a load balancer): not while draining, nor while the shared store is unreachable. */
  readiness(): { ready: boolean; reason?: string } {
    if (this.draining) return { ready: false, reason: 'draining' };
    const healthy = this.options.scale?.healthy?.();
    if (healthy === false) return { ready: false, reason: 'the shared store is unreachable' };
    return { ready: true };
  }

  /**
   * Stop: refuse what is new, let requests under way finish for up to `drainMs` (their pending
   * server-to-client requests may still be answered), and what extensions run (tasks) for what is left
   * of it; then end every session and stop every transport. Listen streams end gracefully first: their
   * requests complete.
   */
  async close(drainMs = 0): Promise<void> {
    const drainUntil = Date.now() + drainMs;
    this.draining = true;
    if (drainMs > 0) {
      for (const transport of this.transports) {
        try {
          transport.drain?.();
        } catch (err) {
          this.reportError(err);
        }
      }
    }
    for (const subscription of this.subscriptions) subscription.end();
    if (drainMs > 0) await settlesWithin(() => this.stats.requestsInFlight === 0, drainMs);
    // The other instances are heard while extensions drain: a task running here still takes its answers.
    await this.extensions.close(drainUntil);
    this.stopSharing?.();
    if (this.subscriptions.size > 0) await new Promise((resolve) => setImmediate(resolve));
    for (const session of [...this.connections]) session.close(SERVER_CLOSED);
    await Promise.all([...this.transports].map((t) => t.close()));
    this.transports.clear();
  }
}

/** The requestState codec's options: the shared key ring and single-use marks of `scale`, unless given outright. */
function codecOptions(options: ResolvedServerOptions): RequestStateOptions {
  const { requestState = {}, scale } = options;
  const resolved: RequestStateOptions = { ...requestState };
  if (resolved.keys === undefined && scale) resolved.keys = [...scale.stateKeys];
  if (resolved.consume === undefined && requestState.singleUse) {
    if (scale) resolved.consume = (id, expiresAt) => scale.consumeState(id, expiresAt);
    else {
      const marks = new LocalStateMarks();
      resolved.consume = (id, expiresAt) => marks.consume(id, expiresAt);
    }
  }
  return resolved;
}
