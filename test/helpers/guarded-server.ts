/**
 * An McpServer behind `bearer()` on HTTP and WebSocket (one port, 127.0.0.1) for the auth tests, with a
 * `whoami` tool that records the principal and a scoped `write_file`; and the requests those tests send it.
 */
import { expect } from 'vitest';
import { type BearerOptions, bearer, type McpServer, type McpSession } from '../../src/index.js';
import { type AccessTokenOptions, accessToken, type SigningKey } from './oauth.js';
import type { Cleanups } from './cleanups.js';
import { startHttpAndWebSocket } from './servers.js';

export const ISSUER = 'https://auth.example.test';
export const AUDIENCE = 'urn:test:resource';
export const PROTOCOL = '2025-11-25';
export const METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';

/** A token from ISSUER for AUDIENCE, from `alice` by the client `test-client`, typ at+jwt, unless told otherwise. */
export function token(o: Partial<AccessTokenOptions> & { key: SigningKey }): Promise<string> {
  const { key, ...rest } = o;
  return accessToken(key, { issuer: ISSUER, audience: AUDIENCE, clientId: 'test-client', ...rest });
}

export interface Guarded {
  server: McpServer;
  port: number;
  base: string;
  url: string;
  errors: Error[];
  principals: unknown[];
  sessions: McpSession[];
}

export async function serveGuarded(cleanups: Cleanups, options: Partial<BearerOptions> & Pick<BearerOptions, 'audience'>): Promise<Guarded> {
  const errors: Error[] = [];
  const principals: unknown[] = [];
  const sessions: McpSession[] = [];
  const auth = bearer({ issuer: ISSUER, ...options } as BearerOptions);
  const running = await startHttpAndWebSocket(
    cleanups,
    (server) => {
      server.on('error', (err) => void errors.push(err));
      server.on('sessionNew', (session) => void sessions.push(session));
      server.registerTool('whoami', { description: 'Who calls' }, (_args, ctx) => {
        principals.push(ctx.session.principal);
        return 'ok';
      });
      server.registerTool('write_file', { description: 'Writes', scopes: ['files:write'] }, () => 'written');
    },
    { info: { name: 'guarded', version: '1.0.0' }, transport: { auth } },
  );
  const base = `http://127.0.0.1:${running.port}`;
  return { server: running.server, port: running.port, base, url: running.url, errors, principals, sessions };
}

export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
}

export const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

/** An initialized 2025-11-25 session over HTTP with `bearerToken`; `call` calls a tool on it (with another token if given). */
export async function session(url: string, bearerToken: string) {
  const auth = { authorization: `Bearer ${bearerToken}` };
  const init = await post(url, INITIALIZE, auth);
  expect(init.status).toBe(200);
  const id = init.headers.get('mcp-session-id')!;
  const headers = { ...auth, 'mcp-session-id': id, 'mcp-protocol-version': PROTOCOL };
  await post(url, { jsonrpc: '2.0', method: 'notifications/initialized' }, headers);
  let next = 2;
  return {
    id,
    call: (name: string, withToken = bearerToken) =>
      post(url, { jsonrpc: '2.0', id: next++, method: 'tools/call', params: { name, arguments: {} } }, { ...headers, authorization: `Bearer ${withToken}` }),
  };
}

/** The WWW-Authenticate of a refusal by the server at `base`: its metadata URL, then `rest`. */
export function challenge(base: string, rest = ''): string {
  return `Bearer resource_metadata="${base}${METADATA_PATH}"${rest}`;
}
