/**
 * Which principals may use a Streamable HTTP session (and a 2026-07-28 requestState): the auth hook's
 * value is compared by its string or number `id` when it has one, by content when it is plain data, and
 * not at all otherwise. Class instances without an id (and Maps) all serialise to `{}`, so comparing their
 * JSON let any user take over any session: now they fail closed (404, plus an 'error' event telling the
 * developer to give the principal an id), unless `samePrincipal` is supplied.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { McpServer, StreamableHttpTransportOptions } from '../../../src/index.js';
import { UNKEYED_PRINCIPAL } from '../../../src/protocol/principal.js';
import { NAME_Q } from '../../helpers/client-requests.js';
import { HttpTestClient, type OpenResponse } from '../../helpers/http-client.js';
import { MODERN_CAPS, ModernClient, SIGNED_STATE } from '../../helpers/modern.js';
import { startHttp, type RunningHttp, TEST_STATE_KEY } from '../../helpers/servers.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const SESSION_NOT_FOUND = 'Session not found: it ended or never existed; send initialize without Mcp-Session-Id to start a new one';

/** A principal as many auth libraries return it: a class instance whose data is private (it serialises to {}). */
class User {
  readonly #name: string;
  constructor(name: string) {
    this.#name = name;
  }
  get name(): string {
    return this.#name;
  }
}

/** A class instance with a public id. */
class Account {
  constructor(
    readonly id: string,
    readonly token: string,
  ) {}
}

/** Who the request says it is: the `x-user` header. */
function user(req: IncomingMessage): string {
  return String(req.headers['x-user'] ?? 'anonymous');
}

async function start(
  auth: (req: IncomingMessage) => unknown,
  options: StreamableHttpTransportOptions = {},
  setup: (server: McpServer) => void = () => {},
): Promise<RunningHttp> {
  return startHttp(
    cleanups,
    (server) => {
      server.registerTool('whoami', {}, (_args, ctx) => JSON.stringify(ctx.session.principal));
      setup(server);
    },
    { server: { requestState: { keys: [TEST_STATE_KEY] } }, transport: { auth, ...options } },
  );
}

/** Initialize (and send notifications/initialized) as `name`. */
async function initializeAs(running: RunningHttp, name: string): Promise<HttpTestClient> {
  const client = new HttpTestClient(running.url);
  await client.initialize({}, { 'x-user': name });
  return client;
}

async function pingAs(client: HttpTestClient, name: string, id: string | number = 'ping'): Promise<{ status: number; body: unknown }> {
  const res = await client.request('ping', undefined, id, { 'x-user': name });
  return { status: res.status, body: await res.json() };
}

const PONG = (id: string | number = 'ping') => ({ status: 200, body: { jsonrpc: '2.0', id, result: {} } });
const NOT_FOUND = { status: 404, body: { jsonrpc: '2.0', error: { code: -32031, message: SESSION_NOT_FOUND }, id: null } };

async function statusOf(res: Promise<OpenResponse>): Promise<number> {
  const r = await res;
  await r.ended;
  return r.status;
}

describe('principals that are class instances without an id', () => {
  it('fail closed: requests with the session id get 404 whoever sends them, and each refusal reports an error that says to give the principal an id', async () => {
    const running = await start((req) => new User(user(req)));
    const client = await initializeAs(running, 'alice');
    expect(client.sessionId).toEqual(expect.any(String));
    expect(await pingAs(client, 'alice')).toEqual(NOT_FOUND);
    expect(await pingAs(client, 'mallory')).toEqual(NOT_FOUND);
    expect(await statusOf(client.get({ 'x-user': 'mallory' }))).toBe(404);
    expect(await statusOf(client.delete({ 'x-user': 'mallory' }))).toBe(404);
    // notifications/initialized, two pings, the GET and the DELETE: five refusals, five errors.
    expect(running.errors.map(([error, session]) => [error.message, session])).toEqual(Array(5).fill([UNKEYED_PRINCIPAL, undefined]));
    expect(UNKEYED_PRINCIPAL).toMatch(/give it an id/);
    // The DELETE did not end the session: it was refused, not obeyed.
    expect(running.server.sessions.has(client.sessionId!)).toBe(true);
  });

  it('also fail closed for Map principals', async () => {
    const running = await start((req) => new Map([['user', user(req)]]));
    const client = await initializeAs(running, 'alice');
    expect(await pingAs(client, 'alice')).toEqual(NOT_FOUND);
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
    expect(running.errors.every(([error]) => /give it an id/.test(error.message))).toBe(true);
  });

  it('work when samePrincipal is supplied: the same user gets in, another gets 404, and no error is reported', async () => {
    const running = await start((req) => new User(user(req)), { samePrincipal: (a, b) => (a as User).name === (b as User).name });
    const client = await initializeAs(running, 'alice');
    expect(await pingAs(client, 'alice')).toEqual(PONG());
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
    const res = await client.request('tools/call', { name: 'whoami' }, 'who', { 'x-user': 'alice' });
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 'who', result: { content: [{ type: 'text', text: '{}' }] } });
    expect(running.errors).toEqual([]);
  });
});

describe('principals with an id', () => {
  it('compare by a string id: the same id with other fields gets in, another id gets 404', async () => {
    const running = await start((req) => ({ id: user(req), token: String(req.headers['x-token'] ?? '') }));
    const client = await initializeAs(running, 'alice');
    const res = await client.request('ping', undefined, 'p1', { 'x-user': 'alice', 'x-token': 'rotated' });
    expect({ status: res.status, body: await res.json() }).toEqual(PONG('p1'));
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
    expect(running.errors).toEqual([]);
  });

  it('compare class instances by their id', async () => {
    const running = await start((req) => new Account(user(req), Math.random().toString(36)));
    const client = await initializeAs(running, 'alice');
    expect(await pingAs(client, 'alice')).toEqual(PONG());
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
    expect(running.errors).toEqual([]);
  });

  it('tell a number id from the same digits as a string id', async () => {
    const running = await start((req) => ({ id: req.headers['x-kind'] === 'number' ? 7 : '7' }));
    const client = new HttpTestClient(running.url);
    await client.initialize({}, { 'x-kind': 'number' });
    const same = await client.request('ping', undefined, 1, { 'x-kind': 'number' });
    expect({ status: same.status, body: await same.json() }).toEqual(PONG(1));
    const other = await client.request('ping', undefined, 2, { 'x-kind': 'string' });
    expect({ status: other.status, body: await other.json() }).toEqual(NOT_FOUND);
  });
});

describe('plain-data principals without an id', () => {
  it('compare by content, whatever the order of their keys', async () => {
    const running = await start((req) =>
      req.headers['x-order'] === 'reversed' ? { roles: [user(req), 'reader'], name: user(req) } : { name: user(req), roles: [user(req), 'reader'] },
    );
    const client = await initializeAs(running, 'alice');
    const reordered = await client.request('ping', undefined, 'r', { 'x-user': 'alice', 'x-order': 'reversed' });
    expect({ status: reordered.status, body: await reordered.json() }).toEqual(PONG('r'));
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
    expect(running.errors).toEqual([]);
  });

  it('compare strings as themselves', async () => {
    const running = await start((req) => user(req));
    const client = await initializeAs(running, 'alice');
    expect(await pingAs(client, 'alice')).toEqual(PONG());
    expect(await pingAs(client, 'bob')).toEqual(NOT_FOUND);
  });
});

describe('requestState and principals (2026-07-28)', () => {
  function asker(server: McpServer): void {
    server.registerTool('ask', {}, async (_args, ctx) => {
      const answer = await ctx.elicit(NAME_Q);
      return `Hello, ${answer.content?.name}`;
    });
  }

  it('refuses to mint a requestState for a class-instance principal without an id (-32603)', async () => {
    const running = await start((req) => new User(user(req)), {}, asker);
    const client = new ModernClient(running.url, MODERN_CAPS.form, { 'x-user': 'alice' });
    expect(await client.callTool('ask')).toEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32603, message: `Cannot bind requestState: ${UNKEYED_PRINCIPAL}` } },
    });
  });

  it('binds a requestState to a principal with an id: its retry works, another id is refused', async () => {
    const running = await start((req) => new Account(user(req), 'token'), {}, asker);
    const alice = new ModernClient(running.url, MODERN_CAPS.form, { 'x-user': 'alice' });
    const first = await alice.callTool('ask');
    expect(first.body.result).toEqual({
      resultType: 'input_required',
      inputRequests: { 'elicit-1': { method: 'elicitation/create', params: NAME_Q } },
      requestState: SIGNED_STATE,
    });
    const requestState = first.body.result.requestState as string;
    const retry = await alice.callTool('ask', {}, { requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Ada' } } } });
    expect(retry.body.result).toEqual({ resultType: 'complete', content: [{ type: 'text', text: 'Hello, Ada' }] });
    const bob = new ModernClient(running.url, MODERN_CAPS.form, { 'x-user': 'bob' });
    const stolen = await bob.callTool('ask', {}, { requestState, inputResponses: { 'elicit-1': { action: 'accept', content: { name: 'Eve' } } } });
    expect(stolen.body.error).toMatchObject({ code: -32602, message: 'Invalid or expired requestState' });
  });
});
