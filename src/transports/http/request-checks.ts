/** The checks every Streamable HTTP request passes before it reaches a session (transports.mdx). */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Send a transport-level error: an HTTP status with a JSON-RPC error body whose id is null (the SDKs' shape). */
export function sendHttpError(
  res: ServerResponse,
  status: number,
  code: number,
  message: string,
  headers: Record<string, string> = {},
  data?: unknown,
  id: string | number | null = null,
): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const error = data === undefined ? { code, message } : { code, message, data };
  sendJson(res, status, headers, JSON.stringify({ jsonrpc: '2.0', error, id }));
}

/** Answer with a JSON body: its length up front, so headers and body go out in one write, not chunked. */
export function sendJson(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }).end(body);
}

/** `Accept` lists what a POST must accept (both types) or a GET must (text/event-stream); `*\/*` accepts all. */
export function accepts(req: IncomingMessage, types: 'json+sse' | 'sse'): boolean {
  const header = req.headers.accept;
  if (!header) return false;
  // A client sends the same Accept on every request: the last one is compared, not hashed (a Map lookup of a new string).
  const last = lastAccept[types === 'sse' ? 1 : 0];
  if (last.header === header) return last.verdict;
  // Each distinct value is parsed once.
  const key = `${types}\n${header}`;
  let verdict = acceptVerdicts.get(key);
  if (verdict === undefined) {
    const listed = header.split(',').map((part) => part.split(';')[0].trim().toLowerCase());
    const wanted = types === 'sse' ? ['text/event-stream'] : ['application/json', 'text/event-stream'];
    verdict = listed.includes('*/*') || wanted.every((type) => listed.includes(type) || listed.includes(`${type.split('/')[0]}/*`));
    if (acceptVerdicts.size >= 256) acceptVerdicts.clear();
    acceptVerdicts.set(key, verdict);
  }
  last.header = header;
  last.verdict = verdict;
  return verdict;
}

const acceptVerdicts = new Map<string, boolean>();
/** The last Accept value seen for each kind of check ('json+sse', 'sse'), and its verdict. */
const lastAccept = [
  { header: '', verdict: false },
  { header: '', verdict: false },
];

export function isJsonContentType(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  if (type === 'application/json') return true; // what nearly every client sends: no split, trim or lowercase
  return type !== undefined && type.split(';')[0].trim().toLowerCase() === 'application/json';
}

/** One request header's value (the first, when it was sent twice). */
export function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
