/** An issuer for tests: an ES256 key, its JWKS served on 127.0.0.1, and access tokens signed with it. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Cleanups } from './util.js';

export interface TestIssuer {
  issuer: string;
  /** Where the JWKS is served. */
  jwksUri: string;
  /** A token for `audience`, from `subject`, granting `scope`, valid for five minutes. */
  token(options: { audience: string; subject?: string; scope?: string }): Promise<string>;
}

export async function testIssuer(cleanups: Cleanups, issuer = 'https://issuer.example.test/'): Promise<TestIssuer> {
  const { publicKey, privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'ES256' };
  const jwks = createServer((_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] })));
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  cleanups.push(
    () =>
      new Promise<void>((resolve) => {
        jwks.close(() => resolve());
        jwks.closeAllConnections();
      }),
  );
  return {
    issuer,
    jwksUri: `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks.json`,
    token: ({ audience, subject = 'alice', scope = 'mcp:use' }) => {
      const now = Math.floor(Date.now() / 1000);
      return new SignJWT({ scope })
        .setProtectedHeader({ alg: 'ES256', kid: 'test-key' })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(audience)
        .setIssuedAt(now)
        .setExpirationTime(now + 300)
        .sign(privateKey);
    },
  };
}
