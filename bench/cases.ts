/**
 * The benchmarked operations. Each client keeps its own session or socket; `op` is one operation,
 * checked against the expected answer so that a fast wrong reply never counts.
 */
import { type HttpEndpoint, type Json, openSession, post, send } from './http-client.js';
import { WsClient } from './ws-client.js';

export type CaseId = 'http-echo' | 'http-echo-zod' | 'stateless-echo' | 'http-elicit' | 'mrtr-round' | 'ws-echo' | 'ws-echo-zod' | 'ws-elicit';

export interface Client {
  op(): Promise<void>;
  close(): Promise<void>;
}

export interface Endpoint extends HttpEndpoint {
  /** Stateless case only: a sessionless 2025-11-25 call, for servers without 2026-07-28. */
  legacy?: boolean;
}

const ANSWER = { action: 'accept', content: { name: 'Ada', age: 36, plan: 'pro' } };
const echoCall = (id: number, tool = 'echo') => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool, arguments: { text: 'hello' } } });

function expect(ok: boolean, what: string, got: unknown): void {
  if (!ok) throw new Error(`unexpected ${what}: ${JSON.stringify(got)}`);
}

const resultOf = (messages: Json[], id: number) => messages.find((m) => m.id === id && m.method === undefined)?.result;

/** A 2026-07-28 request: the _meta envelope and the headers that must match it. */
function modernCall(endpoint: HttpEndpoint, id: number, name: string, params: Json) {
  const meta = { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': { elicitation: {} } };
  const body = { jsonrpc: '2.0', id, method: 'tools/call', params: { ...params, name, _meta: meta } };
  return post(endpoint, body, { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name });
}

/** A client on its own 2025-11-25 HTTP session, deleted on close. */
async function httpSessionClient(endpoint: HttpEndpoint, op: (headers: Record<string, string>, id: number) => Promise<void>): Promise<Client> {
  const headers = await openSession(endpoint);
  let id = 1;
  return {
    op: () => op(headers, id++),
    close: async () => void (await send(endpoint, 'DELETE', undefined, headers)),
  };
}

/** A client with nothing to open or close. */
function statelessClient(op: (id: number) => Promise<void>): Client {
  let id = 1;
  return { op: () => op(id++), close: async () => {} };
}

async function wsClient(endpoint: HttpEndpoint, tool: string, args: Json, expected: string): Promise<Client> {
  const client = await WsClient.open(`ws://127.0.0.1:${endpoint.port}${endpoint.path}`, (request) => {
    expect(request.method === 'elicitation/create', 'server request', request);
    return ANSWER;
  });
  return {
    op: async () => {
      const reply = await client.request('tools/call', { name: tool, arguments: args });
      expect(reply.result?.content?.[0]?.text === expected, 'tools/call reply', reply);
    },
    close: () => client.close(),
  };
}

/** Echo on its own 2025-11-25 HTTP session, through `tool`. */
const httpEcho = (endpoint: Endpoint, tool: string) =>
  httpSessionClient(endpoint, async (headers, id) => {
    const reply = await post(endpoint, echoCall(id, tool), headers);
    expect(resultOf(reply.messages, id)?.content?.[0]?.text === 'hello', 'tools/call reply', reply.messages);
  });

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
    title: 'stateless echo',
    connect: async (endpoint) =>
      statelessClient(async (id) => {
        const reply = endpoint.legacy
          ? await post(endpoint, echoCall(id), { 'mcp-protocol-version': '2025-11-25' })
          : await modernCall(endpoint, id, 'echo', { arguments: { text: 'hello' } });
        expect(resultOf(reply.messages, id)?.content?.[0]?.text === 'hello', 'stateless tools/call reply', reply.messages);
      }),
  },
  'http-elicit': {
    title: 'HTTP elicitation',
    connect: (endpoint) =>
      httpSessionClient(endpoint, async (headers, id) => {
        const answered: Promise<{ status: number }>[] = [];
        const call = { jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'ask', arguments: {} } };
        const reply = await post(endpoint, call, headers, (m) => {
          if (m.method === 'elicitation/create') answered.push(post(endpoint, { jsonrpc: '2.0', id: m.id, result: ANSWER }, headers));
        });
        const statuses = (await Promise.all(answered)).map((r) => r.status);
        expect(resultOf(reply.messages, id)?.content?.[0]?.text === 'accept:Ada', 'elicitation round trip', reply.messages);
        expect(statuses.length === 1 && statuses[0] < 300, 'elicitation answer statuses', statuses);
      }),
  },
  'mrtr-round': {
    title: 'MRTR round (2 POSTs)',
    connect: async (endpoint) =>
      statelessClient(async (id) => {
        const first = resultOf((await modernCall(endpoint, 2 * id, 'ask_stateless', { arguments: {} })).messages, 2 * id);
        expect(first?.resultType === 'input_required', 'first MRTR result', first);
        const [key] = Object.keys(first.inputRequests);
        const retry = { arguments: {}, inputResponses: { [key]: ANSWER }, requestState: first.requestState };
        const done = resultOf((await modernCall(endpoint, 2 * id + 1, 'ask_stateless', retry)).messages, 2 * id + 1);
        expect(done?.content?.[0]?.text === 'accept:Ada', 'MRTR retry result', done);
      }),
  },
  'ws-echo': { title: 'WebSocket echo', connect: (endpoint) => wsClient(endpoint, 'echo', { text: 'hello' }, 'hello') },
  'ws-echo-zod': { title: 'WebSocket echo, zod', variantOf: 'ws-echo', connect: (endpoint) => wsClient(endpoint, 'echo_zod', { text: 'hello' }, 'hello') },
  'ws-elicit': { title: 'WebSocket elicitation', connect: (endpoint) => wsClient(endpoint, 'ask', {}, 'accept:Ada') },
};
