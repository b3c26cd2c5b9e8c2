/** Server-sent events on a node:http response: one JSON-RPC message per `message` event. */
import type { ServerResponse } from 'node:http';

/** Answer with an event stream; `first` (a priming event) goes out in the same write as the headers. */
export function startEventStream(res: ServerResponse, headers: Record<string, string>, first?: string): void {
  res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive' });
  if (first === undefined) res.flushHeaders();
  else res.write(first);
}

/** Write one event; `data` is the message's JSON. With `last`, end the response in the same write. */
export function writeEventData(res: ServerResponse, eventId: string | undefined, data: string, last = false): boolean {
  if (res.writableEnded || res.destroyed) return false;
  const event = `event: message\n${eventId === undefined ? '' : `id: ${eventId}\n`}data: ${data}\n\n`;
  if (last) res.end(event);
  else res.write(event);
  return true;
}

/** 2025-11-25: an event id with empty data lets the client resume even before the first message; `retry` paces its reconnects. */
export function primingEvent(eventId: string, retryMs: number): string {
  return `id: ${eventId}\nretry: ${retryMs}\ndata: \n\n`;
}

export function writeKeepAlive(res: ServerResponse): void {
  if (!res.writableEnded && !res.destroyed) res.write(': keep-alive\n\n');
}
