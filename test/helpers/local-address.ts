/**
 * Clients whose connections leave from another loopback address (127.0.0.2, 127.0.0.3, ...: Linux routes
 * all of 127/8 to lo), for limits a server keeps per remote address.
 */
import { request as httpRequest } from 'node:http';
import { OpenResponse } from './http-client.js';
import { MODERN_CAPS, ModernClient, modernHeaders, type Reply, withEnvelope } from './modern.js';
import type { Json } from './ws-client.js';

/** A 2026-07-28 client (as ModernClient) whose every request connects from `localAddress`. */
export class ModernClientFrom extends ModernClient {
  constructor(
    readonly localAddress: string,
    url: string,
    capabilities: Json = MODERN_CAPS.all,
    extraHeaders: Record<string, string> = {},
  ) {
    super(url, capabilities, extraHeaders);
  }

  override async request(method: string, params: Json = {}): Promise<Reply> {
    const message = { jsonrpc: '2.0', id: this.nextId++, method, params: withEnvelope(params, this.capabilities) };
    const res = await postFrom(this.localAddress, this.url, message, { ...modernHeaders(method, params), ...this.extraHeaders });
    if (!res.isSse) return { status: res.status, body: await res.json() };
    const body = await res.nextMessage({ id: message.id });
    await res.ended;
    return { status: res.status, body };
  }
}

/** POST `message` to `url` over a connection from `localAddress`. */
export function postFrom(localAddress: string, url: string, message: Json, headers: Record<string, string>): Promise<OpenResponse> {
  const payload = JSON.stringify(message);
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: 'POST', localAddress, headers: { ...headers, 'content-length': Buffer.byteLength(payload).toString() } }, (res) =>
      resolve(new OpenResponse(res)),
    );
    req.on('error', reject);
    req.end(payload);
  });
}
