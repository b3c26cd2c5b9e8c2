/**
 * Reading an HTTP response of Streamable HTTP: its status and content type, and its body as text within
 * the message limit. Shared by a request's own answer and by the GETs that resume a stream.
 */
import type { HttpResponse } from './http-client.js';

/** How much of an unexpected body an error message quotes. */
export const QUOTED_BODY_CHARS = 200;

export function isOk(res: HttpResponse): boolean {
  return res.status >= 200 && res.status < 300;
}

export function isEventStream(res: HttpResponse): boolean {
  return (res.header('content-type') ?? '').split(';')[0].trim().toLowerCase() === 'text/event-stream';
}

/** `HTTP 500 Internal Server Error: <the start of the body>`. */
export function describeStatus(res: HttpResponse, body: string): string {
  const status = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}`;
  const text = body.replace(/\s+/g, ' ').trim();
  if (text === '') return status;
  return `${status}: ${text.length > QUOTED_BODY_CHARS ? `${text.slice(0, QUOTED_BODY_CHARS)}…` : text}`;
}

export interface Body {
  text: string;
  /** It arrived whole. */
  complete: boolean;
  /** It was longer than the limit, and left unread ('' as text). */
  tooLarge: boolean;
}

/** The whole body as text, unless it is longer than `limit` bytes: then the response is closed unread. */
export function readText(res: HttpResponse, limit: number): Promise<Body> {
  return new Promise((resolve) => {
    const decoder = new TextDecoder();
    let text = '';
    let size = 0;
    res.read(
      (chunk) => {
        if (size > limit) return;
        size += chunk.length;
        if (size <= limit) text += decoder.decode(chunk, { stream: true });
        else {
          text = '';
          res.cancel();
        }
      },
      (complete) => resolve({ text: size > limit ? '' : text + decoder.decode(), complete, tooLarge: size > limit }),
    );
  });
}
