/**
 * A client that sends one request (a POST, or a GET) on a raw socket and then reads nothing, the way a client that does not
 * read its event stream leaves it, and what it finds in the raw answer once it reads.
 */
import { connect, type Socket } from 'node:net';
import type { Cleanups } from './cleanups.js';

/** A request sent on a raw socket that reads nothing until `read()`: everything received, and when the server closed it. */
export interface SilentPost {
  readonly socket: Socket;
  /** Start reading; resolves with all that came once the server has closed the connection, or once it ends with `tail`. */
  read(tail?: string): Promise<string>;
}

export function silentPost(cleanups: Cleanups, port: number, headers: Record<string, string>, body: unknown): Promise<SilentPost> {
  return silentRequest(cleanups, port, 'POST', headers, JSON.stringify(body));
}

/** The same for any request: `body` as it is sent, if any. */
export function silentRequest(cleanups: Cleanups, port: number, method: string, headers: Record<string, string>, body = ''): Promise<SilentPost> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' });
    cleanups.push(() => socket.destroy());
    socket.once('error', reject);
    socket.once('connect', () => {
      const head = Object.entries({ ...headers, host: `127.0.0.1:${port}`, 'content-length': String(Buffer.byteLength(body)) })
        .map(([name, value]) => `${name}: ${value}\r\n`)
        .join('');
      socket.write(`${method} /mcp HTTP/1.1\r\n${head}\r\n${body}`);
      // Nothing is read: what the server sends fills the socket's buffers, then its own queue.
      socket.pause();
      socket.on('error', () => {});
      resolve({
        socket,
        read(tail) {
          let received = '';
          return new Promise((done) => {
            socket.on('close', () => done(received));
            socket.setEncoding('utf8');
            let end = '';
            socket.on('data', (chunk: string) => {
              received += chunk;
              // The tail is looked for in what just came (and a little before it), not in all that came.
              end = (end + chunk).slice(-16);
              if (tail !== undefined && end.endsWith(tail)) done(received);
            });
            socket.resume();
          });
        },
      });
    });
  });
}

/** The ids of the whole `message` events in a raw SSE answer (a cut-off last one is not counted). */
export function eventIds(raw: string): string[] {
  return [...raw.matchAll(/event: message\nid: (\w+)\ndata: [^\n]*\n\n/g)].map((m) => m[1]!);
}

export function messagesIn(raw: string): number {
  return [...raw.matchAll(/event: message\n(?:id: \w+\n)?data: [^\n]*\n\n/g)].length;
}
