/**
 * The client requests a session is handling: the rpc floor's table of requests being answered, each
 * held by its request context, so that `notifications/cancelled` and the session's end abort its handler.
 */
import type { ServingRequests } from '../rpc/requests.js';
import type { Context } from './context.js';

export type IncomingRequests = ServingRequests<Context>;
