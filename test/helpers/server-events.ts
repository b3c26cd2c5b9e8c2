/** Wait for and record what an McpServer emits: the next event, every emission of one event, every outgoing message. */
import type { McpServer, McpServerEvents, McpSession } from '../../src/index.js';

/** Resolve on the next emission of `event`, with its arguments. */
export function nextEvent<A extends unknown[]>(
  emitter: { once(event: string, fn: (...args: any[]) => void): unknown },
  event: string,
  timeoutMs = 5000,
): Promise<A> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no '${event}' event within ${timeoutMs} ms`)), timeoutMs);
    emitter.once(event, (...args: any[]) => {
      clearTimeout(timer);
      resolve(args as A);
    });
  });
}

/** Every emission of `event` from now on, as its argument list, in order. */
export function recordEvents<K extends keyof McpServerEvents>(server: McpServer, event: K): McpServerEvents[K][] {
  const log: McpServerEvents[K][] = [];
  (server.on as (event: string, fn: (...args: unknown[]) => void) => unknown)(event, (...args: unknown[]) => void log.push(args as McpServerEvents[K]));
  return log;
}

/** Every message the server sent (on `session`, when given) from now on. */
export function recordOutgoing(server: McpServer, session?: McpSession): Record<string, unknown>[] {
  const log: Record<string, unknown>[] = [];
  server.on('message', (from, direction, message) => {
    if (direction === 'out' && (session === undefined || from === session)) log.push(message as Record<string, unknown>);
  });
  return log;
}
