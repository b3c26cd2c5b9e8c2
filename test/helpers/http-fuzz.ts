/**
 * Streamable HTTP fuzzing: generated requests (any method, header sets of both eras, bodies of every
 * kind), a server with the traffic's catalog on 127.0.0.1:0, and the checks every answer must pass: a
 * documented status, a JSON-RPC error body for a 4xx, well-formed JSON-RPC in a 200, nothing in a 202 or
 * 204, and streams that end unless they are meant to stay open.
 */
import fc from 'fast-check';
import { type McpServer, StreamableHttpTransport } from '../../src/index.js';
import { brief } from './fuzz.js';
import { within } from './waits.js';
import { ACCEPT_BOTH, HttpTestClient, type OpenResponse, send } from './http-client.js';
import { META } from '../../src/protocol/meta.js';
import { type Frame, frameArb, catalogServer, requestArb, type Traffic, toJsonText } from './jsonrpc-arbitraries.js';
import { answerProblem, errorProblem } from './jsonrpc-model.js';

/** Every status the transport documents for what a client can send it (no auth hook, no session limit here). */
export const DOCUMENTED_STATUSES: ReadonlySet<number> = new Set([200, 202, 204, 400, 403, 404, 405, 406, 409, 413, 415]);

/** The body limit of the server under fuzz: huge bodies cross it. */
export const MAX_MESSAGE_BYTES = 256 * 1024;

/** The one origin CORS is on for; loopback origins are then refused like any other. */
export const CORS_ORIGIN = 'http://localhost:5173';

/** What node:http lets a client put in a header value. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** node:http's default limit on the size of a request's headers. */
const NODE_MAX_HEADER_BYTES = 16 * 1024;

const AWAIT_MS = 5_000;

/** How long a POST's SSE stream may stay open: every request here is answered at once, except a listen. */
const STREAM_MS = 1_000;

/**
 * Which session a request names: the one its body fits (`usual`: a 2025-03-26 or 2025-11-25 session of
 * the run for a handshake-era body, none for a 2026-07-28 one), one of them anyway, one that was
 * deleted, none, or an id that never existed.
 */
export type SessionChoice = 'usual' | 'none' | 'batching' | 'current' | 'deleted' | { literal: string };

/** A header that repeats part of the body (plainly, base64-encoded, or with a broken encoding), or a literal. */
export type Mirror = { mirror: 'plain' | 'base64' | 'broken' } | { literal: string };

export interface HttpCase {
  method: string;
  path: string;
  session: SessionChoice;
  /** For a `usual` session: the 2025-03-26 one (which takes batches) rather than the 2025-11-25 one. */
  batching: boolean;
  /** MCP-Protocol-Version: `usual` is the body's 2026-07-28 claim, or the version of the session named, or none. */
  version: 'usual' | { literal: string | undefined };
  headers: Record<string, string>;
  mirrors: Partial<Record<'mcp-method' | 'mcp-name' | 'mcp-param-region', Mirror>>;
  body: Frame | undefined;
}

/** Header values a client can send: printable ASCII, and Latin-1 now and then. */
const headerText: fc.Arbitrary<string> = fc.string({
  unit: fc
    .oneof({ weight: 20, arbitrary: fc.integer({ min: 0x20, max: 0x7e }) }, { weight: 1, arbitrary: fc.integer({ min: 0xa0, max: 0xff }) })
    .map((c) => String.fromCharCode(c)),
  maxLength: 40,
});

/** Mostly `usual` (undefined: the header is left out), now and then one of `others` or any text: most requests pass most checks. */
function header(usual: string | undefined, ...others: (string | undefined)[]): fc.Arbitrary<string | undefined> {
  return fc.oneof({ weight: 24, arbitrary: fc.constant(usual) }, { weight: 2, arbitrary: fc.constantFrom(...others) }, { weight: 1, arbitrary: headerText });
}

const mirror: fc.Arbitrary<Mirror | undefined> = fc.oneof(
  { weight: 12, arbitrary: fc.constant<Mirror>({ mirror: 'plain' }) },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom<Mirror>({ mirror: 'base64' }, { mirror: 'broken' }) },
  { weight: 1, arbitrary: headerText.map((literal): Mirror => ({ literal })) },
);

const headersArb = fc
  .record({
    accept: header(
      ACCEPT_BOTH,
      undefined,
      'application/json',
      'text/event-stream',
      '*/*',
      'text/*, application/*',
      'application/json;q=0.9, text/event-stream;q=0.1',
    ),
    'content-type': header('application/json', undefined, 'application/json; charset=utf-8', 'APPLICATION/JSON', 'text/plain', 'application/json-seq'),
    origin: header(undefined, CORS_ORIGIN, 'http://localhost:1234', 'http://127.0.0.1', 'https://evil.example', 'null'),
    host: header(undefined, 'localhost', '127.0.0.1:80', '[::1]:3000', 'evil.example', 'localhost.evil.example', '[::1', ''),
    'last-event-id': header(undefined, '0_0', '0_1', '1_1', '2_3', 'z_1', '0_99'),
  })
  .map((headers) => Object.fromEntries(Object.entries(headers).filter(([, v]) => v !== undefined)) as Record<string, string>);

/** One generated request: mostly one that passes the checks before the body is read, with a valid message half the time. */
export function httpCaseArb(traffic: Traffic): fc.Arbitrary<HttpCase> {
  const bodies = fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 8, arbitrary: requestArb(traffic).map((value): Frame => ({ kind: 'json', value })) },
    { weight: 8, arbitrary: frameArb(traffic, true) },
  );
  return fc.record({
    method: fc.oneof({ weight: 12, arbitrary: fc.constant('POST') }, { weight: 4, arbitrary: fc.constantFrom('GET', 'DELETE', 'PUT', 'OPTIONS') }),
    path: fc.oneof({ weight: 20, arbitrary: fc.constant('/mcp') }, { weight: 1, arbitrary: fc.constantFrom('/mcp?x=1', '/other', '/', '/mcp/', '/MCP') }),
    session: fc.oneof(
      { weight: 12, arbitrary: fc.constant<SessionChoice>('usual') },
      { weight: 1, arbitrary: fc.constantFrom<SessionChoice>('none', 'batching', 'current', 'deleted') },
      { weight: 1, arbitrary: fc.oneof(fc.uuid(), headerText).map((literal): SessionChoice => ({ literal })) },
    ),
    batching: fc.boolean(),
    version: fc.oneof(
      { weight: 12, arbitrary: fc.constant<HttpCase['version']>('usual') },
      {
        weight: 2,
        arbitrary: fc.constantFrom(undefined, '2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25', '2026-07-28').map((literal) => ({ literal })),
      },
      { weight: 1, arbitrary: fc.oneof(fc.constant('1999-01-01'), headerText).map((literal) => ({ literal })) },
    ),
    headers: headersArb,
    mirrors: fc
      .record({ 'mcp-method': mirror, 'mcp-name': mirror, 'mcp-param-region': mirror })
      .map((m) => Object.fromEntries(Object.entries(m).filter(([, v]) => v !== undefined)) as HttpCase['mirrors']),
    body: bodies,
  });
}

/** The 2026-07-28 claim of a decoded body's `_meta`, if it makes one. */
function claimOf(body: unknown): unknown {
  const params = (body as { params?: { _meta?: Record<string, unknown> } } | undefined)?.params;
  return typeof params?._meta === 'object' && params._meta !== null ? params._meta[META.protocolVersion] : undefined;
}

/** What a mirror header repeats of a decoded body: the method, the tool, prompt or URI name, or the region argument. */
function mirrored(header: string, body: unknown): string {
  const message = (typeof body === 'object' && body !== null ? body : {}) as { method?: unknown; params?: Record<string, unknown> };
  const params = typeof message.params === 'object' && message.params !== null ? message.params : {};
  let value: unknown;
  if (header === 'mcp-method') value = message.method;
  else if (header === 'mcp-name') value = message.method === 'resources/read' ? params.uri : params.name;
  else value = (params.arguments as Record<string, unknown> | undefined)?.region;
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return 'unprintable';
  }
}

function mirrorValue(choice: Mirror, header: string, body: unknown): string {
  if ('literal' in choice) return choice.literal;
  const plain = mirrored(header, body);
  if (choice.mirror === 'plain') return /^[\t\x20-\x7e]*$/.test(plain) ? plain : `=?base64?${Buffer.from(plain).toString('base64')}?=`;
  return choice.mirror === 'base64' ? `=?base64?${Buffer.from(plain).toString('base64')}?=` : `=?base64?${Buffer.from(plain).toString('base64')}=?=`;
}

/** The body's bytes on the wire, and the value the server decodes from them (undefined: none, or not JSON). */
function bodyOf(frame: Frame | undefined): { payload: string | Uint8Array | undefined; decoded: unknown } {
  if (frame === undefined) return { payload: undefined, decoded: undefined };
  if (frame.kind === 'bytes') return { payload: frame.bytes, decoded: undefined };
  if (frame.kind === 'text') return { payload: frame.text, decoded: undefined };
  const payload = toJsonText(frame.value);
  return { payload, decoded: JSON.parse(payload) };
}

/** The sessions a run's requests name. */
export interface RunSessions {
  batching: string;
  current: string;
  deleted: string;
}

/** Everything wrong with the answer to one generated request (none, when it passes every check). */
export async function sendCase(url: string, sessions: RunSessions, c: HttpCase): Promise<string[]> {
  const headers: Record<string, string> = { ...c.headers };
  const { payload, decoded } = bodyOf(c.body);
  const claim = claimOf(decoded);
  const session = c.session === 'usual' ? (claim !== undefined ? 'none' : c.batching ? 'batching' : 'current') : c.session;
  if (session !== 'none') headers['mcp-session-id'] = typeof session === 'object' ? session.literal : sessions[session];
  const version =
    c.version !== 'usual'
      ? c.version.literal
      : typeof claim === 'string' && HEADER_VALUE.test(claim)
        ? claim
        : session === 'batching'
          ? '2025-03-26'
          : session === 'current'
            ? '2025-11-25'
            : undefined;
  if (version !== undefined) headers['mcp-protocol-version'] = version;
  for (const [name, choice] of Object.entries(c.mirrors)) headers[name] = mirrorValue(choice, name, decoded);
  const target = new URL(c.path, url).toString();
  let res: OpenResponse;
  try {
    res = await within(send(target, c.method, headers, payload), AWAIT_MS, `${c.method} ${c.path}`);
  } catch (err) {
    // The server may close the connection once it has refused a body over the limit (413, connection: close).
    if (payload !== undefined && Buffer.byteLength(payload) > MAX_MESSAGE_BYTES) return [];
    return [`${c.method} ${c.path} failed: ${brief(err)}`];
  }
  // node:http itself answers 431 to headers over its limit (16 KiB), before the transport sees the request.
  const headerBytes = Object.entries(headers).reduce((n, [name, value]) => n + name.length + Buffer.byteLength(value, 'latin1') + 4, 0);
  if (res.status === 431 && headerBytes > NODE_MAX_HEADER_BYTES) {
    res.abort();
    return [];
  }
  return checkAnswer(res, c, decoded);
}

/** The checks one answer must pass. */
async function checkAnswer(res: OpenResponse, c: HttpCase, decoded: unknown): Promise<string[]> {
  const problems: string[] = [];
  const what = `${c.method} ${c.path} answered ${res.status}`;
  if (!DOCUMENTED_STATUSES.has(res.status)) problems.push(`${what}, which is not a documented status`);
  if (res.isSse) {
    if (c.method === 'GET') {
      res.abort(); // a standalone or resumed stream stays open
      return problems;
    }
    const ended = await within(res.ended, STREAM_MS, 'the end of the stream').then(
      () => true,
      () => false,
    );
    if (!ended) {
      res.abort();
      const method = (decoded as { method?: unknown } | undefined)?.method;
      if (method !== 'subscriptions/listen') problems.push(`${what}: its SSE stream did not end within ${STREAM_MS} ms`);
    }
    for (const event of res.events) {
      if (event.data === '') continue; // a priming event
      const message = event.message;
      const isNotification = typeof message?.method === 'string' && !('id' in message);
      const problem = message === undefined ? 'not JSON' : isNotification ? undefined : answerProblem(message);
      if (problem) problems.push(`${what}: an SSE event is ${problem}: ${event.data.slice(0, 300)}`);
    }
    return problems;
  }
  await within(res.ended, AWAIT_MS, `the body of ${what}`);
  const type = String(res.headers['content-type'] ?? '');
  if (res.status === 202 || res.status === 204) {
    if (res.body !== '') problems.push(`${what} with a body: ${res.body.slice(0, 300)}`);
    return problems;
  }
  if (!type.startsWith('application/json')) {
    // The one answer with neither JSON nor a stream: the 200 of a DELETE that ended its session.
    const endedSession = c.method === 'DELETE' && res.status === 200 && res.body === '';
    if (!endedSession) problems.push(`${what} with content-type ${JSON.stringify(type)}: ${res.body.slice(0, 300)}`);
    return problems;
  }
  let body: unknown;
  try {
    body = JSON.parse(res.body);
  } catch {
    return [...problems, `${what} with a JSON content type and a body that is no JSON: ${res.body.slice(0, 300)}`];
  }
  if (res.status >= 400) {
    const b = body as { jsonrpc?: unknown; error?: unknown; id?: unknown };
    const problem =
      b?.jsonrpc !== '2.0'
        ? 'jsonrpc is not "2.0"'
        : !('error' in b)
          ? 'it has no error'
          : (errorProblem(b.error) ??
            (b.id === null || typeof b.id === 'string' || Number.isInteger(b.id) ? undefined : 'its id is not a string, an integer or null'));
    if (problem) problems.push(`${what}, and its error body is wrong: ${problem}: ${res.body.slice(0, 300)}`);
  } else {
    for (const answer of Array.isArray(body) ? body : [body]) {
      const problem = answerProblem(answer);
      if (problem) problems.push(`${what}, and an answer in it is wrong: ${problem}: ${brief(answer)}`);
    }
  }
  if (res.status === 405 && !res.headers.allow) problems.push(`${what} without an Allow header`);
  return problems;
}

/** A server on 127.0.0.1:0 with the catalog, CORS on for one origin, a health route, and every error it reports. */
export interface HttpFuzzServer {
  server: McpServer;
  url: string;
  errors: Error[];
  /** Fresh sessions for a run: one at 2025-03-26 (batches), one at 2025-11-25, and the id of one deleted. */
  sessions(): Promise<RunSessions>;
  /** Whether the server still serves: its health route, and a new session that answers ping. */
  stillServes(): Promise<string[]>;
  close(): Promise<void>;
}

export async function startHttpFuzzServer(): Promise<HttpFuzzServer> {
  const { server, errors } = catalogServer();
  const transport = new StreamableHttpTransport(server, { keepAliveIntervalMs: 0, maxMessageBytes: MAX_MESSAGE_BYTES, cors: { origins: [CORS_ORIGIN] } });
  transport.on('httpRequest', (req, res, control) => {
    if (req.url !== '/health') return;
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    control.handled = true;
  });
  const { url } = await within(transport.listen({ host: '127.0.0.1', port: 0 }), AWAIT_MS, 'listen');
  const initialized = async (protocolVersion: string) => {
    const client = new HttpTestClient(url);
    await within(client.initialize({ protocolVersion }), AWAIT_MS, `initialize at ${protocolVersion}`);
    return client;
  };
  return {
    server,
    url,
    errors,
    async sessions() {
      const batching = await initialized('2025-03-26');
      const current = await initialized('2025-11-25');
      const deleted = await initialized('2025-11-25');
      const gone = await within(deleted.delete(), AWAIT_MS, 'DELETE');
      await within(gone.ended, AWAIT_MS, 'the answer to DELETE');
      return { batching: batching.sessionId!, current: current.sessionId!, deleted: deleted.sessionId! };
    },
    async stillServes() {
      const problems: string[] = [];
      const health = await within(send(new URL('/health', url).toString(), 'GET'), AWAIT_MS, 'GET /health');
      await within(health.ended, AWAIT_MS, 'the health answer');
      if (health.status !== 200 || health.body !== 'ok') problems.push(`GET /health answered ${health.status} ${brief(health.body)}`);
      const client = await initialized('2025-11-25');
      const pong = await within(client.call('ping'), AWAIT_MS, 'ping');
      if (JSON.stringify(pong.result) !== '{}') problems.push(`ping on a new session answered ${brief(pong)}`);
      const gone = await within(client.delete(), AWAIT_MS, 'DELETE');
      await within(gone.ended, AWAIT_MS, 'the answer to DELETE');
      return problems;
    },
    async close() {
      await within(server.close(), AWAIT_MS, 'closing the server');
    },
  };
}
