/** Listening on a host and port, shared by the transports that can open a port of their own. */
import type { Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';

export interface ListenOptions {
  /** Default `127.0.0.1`: local servers SHOULD bind to loopback (transports.mdx). */
  host?: string;
  /** Default 0: the OS picks a free port. */
  port?: number;
}

export interface ListeningAddress {
  host: string;
  port: number;
  /** Where clients connect, e.g. `ws://127.0.0.1:3000/mcp`. */
  url: string;
}

export function listenOn(http: HttpServer, { host = '127.0.0.1', port = 0 }: ListenOptions, scheme: 'ws' | 'http', path = '/mcp'): Promise<ListeningAddress> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    http.once('error', onError);
    http.listen(port, host, () => {
      http.off('error', onError);
      const address = http.address() as AddressInfo;
      const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
      resolve({ host: address.address, port: address.port, url: `${scheme}://${hostForUrl}:${address.port}${path}` });
    });
  });
}

/** Refuse an upgrade with a plain HTTP response and close the socket. */
export function rejectUpgrade(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) return void socket.destroy();
  const body = `${message}\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}

/** Stop listening and drop open connections (the transports have ended their sessions already). */
export function closeHttpServer(http: HttpServer): Promise<void> {
  return new Promise((resolve) => {
    http.close(() => resolve());
    http.closeAllConnections();
  });
}

/**
 * The path of a request target, origin-form (`/mcp?x`) or absolute-form (`http://host/mcp`, RFC 9112
 * §3.2.2), without URL parsing: a target `new URL` rejects must not throw in a request handler.
 */
export function pathOf(url: string | undefined): string {
  if (!url) return '/';
  let start = 0;
  if (!url.startsWith('/')) {
    const authority = url.indexOf('//');
    start = authority === -1 ? -1 : url.indexOf('/', authority + 2);
    if (start === -1) return '/';
  }
  const query = url.indexOf('?', start);
  return query === -1 ? url.slice(start) : url.slice(start, query);
}
