import { describe, expect, it } from 'vitest';
import { ElicitationNotSupportedError, type ElicitParams, type McpServer, type McpServerOptions, UrlElicitationRequiredError } from '../../src/index.js';
import { ADA, CAPS, expectMcpError, NAME_Q, textResult, thrownBy } from '../helpers/client-requests.js';
import { HttpTestClient, send } from '../helpers/http-client.js';
import { MODERN_CAPS, ModernClient, modernHeaders, modernRequest, type Reply, SEALED_STATE, SIGNED_STATE } from '../helpers/modern.js';
import { recordEvents } from '../helpers/server-events.js';
import { expectQuietAndAlive, pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { tick } from '../helpers/deferred.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket, startHttp, TEST_STATE_KEY, startStdio } from '../helpers/servers.js';

const cleanups = useCleanups();
const ws = useWsSessions(cleanups);

const INTERNAL_ERROR = { code: -32603, message: 'Internal error' };

// What a handler's failure may hold: a path on the server, a password in a connection string.
const PROMPT_FAILURE = "ENOENT: no such file or directory, open '/srv/secret/prompt.txt'";
const RESOURCE_FAILURE = 'connect ECONNREFUSED postgres://admin:hunter2@10.0.0.5:5432/config';
const TOOL_FAILURE = "EACCES: permission denied, open '/srv/secret/deploy.key'";
const CONSUME_FAILURE = 'WRONGPASS redis://default:s3cr3t@10.0.0.9:6379 invalid username-password pair';

/** A prompt, a resource and a tool that fail with errors that are not McpErrors; `thrown` holds what each threw. */
function failingHandlers() {
  const thrown = { prompt: new Error(PROMPT_FAILURE), resource: new Error(RESOURCE_FAILURE), tool: new Error(TOOL_FAILURE) };
  return {
    thrown,
    setup(server: McpServer): void {
      server.registerPrompt('brief', {}, () => {
        throw thrown.prompt;
      });
      server.registerResource('secret://config', { name: 'config' }, () => {
        throw thrown.resource;
      });
      server.registerTool('deploy', {}, () => {
        throw thrown.tool;
      });
    },
  };
}

/** The `error` events as [message, cause, session]. */
function described(errors: [Error, unknown?][]): [string, unknown, unknown][] {
  return errors.map(([error, session]) => [error.message, error.cause, session]);
}

describe('a handler failure that is not an McpError', () => {
  it('over WebSocket answers prompts/get and resources/read with exactly "Internal error", gives the error event the thrown error as cause, and keeps a tool failure an isError result with its message', async () => {
    const { thrown, setup } = failingHandlers();
    const running = await startWebSocket(cleanups, setup);
    const errors = recordEvents(running.server, 'error');
    const { client, session } = await ws.open(running);
    expect(await client.request('prompts/get', { name: 'brief' }, 1)).toStrictEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL_ERROR });
    expect(await client.request('resources/read', { uri: 'secret://config' }, 2)).toStrictEqual({ jsonrpc: '2.0', id: 2, error: INTERNAL_ERROR });
    // SEP-1303: a tool's failure is told to the model, so its message stays in the result.
    expect(await client.request('tools/call', { name: 'deploy', arguments: {} }, 3)).toStrictEqual(textResult(3, TOOL_FAILURE, true));
    expect(described(errors)).toEqual([
      [`prompts/get handler failed: ${PROMPT_FAILURE}`, thrown.prompt, session],
      [`resources/read handler failed: ${RESOURCE_FAILURE}`, thrown.resource, session],
    ]);
    expect(errors[0][0].cause).toBe(thrown.prompt);
    expect(errors[1][0].cause).toBe(thrown.resource);
    await expectQuietAndAlive(client);
  });

  it('over Streamable HTTP (2025-11-25 session) answers prompts/get and resources/read with exactly "Internal error", and keeps a tool failure an isError result', async () => {
    const { thrown, setup } = failingHandlers();
    const { server, url } = await startHttp(cleanups, setup);
    const errors = recordEvents(server, 'error');
    const client = new HttpTestClient(url);
    await client.initialize();
    expect(await client.call('prompts/get', { name: 'brief' }, 'p')).toStrictEqual({ jsonrpc: '2.0', id: 'p', error: INTERNAL_ERROR });
    expect(await client.call('resources/read', { uri: 'secret://config' }, 'r')).toStrictEqual({ jsonrpc: '2.0', id: 'r', error: INTERNAL_ERROR });
    expect(await client.call('tools/call', { name: 'deploy', arguments: {} }, 't')).toStrictEqual(textResult('t', TOOL_FAILURE, true));
    const [session] = server.sessions.values();
    expect(described(errors)).toEqual([
      [`prompts/get handler failed: ${PROMPT_FAILURE}`, thrown.prompt, session],
      [`resources/read handler failed: ${RESOURCE_FAILURE}`, thrown.resource, session],
    ]);
  });

  it('on a 2026-07-28 request answers prompts/get and resources/read with HTTP 200 and exactly "Internal error", and keeps a tool failure an isError result', async () => {
    const { thrown, setup } = failingHandlers();
    const { server, url } = await startHttp(cleanups, setup);
    const errors = recordEvents(server, 'error');
    const client = new ModernClient(url, MODERN_CAPS.none);
    expect(await client.getPrompt('brief')).toStrictEqual({ status: 200, body: { jsonrpc: '2.0', id: 1, error: INTERNAL_ERROR } });
    expect(await client.readResource('secret://config')).toStrictEqual({ status: 200, body: { jsonrpc: '2.0', id: 2, error: INTERNAL_ERROR } });
    expect(await client.callTool('deploy')).toStrictEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 3, result: { resultType: 'complete', content: [{ type: 'text', text: TOOL_FAILURE }], isError: true } },
    });
    expect(errors.map(([error]) => [error.message, error.cause])).toEqual([
      [`prompts/get handler failed: ${PROMPT_FAILURE}`, thrown.prompt],
      [`resources/read handler failed: ${RESOURCE_FAILURE}`, thrown.resource],
    ]);
  });

  it('is answered "Internal error: <message>" with exposeErrors: true, and plain "Internal error" with exposeErrors: false', async () => {
    const exposing = await startWebSocket(cleanups, failingHandlers().setup, { server: { exposeErrors: true } });
    const hiding = await startWebSocket(cleanups, failingHandlers().setup, { server: { exposeErrors: false } });
    const exposed = (await ws.open(exposing)).client;
    const hidden = (await ws.open(hiding)).client;
    expect(await exposed.request('prompts/get', { name: 'brief' }, 1)).toStrictEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32603, message: `Internal error: ${PROMPT_FAILURE}` },
    });
    expect(await exposed.request('resources/read', { uri: 'secret://config' }, 2)).toStrictEqual({
      jsonrpc: '2.0',
      id: 2,
      error: { code: -32603, message: `Internal error: ${RESOURCE_FAILURE}` },
    });
    expect(await hidden.request('prompts/get', { name: 'brief' }, 1)).toStrictEqual({ jsonrpc: '2.0', id: 1, error: INTERNAL_ERROR });
    expect(await hidden.request('resources/read', { uri: 'secret://config' }, 2)).toStrictEqual({ jsonrpc: '2.0', id: 2, error: INTERNAL_ERROR });
  });

  it.each([
    [
      'throws',
      (failure: Error) => (): boolean => {
        throw failure;
      },
    ],
    ['rejects', (failure: Error) => (): Promise<boolean> => Promise.reject(failure)],
  ])('in a requestState consume hook that %s answers the 2026-07-28 retry with exactly "Internal error" and reports the failure', async (_how, hook) => {
    const failure = new Error(CONSUME_FAILURE);
    const runs: string[] = [];
    const options: McpServerOptions = { requestState: { keys: [TEST_STATE_KEY], consume: hook(failure) } };
    const { server, url } = await startHttp(
      cleanups,
      (s) =>
        s.registerTool('greet', {}, async (_args, ctx) => {
          runs.push('run');
          return `Hello, ${(await ctx.elicit(NAME_Q)).content?.name}!`;
        }),
      { server: options },
    );
    const errors = recordEvents(server, 'error');
    const client = new ModernClient(url, MODERN_CAPS.form);
    const first = await client.callTool('greet');
    expect(first).toStrictEqual({
      status: 200,
      body: {
        jsonrpc: '2.0',
        id: 1,
        result: { resultType: 'input_required', inputRequests: { 'elicit-1': { method: 'elicitation/create', params: NAME_Q } }, requestState: SIGNED_STATE },
      },
    });
    const retry = await client.callTool('greet', {}, { inputResponses: { 'elicit-1': ADA }, requestState: first.body.result.requestState });
    expect(retry).toStrictEqual({ status: 200, body: { jsonrpc: '2.0', id: 2, error: INTERNAL_ERROR } });
    expect(errors.map(([error]) => [error.message, error.cause])).toEqual([[`tools/call handler failed: ${CONSUME_FAILURE}`, failure]]);
    expect(errors[0][0].cause).toBe(failure);
    // The state was refused before the handler ran again.
    expect(runs).toEqual(['run']);
  });
});

describe('client capabilities with a "__proto__" key', () => {
  const FORM_NOT_DECLARED = {
    code: -32021,
    message: 'The client did not declare form-mode elicitation (capabilities.elicitation.form); ask another way, or use url mode if it declared that',
    data: { requiredCapabilities: { elicitation: { form: {} } } },
  };

  /** Initialize over WebSocket with `capabilities` as raw JSON text (an object literal would set a prototype instead). */
  async function initializeRaw(capabilitiesJson: string) {
    const running = await startWebSocket(cleanups);
    const { client, session } = await ws.connect(running);
    const reply = client.waitFor((m) => m.id === 'init');
    client.sendRaw(
      `{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":${capabilitiesJson},"clientInfo":{"name":"proto","version":"1.0.0"}}}`,
    );
    expect((await reply).result).toMatchObject({ protocolVersion: '2025-11-25' });
    client.notify('notifications/initialized');
    await pingOk(client);
    return { server: running.server, client, session };
  }

  it('declare nothing: {"__proto__": {"elicitation": {}}} gives no elicitation, an Object.prototype prototype, and requestElicitationCreate throws ElicitationNotSupportedError without sending', async () => {
    const { server, client, session } = await initializeRaw('{"__proto__":{"elicitation":{}}}');
    const capabilities = session.clientCapabilities;
    expect(Object.getPrototypeOf(capabilities)).toBe(Object.prototype);
    expect(Object.keys(capabilities)).toEqual([]);
    expect(capabilities.elicitation).toBeUndefined();
    expect(({} as Record<string, unknown>).elicitation).toBeUndefined();
    const error = thrownBy(() => server.requestElicitationCreate(session, NAME_Q));
    expectMcpError(error, ElicitationNotSupportedError, FORM_NOT_DECLARED);
    await expectQuietAndAlive(client);
  });

  it('are dropped at any depth: {"elicitation": {"__proto__": {"url": {}}}} declares form mode only, as plain objects', async () => {
    const { server, client, session } = await initializeRaw('{"elicitation":{"__proto__":{"url":{}}},"roots":{"__proto__":{"listChanged":true}}}');
    const capabilities = session.clientCapabilities as Record<string, Record<string, unknown>>;
    expect(Object.keys(capabilities)).toEqual(['elicitation', 'roots']);
    expect(Object.keys(capabilities.elicitation)).toEqual(['form']);
    expect(Object.keys(capabilities.roots)).toEqual([]);
    expect(Object.getPrototypeOf(capabilities.elicitation)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(capabilities.roots)).toBe(Object.prototype);
    const error = thrownBy(() => server.requestElicitationCreate(session, { mode: 'url', message: 'Sign in', url: 'https://example.com/x' }));
    expect(error).toBeInstanceOf(ElicitationNotSupportedError);
    await expectQuietAndAlive(client);
  });

  it('declare nothing on a 2026-07-28 request: a tool that asks with ctx.elicit is answered HTTP 400 -32021', async () => {
    const { url } = await startHttp(cleanups, (server) => server.registerTool('greet', {}, async (_args, ctx) => (await ctx.elicit(NAME_Q)).action));
    const body = JSON.stringify(modernRequest(1, 'tools/call', { name: 'greet', arguments: {} })).replace(
      '"io.modelcontextprotocol/clientCapabilities":{}',
      '"io.modelcontextprotocol/clientCapabilities":{"__proto__":{"elicitation":{"form":{}}}}',
    );
    expect(body).toContain('{"__proto__":{"elicitation":{"form":{}}}}');
    const res = await send(url, 'POST', modernHeaders('tools/call', { name: 'greet' }), body);
    expect(res.status).toBe(400);
    expect(await res.json()).toStrictEqual({ jsonrpc: '2.0', id: 1, error: FORM_NOT_DECLARED });
  });
});

describe('URL-mode elicitation URLs', () => {
  /** A URL-mode elicitation that sends the user to `url`. */
  const connect = (url: string, elicitationId?: string): ElicitParams => ({ mode: 'url', message: 'Connect your account', url, elicitationId });
  const REFUSED = (url: string) => `URL elicitation needs an https: url (http: only on localhost); got ${JSON.stringify(url)}`;

  async function urlSession() {
    const running = await startWebSocket(cleanups);
    const { client, session } = await ws.open(running, { capabilities: CAPS.formAndUrl });
    return { server: running.server, client, session };
  }

  it.each(['javascript:alert(1)', 'data:text/html,<script>alert(1)</script>', 'http://example.com/x', 'file:///etc/passwd'])(
    'refuses %s with a TypeError and sends the client nothing',
    async (url) => {
      const { server, client, session } = await urlSession();
      const error = thrownBy(() => server.requestElicitationCreate(session, connect(url)));
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(REFUSED(url));
      await expectQuietAndAlive(client);
    },
  );

  it('accepts https: and http: on localhost, 127.0.0.1 and [::1], and refuses http: on look-alike hosts', async () => {
    const { server, client, session } = await urlSession();
    for (const url of ['https://example.com/x', 'http://localhost:8080/x', 'http://127.0.0.1/x', 'http://[::1]/x']) {
      const id = server.requestElicitationCreate(session, connect(url, url));
      expect(await client.nextMessage('elicitation/create')).toStrictEqual({
        jsonrpc: '2.0',
        id,
        method: 'elicitation/create',
        params: { mode: 'url', message: 'Connect your account', url, elicitationId: url },
      });
      client.respond(id, { action: 'cancel' });
    }
    for (const url of ['http://localhost.example.com/x', 'http://127.0.0.1.nip.io/x', 'http://127.0.0.2/x']) {
      const error = thrownBy(() => server.requestElicitationCreate(session, connect(url)));
      expect((error as Error).message).toBe(REFUSED(url));
    }
    await expectQuietAndAlive(client);
  });

  it('are checked by the UrlElicitationRequiredError constructor', () => {
    for (const url of ['javascript:alert(1)', 'file:///etc/passwd']) {
      const error = thrownBy(
        () =>
          new UrlElicitationRequiredError([
            { message: 'Authorize', url: 'https://example.com/ok' },
            { message: 'Open', url },
          ]),
      );
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(REFUSED(url));
    }
    expect(new UrlElicitationRequiredError([{ message: 'Authorize', url: 'http://localhost:3000/auth', elicitationId: 'a' }]).elicitations).toEqual([
      { mode: 'url', message: 'Authorize', url: 'http://localhost:3000/auth', elicitationId: 'a' },
    ]);
  });

  it('on a 2026-07-28 request: a tool asking with ctx.elicit for javascript: gets an isError result (SEP-1303) and no input request reaches the client', async () => {
    const { server, url } = await startHttp(cleanups, (s) =>
      s.registerTool('link', {}, async (_args, ctx) => (await ctx.elicit(connect('javascript:alert(1)'))).action),
    );
    const errors = recordEvents(server, 'error');
    expect(await new ModernClient(url, MODERN_CAPS.url).callTool('link')).toStrictEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 1, result: { resultType: 'complete', content: [{ type: 'text', text: REFUSED('javascript:alert(1)') }], isError: true } },
    });
    expect(errors).toEqual([]);
  });
});

describe('requestState with seal: true', () => {
  const TRIP = { from: 'LHR', to: 'JFK' };

  function seatTool(server: McpServer): void {
    const inputSchema = { type: 'object', properties: { from: { type: 'string' }, to: { type: 'string' } } } as const;
    server.registerTool('book', { inputSchema }, async (args, ctx) => {
      const seat = await ctx.elicit({
        message: 'Which seat?',
        requestedSchema: { type: 'object', properties: { seat: { type: 'string' } }, required: ['seat'] },
      } as ElicitParams);
      return `${args.from}-${args.to} seat ${seat.content?.seat}`;
    });
  }

  const stateOf = (reply: Reply): string => reply.body.result.requestState;
  const SEAT = { inputResponses: { 'elicit-1': { action: 'accept', content: { seat: '7F' } } } };

  it('refuses a signed-only (v1) state made with the same key by a server that does not seal: HTTP 400, "not sealed"', async () => {
    const signing = await startHttp(cleanups, seatTool, { server: { requestState: { keys: [TEST_STATE_KEY], seal: false } } });
    const sealing = await startHttp(cleanups, seatTool, { server: { requestState: { keys: [TEST_STATE_KEY], seal: true } } });
    const signed = stateOf(await new ModernClient(signing.url, MODERN_CAPS.form).callTool('book', TRIP));
    expect(signed).toEqual(SIGNED_STATE);
    const client = new ModernClient(sealing.url, MODERN_CAPS.form);
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: signed })).toStrictEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Invalid or expired requestState', data: { reason: 'not sealed' } } },
    });
    // Its own sealed state still completes the call.
    const sealed = stateOf(await client.callTool('book', TRIP));
    expect(sealed).toEqual(SEALED_STATE);
    expect(await client.callTool('book', TRIP, { ...SEAT, requestState: sealed })).toStrictEqual({
      status: 200,
      body: { jsonrpc: '2.0', id: 3, result: { resultType: 'complete', content: [{ type: 'text', text: 'LHR-JFK seat 7F' }] } },
    });
  });
});

describe('the stdio line limit', () => {
  const LIMIT = 200;
  const TOO_LONG = {
    jsonrpc: '2.0',
    id: null,
    error: { code: -32600, message: `Invalid Request: message longer than maxMessageBytes (${LIMIT} bytes); it was discarded` },
  };

  /** A ping line of exactly `bytes` bytes of UTF-8, padded mostly with '€' (3 bytes, 1 UTF-16 unit). */
  function pingOfBytes(id: string, bytes: number): string {
    const line = (pad: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { pad } } });
    const room = bytes - Buffer.byteLength(line(''));
    const text = line('€'.repeat(Math.floor(room / 3)) + 'z'.repeat(room % 3));
    expect(Buffer.byteLength(text)).toBe(bytes);
    // Counted in UTF-16 units, as the old limit did, it would fit.
    expect(text.length).toBeLessThan(LIMIT);
    return text;
  }

  const ping = (id: string) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' });
  const pong = (id: string) => ({ jsonrpc: '2.0', id, result: {} });

  /** A server on in-process streams with maxMessageBytes LIMIT. */
  const stdioServer = () => startStdio(cleanups, undefined, { transport: { maxMessageBytes: LIMIT } });

  it('refuses a line one byte over the limit whose characters are well under it, accepts one of exactly the limit, and reads on', async () => {
    const io = stdioServer();
    io.write(`${pingOfBytes('over', LIMIT + 1)}\n`);
    expect(await io.awaitLines(1)).toStrictEqual([TOO_LONG]);
    io.write(`${pingOfBytes('exact', LIMIT)}\n`);
    expect(await io.awaitLines(2)).toStrictEqual([TOO_LONG, pong('exact')]);
    io.write(`${ping('next')}\n`);
    expect(await io.awaitLines(3)).toStrictEqual([TOO_LONG, pong('exact'), pong('next')]);
    expect(io.server.stats.invalidMessages).toBe(1);
  });

  it('refuses a multi-byte line as soon as its bytes pass the limit, before its newline arrives, and reads the line after it', async () => {
    const io = stdioServer();
    const over = pingOfBytes('over', 2 * LIMIT);
    // The first piece fits (in bytes); the second takes the line past the limit.
    const cut = over.indexOf('€') + 40;
    expect(Buffer.byteLength(over.slice(0, cut))).toBeLessThanOrEqual(LIMIT);
    io.write(over.slice(0, cut));
    await tick();
    expect(io.lines).toStrictEqual([]);
    io.write(over.slice(cut, -10));
    expect(await io.awaitLines(1)).toStrictEqual([TOO_LONG]);
    io.write(`${over.slice(-10)}\n${ping('next')}\n`);
    expect(await io.awaitLines(2)).toStrictEqual([TOO_LONG, pong('next')]);
    expect(io.server.stats.invalidMessages).toBe(1);
  });

  it('does not count the CR of a CRLF ending: the limit plus CRLF is accepted (also split before the LF), one byte more is refused', async () => {
    const io = stdioServer();
    io.write(`${pingOfBytes('crlf', LIMIT)}\r\n`);
    expect(await io.awaitLines(1)).toStrictEqual([pong('crlf')]);
    io.write(`${pingOfBytes('split', LIMIT)}\r`);
    await tick();
    io.write('\n');
    expect(await io.awaitLines(2)).toStrictEqual([pong('crlf'), pong('split')]);
    io.write(`${pingOfBytes('over', LIMIT + 1)}\r\n`);
    expect(await io.awaitLines(3)).toStrictEqual([pong('crlf'), pong('split'), TOO_LONG]);
    io.write(`${ping('next')}\r\n`);
    expect(await io.awaitLines(4)).toStrictEqual([pong('crlf'), pong('split'), TOO_LONG, pong('next')]);
  });
});

describe('client values the server cannot turn into text', () => {
  const deepArray = (depth: number): string => `${'['.repeat(depth)}${']'.repeat(depth)}`;

  it('takes a cancellation whose reason has a toString that is no function, before and after initialize, and lives on', async () => {
    const running = await startWebSocket(cleanups);
    const errors = recordEvents(running.server, 'error');
    const cancelled = recordEvents(running.server, 'cancelled');
    const early = await ws.connectUrl(running.url);
    early.sendRaw('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":{"toString":0}}}');
    await pingOk(early);
    const { client } = await ws.open(running);
    client.sendRaw(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":${deepArray(10_000)}}}`);
    await pingOk(client);
    expect(cancelled.map(([, event]) => event.requestId)).toEqual([1, 2]);
    expect(errors).toEqual([]);
  });

  it('answers a cursor and a log level nested 10,000 deep with -32602 naming their kind', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await ws.open(running);
    client.sendRaw(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":${deepArray(10_000)}}}`);
    expect(await client.waitFor((m) => m.id === 1)).toEqual({
      jsonrpc: '2.0',
      id: 1,
      error: { code: -32602, message: 'Invalid cursor: an array; pass back a nextCursor from an earlier page' },
    });
    client.sendRaw(`{"jsonrpc":"2.0","id":2,"method":"logging/setLevel","params":{"level":${deepArray(10_000)}}}`);
    expect((await client.waitFor((m) => m.id === 2)).error).toEqual({
      code: -32602,
      message: 'Invalid log level an array: use debug, info, notice, warning, error, critical, alert or emergency',
    });
  });

  it('answers a 2026-07-28 request whose _meta protocol version is nested 10,000 deep with -32022, naming what it got', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await ws.open(running);
    client.sendRaw(
      `{"jsonrpc":"2.0","id":3,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":${deepArray(10_000)},"io.modelcontextprotocol/clientCapabilities":{}}}}`,
    );
    const answer = await client.waitFor((m) => m.id === 3);
    expect(answer.error).toMatchObject({ code: -32022, message: 'Unsupported protocol version', data: { requested: 'an array' } });
    await pingOk(client);
  });

  it('refuses to subscribe to a URI over 8192 characters with -32602', async () => {
    const running = await startWebSocket(cleanups);
    const { client } = await ws.open(running);
    expect(await client.request('resources/subscribe', { uri: `test://${'x'.repeat(8186)}` }, 'long')).toEqual({
      jsonrpc: '2.0',
      id: 'long',
      error: { code: -32602, message: 'URI too long: a subscribed URI is at most 8192 characters' },
    });
    expect(await client.request('resources/subscribe', { uri: `test://${'x'.repeat(8185)}` }, 'fits')).toEqual({ jsonrpc: '2.0', id: 'fits', result: {} });
  });
});
