/** Listening on a host and port, shared by the transports that can open a port of their own. */
import { createServer, type Server as HttpServer, type RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { MAX_TIMER_MS, positiveInteger } from '../protocol/option-checks.js';
import { ConnectionBudget } from './connection-budget.js';
import { writeRawResponse } from './raw-response.js';

const DEFAULT_MAX_CONNECTIONS = 1024;
/** Node's own listen backlog. */
const DEFAULT_BACKLOG = 511;

export interface ListenOptions {
  /** Default `127.0.0.1`: local servers SHOULD bind to loopback (transports.mdx). */
  host?: string;
  /** Default 0: the OS picks a free port. */
  port?: number;
  /**
   * Most connections open at once (WebSocket ones included). At the limit a newcomer displaces the
   * oldest connection that has sent nothing; with none, it gets 503 and is closed. Default 1024. The
   * accept queue holds as many (at least Node's 511, at most the kernel's `somaxconn`).
   */
  maxConnections?: number;
  /**
   * Most connections one client holds: one remote address (an IPv6 /64), or one principal once a request
   * on the connection has authenticated it. At the limit the client's newcomer displaces its own oldest
   * connection that has sent nothing; with none, it gets 503 and is closed. Default 128. Behind a
   * reverse proxy every connection comes from the proxy: raise it there, and limit clients at the proxy.
   */
  maxConnectionsPerClient?: number;
  /** A new connection must send its first byte within this long, or it is closed unanswered. Default 5 000 ms (at most `httpHeadersTimeoutMs`). */
  firstByteTimeoutMs?: number;
  /** node:http's `headersTimeout`: the time a connection has to send an HTTP request's headers (408 past it). Default 10 000 ms. */
  httpHeadersTimeoutMs?: number;
  /** node:http's `requestTimeout`: the time a connection has to send a whole HTTP request, body included (408 past it). Default 30 000 ms. */
  httpRequestTimeoutMs?: number;
  /** node:http's `keepAliveTimeout`: how long a kept-alive connection may wait for its next HTTP request. Default 5 000 ms. */
  httpKeepAliveTimeoutMs?: number;
  /**
   * Serve health checks for a load balancer, without auth: `/healthz` (liveness: 200 while the process
   * serves) and `/readyz` (readiness: 503 while the server drains or its shared store is unreachable).
   * `true`, or other paths. Off by default.
   */
  health?: boolean | { livePath?: string; readyPath?: string };
}

export interface HealthPaths {
  live: string;
  ready: string;
}

/** The health paths `options` ask for, or undefined when off. */
export function healthPaths(options: ListenOptions): HealthPaths | undefined {
  const { health } = options;
  if (health === undefined || health === false) return undefined;
  const paths = health === true ? {} : health;
  if (typeof paths !== 'object' || paths === null) throw new TypeError('listen() option health must be true or { livePath?, readyPath? }');
  const live = paths.livePath ?? '/healthz';
  const ready = paths.readyPath ?? '/readyz';
  for (const path of [live, ready]) {
    if (typeof path !== 'string' || !path.startsWith('/')) throw new TypeError(`listen() health paths must start with '/'; got ${JSON.stringify(path)}`);
  }
  return { live, ready };
}

/**
 * The node:http server a transport's `listen()` opens, with limits that hold without configuration:
 * Node's own defaults allow a minute for headers, five for a request, and any number of connections.
 * Connections are shared out fairly (`ConnectionBudget`), and one that never sends a byte goes after
 * `firstByteTimeoutMs`, before the header timeout would reach it.
 */
export function createLimitedServer(options: ListenOptions, handler: RequestListener): HttpServer {
  checkListenKeys(options);
  const httpHeadersTimeoutMs = options.httpHeadersTimeoutMs ?? 10_000;
  const limits = {
    maxConnections: options.maxConnections ?? DEFAULT_MAX_CONNECTIONS,
    maxConnectionsPerClient: options.maxConnectionsPerClient ?? 128,
    firstByteTimeoutMs: options.firstByteTimeoutMs ?? Math.min(5_000, httpHeadersTimeoutMs),
    httpHeadersTimeoutMs,
    httpRequestTimeoutMs: options.httpRequestTimeoutMs ?? 30_000,
    httpKeepAliveTimeoutMs: options.httpKeepAliveTimeoutMs ?? 5_000,
  };
  for (const [name, value] of Object.entries(limits)) positiveInteger(name, value, MAX_TIMER_MS);
  if (limits.httpHeadersTimeoutMs > limits.httpRequestTimeoutMs) {
    throw new TypeError(`Option httpHeadersTimeoutMs (${limits.httpHeadersTimeoutMs}) must not exceed httpRequestTimeoutMs (${limits.httpRequestTimeoutMs})`);
  }
  if (limits.firstByteTimeoutMs > limits.httpHeadersTimeoutMs) {
    throw new TypeError(`Option firstByteTimeoutMs (${limits.firstByteTimeoutMs}) must not exceed httpHeadersTimeoutMs (${limits.httpHeadersTimeoutMs})`);
  }
  if (limits.maxConnectionsPerClient > limits.maxConnections) {
    throw new TypeError(`Option maxConnectionsPerClient (${limits.maxConnectionsPerClient}) must not exceed maxConnections (${limits.maxConnections})`);
  }
  const budget = new ConnectionBudget(limits);
  const http = createServer(
    {
      headersTimeout: limits.httpHeadersTimeoutMs,
      requestTimeout: limits.httpRequestTimeoutMs,
      keepAliveTimeout: limits.httpKeepAliveTimeoutMs,
      // Node checks the two timeouts above this often (30 s by default).
      connectionsCheckingInterval: Math.max(Math.floor(limits.httpHeadersTimeoutMs / 2), 10),
    },
    budget.serve(handler),
  );
  // Node's own maxConnections would refuse a newcomer before it could displace anyone: the budget decides.
  http.on('connection', (socket: Socket) => budget.admit(socket));
  http.once('close', () => budget.close());
  return http;
}

const LISTEN_OPTIONS = new Set([
  'host',
  'port',
  'maxConnections',
  'maxConnectionsPerClient',
  'firstByteTimeoutMs',
  'httpHeadersTimeoutMs',
  'httpRequestTimeoutMs',
  'httpKeepAliveTimeoutMs',
  'health',
]);

/** What a removed name is now, said when it is passed. */
const RENAMED: Readonly<Record<string, string>> = {
  idleTimeoutMs: 'firstByteTimeoutMs (a connection that sends nothing is closed after it)',
  headersTimeoutMs: 'httpHeadersTimeoutMs',
  requestTimeoutMs: 'httpRequestTimeoutMs',
  keepAliveTimeoutMs: 'httpKeepAliveTimeoutMs',
};

/** A misspelt or removed limit would otherwise be dropped without a word, and the default hold instead. */
function checkListenKeys(options: ListenOptions): void {
  for (const key of Object.keys(options)) {
    if (LISTEN_OPTIONS.has(key)) continue;
    const instead = Object.hasOwn(RENAMED, key) ? ` (it is ${RENAMED[key]})` : '';
    throw new TypeError(`listen() has no option ${key}${instead}; it takes ${[...LISTEN_OPTIONS].join(', ')}`);
  }
}

export interface ListeningAddress {
  host: string;
  port: number;
  /** Where clients connect, e.g. `ws://127.0.0.1:3000/mcp`. */
  url: string;
}

export function listenOn(http: HttpServer, options: ListenOptions, scheme: 'ws' | 'http', path = '/mcp'): Promise<ListeningAddress> {
  const { host = '127.0.0.1', port = 0 } = options;
  // Room in the accept queue for every connection the server may hold, so that one client's pending
  // connections cannot fill it and leave others' to SYN retries (Node's default is 511; the kernel caps it at somaxconn).
  const backlog = Math.max(DEFAULT_BACKLOG, options.maxConnections ?? DEFAULT_MAX_CONNECTIONS);
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    http.once('error', onError);
    http.listen({ port, host, backlog }, () => {
      http.off('error', onError);
      const address = http.address() as AddressInfo;
      const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ host: address.address, port: address.port, url: `${scheme}://${hostForUrl}:${address.port}${path}` });
    });
  });
}

/** Refuse an upgrade with a plain HTTP response and close the socket. */
export function rejectUpgrade(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  if (!socket.writable) return void socket.destroy();
  writeRawResponse(socket, status, message, headers);
}

/** Stop listening and drop open connections (the transports have ended their sessions already). */
export function closeHttpServer(http: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}
