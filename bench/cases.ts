/**
 * The benchmarked operations, on the raw-socket clients. Each client keeps its own connections (and its
 * session, where the case has one); `op` is one operation, checked against the expected answer so that a
 * fast wrong reply never counts. Checks look for the expected text in the reply rather than parsing it
 * whole, except where a value must be read out of it (a session id, an elicitation id, a requestState).
 */
import { HttpConnection, type RawReply } from './raw-http.js';
import { WsConnection } from './raw-ws.js';

export type CaseId =
  | 'http-echo'
  | 'http-echo-zod'
  | 'stateless-echo'
  | 'http-elicit'
  | 'mrtr-round'
  | 'ws-echo'
  | 'ws-echo-zod'
  | 'ws-elicit'
  | 'session-churn';

export interface Client {
  op(): Promise<void>;
  close(): Promise<void>;
}

export interface Endpoint {
  port: number;
  path: string;
  /** Stateless case only: a sessionless 2025-11-25 call, for servers without 2026-07-28. */
  legacy?: boolean;
  /** Elicitation case only: the server sends elicitation/create on the session's GET stream, not on the call's. */
  getStream?: boolean;
}

const ANSWER = '{"action":"accept","content":{"name":"Ada","age":36,"plan":"pro"}}';
const INITIALIZE = `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"bench","version":"1"}}}`;
const INITIALIZED = '{"jsonrpc":"2.0","method":"notifications/initialized"}';
const call = (id: number, tool: string, args: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":${args}}}`;
const ECHO_ARGS = '{"text":"hello"}';
const SESSION_VERSION = 'mcp-protocol-version: 2025-11-25\r\n';
const MODERN_META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"elicitation":{}}}';
const modernHeaders = (tool: string) => `mcp-protocol-version: 2026-07-28\r\nmcp-method: tools/call\r\nmcp-name: ${tool}\r\n`;
/** A 2026-07-28 tools/call with its `_meta` envelope; `extra` is more params (the retry's answers and state). */
const modernCall = (id: number, tool: string, args: string, extra = '') =>
  `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"${tool}","arguments":${args},${extra}${MODERN_META}}}`;

function expect(ok: boolean, what: string, got: unknown): void {
  if (!ok) throw new Error(`unexpected ${what}: ${typeof got === 'string' ? got.slice(0, 400) : JSON.stringify(got)}`);
}

/** A tool result with `text`, for request `id`, that is not a tool error. */
function expectText(reply: RawReply, id: number, text: string, what: string): void {
  const { body } = reply;
  expect(reply.status === 200 && body.includes(`"text":"${text}"`) && body.includes(`"id":${id}`) && !body.includes('"isError":true'), what, body);
}

const sessionHeaders = (sessionId: string) => `mcp-session-id: ${sessionId}\r\n${SESSION_VERSION}`;

/** A 2025-11-25 session on `conn`: initialize, then notifications/initialized; resolves the headers later requests carry. */
async function openSession(conn: HttpConnection, path: string): Promise<string> {
  const init = await conn.request('POST', path, '', INITIALIZE);
  expect(init.status === 200 && init.sessionId !== undefined && init.body.includes('"protocolVersion"'), 'initialize reply', init);
  const headers = sessionHeaders(init.sessionId!);
  const initialized = await conn.request('POST', path, headers, INITIALIZED);
  expect(initialized.status >= 200 && initialized.status < 300, 'notifications/initialized status', initialized);
  return headers;
}

/** A client on its own 2025-11-25 HTTP session, on `connections` sockets (an elicitation needs two), deleted on close. */
async function httpSessionClient(
  { port, path }: Endpoint,
  connections: number,
  op: (conns: HttpConnection[], headers: string, id: number) => Promise<void>,
): Promise<Client & { conns: HttpConnection[]; headers: string }> {
  const conns = await Promise.all(Array.from({ length: connections }, () => HttpConnection.open(port)));
  const headers = await openSession(conns[0], path);
  let id = 1;
  return {
    conns,
    headers,
    op: () => op(conns, headers, id++),
    async close() {
      await conns[0].request('DELETE', path, headers).catch(() => undefined);
      for (const conn of conns) conn.close();
    },
  };
}

/** A client with no session: one connection, ids counting up. */
async function statelessClient({ port }: Endpoint, op: (conn: HttpConnection, id: number) => Promise<void>): Promise<Client> {
  const conn = await HttpConnection.open(port);
  let id = 1;
  return { op: () => op(conn, id++), close: async () => conn.close() };
}

/** How every server measured here begins a request it sends: then its id is read there, without parsing the rest. */
const REQUEST_HEAD = '{"jsonrpc":"2.0","id":';

/** Answer an `elicitation/create` event or message with ANSWER; returns the answer to send, or undefined for anything else. */
function elicitationAnswer(data: string): string | undefined {
  if (!data.includes('"elicitation/create"')) return undefined;
  const id = data.startsWith(REQUEST_HEAD) ? leadingId(data) : undefined;
  return `{"jsonrpc":"2.0","id":${id ?? JSON.stringify(JSON.parse(data).id)},"result":${ANSWER}}`;
}

/** The id right after REQUEST_HEAD, as its JSON text, when it is an integer or a string without escapes. */
function leadingId(data: string): string | undefined {
  const from = REQUEST_HEAD.length;
  const end = data.charCodeAt(from) === 34 ? data.indexOf('"', from + 1) + 1 : data.indexOf(',', from);
  const id = data.slice(from, end);
  return end > from && data.charCodeAt(end) === 44 && /^(?:-?\d+|"[^"\\]*")$/.test(id) ? id : undefined;
}

/** A 2025-11-25 session over a WebSocket, one call in flight; server requests are answered with ANSWER. */
async function wsClient({ port, path }: Endpoint, tool: string, args: string, expected: string): Promise<Client> {
  let waiting: { id: number; expected: string; resolve: () => void; reject: (err: Error) => void } | undefined;
  const settle = (text: string) => {
    const w = waiting;
    waiting = undefined;
    if (!w) return;
    if (text.includes(`"id":${w.id}`) && text.includes(w.expected) && !text.includes('"isError":true')) w.resolve();
    else w.reject(new Error(`unexpected websocket reply: ${text.slice(0, 400)}`));
  };
  const ws: WsConnection = await WsConnection.open(
    port,
    path,
    (text) => {
      if (!text.includes('"method":')) return settle(text);
      const answer = elicitationAnswer(text);
      if (answer) ws.send(answer);
    },
    (err) => {
      const w = waiting;
      waiting = undefined;
      w?.reject(err);
    },
  );
  const request = (id: number, body: string, expecting: string) =>
    new Promise<void>((resolve, reject) => {
      waiting = { id, expected: expecting, resolve, reject };
      ws.send(body);
    });
  await request(0, INITIALIZE, '"protocolVersion"');
  ws.send(INITIALIZED);
  let id = 1;
  return { op: () => request(id, call(id++, tool, args), expected), close: () => ws.close() };
}

const httpEcho = (endpoint: Endpoint, tool: string) =>
  httpSessionClient(endpoint, 1, async ([conn], headers, id) =>
    expectText(await conn.request('POST', endpoint.path, headers, call(id, tool, ECHO_ARGS)), id, 'hello', 'tools/call reply'),
  );

export interface Case {
  title: string;
  /**
   * The case this one varies in a single respect (the echo tool typed by zod instead of JSON Schema): its
   * servers' ratio is to themselves on that case in the same repetition, measured beside it, each first in turn.
   */
  variantOf?: CaseId;
  connect(endpoint: Endpoint): Promise<Client>;
}

export const CASES: Record<CaseId, Case> = {
  'http-echo': { title: 'HTTP session echo', connect: (endpoint) => httpEcho(endpoint, 'echo') },
  'http-echo-zod': { title: 'HTTP session echo, zod', variantOf: 'http-echo', connect: (endpoint) => httpEcho(endpoint, 'echo_zod') },
  'stateless-echo': {
    title: '2026-07-28 stateless echo',
    connect: (endpoint) =>
      statelessClient(endpoint, async (conn, id) => {
        const reply = endpoint.legacy
          ? await conn.request('POST', endpoint.path, SESSION_VERSION, call(id, 'echo', ECHO_ARGS))
          : await conn.request('POST', endpoint.path, modernHeaders('echo'), modernCall(id, 'echo', ECHO_ARGS));
        expectText(reply, id, 'hello', 'stateless tools/call reply');
      }),
  },
  'http-elicit': {
    title: 'HTTP elicitation',
    connect: async (endpoint) => {
      let answered: Promise<RawReply> | undefined;
      const onEvent = (answers: HttpConnection, headers: string) => (data: string) => {
        const answer = elicitationAnswer(data);
        if (answer) answered = answers.request('POST', endpoint.path, headers, answer);
      };
      const client = await httpSessionClient(endpoint, endpoint.getStream ? 3 : 2, async ([conn, answers], headers, id) => {
        answered = undefined;
        const reply = await conn.request('POST', endpoint.path, headers, call(id, 'ask', '{}'), onEvent(answers, headers));
        expect(answered !== undefined, 'elicitation round trip (no elicitation/create)', reply);
        const status = (await answered!).status;
        expectText(reply, id, 'accept:Ada', 'elicitation round trip');
        expect(status >= 200 && status < 300, 'elicitation answer status', status);
      });
      // The GET stream stays open for the session's life: its request never completes.
      if (endpoint.getStream) {
        const { conns, headers } = client;
        await new Promise<void>((resolve, reject) => {
          conns[2].request('GET', endpoint.path, headers, '', onEvent(conns[1], headers), resolve).catch(reject);
        });
      }
      return client;
    },
  },
  'mrtr-round': {
    title: 'MRTR round (2 POSTs)',
    connect: (endpoint) =>
      statelessClient(endpoint, async (conn, id) => {
        const headers = modernHeaders('ask_stateless');
        const first = await conn.request('POST', endpoint.path, headers, modernCall(2 * id, 'ask_stateless', '{}'));
        const result = first.status === 200 ? JSON.parse(first.body).result : undefined;
        expect(result?.resultType === 'input_required', 'first MRTR result', first);
        const [key] = Object.keys(result.inputRequests);
        const state = result.requestState === undefined ? '' : `"requestState":${JSON.stringify(result.requestState)},`;
        const retry = `"inputResponses":{${JSON.stringify(key)}:${ANSWER}},${state}`;
        expectText(
          await conn.request('POST', endpoint.path, headers, modernCall(2 * id + 1, 'ask_stateless', '{}', retry)),
          2 * id + 1,
          'accept:Ada',
          'MRTR retry',
        );
      }),
  },
  'ws-echo': { title: 'WebSocket echo', connect: (endpoint) => wsClient(endpoint, 'echo', ECHO_ARGS, '"text":"hello"') },
  'ws-echo-zod': { title: 'WebSocket echo, zod', variantOf: 'ws-echo', connect: (endpoint) => wsClient(endpoint, 'echo_zod', ECHO_ARGS, '"text":"hello"') },
  'ws-elicit': { title: 'WebSocket elicitation', connect: (endpoint) => wsClient(endpoint, 'ask', '{}', '"text":"accept:Ada"') },
  'session-churn': {
    title: 'session churn',
    // Each operation a whole 2025-11-25 session: initialize, initialized, one tools/call, DELETE.
    connect: (endpoint) =>
      statelessClient(endpoint, async (conn, id) => {
        const headers = await openSession(conn, endpoint.path);
        expectText(await conn.request('POST', endpoint.path, headers, call(id, 'echo', ECHO_ARGS)), id, 'hello', 'tools/call reply');
        const deleted = await conn.request('DELETE', endpoint.path, headers);
        expect(deleted.status >= 200 && deleted.status < 300, 'DELETE status', deleted);
      }),
  },
};
