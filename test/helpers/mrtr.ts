/**
 * A small 2026-07-28 peer for MRTR tests over real Streamable HTTP: the per-request `_meta` envelope,
 * the SEP-2243 headers, numbered requests with a fresh id per round, and servers closed after each test.
 */
import { afterEach, expect } from 'vitest';
import { McpServer, StreamableHttpTransport, type McpServerOptions, type StreamableHttpTransportOptions } from '../../src/index.js';
import { ACCEPT_BOTH, send } from './http-client.js';
import type { Json } from './ws-client.js';

export const MODERN = '2026-07-28';
export const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';
export const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';

/** Client capability sets, as a 2026-07-28 request declares them in `_meta`. */
export const MODERN_CAPS = {
  none: {},
  /** `elicitation: {}` means form only. */
  elicitationEmpty: { elicitation: {} },
  form: { elicitation: { form: {} } },
  url: { elicitation: { url: {} } },
  formAndUrl: { elicitation: { form: {}, url: {} } },
  sampling: { sampling: {} },
  roots: { roots: {} },
  all: { elicitation: { form: {}, url: {} }, sampling: {}, roots: {} },
} as const;

/** `params` with the 2026-07-28 `_meta` envelope added (keeping any `_meta` keys already there). */
export function withEnvelope(params: Json, capabilities: Json): Json {
  return { ...params, _meta: { ...(params._meta as Json | undefined), [PROTOCOL_VERSION_KEY]: MODERN, [CLIENT_CAPABILITIES_KEY]: capabilities } };
}

/** The headers a 2026-07-28 request carries over HTTP: version, method and (for named targets) Mcp-Name. */
export function modernHeaders(method: string, params: Json): Record<string, string> {
  const headers: Record<string, string> = { accept: ACCEPT_BOTH, 'content-type': 'application/json', 'mcp-protocol-version': MODERN, 'mcp-method': method };
  if ((method === 'tools/call' || method === 'prompts/get') && typeof params.name === 'string') headers['mcp-name'] = params.name;
  if (method === 'resources/read' && typeof params.uri === 'string') headers['mcp-name'] = params.uri;
  return headers;
}

export interface Reply {
  /** The HTTP status. */
  status: number;
  /** The JSON-RPC response (from a JSON body, or the last message of an SSE stream). */
  body: Json;
}

/** POST one JSON-RPC message and wait for the whole answer. */
export async function postMessage(url: string, message: Json, headers: Record<string, string>): Promise<Reply> {
  const res = await send(url, 'POST', headers, message);
  if (res.isSse) {
    const body = await res.nextMessage({ id: message.id });
    await res.ended;
    return { status: res.status, body };
  }
  return { status: res.status, body: await res.json() };
}

/**
 * A 2026-07-28 client: every request carries the envelope with `capabilities`, gets the next id
 * (1, 2, 3, ...) and the matching headers. `extraHeaders` go on every request (e.g. credentials).
 */
export class ModernClient {
  nextId = 1;

  constructor(
    readonly url: string,
    public capabilities: Json = MODERN_CAPS.all,
    readonly extraHeaders: Record<string, string> = {},
  ) {}

  request(method: string, params: Json = {}): Promise<Reply> {
    const message = { jsonrpc: '2.0', id: this.nextId++, method, params: withEnvelope(params, this.capabilities) };
    return postMessage(this.url, message, { ...modernHeaders(method, params), ...this.extraHeaders });
  }

  /** `tools/call` with `extra` (inputResponses, requestState) beside name and arguments. */
  callTool(name: string, args: Json = {}, extra: Json = {}): Promise<Reply> {
    return this.request('tools/call', { name, arguments: args, ...extra });
  }

  getPrompt(name: string, args: Json = {}, extra: Json = {}): Promise<Reply> {
    return this.request('prompts/get', { name, arguments: args, ...extra });
  }

  readResource(uri: string, extra: Json = {}): Promise<Reply> {
    return this.request('resources/read', { uri, ...extra });
  }
}

export interface RunningHttp {
  server: McpServer;
  transport: StreamableHttpTransport;
  url: string;
  close(): Promise<void>;
}

/** A fixed requestState key for tests (32 bytes and more). */
export const TEST_STATE_KEY = 'switchboard-mrtr-tests-request-state-key-0001';

/**
 * An McpServer on a real Streamable HTTP port (127.0.0.1, port 0). Unless `server.requestState` is
 * given, it signs with TEST_STATE_KEY (so no ephemeral-key warning is printed).
 */
export async function startHttpServer(
  setup: (server: McpServer) => void = () => {},
  options: { server?: McpServerOptions; transport?: StreamableHttpTransportOptions } = {},
): Promise<RunningHttp> {
  const server = new McpServer({ name: 'mrtr-test-server', version: '1.0.0' }, { requestState: { keys: [TEST_STATE_KEY] }, ...options.server });
  server.on('error', () => {});
  setup(server);
  const transport = new StreamableHttpTransport(server, options.transport);
  const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
  return { server, transport, url, close: () => server.close() };
}

/** Call once at the top level of a test file: servers started through it are closed after each test. */
export function useHttpServers(): { start: typeof startHttpServer; defer(cleanup: () => unknown): void } {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()!();
  });
  return {
    async start(setup, options) {
      const running = await startHttpServer(setup, options);
      cleanups.push(() => running.close());
      return running;
    },
    defer(cleanup) {
      cleanups.push(cleanup);
    },
  };
}

/** A requestState as the server mints it: `v1.<key id>.<payload>.<mac>` when signed only. */
export const SIGNED_STATE: unknown = expect.stringMatching(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
/** A sealed requestState: `s1.<key id>.<iv + ciphertext + tag>`. */
export const SEALED_STATE: unknown = expect.stringMatching(/^s1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);

/** The JSON payload of a signed (not sealed) requestState, as anyone holding the token can read it. */
export function readSignedState(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[2], 'base64url').toString('utf8')) as Json;
}

/** The text of the first content block of a result. */
export function firstText(result: Json): string {
  return result.content?.[0]?.text;
}
