/** What every kind of client connection offers the operations: requests with what came with them, notifications, and two ways to leave. */
import type { Json } from '../bench/http-client.js';
import { expectEqual } from './check.js';

/** `legacy`: the legacy era, a 2025-11-25 session (initialize first); `modern`: the modern era, 2026-07-28 requests that each stand alone. */
export type Era = 'legacy' | 'modern';

/** One request's outcome: its response, and the server's messages related to it that came first, in order. */
export interface Exchange {
  response: Json;
  related: Json[];
}

/** Sees each related message as it arrives; for a server request, returns the result to answer with (undefined: leave it unanswered). */
export type OnMessage = (message: Json) => Json | undefined;

export interface Transport {
  readonly era: Era;
  request(method: string, params: Json, onMessage?: OnMessage): Promise<Exchange>;
  /** Resolves once the server has taken the notification in. */
  notify(method: string, params: Json): Promise<void>;
  /** Drop every connection at once, without ending the session, as a client that crashes does. */
  drop(): void;
  /** Leave properly: end the session. */
  close(): Promise<void>;
}

/** Reports a failure that no operation is waiting for (a stream that ends, a message out of turn). */
export type Fail = (message: string) => void;

/** What the server sends each session once its back channel is open (the GET stream on HTTP). */
const BACK_CHANNEL_LOG = { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'back channel open', logger: 'soak' } };

/** Where messages outside any call go: the back-channel log once, first; anything else is an error. */
export class Unsolicited {
  readonly announced: Promise<void>;
  private announce!: () => void;
  private seen = false;

  constructor(private readonly fail: Fail) {
    this.announced = new Promise((resolve) => (this.announce = resolve));
  }

  receive(message: Json): void {
    if (this.seen) return this.fail(`a message outside any call: expected none, got ${JSON.stringify(message)}`);
    this.seen = true;
    try {
      expectEqual(message, BACK_CHANNEL_LOG, 'the first message outside any call');
      this.announce();
    } catch (err) {
      this.fail((err as Error).message);
    }
  }
}
