/** A plain-text HTTP response written straight to a socket, for refusals before (or instead of) node:http's own answer. */
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';

/** Write `status` with `message` as its body, and end the socket's side of the connection. */
export function writeRawResponse(socket: Duplex, status: number, message: string, headers: Record<string, string> = {}): void {
  const body = `${message}\n`;
  let extra = '';
  for (const [name, value] of Object.entries(headers)) extra += `${name}: ${value}\r\n`;
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\n${extra}Content-Type: text/plain; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  );
}
