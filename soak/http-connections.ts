/** HTTP requests of one client, on the shared keep-alive agent, whose connections can all be dropped at once. */
import { type HttpEndpoint, type Json, type Reply, send } from '../bench/http-client.js';
import { expectEqual, expectThat } from './check.js';
import type { Exchange, OnMessage } from './transport.js';

export class HttpConnections {
  private readonly open = new Set<AbortController>();
  dropped = false;

  constructor(private readonly endpoint: HttpEndpoint) {}

  send(method: 'POST' | 'GET' | 'DELETE', body: Json | undefined, headers: Record<string, string>, onMessage?: (m: Json) => void): Promise<Reply> {
    const controller = new AbortController();
    this.open.add(controller);
    return send(this.endpoint, method, body, headers, onMessage, controller.signal).finally(() => this.open.delete(controller));
  }

  /**
   * POST one JSON-RPC request. Messages before its response go to `onMessage`; a server request it
   * answers is answered through `answer`, whose replies must be 204.
   */
  async exchange(
    body: Json,
    headers: Record<string, string>,
    onMessage?: OnMessage,
    answer?: (id: unknown, result: Json) => Promise<Reply>,
  ): Promise<Exchange> {
    const related: Json[] = [];
    const answers: Promise<Reply>[] = [];
    const reply = await this.send('POST', body, headers, (m) => {
      if (m.id === body.id && m.method === undefined) return;
      related.push(m);
      const result = onMessage?.(m);
      if (m.method !== undefined && m.id !== undefined && result !== undefined && answer) answers.push(answer(m.id, result));
    });
    expectEqual(reply.status, 200, `the HTTP status of ${body.method}`);
    const response = reply.messages.find((m) => m.id === body.id && m.method === undefined);
    expectThat(response !== undefined, `a response to ${body.method}: expected one with id ${body.id} in the body`, reply.messages);
    for (const { status } of await Promise.all(answers)) expectEqual(status, 204, 'the HTTP status of an answer to a server request');
    return { response: response!, related };
  }

  /** POST one notification: 202 with no body. */
  async notify(body: Json, headers: Record<string, string>): Promise<void> {
    const { status, messages } = await this.send('POST', body, headers);
    expectEqual({ status, messages }, { status: 202, messages: [] }, `the HTTP reply to ${body.method}`);
  }

  drop(): void {
    this.dropped = true;
    for (const controller of this.open) controller.abort();
  }
}
