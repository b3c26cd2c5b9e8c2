/**
 * The Streamable HTTP sessions of one transport, by `Mcp-Session-Id`: lookup (with the principal check),
 * the idle sweep, the session limit, and SSE keep-alives.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ErrorCode } from '../../protocol/errors.js';
import { samePrincipal, UNKEYED_PRINCIPAL } from '../../protocol/principal.js';
import { isLegacyProtocolVersion, LEGACY_PROTOCOL_VERSIONS } from '../../protocol/versions.js';
import { SERVER_CLOSED, type ServerPort } from '../../server/port.js';
import type { EventStore } from './event-store.js';
import type { HttpSession } from './http-session.js';
import type { ResolvedHttpOptions } from './options.js';
import { idleSweepIntervalMs } from '../idle-sweep.js';
import { header, sendHttpError } from './request.js';

export class SessionRegistry {
  private readonly sessions = new Map<string, HttpSession>();
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly port: ServerPort,
    private readonly options: ResolvedHttpOptions,
    private readonly eventStore: EventStore,
    /** When a session was last used as a guest on another instance (`serveWhereTheyLand`): its idle timeout counts that. */
    private readonly lastUseElsewhere?: (sessionId: string) => Promise<number | undefined>,
  ) {
    this.timers.push(setInterval(() => this.sweepIdle(), idleSweepIntervalMs(options.sessionIdleTimeoutMs)));
    const keepAliveMs = options.keepAliveIntervalMs;
    if (keepAliveMs > 0) this.timers.push(setInterval(() => this.keepAlive(), keepAliveMs));
    for (const timer of this.timers) timer.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  all(): IterableIterator<HttpSession> {
    return this.sessions.values();
  }

  add(http: HttpSession): void {
    this.sessions.set(http.id, http);
  }

  /**
   * A session ended: forget it and its stored events, unless it ended with the server (its events stay
   * in a shared store for the instance that takes the session over).
   */
  remove(http: HttpSession): void {
    if (this.sessions.get(http.id) !== http) return;
    this.sessions.delete(http.id);
    if (http.connection.session.closeReason === SERVER_CLOSED) return;
    try {
      const dropped = this.eventStore.dropSession(http.id);
      if (dropped instanceof Promise) dropped.catch((err) => this.port.reportError(err));
    } catch (err) {
      this.port.reportError(err);
    }
  }

  /** The session the request names, after the version-header and principal checks; otherwise the error is sent. */
  lookup(req: IncomingMessage, res: ServerResponse, principal: unknown, cors: Record<string, string>): HttpSession | undefined {
    const sessionId = header(req, 'mcp-session-id');
    if (sessionId === undefined) {
      sendHttpError(res, 400, ErrorCode.TransportRefused, 'Bad Request: Mcp-Session-Id header is required; send initialize first to get one', cors);
      return undefined;
    }
    const http = this.sessions.get(sessionId);
    // transports.mdx: an unknown or ended session MUST get 404; the client then initializes anew.
    // A session of another principal looks the same, so ids cannot be probed.
    if (!http || (this.options.auth && !this.samePrincipal(principal, http.principal))) {
      sendHttpError(
        res,
        404,
        ErrorCode.SessionNotFound,
        'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one',
        cors,
      );
      return undefined;
    }
    return this.versionAccepted(req, res, cors) ? http : undefined;
  }

  /** Whether the request's MCP-Protocol-Version is one a session speaks; otherwise the 400 is sent. */
  versionAccepted(req: IncomingMessage, res: ServerResponse, cors: Record<string, string>): boolean {
    const version = header(req, 'mcp-protocol-version');
    // Absent means 2025-03-26; present must be a version we speak.
    if (version !== undefined && !isLegacyProtocolVersion(version)) {
      sendHttpError(
        res,
        400,
        ErrorCode.TransportRefused,
        `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${LEGACY_PROTOCOL_VERSIONS.join(', ')}`,
        cors,
      );
      return false;
    }
    return true;
  }

  /**
   * Room for one more session, for `principal` (or, without auth, whoever is at `remoteAddress`). At the
   * limit (this transport's `maxSessions`, or the server's over every transport) its own longest-idle
   * session makes way, unless the option says reject: nobody can evict anybody else's sessions.
   * Returns the limit that left no room, or undefined when there is room.
   */
  makeRoom(principal: unknown, remoteAddress: string | undefined): number | undefined {
    const { maxSessions, onSessionLimit, auth } = this.options;
    const limit = maxSessions !== undefined && this.sessions.size >= maxSessions ? maxSessions : this.port.sessionLimitReached();
    if (limit === undefined) return undefined;
    if (onSessionLimit === 'reject') return limit;
    let oldest: HttpSession | undefined;
    for (const http of this.sessions.values()) {
      if (!http.idle || (oldest && http.connection.lastActivityMs >= oldest.connection.lastActivityMs)) continue;
      if (auth ? this.samePrincipal(principal, http.principal) : http.remoteAddress === remoteAddress) oldest = http;
    }
    if (!oldest) return limit;
    oldest.connection.close('evicted: the server reached its session limit');
    return undefined;
  }

  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    for (const http of [...this.sessions.values()]) http.connection.close(SERVER_CLOSED);
  }

  private samePrincipal(a: unknown, b: unknown): boolean {
    if (this.options.samePrincipal) return this.options.samePrincipal(a, b);
    const same = samePrincipal(a, b);
    // Fail closed on principals that cannot be compared (they would all serialise to {}).
    if (same === undefined) this.port.reportError(new Error(UNKEYED_PRINCIPAL));
    return same === true;
  }

  private sweepIdle(): void {
    const cutoff = Date.now() - this.options.sessionIdleTimeoutMs;
    for (const http of [...this.sessions.values()]) {
      if (!http.idle || http.connection.lastActivityMs >= cutoff) continue;
      if (!this.lastUseElsewhere) {
        http.connection.close('idle timeout');
        continue;
      }
      // Served as a guest elsewhere since: not idle. Unknown (the store is unreachable): asked again next sweep.
      this.lastUseElsewhere(http.id)
        .then((used) => {
          if (used !== undefined && used >= cutoff) http.connection.touch();
          else if (http.idle && http.connection.lastActivityMs < cutoff) http.connection.close('idle timeout');
        })
        .catch((err) => this.port.reportError(err));
    }
  }

  private keepAlive(): void {
    for (const http of this.sessions.values()) http.keepAlive();
  }
}
