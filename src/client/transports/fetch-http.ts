/** HttpClient on fetch: what a browser has. Bodies are read from the response's stream as they arrive. */
import type { FetchLike, HttpClient, HttpExchange, HttpHandlers, HttpResponse } from './http-client.js';

export function fetchHttpClient(fetchImpl: FetchLike): HttpClient {
  const controls = new Set<AbortController>();
  return {
    exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange {
      const control = new AbortController();
      controls.add(control);
      const done = () => controls.delete(control);
      let request: Promise<Response>;
      try {
        request = fetchImpl(url, { method, headers, body, signal: control.signal, cache: 'no-store', redirect: 'follow' });
      } catch (err) {
        done();
        throw err;
      }
      // fetch says nothing of when the body is written: the request counts as sent once it is under way.
      queueMicrotask(() => on.written?.());
      request.then(
        (response) => on.response(wrap(response, control, done)),
        (err: unknown) => {
          done();
          on.failed(failure(err));
        },
      );
      return { cancel: () => control.abort() };
    },
    close() {
      for (const control of controls) control.abort();
      controls.clear();
    },
  };
}

function wrap(response: Response, control: AbortController, done: () => void): HttpResponse {
  let reading = false;
  return {
    status: response.status,
    statusText: response.statusText,
    header: (name) => response.headers.get(name) ?? undefined,
    read(onChunk, onEnd) {
      reading = true;
      const body = response.body;
      if (!body) {
        done();
        return queueMicrotask(() => onEnd(true));
      }
      const reader = body.getReader();
      const pump = (): Promise<void> =>
        reader.read().then(({ done: finished, value }) => {
          if (finished) return onEnd(true);
          if (value) onChunk(value);
          return pump();
        });
      pump().then(done, () => {
        done();
        onEnd(false);
      });
    },
    cancel() {
      control.abort();
      if (!reading) done();
    },
    discard() {
      void response.body?.cancel().catch(() => {});
      done();
    },
  };
}

/** fetch's error, with what Node's fetch keeps in `cause` ("fetch failed" says nothing by itself). */
function failure(err: unknown): Error {
  const error = err instanceof Error ? err : new Error(String(err));
  return error.cause instanceof Error ? new Error(`${error.message} (${error.cause.message})`, { cause: error }) : error;
}
