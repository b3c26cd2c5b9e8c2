/** HttpClient on node:http and node:https, with a pool of its own so that closing leaves no socket behind. */
import { Agent as HttpAgent, type ClientRequest, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { HttpClient, HttpExchange, HttpHandlers, HttpResponse } from './http-client.js';

export function nodeHttpClient(secure: boolean): HttpClient {
  const agent = secure ? new HttpsAgent({ keepAlive: true }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;
  const requests = new Set<ClientRequest>();
  return {
    exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange {
      const request = send(url, { method, headers, agent });
      requests.add(request);
      let responded = false;
      request.on('response', (res) => {
        responded = true;
        on.response(wrap(res));
      });
      request.on('error', (err) => {
        if (!responded) on.failed(err);
      });
      request.on('close', () => {
        requests.delete(request);
        on.written?.();
      });
      request.end(body, () => on.written?.());
      return { cancel: () => void request.destroy() };
    },
    close() {
      for (const request of requests) request.destroy();
      requests.clear();
      agent.destroy();
    },
  };
}

function wrap(res: IncomingMessage): HttpResponse {
  return {
    status: res.statusCode ?? 0,
    statusText: res.statusMessage ?? '',
    header(name) {
      const value = res.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    },
    read(onChunk, onEnd) {
      res.on('data', (chunk: Buffer) => onChunk(chunk));
      // 'close' follows every 'error' and says all that matters: whether the body was complete.
      res.on('error', () => {});
      res.on('close', () => onEnd(res.complete));
    },
    cancel() {
      res.destroy();
    },
    discard() {
      res.resume();
    },
  };
}
