/**
 * The fixture as a resource server (`npm run fixture -- --port N --auth-issuer ISS --auth-audience AUD
 * --auth-jwks URL --health`): a real process, a local JWKS endpoint, a token signed here.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ACCEPT_BOTH } from '../helpers/http-client.js';
import { testIssuer } from '../helpers/oauth.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const root = fileURLToPath(new URL('../..', import.meta.url));
const tsx = fileURLToPath(new URL('../../node_modules/.bin/tsx', import.meta.url));
const ISSUER = 'https://issuer.example.test/';
const AUDIENCE = 'urn:switchboard:fixture';

function fixture(args: string[]): { child: ChildProcess; url: Promise<string>; exited: Promise<{ code: number | null; out: string }> } {
  const child = spawn(tsx, ['conformance/fixture-server.ts', '--port', '0', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  const exited = new Promise<{ code: number | null; out: string }>((resolve) => child.once('exit', (code) => resolve({ code, out })));
  const url = new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', () => {
      const match = /fixture on (http:\/\/\S+)/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`the fixture exited with ${code}: ${out}`)));
  });
  // A fixture expected to exit never prints its URL: that is no failure of its own.
  url.catch(() => {});
  cleanups.push(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
  });
  return { child, url, exited };
}

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
};

describe('the fixture with --auth-* and --health', () => {
  it('asks for a token with its metadata, admits one from the issuer, and serves health checks without one', async () => {
    const issuer = await testIssuer(cleanups, ISSUER);
    const { url: started } = fixture(['--auth-issuer', ISSUER, '--auth-audience', AUDIENCE, '--auth-jwks', issuer.jwksUri, '--health']);
    const url = await started;
    const origin = new URL(url).origin;
    const post = (headers: Record<string, string> = {}) =>
      fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT_BOTH, ...headers }, body: JSON.stringify(INITIALIZE) });

    const anonymous = await post();
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`);
    expect(await (await fetch(`${origin}/.well-known/oauth-protected-resource/mcp`)).json()).toEqual({
      resource: url,
      authorization_servers: [ISSUER],
      bearer_methods_supported: ['header'],
    });

    const token = await issuer.token({ audience: AUDIENCE, subject: 'conformance' });
    const admitted = await post({ authorization: `Bearer ${token}` });
    expect(admitted.status).toBe(200);
    expect((await admitted.json()).result.serverInfo.name).toBe('switchboard-conformance-fixture');

    expect([(await fetch(`${origin}/healthz`)).status, (await fetch(`${origin}/readyz`)).status]).toEqual([200, 200]);
  });

  it('exits 2 and says what is missing when the auth flags come incomplete', async () => {
    const { exited } = fixture(['--auth-issuer', ISSUER]);
    const { code, out } = await exited;
    expect(code).toBe(2);
    expect(out).toContain('--auth-issuer, --auth-audience and --auth-jwks go together: give all three');
  });
});
