/** A 2025-11-25 Streamable HTTP session with its GET stream open, as an MCP client keeps one. */
import { type HttpEndpoint, type Json, openSession } from '../bench/http-client.js';
import { expectEqual, shown, within } from './check.js';
import { HttpConnections } from './http-connections.js';
import { OP_TIMEOUT_MS } from './settings.js';
import { type Exchange, type Fail, type OnMessage, type Transport, Unsolicited } from './transport.js';

export class HttpSession implements Transport {
  readonly era = 'legacy';
  private nextId = 1;
  private closing = false;
  /** Settles with why the GET stream ended. */
  private streamEnded: Promise<string> = Promise.resolve('');

  private constructor(
    private readonly http: HttpConnections,
    private readonly headers: Record<string, string>,
  ) {}

  static async open(endpoint: HttpEndpoint, fail: Fail): Promise<HttpSession> {
    const http = new HttpConnections(endpoint);
    const session = new HttpSession(http, await openSession(endpoint));
    const unsolicited = new Unsolicited(fail);
    let opened = false;
    session.streamEnded = http
      .send('GET', undefined, session.headers, (m) => unsolicited.receive(m))
      .then(
        ({ status, messages }) => `the GET stream ended (HTTP ${status}${messages.length ? `, ${shown(messages)}` : ''})`,
        (err: Error) => `the GET stream failed: ${err.message}`,
      )
      .then((why) => {
        if (opened && !session.closing && !http.dropped) fail(`${why} while its session was open`);
        return why;
      });
    const early = await within(
      OP_TIMEOUT_MS,
      'the back-channel log on the GET stream',
      Promise.race([unsolicited.announced.then(() => undefined), session.streamEnded]),
    ).catch((err: Error) => err.message);
    if (early !== undefined) {
      http.drop();
      throw new Error(early);
    }
    opened = true;
    return session;
  }

  request(method: string, params: Json, onMessage?: OnMessage): Promise<Exchange> {
    const body = { jsonrpc: '2.0', id: this.nextId++, method, params };
    return this.http.exchange(body, this.headers, onMessage, (id, result) => this.http.send('POST', { jsonrpc: '2.0', id, result }, this.headers));
  }

  notify(method: string, params: Json): Promise<void> {
    return this.http.notify({ jsonrpc: '2.0', method, params }, this.headers);
  }

  drop(): void {
    this.http.drop();
  }

  /** DELETE ends the session, and with it the GET stream. */
  async close(): Promise<void> {
    this.closing = true;
    const { status } = await this.http.send('DELETE', undefined, this.headers);
    expectEqual(status, 200, 'the HTTP status of DELETE');
    await within(OP_TIMEOUT_MS, 'the GET stream to end after DELETE', this.streamEnded);
  }
}
