/**
 * What a session, and the handlers that run on it, need of the server: ServerCore (core.ts) is the one
 * implementation. Apart from the core, for the core makes connections and so imports the session.
 */
import type { Implementation, ServerCapabilities } from '../protocol/types.js';
import type { McpSession } from './api.js';
import type { Catalog } from './catalog.js';
import type { ExtensionMethods } from './extensions.js';
import type { OutgoingHost } from './outgoing.js';
import type { Subscription } from './subscriptions.js';

export interface SessionHost extends OutgoingHost {
  readonly info: Readonly<Implementation>;
  readonly instructions: string | undefined;
  readonly capabilities: ServerCapabilities;
  readonly catalog: Catalog;
  /** The methods extensions add (server/extensions.ts). */
  readonly extensions: ExtensionMethods;
  /** Open 2026-07-28 `subscriptions/listen` streams. */
  readonly subscriptions: Set<Subscription>;
  /** The server is draining: new requests are refused. */
  readonly draining: boolean;
  /** `initialize` was answered: the session is the server's now. */
  sessionStarted(session: McpSession): void;
  sessionEnded(session: McpSession, reason: string, wasInitialized: boolean): void;
  reportError(error: unknown, session?: McpSession): void;
}
