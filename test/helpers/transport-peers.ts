/**
 * Low-level peers for transport tests: raw HTTP upgrade requests (to see exact status codes and
 * bodies of refused handshakes), plain HTTP requests, and bare `ws` sockets with any client option.
 */
import { randomBytes } from 'node:crypto';
import { request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import WebSocket, { type ClientOptions } from 'ws';
import type { Json } from './ws-client.js';

export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** The whole reply: status, headers and the body as text. */
function readReply(res: IncomingMessage): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    let body = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (body += chunk));
    res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    res.on('error', reject);
  });
}

/**
 * Send a WebSocket upgrade request to 127.0.0.1:`port` and report how the server answered. A 101
 * answer resolves with status 101 (the socket is then destroyed); any other answer with its body.
 */
export function httpUpgrade(port: number, path: string, headers: Record<string, string> = {}): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path,
      agent: false,
      headers: {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
        ...headers,
      },
    });
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      resolve({ status: res.statusCode ?? 0, headers: res.headers, body: '' });
    });
    req.on('response', (res) => readReply(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

/** A plain HTTP GET to 127.0.0.1:`port`. */
export function httpGet(port: number, path: string): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, method: 'GET' }, (res) => readReply(res).then(resolve, reject));
    req.on('error', reject);
    req.end();
  });
}

/** Open a bare `ws` socket (subprotocol `mcp` unless `protocols` says otherwise) with any client options. */
export async function openSocket(url: string, options: ClientOptions & { protocols?: string[] } = {}): Promise<WebSocket> {
  const { protocols = ['mcp'], ...clientOptions } = options;
  const socket = new WebSocket(url, protocols, clientOptions);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_req, res) => reject(new Error(`HTTP ${res.statusCode}`)));
  });
  return socket;
}

/** Send a request on a bare socket and resolve with the response that carries its id. */
export function rpc(socket: WebSocket, message: Json): Promise<Json> {
  return new Promise((resolve) => {
    const onMessage = (data: WebSocket.RawData) => {
      const reply = JSON.parse(data.toString()) as Json;
      if (reply.id === message.id && !('method' in reply)) {
        socket.off('message', onMessage);
        resolve(reply);
      }
    };
    socket.on('message', onMessage);
    socket.send(JSON.stringify(message));
  });
}

/** Run `initialize` + `notifications/initialized` on a bare socket. */
export async function initializeSocket(socket: WebSocket): Promise<Json> {
  const reply = await rpc(socket, {
    jsonrpc: '2.0',
    id: 'init',
    method: 'initialize',
    params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bare-client', version: '1.0.0' } },
  });
  socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return reply;
}

/** Resolve when the socket closes, with its close code and reason. */
export function socketClosed(socket: WebSocket): Promise<{ code: number; reason: string }> {
  if (socket.readyState === WebSocket.CLOSED) return Promise.resolve({ code: -1, reason: 'already closed' });
  return new Promise((resolve) => socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
}
