/**
 * An issuer for tests: ES256 keys generated here, their JWKS served on 127.0.0.1 (counting its requests,
 * and answering an error status or late when told to), access tokens signed with them, and an introspection endpoint.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import type { Cleanups } from './cleanups.js';
import { listenOnLoopback } from './ports.js';

export interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  jwk: JWK;
}

export async function signingKey(kid: string): Promise<SigningKey> {
  const pair = await generateKeyPair('ES256', { extractable: true });
  return { kid, privateKey: pair.privateKey, jwk: { ...(await exportJWK(pair.publicKey)), kid, alg: 'ES256', use: 'sig' } };
}

export interface JwksEndpoint {
  url: string;
  /** The keys it publishes now. */
  keys: SigningKey[];
  /** The status it answers: 200 with the keys, anything else with an empty body. */
  status: number;
  /** What it answers with 200 instead of the keys, when set. */
  body?: string;
  /** How many requests it has had. */
  requests: number;
  /** How long it waits before it answers (ms), with what `keys`, `status` and `body` hold when it does. Default 0. */
  delayMs: number;
}

/** A JWKS endpoint on 127.0.0.1 serving whatever `keys`, `status` and `body` hold now. */
export async function jwksEndpoint(cleanups: Cleanups, keys: SigningKey[]): Promise<JwksEndpoint> {
  const http = createServer((_req, res) => {
    endpoint.requests++;
    const answer = () => {
      if (endpoint.status !== 200) return void res.writeHead(endpoint.status).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(endpoint.body ?? JSON.stringify({ keys: endpoint.keys.map((k) => k.jwk) }));
    };
    if (endpoint.delayMs === 0) return answer();
    const timer = setTimeout(answer, endpoint.delayMs);
    res.on('close', () => clearTimeout(timer));
  });
  await listenOnLoopback(cleanups, http);
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/jwks.json`;
  const endpoint: JwksEndpoint = { url, keys, status: 200, requests: 0, delayMs: 0 };
  return endpoint;
}

export interface AccessTokenOptions {
  issuer: string;
  audience: string;
  /** `sub`; null for none (a client acting for itself). Default `alice`. */
  subject?: string | null;
  /** `client_id`; null for none. Default none. */
  clientId?: string | null;
  scope?: string;
  /** The header's `typ`; null for none. Default `at+jwt`. */
  typ?: string | null;
  /** Seconds from now. Default 300. */
  expiresIn?: number;
  /** Seconds from now; none by default. */
  notBefore?: number;
  /** The header's `kid`. Default the key's. */
  kid?: string;
}

/** An access token signed with `key`. */
export function accessToken(key: SigningKey, o: AccessTokenOptions): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = { scope: o.scope ?? 'mcp:use' };
  if (o.clientId != null) claims.client_id = o.clientId;
  const typ = o.typ === undefined ? 'at+jwt' : o.typ;
  const jwt = new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', kid: o.kid ?? key.kid, ...(typ === null ? {} : { typ }) })
    .setIssuer(o.issuer)
    .setAudience(o.audience)
    .setIssuedAt(now)
    .setExpirationTime(now + (o.expiresIn ?? 300));
  const subject = o.subject === undefined ? 'alice' : o.subject;
  if (subject !== null) jwt.setSubject(subject);
  if (o.notBefore !== undefined) jwt.setNotBefore(now + o.notBefore);
  return jwt.sign(key.privateKey);
}

export interface TestIssuer {
  issuer: string;
  /** Where the JWKS is served. */
  jwksUri: string;
  /** A token for `audience`, from `subject`, granting `scope`, valid for five minutes. */
  token(options: { audience: string; subject?: string; scope?: string }): Promise<string>;
}

export async function testIssuer(cleanups: Cleanups, issuer = 'https://issuer.example.test/'): Promise<TestIssuer> {
  const key = await signingKey('test-key');
  const endpoint = await jwksEndpoint(cleanups, [key]);
  return { issuer, jwksUri: endpoint.url, token: (options) => accessToken(key, { issuer, typ: null, ...options }) };
}

/** An RFC 7662 endpoint on 127.0.0.1 answering what `answer` says of each token ('fail': 500); it records each request's Authorization and body. */
export async function introspectionEndpoint(cleanups: Cleanups, answer: (token: string) => Record<string, unknown> | 'fail') {
  const seen: { authorization: string | undefined; body: string }[] = [];
  const http = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      seen.push({ authorization: req.headers.authorization, body });
      const out = answer(new URLSearchParams(body).get('token') ?? '');
      if (out === 'fail') return void res.writeHead(500).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(out));
    });
  });
  await listenOnLoopback(cleanups, http);
  return { seen, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/introspect` };
}
