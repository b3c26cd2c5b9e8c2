/**
 * The client's send path: a request on the era's wire, with a progress token when the caller listens
 * for progress, and the server told when the client gives up on it. The rpc peer keeps it pending
 * until it ends exactly once.
 */
import { isObject } from '../protocol/jsonrpc.js';
import type { ProgressParams, RequestId } from '../protocol/types.js';
import type { RpcPeer } from '../rpc/peer.js';
import type { ClientTransport, SendContext } from './transport.js';
import type { EraWire } from './wire.js';

export interface SendOptions {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((progress: ProgressParams) => void) | undefined;
  /** Told the request's id before it goes out. */
  onSent?: (id: RequestId) => void;
}

export class OutgoingRequests {
  private nextProgressToken = 1;
  private readonly progressListeners = new Map<string | number, (progress: ProgressParams) => void>();

  constructor(
    private readonly peer: RpcPeer<SendContext>,
    private readonly requestTimeoutMs: number,
    /** The transport requests go out on; undefined before connect and once closed. */
    private readonly transport: () => ClientTransport | undefined,
  ) {}

  /** One request on the wire, ended exactly once: its response, its timeout, the caller's signal, or the connection closing. */
  send(wire: EraWire, method: string, params: Record<string, unknown>, options: SendOptions): Promise<Record<string, unknown>> {
    const transport = this.transport();
    if (!transport) return Promise.reject(new Error(`McpClient is closed; cannot send ${method}`));
    let token: number | undefined;
    let withToken = params;
    if (options.onProgress) {
      token = this.nextProgressToken++;
      this.progressListeners.set(token, options.onProgress);
      withToken = { ...params, _meta: { ...(isObject(params._meta) ? params._meta : {}), progressToken: token } };
    }
    const { params: sent, context } = wire.outgoing(method, withToken);
    // Aborted when the client gives up: the transport stops waiting for (or resuming) the answer.
    const givenUp = new AbortController();
    context.signal = givenUp.signal;
    const answer = this.peer.request(method, sent, {
      timeoutMs: options.timeoutMs ?? this.requestTimeoutMs,
      signal: options.signal,
      context,
      ...(options.onSent ? { onSent: options.onSent } : {}),
      onAbandon: (id, reason) => {
        givenUp.abort();
        // Closing the stream was the cancellation (2026-07-28 HTTP); initialize is never cancelled (basic/utilities/cancellation).
        if (wire.cancelsByClosingStream || method === 'initialize') return;
        transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason } }, wire.context()).catch(() => {});
      },
    });
    return token === undefined ? answer : answer.finally(() => this.progressListeners.delete(token));
  }

  /** notifications/progress: to the listener of the request it is about. */
  progress(params: ProgressParams): void {
    this.progressListeners.get(params.progressToken)?.(params);
  }

  /** The connection ended: no progress is awaited any more. */
  clear(): void {
    this.progressListeners.clear();
  }
}
