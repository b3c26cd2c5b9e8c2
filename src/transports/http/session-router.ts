/**
 * Several instances behind one address: a legacy-era session lives on the instance that answered its
 * `initialize` (its owner), and a request for it that reaches another instance is forwarded to the
 * owner over HTTP, streams and all. The router (shared through Redis by `src/scale/`) says who owns what.
 */
import { Agent, type ClientRequest, request as httpRequest, type IncomingMessage, type RequestOptions, type ServerResponse } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ErrorCode } from '../../protocol/errors.js';
import { sendHttpError } from './request.js';
import type { KeptSession, SessionRecords } from './session-records.js';

/**
 * Who holds which session, shared by the instances serving one endpoint; optionally, the sessions'
 * records too (`SessionRecords`), so that another instance goes on with a session whose owner is gone.
 */
export interface SessionRouter extends Partial<SessionRecords> {
  /** This instance now holds `sessionId`, reachable at `ownerUrl` (its MCP endpoint). Called again on activity, to keep it. */
  claim(sessionId: string, ownerUrl: string): void | Promise<void>;
  /** The session ended on its owner. */
  release(sessionId: string, ownerUrl: string): void | Promise<void>;
  /**
   * The MCP endpoint of the instance holding `sessionId`, or undefined when none does; `~` and the
   * endpoint when that instance drains and handed the session off (another may take it over now).
   */
  locate(sessionId: string, options?: { fresh?: boolean }): Promise<string | undefined>;
  /**
   * This instance (at `ownerUrl`) drains: another instance may take `sessionId` over at once, while what
   * is under way finishes here (replies to it are forwarded here by the new owner).
   */
  handOff?(sessionId: string, ownerUrl: string): void | Promise<void>;
  /**
   * Call `listener` each time the shared store is back after a break (it may have restarted empty): the
   * transport claims its sessions again and keeps their records again. Returns what stops that.
   */
  onReconnect?(listener: () => void): () => void;
  /**
   * Secrets every instance has (the first signs, all verify): with them, the requests an instance
   * forwards to one owner go over one WebSocket to it (a peer link, opened on the origin of the owner's
   * endpoint when the owner's transport listens itself), not over an HTTP request each. Without them,
   * or to an owner that takes no link, each is an HTTP request. `scale.sessionRouter()` gives its key ring.
   */
  readonly peerKeys?: readonly string[];
  /** What serving a session's requests where they land takes (`serveWhereTheyLand`); `scale.sessionRouter()` gives it. */
  readonly guests?: GuestSupport;
}

/** What an instance tells the others about the sessions it serves as a guest (`serveWhereTheyLand`). */
export type GuestNews =
  /** The client cancelled one of its requests: whichever instance runs it stops it. */
  | { type: 'cancelled'; sessionId: string; requestId: string | number; reason?: string }
  /** The session ended on its owner: guests end what they serve of it. */
  | { type: 'ended'; sessionId: string }
  /** Its record changed on its owner (`logging/setLevel`): guests read it again. */
  | { type: 'changed'; sessionId: string }
  /** Replies to requests the guest on the instance with `tag` sent, which reached the owner in a batch with other messages. */
  | { type: 'replies'; sessionId: string; tag: string; messages: unknown[] };

/**
 * What serving a session's requests on the instance they land on (not its owner) takes: its record,
 * a registry of the instances by the tag their requests' ids carry, when the session was last used
 * elsewhere (its owner's idle timeout counts it), and news for every instance.
 */
export interface GuestSupport {
  /** Session `sessionId`'s record as its owner keeps it; undefined when none is (the session ended, or keeps none). */
  recall(sessionId: string): Promise<KeptSession | undefined>;
  /** This instance, whose requests' ids carry `tag`, is at `url` (called again now and then, to keep it). */
  register(tag: string, url: string): Promise<void>;
  /** The instance whose requests' ids carry `tag`; undefined when none registered it. */
  instance(tag: string): Promise<string | undefined>;
  /** Session `sessionId` was used on this instance, as a guest, now. */
  used(sessionId: string): Promise<void>;
  /** When session `sessionId` was last used as a guest (epoch ms), if it was. */
  lastUse(sessionId: string): Promise<number | undefined>;
  /** Tell every instance (this one included). */
  announce(news: GuestNews): Promise<void>;
  /** Call `listener` with what any instance announces. Returns what stops that. */
  onNews(listener: (news: GuestNews) => void): () => void;
}

/**
 * Marks a forwarded request, with the instances it came through: its owner answers it itself, and never
 * forwards it again (replies for requests another instance sent go on, to instances not yet on the list).
 */
export const FORWARDED_HEADER = 'x-switchboard-forwarded';

/** The instances a forwarded request came through (none for one straight from a client). */
export function forwardedVia(req: IncomingMessage): string[] {
  const value = req.headers[FORWARDED_HEADER];
  if (typeof value !== 'string') return value === undefined ? [] : ['1'];
  return value.split(',');
}
/** Marks an owner's 503 to a forwarded request because it drains: the instance that forwarded it takes the session over. */
export const DRAINING_HEADER = 'x-switchboard-draining';
/** Marks an instance's 421 to replies another instance sent on, which it does not await either. */
export const NOT_AWAITED_HEADER = 'x-switchboard-not-awaited';
/** How `locate` marks an owner that drains and handed its sessions off. */
export const HANDED_OFF = '~';

/**
 * What became of a forwarded request: answered by the owner, the owner unreachable, refused because it
 * drains, declined because nothing awaits the replies it carries (421), or (when the caller asked)
 * declined because it holds the session no more (404). Nothing was sent to the client but for 'answered'.
 */
export type Forwarded = 'answered' | 'unreachable' | 'draining' | 'not held' | 'not awaited';

/** Headers that belong to one connection, not to the message (RFC 9110 §7.6.1). */
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer']);
/** What the forwarder writes itself, not the client's: with the length of a body it sends as read. */
const OURS = new Set(['host', FORWARDED_HEADER]);
const OURS_AND_LENGTH = new Set([...OURS, 'content-length']);
/** How long the owner has to accept a forwarded connection. */
const CONNECT_TIMEOUT_MS = 2000;
/**
 * Idle connections kept per owner, for the next forwarded request. Busy ones are not capped: each is a
 * client's request in flight (a stream may stay open for hours), and one queued behind them would wait
 * for a stream to end; the incoming side's limits bound them.
 */
const MAX_IDLE_SOCKETS = 256;
/** The longest an idle pooled connection stays open; shorter when the owner announces less (node:http's default: 5 s). */
const IDLE_TIMEOUT_MS = 5000;

export interface ForwardOptions {
  /** Decline the owner's 404 ('not held'): a former owner that holds the session no more. */
  unlessGone?: boolean;
  /** This instance's URL, for the list of instances the request came through. */
  via?: string | undefined;
}

/** One owner: where its requests go, and its own pool of kept-alive connections. */
interface Owner {
  readonly send: (options: RequestOptions) => ClientRequest;
  readonly agent: Agent;
  readonly hostname: string;
  readonly port: string;
  readonly path: string;
  /** The Host header the owner gets. */
  readonly host: string;
}

/**
 * Forwards a request to the instance holding its session and streams its answer back, over a pool of
 * kept-alive connections per owner (the most recently used first, so the rest idle out). Its writes are
 * half of what forwarding costs (profiled on `npm run bench -- --scale`), so it makes as few as it can:
 * five per forwarded elicitation, where piping made seven.
 */
export class SessionForwarder {
  private readonly owners = new Map<string, Owner>();

  /**
   * Resolves 'unreachable', having sent nothing, when the owner cannot be reached (it is gone), and
   * 'draining', having sent nothing, when it refused the request because it drains.
   */
  forward(req: IncomingMessage, res: ServerResponse, ownerUrl: string, options: ForwardOptions = {}): Promise<Forwarded> {
    const owner = this.owners.get(ownerUrl) ?? this.open(ownerUrl);
    const body = forwardedBody(req);
    const headers = forwardedHeaders(req, owner.host, options, body !== undefined);
    if (body !== undefined) headers.push('content-length', String(Buffer.byteLength(body)));
    return new Promise((resolve) => {
      const upstream = owner.send({ agent: owner.agent, hostname: owner.hostname, port: owner.port, path: owner.path, method: req.method, headers });
      let timer: NodeJS.Timeout | undefined;
      let answered = false;
      // A kept-alive socket is connected already; a new one has until the timer to connect.
      upstream.once('socket', (socket) => {
        if (!socket.connecting) return;
        timer = setTimeout(() => upstream.destroy(new Error('the owner did not answer in time')), CONNECT_TIMEOUT_MS);
        socket.once('connect', () => clearTimeout(timer));
      });
      upstream.once('response', (answer) => {
        clearTimeout(timer);
        const declined = declineOf(answer.statusCode ?? 0, (name) => answer.headers[name] !== undefined, options);
        if (declined) {
          answer.resume();
          resolve(declined);
          return;
        }
        answered = true;
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, endToEnd(answer.rawHeaders));
        relay(answer, res);
        resolve('answered');
      });
      upstream.on('error', () => {
        clearTimeout(timer);
        if (answered) return res.destroy();
        // Gone: a later owner at this address gets a pool of its own; this one's connections end with their requests.
        if (this.owners.get(ownerUrl) === owner) this.owners.delete(ownerUrl);
        resolve('unreachable');
      });
      // The client went away: so does the forwarded request (closing a stream on the owner, as locally). A
      // response that went out whole leaves the connection to the owner open for the next one.
      res.once('close', () => {
        if (!res.writableFinished) upstream.destroy();
      });
      if (body !== undefined) upstream.end(body);
      else req.pipe(upstream);
    });
  }

  /** Close every pooled connection (the transport is closing). */
  close(): void {
    for (const owner of this.owners.values()) owner.agent.destroy();
    this.owners.clear();
  }

  private open(ownerUrl: string): Owner {
    const target = new URL(ownerUrl);
    const https = target.protocol === 'https:';
    // As node:http's global agent: an idle socket is closed a second before the owner's Keep-Alive
    // timeout (the agent takes 1 s off it; without a timeout of its own, it would not), so none is reused as
    // the owner closes it. Idle sockets are unref'd: a pool never keeps the process alive.
    const options = { keepAlive: true, scheduling: 'lifo' as const, timeout: IDLE_TIMEOUT_MS, maxFreeSockets: MAX_IDLE_SOCKETS };
    const owner: Owner = {
      send: https ? httpsRequest : httpRequest,
      agent: https ? new HttpsAgent(options) : new Agent(options),
      // An IPv6 literal without its brackets, as net.connect takes it.
      hostname: target.hostname.replace(/^\[(.*)\]$/, '$1'),
      port: target.port,
      path: target.pathname + target.search,
      host: target.host,
    };
    this.owners.set(ownerUrl, owner);
    return owner;
  }
}

/** The body a forward sends: what the transport read into `req.body` (or a framework parsed, as express.json() does), as text; undefined to stream it as it comes. */
export function forwardedBody(req: IncomingMessage): string | Buffer | undefined {
  const parsed = (req as { body?: unknown }).body;
  return parsed === undefined ? undefined : typeof parsed === 'string' || Buffer.isBuffer(parsed) ? parsed : JSON.stringify(parsed);
}

/**
 * A forward's headers, straight from rawHeaders (node:http writes an array of names and values as it is,
 * duplicates kept): the client's end-to-end ones, the owner's Host and the instances it came through. The
 * length of a body sent as read is the sender's to add (`withBody`).
 */
export function forwardedHeaders(req: IncomingMessage, host: string, options: ForwardOptions, withBody: boolean): string[] {
  const headers = endToEnd(req.rawHeaders, withBody ? OURS_AND_LENGTH : OURS);
  headers.push('host', host, FORWARDED_HEADER, [...forwardedVia(req), options.via ?? '1'].join(','));
  return headers;
}

/** The owner's answers a forward takes another way: it drains, it awaits no such replies, or (when asked) it holds the session no more. */
export function declineOf(status: number, has: (name: string) => boolean, options: ForwardOptions): Forwarded | undefined {
  if (status === 503 && has(DRAINING_HEADER)) return 'draining';
  if (status === 421 && has(NOT_AWAITED_HEADER)) return 'not awaited';
  if (status === 404 && options.unlessGone) return 'not held';
  return undefined;
}

/** The names and values of `raw` (an IncomingMessage's rawHeaders) but hop-by-hop headers and those in `ours`. */
export function endToEnd(raw: readonly string[], ours?: ReadonlySet<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (!HOP_BY_HOP.has(name) && !ours?.has(name)) kept.push(raw[i]!, raw[i + 1]!);
  }
  return kept;
}

/**
 * Stream `answer` into `res`, writing what arrived in one turn of the event loop at its end, in one
 * write: the headers with the first event (or alone, when no event came), the last event with the end.
 * node:http would otherwise write each chunk, and the end, on their own (a pipe costs two more writes per
 * event stream); the client gets the same bytes, only in fewer packets.
 */
function relay(answer: IncomingMessage, res: ServerResponse): void {
  let held: Buffer[] = [];
  let ended = false;
  let scheduled = false;
  // writeHead only stores the headers (headersSent is true from then): whether they went out is ours to know.
  let sent = false;
  const flush = () => {
    scheduled = false;
    if (res.writableEnded || res.destroyed) return;
    const chunks = held;
    held = [];
    let room = true;
    // Writes in one go leave node:http's socket corked until the next tick: they go out together.
    for (const chunk of chunks) room = res.write(chunk);
    if (ended) res.end();
    else if (chunks.length > 0) sent = true;
    else if (!sent) {
      sent = true;
      res.flushHeaders();
    }
    if (!room && !ended) {
      answer.pause();
      res.once('drain', () => answer.resume());
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  schedule();
  answer.on('data', (chunk: Buffer) => {
    held.push(chunk);
    schedule();
  });
  answer.once('end', () => {
    ended = true;
    schedule();
  });
  answer.on('error', () => res.destroy());
}

/** 503 while the router cannot be asked: the session may well exist elsewhere, so not 404. */
export function routerUnavailable(res: ServerResponse, cors: Record<string, string>, err: unknown): void {
  sendHttpError(
    res,
    503,
    ErrorCode.TransportRefused,
    `Service Unavailable: cannot find which instance holds this session (${(err as Error).message}); retry shortly`,
    { ...cors, 'retry-after': '1' },
  );
}
