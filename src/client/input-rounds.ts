/**
 * A request followed to its final result. On 2026-07-28 an `input_required` answer is fulfilled through
 * the handlers and retried, a new request with the original params, those answers and the `requestState`
 * as sent; a tools/call answered with a task is polled to its end. A legacy-era result is final at once.
 */
import { ErrorCode, McpError } from '../protocol/errors.js';
import type { DetailedTask } from '../protocol/tasks.js';
import type { CallOptions } from './api.js';
import type { ClientHandlers } from './handlers.js';
import type { SendOptions } from './outgoing.js';
import { followTask } from './tasks.js';
import type { EraWire } from './wire.js';

/** What following a request needs of the client. */
export interface RoundsHost {
  readonly handlers: ClientHandlers;
  /** Input rounds a request may ask for before it fails. */
  readonly maxRounds: number;
  send(wire: EraWire, method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown>>;
  /** A new state of a task a tools/call became. */
  taskChanged(task: DetailedTask): void;
  reportError(error: unknown): void;
}

export async function untilFinal(
  host: RoundsHost,
  wire: EraWire,
  method: string,
  params: Record<string, unknown>,
  options: CallOptions,
): Promise<Record<string, unknown>> {
  let retry = params;
  for (let round = 0; ; round++) {
    const result = await host.send(wire, method, retry, options);
    const next = wire.inputRound(method, result);
    if (!next) {
      if (result.resultType !== 'task') return result;
      // The 2026-07-28 wire checked the task already; on a legacy-era session one is never valid.
      if (!wire.tasks) throw new McpError(ErrorCode.InternalError, `The server's ${method} result is invalid: a task on a session that cannot have one`);
      return followCreatedTask(host, wire, result, options);
    }
    if (round >= host.maxRounds) {
      throw new McpError(ErrorCode.InternalError, `${method} still asked for input after ${host.maxRounds} rounds; raise maxRounds if the server needs more`, {
        maxRounds: host.maxRounds,
      });
    }
    retry = { ...params };
    if (next.inputRequests) retry.inputResponses = await host.handlers.fulfil(next.inputRequests, options.signal);
    if (next.requestState !== undefined) retry.requestState = next.requestState;
  }
}

/** A tools/call answered with a task: polled to its end, its questions answered through the handlers. */
function followCreatedTask(host: RoundsHost, wire: EraWire, created: Record<string, unknown>, options: CallOptions): Promise<Record<string, unknown>> {
  const { signal: _followed, onProgress: _none, onTask, ...each } = options;
  return followTask(
    {
      send: (method, params) => host.send(wire, method, params, each),
      fulfil: (inputRequests, signal, taskId) => host.handlers.fulfil(inputRequests, signal, taskId),
      changed: (task) => {
        onTask?.(task);
        host.taskChanged(task);
      },
      reportError: (error) => host.reportError(error),
    },
    created,
    options.signal,
  );
}
