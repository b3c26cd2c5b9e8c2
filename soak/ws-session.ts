/** A 2025-11-25 session on a WebSocket of its own. */
import type { Json } from '../bench/http-client.js';
import { WsClient } from '../bench/ws-client.js';
import { expectEqual, within } from './check.js';
import { OP_TIMEOUT_MS } from './settings.js';
import { type Exchange, type Fail, type OnMessage, type Transport, Unsolicited } from './transport.js';

export class WsSession implements Transport {
  readonly era = 'legacy';
  /** The call in flight: the socket carries no request id on notifications, and a client makes one call at a time. */
  private call: { onMessage?: OnMessage; related: Json[] } | undefined;

  private constructor(private readonly client: WsClient) {}

  static async open(url: string, fail: Fail): Promise<WsSession> {
    const unsolicited = new Unsolicited(fail);
    let session: WsSession | undefined;
    // The server may speak before open() returns: the back-channel log follows the initialize result at once.
    const route = (message: Json): Json | undefined => {
      const call = session?.call;
      if (!call) {
        unsolicited.receive(message);
        return undefined;
      }
      call.related.push(message);
      return call.onMessage?.(message);
    };
    session = new WsSession(await WsClient.open(url, route, route));
    try {
      await within(OP_TIMEOUT_MS, 'the back-channel log on the WebSocket', unsolicited.announced);
    } catch (err) {
      session.drop();
      throw err;
    }
    return session;
  }

  async request(method: string, params: Json, onMessage?: OnMessage): Promise<Exchange> {
    const call = { onMessage, related: [] };
    this.call = call;
    try {
      return { response: await this.client.request(method, params), related: call.related };
    } finally {
      this.call = undefined;
    }
  }

  /** Messages on a socket are handled in order: once a ping after it is answered, the notification was taken in. */
  async notify(method: string, params: Json): Promise<void> {
    this.client.notify(method, params);
    const { response, related } = await this.request('ping', {});
    expectEqual({ response, related }, { response: { jsonrpc: '2.0', id: response.id, result: {} }, related: [] }, 'the ping after a notification');
  }

  drop(): void {
    this.client.terminate();
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
