/**
 * The one dispatch by kind, the same for either end: a reply goes to what settles this end's requests,
 * a notification and a request to their handlers, and what is not JSON-RPC is refused. `Via` (where an
 * answer goes) and `How` (how a request is admitted) are whatever the end needs, passed through as
 * they are, so that nothing is allocated per message.
 */
import type { JsonRpcErrorObject } from '../protocol/errors.js';
import type { Classified, JsonRpcNotification, JsonRpcRequest, JsonRpcResponse } from '../protocol/jsonrpc.js';
import type { RequestId } from '../protocol/types.js';

export interface MessageReceiver<Via, How> {
  onResponse(response: JsonRpcResponse, via: Via): void;
  onNotification(notification: JsonRpcNotification, via: Via): void;
  onRequest(request: JsonRpcRequest, via: Via, how: How): void;
  /** A message that is not JSON-RPC: `id` is its id when it had a usable one. */
  onInvalid(id: RequestId | null, error: JsonRpcErrorObject, via: Via): void;
}

export function dispatch<Via, How>(message: Classified, to: MessageReceiver<Via, How>, via: Via, how: How): void {
  switch (message.kind) {
    case 'response':
      return to.onResponse(message.message, via);
    case 'notification':
      return to.onNotification(message.message, via);
    case 'request':
      return to.onRequest(message.message, via, how);
    case 'invalid':
      return to.onInvalid(message.id, message.error, via);
  }
}
