/**
 * The OAuth resource server (`bearer()`) over real sockets, with real tokens: keys generated here, their
 * JWKS served from a local endpoint, tokens signed with them. The metadata document, 401 and 403 with
 * their challenges, every way a token is refused, key rollover, introspection, step-up per tool, the
 * principal in handlers and sessions, WebSocket upgrades, and tokens kept out of every message.
 */
import { type IncomingMessage, request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  AuthError,
  type BearerOptions,
  bearer,
  ElicitationBindingError,
  McpServer,
  StreamableHttpTransport,
  type TokenClaims,
  UrlElicitationBinder,
  WebSocketTransport,
} from '../../src/index.js';
import { challenge, INITIALIZE, ISSUER, METADATA_PATH, post, serveGuarded, session, token } from '../helpers/guarded-server.js';
import { introspectionEndpoint, type JwksEndpoint, jwksEndpoint, type SigningKey, signingKey } from '../helpers/oauth.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const serve = (options: Partial<BearerOptions> & Pick<BearerOptions, 'audience'>) => serveGuarded(cleanups, options);

/** A 2026-07-28 tools/call, self-contained. */
function modernCall(url: string, name: string, bearerToken: string) {
  return post(
    url,
    {
      jsonrpc: '2.0',
      id: 7,
      method: 'tools/call',
      params: {
        name,
        arguments: {},
        _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} },
      },
    },
    { authorization: `Bearer ${bearerToken}`, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': name },
  );
}

/** An initialized 2025-11-25 session over WebSocket, opened with `bearerToken`; every reply lands in `replies`. */
async function wsSession(url: string, bearerToken: string): Promise<{ ws: WebSocket; replies: Record<string, unknown>[] }> {
  const ws = new WebSocket(url, 'mcp', { headers: { authorization: `Bearer ${bearerToken}` } });
  cleanups.push(() => ws.close());
  const replies: Record<string, unknown>[] = [];
  ws.on('message', (data) => void replies.push(JSON.parse(String(data))));
  await new Promise((resolve) => ws.once('open', resolve));
  ws.send(JSON.stringify(INITIALIZE));
  ws.send(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }));
  return { ws, replies };
}

describe('bearer(): the metadata document and 401', () => {
  it('serves the Protected Resource Metadata at the path-suffixed and the bare well-known path, readable cross-origin', async () => {
    const keys = await jwksEndpoint(cleanups, [await signingKey('k1')]);
    const { base } = await serve({ audience: 'urn:test:resource', jwksUri: keys.url, scopes: ['mcp:use'], resourceName: 'Guarded' });
    for (const path of [METADATA_PATH, '/.well-known/oauth-protected-resource']) {
      const res = await fetch(`${base}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(await res.json()).toEqual({
        resource: `${base}/mcp`,
        authorization_servers: [ISSUER],
        scopes_supported: ['mcp:use'],
        bearer_methods_supported: ['header'],
        resource_name: 'Guarded',
      });
    }
    // Its metadata only: another well-known document is not this server's.
    expect((await fetch(`${base}/.well-known/oauth-authorization-server`)).status).toBe(404);
  });

  it('checks Host before the metadata: a Host the server does not answer to gets 403, never a document naming it', async () => {
    const keys = await jwksEndpoint(cleanups, [await signingKey('k1')]);
    const { port } = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    // A WebSocket transport's own port serves the metadata too.
    const server = new McpServer({ name: 'ws-only', version: '1.0.0' });
    cleanups.push(() => server.close());
    const ws = await new WebSocketTransport(server, { auth: bearer({ issuer: ISSUER, audience: 'urn:test:resource', jwksUri: keys.url }) }).listen({
      host: '127.0.0.1',
      port: 0,
    });
    const asked = (to: number, host: string) =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port: to, path: METADATA_PATH, headers: { host } });
        req.on('error', reject);
        req.on('response', (res) => {
          let body = '';
          res.on('data', (chunk) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
        req.end();
      });
    expect(await asked(port, 'evil.example')).toEqual({
      status: 403,
      body: JSON.stringify({ jsonrpc: '2.0', error: { code: -32030, message: 'Forbidden: Host evil.example is not allowed' }, id: null }),
    });
    expect(await asked(ws.port, 'evil.example')).toEqual({ status: 403, body: 'Forbidden: Host evil.example is not allowed\n' });
    expect(JSON.parse((await asked(ws.port, `127.0.0.1:${ws.port}`)).body).resource).toBe(`ws://127.0.0.1:${ws.port}/mcp`);
  });

  it('answers a request without a token 401 with the metadata URL and the scopes every request needs', async () => {
    const keys = await jwksEndpoint(cleanups, [await signingKey('k1')]);
    const { url, base } = await serve({ audience: 'urn:test:resource', jwksUri: keys.url, scopes: ['mcp:use'] });
    const res = await post(url, INITIALIZE);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge(base, ', scope="mcp:use"'));
    expect(await res.json()).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32030, message: 'Unauthorized: send an access token (Authorization: Bearer ...)' },
    });
    // A malformed Authorization header is a bad request (RFC 6750 §3.1): 400, with what to send.
    const basic = await post(url, INITIALIZE, { authorization: 'Basic dXNlcjpwYXNz' });
    expect(basic.status).toBe(400);
    expect((await basic.json()).error.message).toBe('Send the access token as Authorization: Bearer <token>');
  });
});

describe('bearer(): JWTs checked against the issuer keys', () => {
  let key: SigningKey;
  let keys: JwksEndpoint;

  afterEach(() => {
    keys.keys = [];
  });

  async function setUp(options: Partial<BearerOptions> = {}) {
    key = await signingKey('k1');
    keys = await jwksEndpoint(cleanups, [key]);
    return serve({ audience: 'urn:test:resource', jwksUri: keys.url, ...options });
  }

  it('admits a valid token, and the handler and the session see its principal', async () => {
    const served = await setUp();
    const jwt = await token({ key, scope: 'mcp:use files:read' });
    const { call } = await session(served.url, jwt);
    expect(await (await call('whoami')).json()).toMatchObject({ result: { content: [{ type: 'text', text: 'ok' }] } });
    const [principal] = served.principals as Record<string, unknown>[];
    expect(principal).toEqual({
      id: `${ISSUER}#alice`,
      subject: 'alice',
      clientId: 'test-client',
      scopes: ['mcp:use', 'files:read'],
      issuer: ISSUER,
      expiresAt: expect.any(Number),
      claims: {
        iss: ISSUER,
        sub: 'alice',
        aud: 'urn:test:resource',
        iat: expect.any(Number),
        exp: expect.any(Number),
        scope: 'mcp:use files:read',
        client_id: 'test-client',
      },
    });
    expect(served.sessions[0].principal).toBe(principal);
  });

  it.each([
    ['an expired token', { expiresIn: -120 }, 'The access token expired'],
    ['a token not valid yet', { notBefore: 600 }, 'The access token is not valid yet (nbf)'],
    ['a token for another resource', { audience: 'urn:other' }, 'The access token is not for this resource (aud)'],
    ['a token from another issuer', { issuer: 'https://evil.example.test' }, 'The access token is from another issuer (iss)'],
    ['a token signed with a key the issuer does not publish', { kid: 'k-unknown' }, 'The access token is signed with a key the issuer does not publish'],
  ] as const)('refuses %s with 401 invalid_token and says why', async (_what, claims, why) => {
    const served = await setUp({ jwks: { cooldownMs: 0 } });
    const jwt = await token({ key, ...claims });
    const res = await post(served.url, INITIALIZE, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(challenge(served.base, `, error="invalid_token", error_description="${why}"`));
    expect((await res.json()).error.message).toBe(why);
  });

  it('refuses a forged signature (the right kid, another key), and accepts a token expired within the clock skew', async () => {
    const served = await setUp();
    const forger = await signingKey('k1');
    const forged = await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key: forger })}` });
    expect(forged.status).toBe(401);
    expect((await forged.json()).error.message).toBe('The access token signature does not verify');
    const justExpired = await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key, expiresIn: -20 })}` });
    expect(justExpired.status).toBe(200);
  });

  it('follows a key rollover: a token signed with the new key is admitted once the issuer publishes it, the retired key no more', async () => {
    const served = await setUp({ jwks: { cooldownMs: 0 } });
    const old = await token({ key });
    expect((await post(served.url, INITIALIZE, { authorization: `Bearer ${old}` })).status).toBe(200);
    const next = await signingKey('k2');
    keys.keys = [next];
    const fresh = await token({ key: next });
    expect((await post(served.url, INITIALIZE, { authorization: `Bearer ${fresh}` })).status).toBe(200);
    const retired = await post(served.url, INITIALIZE, { authorization: `Bearer ${old}` });
    expect(retired.status).toBe(401);
    expect((await retired.json()).error.message).toBe('The access token is signed with a key the issuer does not publish');
    // Fetched at the first token, and again for each kid it did not know (no cooldown here).
    expect(keys.requests).toBe(3);
  });

  it('answers 503 with Retry-After (the pause before the issuer is asked again) when the issuer keys cannot be read, and never says the token', async () => {
    key = await signingKey('k1');
    const served = await serve({ audience: 'urn:test:resource', jwksUri: 'http://127.0.0.1:9/jwks.json', jwks: { timeoutMs: 1000 } });
    const jwt = await token({ key });
    const res = await post(served.url, INITIALIZE, { authorization: `Bearer ${jwt}` });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('30');
    const header = res.headers.get('www-authenticate')!;
    expect(header).toBe(challenge(served.base, ', error_description="Cannot check the access token now; try again shortly"'));
    // The client learns only that; where and why go to the server's error event.
    const text = await res.text();
    expect(JSON.parse(text).error.message).toBe('Cannot check the access token now; try again shortly');
    expect(served.errors.map((e) => e.message)).toEqual([
      expect.stringMatching(/^bearer\(\): the issuer's keys \(http:\/\/127\.0\.0\.1:9\/jwks\.json\) could not be read: /),
    ]);
    expect(`${text}${header}${served.errors[0]?.message}`).not.toContain(jwt);
  });

  it('keeps tokens out of every answer, event and log line', async () => {
    const served = await setUp();
    const seen: string[] = [];
    served.server.on('message', (_session, _direction, message) => void seen.push(JSON.stringify(message)));
    const good = await token({ key });
    const expired = await token({ key, expiresIn: -600 });
    const { call } = await session(served.url, good);
    seen.push(await (await call('whoami')).text());
    seen.push(await (await post(served.url, INITIALIZE, { authorization: `Bearer ${expired}` })).text());
    seen.push(...served.errors.map((e) => `${e.message} ${e.stack}`));
    seen.push(JSON.stringify(served.principals));
    for (const text of seen) {
      expect(text).not.toContain(good);
      expect(text).not.toContain(expired);
    }
  });

  it('binds the session to its principal: another user presenting its id gets 404', async () => {
    const served = await setUp();
    const alice = await session(served.url, await token({ key, subject: 'alice' }));
    const asBob = await alice.call('whoami', await token({ key, subject: 'bob' }));
    expect(asBob.status).toBe(404);
    expect((await alice.call('whoami')).status).toBe(200);
  });
});

describe('bearer(): scopes and step-up', () => {
  it('answers a tool whose scopes the token lacks 403 insufficient_scope naming them, and runs it with them (both eras)', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    const reader = await token({ key, scope: 'mcp:use' });
    const writer = await token({ key, scope: 'mcp:use files:write' });
    const expected = challenge(
      served.base,
      ', scope="files:write", error="insufficient_scope", error_description="Tool write_file needs the scope files:write"',
    );

    const { call } = await session(served.url, reader);
    const refused = await call('write_file');
    expect(refused.status).toBe(403);
    expect(refused.headers.get('www-authenticate')).toBe(expected);
    expect(await refused.json()).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32012, message: 'Tool write_file needs the scope files:write' } });
    expect((await call('whoami')).status).toBe(200);

    const modern = await modernCall(served.url, 'write_file', reader);
    expect(modern.status).toBe(403);
    expect(modern.headers.get('www-authenticate')).toBe(expected);
    const allowed = await modernCall(served.url, 'write_file', writer);
    expect(allowed.status).toBe(200);
    expect(await allowed.json()).toMatchObject({ result: { resultType: 'complete', content: [{ type: 'text', text: 'written' }] } });
  });

  it('refuses a token without the server-wide scopes with 403', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url, scopes: ['mcp:use'] });
    const res = await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key, scope: 'profile' })}` });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBe(
      challenge(served.base, ', scope="mcp:use", error="insufficient_scope", error_description="This server needs the scope mcp:use"'),
    );
  });

  it('checks the upgrade of a WebSocket, and answers a scoped tool there with -32012', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    const wsUrl = `ws://127.0.0.1:${served.port}/mcp`;
    const refused = await new Promise<IncomingMessage>((resolve, reject) => {
      const ws = new WebSocket(wsUrl, 'mcp');
      ws.on('unexpected-response', (_req, res) => resolve(res));
      ws.on('open', () => reject(new Error('opened without a token')));
    });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers['www-authenticate']).toBe(`Bearer resource_metadata="http://127.0.0.1:${served.port}${METADATA_PATH}"`);

    const { ws, replies } = await wsSession(wsUrl, await token({ key, scope: 'mcp:use' }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'write_file', arguments: {} } }));
    await expect.poll(() => replies.find((r) => r.id === 2)).toBeDefined();
    expect(replies.find((r) => r.id === 2)).toEqual({
      jsonrpc: '2.0',
      id: 2,
      error: {
        code: -32012,
        message: 'Tool write_file needs the scope files:write: get a token that grants files:write',
        data: { requiredScopes: ['files:write'] },
      },
    });
  });
});

describe('bearer(): what a client cannot bend', () => {
  /** A raw HTTP request (fetch will not send a Host of our choosing): its status line and headers. */
  function raw(port: number, lines: string[]): Promise<string> {
    return new Promise((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.end(`${lines.join('\r\n')}\r\n\r\n`));
      let text = '';
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  }

  it('refuses a Host that is not a plain host and port with 400, over HTTP and at an upgrade, and the process lives on', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    for (const host of ['localhost:99999', `127.0.0.1:${served.port}@evil.example`, `127.0.0.1:${served.port}/x`]) {
      const upgrade = await raw(served.port, [
        'GET /mcp HTTP/1.1',
        `Host: ${host}`,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        'Sec-WebSocket-Protocol: mcp',
      ]);
      expect(upgrade.split('\r\n')[0], host).toBe('HTTP/1.1 400 Bad Request');
      expect(upgrade).not.toContain('evil');
      const metadata = await raw(served.port, [`GET ${METADATA_PATH} HTTP/1.1`, `Host: ${host}`, 'Connection: close']);
      expect(metadata.split('\r\n')[0], host).toBe('HTTP/1.1 400 Bad Request');
    }
    // Still serving, and the metadata built from a good Host says it varies with it.
    const res = await fetch(`${served.base}${METADATA_PATH}`);
    expect([res.status, res.headers.get('vary')]).toEqual([200, 'Host']);
  });

  it('takes the resource from a URL audience, so the metadata and challenges never depend on Host', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'https://mcp.example.test/mcp', jwksUri: keys.url });
    const res = await fetch(`${served.base}${METADATA_PATH}`);
    expect(res.headers.get('vary')).toBeNull();
    expect((await res.json()).resource).toBe('https://mcp.example.test/mcp');
    const anonymous = await post(served.url, INITIALIZE);
    expect(anonymous.headers.get('www-authenticate')).toBe('Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp"');
  });

  it('keeps header values to RFC 6750 characters: a description with CR/LF cannot split the answer', async () => {
    const server = new McpServer({ name: 'split', version: '1.0.0' });
    cleanups.push(() => server.close());
    const auth = {
      resource: 'https://mcp.example.test/mcp',
      authenticate: () => {
        throw new AuthError(401, { error: 'invalid_token', description: 'bad\r\nX-Evil: 1 "quoted" \\ é' });
      },
    };
    const http = new StreamableHttpTransport(server, { auth });
    const { port } = await http.listen({ host: '127.0.0.1', port: 0 });
    new WebSocketTransport(server, { auth }).attach(http.httpServer!);
    const upgrade = await raw(port, [
      'GET /mcp HTTP/1.1',
      `Host: 127.0.0.1:${port}`,
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
      'Sec-WebSocket-Protocol: mcp',
    ]);
    const headers = upgrade.split('\r\n\r\n')[0]!.split('\r\n');
    expect(headers.some((line) => line.toLowerCase().startsWith('x-evil'))).toBe(false);
    expect(headers).toContain(
      'www-authenticate: Bearer resource_metadata="https://mcp.example.test/.well-known/oauth-protected-resource/mcp", error="invalid_token", error_description="bad  X-Evil: 1  quoted     "',
    );
  });

  it('lets a session step up: the same user with a token that has the scope now may call the tool', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    const { call } = await session(served.url, await token({ key, scope: 'mcp:use' }));
    expect((await call('write_file')).status).toBe(403);
    const stepped = await call('write_file', await token({ key, scope: 'mcp:use files:write' }));
    expect(stepped.status).toBe(200);
    expect(await stepped.json()).toMatchObject({ result: { content: [{ type: 'text', text: 'written' }] } });
  });

  it('closes a WebSocket when the token that opened it expires', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url, clockToleranceSeconds: 0 });
    const ws = new WebSocket(`ws://127.0.0.1:${served.port}/mcp`, 'mcp', { headers: { authorization: `Bearer ${await token({ key, expiresIn: 1 })}` } });
    const closed = new Promise<[number, string]>((resolve) => ws.once('close', (code, reason) => resolve([code, String(reason)])));
    await new Promise((resolve) => ws.once('open', resolve));
    expect(await closed).toEqual([1008, 'the access token expired: connect again with a new one']);
  });

  it('checks scopes on completions for a scoped prompt and on subscriptions to a scoped resource (-32012)', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    const served = await serve({ audience: 'urn:test:resource', jwksUri: keys.url });
    served.server.registerPrompt('secret', { arguments: [{ name: 'x' }], scopes: ['secrets:read'], complete: { x: () => ['a'] } }, () => ({ messages: [] }));
    served.server.registerResource('secret://doc', { name: 'doc', scopes: ['secrets:read'] }, () => 'classified');
    const { ws, replies } = await wsSession(`ws://127.0.0.1:${served.port}/mcp`, await token({ key }));
    ws.send(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 2,
        method: 'completion/complete',
        params: { ref: { type: 'ref/prompt', name: 'secret' }, argument: { name: 'x', value: '' } },
      }),
    );
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'secret://doc' } }));
    await expect.poll(() => replies.filter((r) => r.id === 2 || r.id === 3).length).toBe(2);
    const refused = replies.filter((r) => r.id === 2 || r.id === 3).sort((a, b) => Number(a.id) - Number(b.id));
    expect(refused.map((r) => (r.error as { code: number }).code)).toEqual([-32012, -32012]);
    expect(refused.map((r) => (r.error as { message: string }).message)).toEqual([
      'Prompt secret needs the scope secrets:read: get a token that grants secrets:read',
      'Resource secret://doc needs the scope secrets:read: get a token that grants secrets:read',
    ]);
  });
});

describe('bearer(): opaque tokens and custom checks', () => {
  it('introspects an opaque token (client credentials, cached), refuses an inactive one, and answers 503 when the endpoint fails', async () => {
    let failing = false;
    const endpoint = await introspectionEndpoint(cleanups, (t) => {
      if (failing) return 'fail';
      return t === 'good-opaque'
        ? { active: true, sub: 'carol', client_id: 'c1', scope: 'mcp:use', iss: ISSUER, aud: 'urn:test:resource', exp: Math.floor(Date.now() / 1000) + 300 }
        : t === 'no-aud'
          ? { active: true, sub: 'erin', scope: 'mcp:use' }
          : t === 'refresh'
            ? { active: true, sub: 'erin', token_type: 'refresh_token', aud: 'urn:test:resource' }
            : { active: false };
    });
    const served = await serve({ audience: 'urn:test:resource', introspection: { url: endpoint.url, clientId: 'rs', clientSecret: 's3cret' } });
    const { call } = await session(served.url, 'good-opaque');
    expect((await call('whoami')).status).toBe(200);
    expect(served.principals[0]).toMatchObject({ id: `${ISSUER}#carol`, subject: 'carol', clientId: 'c1', scopes: ['mcp:use'] });
    // Three requests so far (initialize, initialized, the call): one introspection.
    expect(endpoint.seen).toEqual([
      { authorization: `Basic ${Buffer.from('rs:s3cret').toString('base64')}`, body: 'token=good-opaque&token_type_hint=access_token' },
    ]);
    const inactive = await post(served.url, INITIALIZE, { authorization: 'Bearer bad-opaque' });
    expect(inactive.status).toBe(401);
    expect(inactive.headers.get('www-authenticate')).toBe(challenge(served.base, ', error="invalid_token", error_description="The access token is not valid"'));
    for (const [opaque, why] of [
      ['no-aud', 'The access token names no audience (aud), so it may be for another resource'],
      ['refresh', 'The token is not an access token'],
    ]) {
      const refused = await post(served.url, INITIALIZE, { authorization: `Bearer ${opaque}` });
      expect([refused.status, (await refused.json()).error.message], opaque).toEqual([401, why]);
    }
    failing = true;
    const down = await post(served.url, INITIALIZE, { authorization: 'Bearer other-opaque' });
    // Introspection has no pause of its own: the default Retry-After.
    expect([down.status, down.headers.get('retry-after')]).toEqual([503, '5']);
    expect((await down.json()).error.message).toBe('Cannot check the access token now; try again shortly');
    expect(served.errors.at(-1)?.message).toBe('bearer(): the introspection endpoint answered HTTP 500');
  });

  it('takes a custom verify, and an AuthError thrown by a function auth', async () => {
    const server = new McpServer({ name: 'custom', version: '1.0.0' });
    cleanups.push(() => server.close());
    const auth = bearer({ audience: 'urn:x', verify: (t) => (t === 'letmein' ? { subject: 'dave', scopes: ['a'] } : undefined) });
    const http = new StreamableHttpTransport(server, { auth });
    const { url } = await http.listen({ host: '127.0.0.1', port: 0 });
    expect((await post(url, INITIALIZE, { authorization: 'Bearer letmein' })).status).toBe(200);
    expect((await post(url, INITIALIZE, { authorization: 'Bearer nope' })).status).toBe(401);

    const hooked = new StreamableHttpTransport(server, {
      auth: () => {
        throw new AuthError(403, { error: 'insufficient_scope', scope: 'admin' }, 'Admins only');
      },
    });
    const second = await hooked.listen({ host: '127.0.0.1', port: 0 });
    const res = await post(second.url, INITIALIZE);
    expect(res.status).toBe(403);
    expect((await res.json()).error.message).toBe('Admins only');
  });

  it('answers a custom verify that returns a wrong shape 500, reporting the TypeError, and one that returns an empty name 401', async () => {
    const answers: Record<string, unknown> = {
      number: { subject: 5 },
      nameless: { scopes: ['a'] },
      text: 'dave',
      mixed: { subject: '', clientId: 5 },
      empty: { subject: '' },
    };
    const served = await serve({ audience: 'urn:x', verify: (t) => answers[t] as TokenClaims });
    const shape =
      'bearer(): verify must return { subject: string, scopes?, clientId?, ... } (or { clientId } alone) for a good token, or nothing for a bad one';
    const outcomes: [string, number][] = [];
    for (const t of Object.keys(answers)) outcomes.push([t, (await post(served.url, INITIALIZE, { authorization: `Bearer ${t}` })).status]);
    expect(outcomes).toEqual([
      ['number', 500],
      ['nameless', 500],
      ['text', 500],
      ['mixed', 500],
      ['empty', 401],
    ]);
    expect(served.errors.map((e) => [e.name, e.message])).toEqual(Array.from({ length: 4 }, () => ['TypeError', shape]));
  });

  it('sends the Retry-After an AuthError names, and refuses one that is not whole seconds', async () => {
    const server = new McpServer({ name: 'custom', version: '1.0.0' });
    cleanups.push(() => server.close());
    const http = new StreamableHttpTransport(server, {
      auth: () => {
        throw new AuthError(503, {}, 'Down for maintenance', { retryAfterSeconds: 120 });
      },
    });
    const { url } = await http.listen({ host: '127.0.0.1', port: 0 });
    const res = await post(url, INITIALIZE);
    expect([res.status, res.headers.get('retry-after'), (await res.json()).error.message]).toEqual([503, '120', 'Down for maintenance']);
    expect(() => new AuthError(503, {}, 'x', { retryAfterSeconds: 1.5 })).toThrow(
      new TypeError('AuthError: retryAfterSeconds must be a whole number of seconds, at least 0; got 1.5'),
    );
    expect(() => new AuthError(503, {}, 'x', { retryAfterSeconds: -1 })).toThrow(
      new TypeError('AuthError: retryAfterSeconds must be a whole number of seconds, at least 0; got -1'),
    );
  });

  it('refuses options that cannot check tokens, with what to give', () => {
    expect(() => bearer({ issuer: ISSUER, audience: 'urn:x' })).toThrow(
      'bearer() needs exactly one way to check tokens: jwksUri (JWTs), introspection ({ url }), or verify (your own)',
    );
    expect(() => bearer({ issuer: ISSUER, jwksUri: 'https://x.test/jwks' })).toThrow(
      "bearer() needs audience (or resource): the value tokens must carry in aud, this server's resource URL (RFC 8707)",
    );
    expect(() => bearer({ audience: 'urn:x', jwksUri: 'https://x.test/jwks' })).toThrow('bearer() needs issuer with jwksUri: tokens must carry it as iss');
    expect(() => bearer({ issuer: ISSUER, audience: 'urn:x', jwksUri: 'not a url' })).toThrow('bearer(): jwksUri must be an absolute URL; got "not a url"');
  });
});

describe('UrlElicitationBinder', () => {
  const alice = { id: 'alice' };
  it('verifies the URL it issued for the same principal, and refuses another user, a tampered URL and an expired one', async () => {
    const binder = new UrlElicitationBinder({ secret: 'x'.repeat(32) });
    const issued = binder.issue(alice, 'https://app.example.test/connect?account=7');
    expect(issued.url).toMatch(/^https:\/\/app\.example\.test\/connect\?account=7&mcp_elicitation=[\w-]+\.[\w-]+$/);
    expect(binder.verify(issued.url, { id: 'alice' })).toBe(issued.elicitationId);
    const reason = (fn: () => unknown): unknown[] => {
      try {
        fn();
      } catch (err) {
        return err instanceof ElicitationBindingError ? [err.reason, err.message] : [err];
      }
      return ['no error'];
    };
    expect(reason(() => binder.verify(issued.url, { id: 'mallory' }))).toEqual([
      'other-principal',
      'This elicitation was issued to another user: sign in as the user the client acts for',
    ]);
    expect(reason(() => binder.verify(issued.url.replace(/\.[\w-]+$/, '.AAAA'), alice))).toEqual([
      'invalid',
      'The elicitation URL was altered or signed with another key',
    ]);
    expect(reason(() => new UrlElicitationBinder({ secret: 'y'.repeat(32) }).verify(issued.url, alice))[0]).toBe('invalid');
    expect(reason(() => binder.verify('https://app.example.test/connect', alice))[0]).toBe('missing');
    const short = new UrlElicitationBinder({ secret: 'x'.repeat(32), ttlMs: 1 });
    const soon = short.issue(alice, 'https://app.example.test/connect');
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(reason(() => short.verify(soon.url, alice))).toEqual(['expired', 'The elicitation URL expired: ask again from the client']);
  });
});
