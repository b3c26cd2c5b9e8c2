/** A minimal Streamable HTTP client on node:http: one POST per message, SSE bodies read as they arrive. */
import { Agent, request } from 'node:http';

export type Json = Record<string, any>;

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** JSON-RPC messages in the body (one for JSON, each event's data for SSE). */
  messages: Json[];
}

export interface HttpEndpoint {
  port: number;
  path: string;
}

// An elicitation holds two requests per client at once (the call's stream and the answer), so 64 clients need 128 sockets.
export const agent = new Agent({ keepAlive: true, maxSockets: 256, maxFreeSockets: 256 });

/** Each complete `data:` payload in an SSE buffer; the unfinished tail stays in `rest`. */
function takeEvents(buffer: string): { events: Json[]; rest: string } {
  const events: Json[] = [];
  let end: number;
  while ((end = buffer.indexOf('\n\n')) !== -1) {
    const data = buffer
      .slice(0, end)
      .split('\n')
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .join('');
    buffer = buffer.slice(end + 2);
    if (data) events.push(JSON.parse(data));
  }
  return { events, rest: buffer };
}

/**
 * Send one request; `onMessage` sees each SSE message as it arrives (to answer an elicitation mid-stream).
 * Aborting `signal` drops the connection, as a client that goes away does.
 */
export function send(
  { port, path }: HttpEndpoint,
  method: 'POST' | 'DELETE' | 'GET',
  body: Json | undefined,
  headers: Record<string, string>,
  onMessage?: (m: Json) => void,
  signal?: AbortSignal,
): Promise<Reply> {
  const payload = body === undefined ? '' : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method,
        agent,
        signal,
        headers: {
          ...headers,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const messages: Json[] = [];
        const sse = (res.headers['content-type'] ?? '').startsWith('text/event-stream');
        let buffer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          if (!sse) return;
          const { events, rest } = takeEvents(buffer);
          buffer = rest;
          for (const message of events) {
            messages.push(message);
            onMessage?.(message);
          }
        });
        res.on('end', () => {
          if (!sse && buffer) messages.push(JSON.parse(buffer));
          resolve({ status: res.statusCode ?? 0, headers: res.headers, messages });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const post = (endpoint: HttpEndpoint, body: Json, headers: Record<string, string>, onMessage?: (m: Json) => void) =>
  send(endpoint, 'POST', body, headers, onMessage);

/** What every benchmark client says in `initialize`: a 2025-11-25 session that can answer elicitations. */
export const INITIALIZE_PARAMS = { protocolVersion: '2025-11-25', capabilities: { elicitation: {} }, clientInfo: { name: 'bench', version: '1' } };

/** A 2025-11-25 session: initialize, then notifications/initialized; resolves the headers later requests carry. */
export async function openSession(endpoint: HttpEndpoint): Promise<Record<string, string>> {
  const init = await post(endpoint, { jsonrpc: '2.0', id: 0, method: 'initialize', params: INITIALIZE_PARAMS }, {});
  if (init.status !== 200) throw new Error(`initialize answered ${init.status}`);
  const headers = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-11-25' };
  await post(endpoint, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  return headers;
}
