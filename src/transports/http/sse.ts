/** Server-sent events on a node:http response: one JSON-RPC message per `message` event. */
import type { ServerResponse } from 'node:http';
import type { JsonRpcMessage } from '../../protocol/jsonrpc.js';

export function startEventStream(res: ServerResponse, headers: Record<string, string>): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  res.flushHeaders();
}

export function writeEvent(res: ServerResponse, eventId: string | undefined, message: JsonRpcMessage | JsonRpcMessage[]): boolean {
  if (res.writableEnded || res.destroyed) return false;
  res.write(`event: message\n${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${JSON.stringify(message)}\n\n`);
  return true;
}

/** 2025-11-25: an event id with empty data lets the client resume even before the first message; `retry` paces its reconnects. */
export function writePriming(res: ServerResponse, eventId: string, retryMs: number | undefined): void {
  res.write(`id: ${eventId}\n${retryMs === undefined ? '' : `retry: ${retryMs}\n`}data: \n\n`);
}

export function writeKeepAlive(res: ServerResponse): void {
  if (!res.writableEnded && !res.destroyed) res.write(': keep-alive\n\n');
}
