/**
 * Whom a bearer token speaks for, over real sockets: an empty subject or client is refused (JWT,
 * introspection, a custom verify), a client acting for itself is kept apart from the user of the same
 * name, principal ids cannot be forged from the names they hold, and JWTs must say they are access
 * tokens (typ at+jwt) when the server asks.
 */
import { describe, expect, it } from 'vitest';
import { bearer, type TokenClaims } from '../../src/index.js';
import { AUDIENCE, challenge, type Guarded, INITIALIZE, ISSUER, post, serveGuarded, session, token } from '../helpers/guarded-server.js';
import { introspectionEndpoint, jwksEndpoint, type SigningKey, signingKey } from '../helpers/oauth.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();

async function jwtServer(options: { requireAtJwtType?: boolean } = {}): Promise<{ served: Guarded; key: SigningKey }> {
  const key = await signingKey('k1');
  const keys = await jwksEndpoint(cleanups, [key]);
  return { served: await serveGuarded(cleanups, { audience: AUDIENCE, jwksUri: keys.url, ...options }), key };
}

/** A server whose introspection endpoint answers `answers[token]` (inactive for any other), active and for AUDIENCE from ISSUER. */
async function introspectingServer(answers: Record<string, Record<string, unknown>>): Promise<Guarded> {
  const exp = Math.floor(Date.now() / 1000) + 300;
  const endpoint = await introspectionEndpoint(cleanups, (t) =>
    answers[t] ? { active: true, iss: ISSUER, aud: AUDIENCE, scope: 'mcp:use', exp, ...answers[t] } : { active: false },
  );
  return serveGuarded(cleanups, { audience: AUDIENCE, introspection: { url: endpoint.url } });
}

function verifyingServer(answers: Record<string, TokenClaims>): Promise<Guarded> {
  return serveGuarded(cleanups, { audience: AUDIENCE, verify: (t) => answers[t] });
}

/** Initialize with `bearerToken`: the status, the WWW-Authenticate and the error message. */
async function refusedWith(served: Guarded, bearerToken: string): Promise<[number, string | null, string | undefined]> {
  const res = await post(served.url, INITIALIZE, { authorization: `Bearer ${bearerToken}` });
  const body = await res.json();
  return [res.status, res.headers.get('www-authenticate'), body.error?.message];
}

function invalidToken(served: Guarded, why: string): [number, string, string] {
  return [401, challenge(served.base, `, error="invalid_token", error_description="${why}"`), why];
}

const EMPTY_SUBJECT = "The access token's subject (sub) is empty, so it names no one";
const EMPTY_CLIENT = "The access token's client (client_id) is empty, so it names no client";

describe('bearer(): an empty name binds no one', () => {
  it('refuses a JWT with an empty sub, or an empty client_id, with 401 invalid_token saying why', async () => {
    const { served, key } = await jwtServer();
    expect(await refusedWith(served, await token({ key, subject: '' }))).toEqual(invalidToken(served, EMPTY_SUBJECT));
    expect(await refusedWith(served, await token({ key, subject: null, clientId: '' }))).toEqual(invalidToken(served, EMPTY_CLIENT));
    expect(await refusedWith(served, await token({ key, subject: 'alice', clientId: '' }))).toEqual(invalidToken(served, EMPTY_CLIENT));
    expect(served.sessions).toEqual([]);
  });

  it('refuses the same in an introspection answer', async () => {
    const served = await introspectingServer({ 'empty-sub': { sub: '' }, 'empty-client': { client_id: '' } });
    expect(await refusedWith(served, 'empty-sub')).toEqual(invalidToken(served, EMPTY_SUBJECT));
    expect(await refusedWith(served, 'empty-client')).toEqual(invalidToken(served, EMPTY_CLIENT));
  });

  it('refuses the same from a custom verify, with 401 rather than a server error', async () => {
    const served = await verifyingServer({ 'empty-sub': { subject: '' }, 'empty-client': { clientId: '' } });
    expect(await refusedWith(served, 'empty-sub')).toEqual(invalidToken(served, EMPTY_SUBJECT));
    expect(await refusedWith(served, 'empty-client')).toEqual(invalidToken(served, "The access token's client (clientId) is empty, so it names no client"));
    expect(served.errors).toEqual([]);
  });
});

describe('bearer(): a client acting for itself is not the user of its name', () => {
  it('names a JWT with no sub by its client: id <iss>#client#<client_id>, no subject', async () => {
    const { served, key } = await jwtServer();
    const { call } = await session(served.url, await token({ key, subject: null, clientId: 'alice' }));
    expect((await call('whoami')).status).toBe(200);
    expect(served.principals).toEqual([
      {
        id: `${ISSUER}#client#alice`,
        clientId: 'alice',
        scopes: ['mcp:use'],
        issuer: ISSUER,
        expiresAt: expect.any(Number),
        claims: { iss: ISSUER, aud: AUDIENCE, iat: expect.any(Number), exp: expect.any(Number), scope: 'mcp:use', client_id: 'alice' },
      },
    ]);
  });

  it("keeps the user alice's session from the client alice, and the client's from the user (404)", async () => {
    const { served, key } = await jwtServer();
    const user = await token({ key, subject: 'alice' });
    const client = await token({ key, subject: null, clientId: 'alice' });
    const usersSession = await session(served.url, user);
    expect((await usersSession.call('whoami', client)).status).toBe(404);
    expect((await usersSession.call('whoami')).status).toBe(200);
    const clientsSession = await session(served.url, client);
    expect((await clientsSession.call('whoami', user)).status).toBe(404);
    expect((await clientsSession.call('whoami')).status).toBe(200);
    expect(served.principals.map((p) => (p as { id: string }).id)).toEqual([`${ISSUER}#alice`, `${ISSUER}#client#alice`]);
  });

  it('names client principals alike from an introspection answer and a custom verify', async () => {
    const introspected = await introspectingServer({ opaque: { client_id: 'carol' } });
    await (await session(introspected.url, 'opaque')).call('whoami');
    expect(introspected.principals).toMatchObject([{ id: `${ISSUER}#client#carol`, clientId: 'carol' }]);
    expect(introspected.principals[0]).not.toHaveProperty('subject');

    const verified = await verifyingServer({ mine: { clientId: 'dave', scopes: ['a'] } });
    await (await session(verified.url, 'mine')).call('whoami');
    expect(verified.principals).toEqual([{ id: '#client#dave', clientId: 'dave', scopes: ['a'], claims: {} }]);
  });

  it('escapes # and % in every part of an id, so an issuer, sub or client_id cannot spell another principal', async () => {
    const { served, key } = await jwtServer();
    const lookalike = await session(served.url, await token({ key, subject: 'client#alice' }));
    // The client alice presenting the session of the user named "client#alice".
    expect((await lookalike.call('whoami', await token({ key, subject: null, clientId: 'alice' }))).status).toBe(404);
    await lookalike.call('whoami');
    await (await session(served.url, await token({ key, subject: '100%23' }))).call('whoami');
    expect(served.principals.map((p) => (p as { id: string }).id)).toEqual([`${ISSUER}#client%23alice`, `${ISSUER}#100%2523`]);

    // Two issuers a custom verify trusts: one with a # in its name, the other's user with a # in theirs.
    const verified = await verifyingServer({
      one: { issuer: 'https://a.example.test#x', subject: 'y' },
      two: { issuer: 'https://a.example.test', subject: 'x#y' },
    });
    const first = await session(verified.url, 'one');
    expect((await first.call('whoami', 'two')).status).toBe(404);
    expect((await first.call('whoami')).status).toBe(200);
    expect(verified.principals).toMatchObject([{ id: 'https://a.example.test%23x#y', subject: 'y' }]);
  });
});

describe('bearer({ requireAtJwtType })', () => {
  it('refuses a JWT whose typ is not at+jwt with 401 invalid_token, and admits at+jwt and application/at+jwt', async () => {
    const { served, key } = await jwtServer({ requireAtJwtType: true });
    const why = 'The token is not an access token (its typ is not at+jwt)';
    expect(await refusedWith(served, await token({ key, typ: 'JWT' }))).toEqual(invalidToken(served, why));
    expect(await refusedWith(served, await token({ key, typ: null }))).toEqual(invalidToken(served, why));
    for (const typ of ['at+jwt', 'application/at+jwt']) {
      expect((await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key, typ })}` })).status, typ).toBe(200);
    }
  });

  it('admits a JWT of any typ by default: Auth0 and Keycloak send typ JWT', async () => {
    const { served, key } = await jwtServer();
    for (const typ of ['JWT', null]) {
      expect((await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key, typ })}` })).status, String(typ)).toBe(200);
    }
  });

  it('refuses a requireAtJwtType that is not a boolean, or one without JWTs to check, naming the option', () => {
    const jwt = { issuer: ISSUER, audience: AUDIENCE, jwksUri: 'https://issuer.example.test/jwks' };
    expect(() => bearer({ ...jwt, requireAtJwtType: 'yes' as never })).toThrow(new TypeError('bearer(): requireAtJwtType must be true or false; got "yes"'));
    expect(() => bearer({ audience: AUDIENCE, verify: () => undefined, requireAtJwtType: true })).toThrow(
      new TypeError('bearer(): requireAtJwtType checks JWTs, so it needs jwksUri'),
    );
  });
});
