/**
 * The little the Streamable HTTP client transport needs from HTTP: one request out, its response read as
 * bytes as they come. Two implementations: node:http (Node, the default there) and fetch (browsers, and
 * anything else with a fetch). The transport itself imports neither.
 */

/** A response, its headers in, its body read once. */
export interface HttpResponse {
  readonly status: number;
  readonly statusText: string;
  /** A response header by lower-case name. */
  header(name: string): string | undefined;
  /** Read the body: each chunk as it arrives, then `onEnd` once, saying whether the body arrived whole. */
  read(onChunk: (chunk: Uint8Array) => void, onEnd: (complete: boolean) => void): void;
  /** Stop reading and drop the connection (`onEnd(false)` follows). */
  cancel(): void;
  /** Read the body and throw it away. */
  discard(): void;
}

export interface HttpHandlers {
  response(res: HttpResponse): void;
  /** No response came: the connection failed, or the request was cancelled. */
  failed(err: Error): void;
  /** The request's body is on its way (or the exchange is over): a request may now count as sent. */
  written?(): void;
}

export interface HttpExchange {
  /** Abort the request, and its response if one came. */
  cancel(): void;
}

export interface HttpClient {
  /** Send one request; the handlers never throw. Throws at once for a header the platform refuses. */
  exchange(method: string, url: URL, headers: Record<string, string>, body: string | undefined, on: HttpHandlers): HttpExchange;
  /** Abort everything under way and let go of kept-alive connections. */
  close(): void;
}

/** `fetch` as the transport uses it (the global one, or one of the caller's). */
export type FetchLike = (input: URL, init: RequestInit) => Promise<Response>;
