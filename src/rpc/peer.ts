/**
 * One end of a JSON-RPC conversation, the same for either side: what it sends waits in its pending
 * table until it ends exactly once, and what comes in is dispatched by kind. A response settles its
 * entry; a request goes to the handler and its answer goes out, unless the peer cancelled it first; a
 * notification goes to its handler. It knows no MCP method but `notifications/cancelled`, which is
 * JSON-RPC cancellation (basic/utilities/cancellation), and no transport: messages leave through `send`.
 */
import { ErrorCode, type JsonRpcErrorObject, McpError } from '../protocol/errors.js';
import {
  classify,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  dispatch,
  type MessageReceiver,
} from '../protocol/jsonrpc.js';
import { quote } from '../protocol/quote.js';
import type { RequestId } from '../protocol/types.js';
import { type Deadlines, type ReplyPolicy, receiveReply, ServingRequests, PendingRequests, RequestIds } from './requests.js';
import { settlesWithin } from './settles-within.js';

/** What a peer needs of its owner, given once at construction. `Context` is how one message travels (a transport's send context). */
export interface PeerHandlers<Context> {
  /** Puts one message on the wire; rejects when it could not be sent at all. */
  send(message: JsonRpcMessage, context: Context): Promise<void>;
  /** Answers a request from the other end: its result, or a throw that `errorFor` turns into the error reply. */
  answer(request: JsonRpcRequest, signal: AbortSignal): Promise<Record<string, unknown>>;
  errorFor(request: JsonRpcRequest, error: unknown): JsonRpcErrorObject;
  notification(notification: JsonRpcNotification): void;
  /** How a reply goes out now; undefined when none can (nothing is sent). */
  replyContext(): Context | undefined;
  /** What went wrong that ends no request: a message that is not JSON-RPC, an answer to nothing this end sent, a reply that could not go out. */
  reportError(error: Error): void;
}

export interface PeerOptions {
  /** What the other end is called in what is reported ('server' or 'client'). */
  peer: string;
  /** What this end is called. */
  self: string;
  /** The first id this end gives its requests. */
  firstId?: number;
  /** Where the timeouts wait (a server's sessions share one timer). */
  deadlines?: Deadlines;
}

/** One request this end sends. */
export interface OutgoingCall<Context> {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** How the request travels. */
  context: Context;
  /** Told the request's id just before it goes out (not when its signal had aborted already: then nothing goes out). */
  onSent?(id: RequestId): void;
  /** The request was given up (timeout, its signal) after it went out: how the other end is told, if at all. */
  onAbandon?(id: RequestId, reason: string): void;
}

export class RpcPeer<Context> {
  readonly pending: PendingRequests;
  /** Requests from the other end still being answered, by id: it may cancel them. */
  private readonly serving = new ServingRequests();
  private readonly replyPolicy: ReplyPolicy<undefined>;
  /** What comes in, by kind: the same dispatch a server's connection runs its messages through. */
  private readonly receiver: MessageReceiver<undefined, undefined> = {
    onResponse: (response) => receiveReply(response, this.pending, this.replyPolicy, undefined),
    onNotification: (notification) => this.onNotification(notification),
    onRequest: (request) => void this.serve(request),
    onInvalid: (_id, error) => this.handlers.reportError(new Error(`The ${this.options.peer} sent a message that is not JSON-RPC: ${error.message}`)),
  };
  /** Replies on their way out: a closing owner lets them go first. */
  private readonly replies = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly handlers: PeerHandlers<Context>,
    private readonly options: PeerOptions,
  ) {
    this.pending = new PendingRequests(undefined, options.deadlines, new RequestIds(options.firstId));
    this.replyPolicy = {
      peer: options.peer,
      // A result goes to the caller as the other end sent it.
      objectResults: false,
      orphanError: (error) =>
        handlers.reportError(new McpError(error.code, `The ${options.peer} reported an error about no request: ${error.message}`, error.data)),
      // A late answer to a request this end gave up on is expected; one to a request it never sent is not.
      unmatched: (id, match) => {
        if (match === 'unknown' && !this.pending.issued(id)) {
          handlers.reportError(new Error(`The ${options.peer} answered request ${quote(id)}, which this ${options.self} never sent`));
        }
      },
    };
  }

  /** Send one request; it ends exactly once: its response, its timeout, its signal, the send failing, or close. */
  request(method: string, params: Record<string, unknown>, call: OutgoingCall<Context>): Promise<Record<string, unknown>> {
    const id = this.pending.nextId();
    return new Promise((resolve, reject) => {
      const added = this.pending.add(id, {
        method,
        timeoutMs: call.timeoutMs,
        ...(call.signal ? { signal: call.signal } : {}),
        onSettle: (outcome) => (outcome.ok ? resolve(outcome.result as Record<string, unknown>) : reject(outcome.error)),
        ...(call.onAbandon ? { onAbandon: (reason: string) => call.onAbandon!(id, reason) } : {}),
      });
      // Given up before it started: nothing goes out, so there is nobody to tell.
      if (!added) return;
      call.onSent?.(id);
      this.handlers
        .send({ jsonrpc: '2.0', id, method, params }, call.context)
        .catch((err: Error) => this.pending.fail(id, new McpError(ErrorCode.ConnectionClosed, `${method} could not be sent: ${err.message}`)));
    });
  }

  /** Whether the other end's request `id` is still being answered. */
  isServing(id: RequestId): boolean {
    return this.serving.has(id);
  }

  /** One message from the other end, parsed from JSON but not yet checked. */
  receive(value: unknown): void {
    dispatch(classify(value), this.receiver, undefined, undefined);
  }

  /** Wait up to `ms` for the replies on their way out; whether they all went. */
  repliesSent(ms: number): Promise<boolean> {
    return this.replies.size === 0 ? Promise.resolve(true) : settlesWithin(Promise.allSettled(this.replies), ms);
  }

  /** The connection is gone: every pending request fails with ConnectionClosedError, every request being answered is aborted. */
  close(reason: string): void {
    if (this.closed) return;
    this.closed = true;
    this.pending.closeAll(reason);
    this.serving.cancelAll(reason);
  }

  private onNotification(notification: JsonRpcNotification): void {
    if (notification.method === 'notifications/cancelled') {
      const params = notification.params ?? {};
      const reason = typeof params.reason === 'string' ? params.reason : `cancelled by the ${this.options.peer}`;
      this.serving.cancel(params.requestId as RequestId, reason);
    }
    this.handlers.notification(notification);
  }

  /** A request from the other end: answered exactly once, unless it is cancelled first. */
  private async serve(request: JsonRpcRequest): Promise<void> {
    const control = new AbortController();
    this.serving.add(request.id, control);
    let response: JsonRpcResponse;
    try {
      response = { jsonrpc: '2.0', id: request.id, result: await this.handlers.answer(request, control.signal) };
    } catch (err) {
      response = { jsonrpc: '2.0', id: request.id, error: this.handlers.errorFor(request, err) };
    } finally {
      this.serving.remove(request.id, control);
    }
    // basic/utilities/cancellation: a cancelled request gets no response.
    if (control.signal.aborted || this.closed) return;
    const context = this.handlers.replyContext();
    if (context === undefined) return;
    const sent = this.handlers.send(response, context).catch((err: Error) => this.handlers.reportError(err));
    this.replies.add(sent);
    void sent.finally(() => this.replies.delete(sent));
  }
}
