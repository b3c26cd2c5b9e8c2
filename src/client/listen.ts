/**
 * 2026-07-28 `subscriptions/listen` streams: each is a request left open, acknowledged first with what
 * the server honours, then carrying the notifications tied to it by `_meta` until the server
 * completes it, the client closes it, its signal fires, or the connection ends.
 */
import { ErrorCode, McpError, RequestTimeoutError } from '../protocol/errors.js';
import { type JsonRpcNotification, isObject } from '../protocol/jsonrpc.js';
import { MAX_TIMER_MS } from '../protocol/option-checks.js';
import type { RequestId } from '../protocol/types.js';
import type { ListenNotifications, Subscription, SubscriptionOptions } from './api.js';
import type { SendOptions } from './outgoing.js';

/** The `_meta` key that ties a notification to its subscriptions/listen stream. */
const SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

interface Listening {
  acknowledge(honoured: ListenNotifications): void;
  onNotification: ((notification: JsonRpcNotification) => void) | undefined;
}

/** Sends subscriptions/listen on the settled wire. */
export type ListenSend = (params: Record<string, unknown>, options: SendOptions) => Promise<Record<string, unknown>>;

export class Subscriptions {
  /** Open streams, by request id: their acknowledgement and notifications. */
  private readonly open = new Map<RequestId, Listening>();

  /** Open a stream; resolves once the server acknowledges it, with what it honours. */
  async listen(send: ListenSend, notifications: ListenNotifications, options: SubscriptionOptions, defaultTimeoutMs: number): Promise<Subscription> {
    const { signal, onNotification } = options;
    const ackTimeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    // Ends the request: close(), the caller's signal, or no acknowledgement in time.
    const control = new AbortController();
    const onAbort = () => control.abort(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    if (signal?.aborted) onAbort();

    let id: RequestId | undefined;
    let acknowledge!: (honoured: ListenNotifications) => void;
    const acknowledged = new Promise<ListenNotifications>((resolve) => (acknowledge = resolve));
    const answer = send(
      { notifications },
      {
        timeoutMs: MAX_TIMER_MS,
        signal: control.signal,
        onSent: (sent) => {
          id = sent;
          this.open.set(sent, { acknowledge, onNotification });
        },
      },
    );
    const ended = answer.then(
      () => 'completed by the server',
      (err: Error) => err.message,
    );
    void ended.finally(() => {
      if (id !== undefined) this.open.delete(id);
      signal?.removeEventListener('abort', onAbort);
    });

    let timer: ReturnType<typeof setTimeout> | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const error = new RequestTimeoutError('subscriptions/listen', ackTimeoutMs);
        reject(error);
        control.abort(error.message);
      }, ackTimeoutMs);
    });
    // The request ending before the acknowledgement is the answer: an error, or a server that ended at once.
    const endedFirst = answer.then(
      (): ListenNotifications => {
        throw new McpError(ErrorCode.InternalError, 'The server completed subscriptions/listen without acknowledging it');
      },
      (err: Error) => {
        throw err;
      },
    );
    try {
      const honoured = await Promise.race([acknowledged, endedFirst, timedOut]);
      return { id: id!, notifications: honoured, ended, close: () => control.abort('closed by the client') };
    } finally {
      clearTimeout(timer);
    }
  }

  /** A notification from the server: to the stream it names, if that is still open. */
  route(notification: JsonRpcNotification): void {
    const params = notification.params ?? {};
    const subscriptionId = isObject(params._meta) ? params._meta[SUBSCRIPTION_ID] : undefined;
    const listening = subscriptionId === undefined ? undefined : this.open.get(subscriptionId as RequestId);
    if (!listening) return;
    if (notification.method === 'notifications/subscriptions/acknowledged') {
      listening.acknowledge(isObject(params.notifications) ? (params.notifications as ListenNotifications) : {});
    } else listening.onNotification?.(notification);
  }
}
