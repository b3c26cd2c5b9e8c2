/**
 * The issuer's keys when the issuer fails or is slow, over real sockets: a JWKS endpoint on 127.0.0.1
 * that answers 500 is asked once per pause, not once per request, and each 503 names that pause in
 * Retry-After; the last good keys keep serving meanwhile, without waiting on a refresh; and, on a clock
 * the test moves, the pauses double from `cooldownMs` up to `maxCooldownMs`.
 */
import type { IncomingMessage } from 'node:http';
import { createLocalJWKSet, type FlattenedJWSInput } from 'jose';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { IssuerKeys, IssuerKeysUnavailableError } from '../../src/auth/issuer-keys.js';
import { bearer } from '../../src/index.js';
import { AUDIENCE, challenge, INITIALIZE, ISSUER, post, serveGuarded, token } from '../helpers/guarded-server.js';
import { type JwksEndpoint, jwksEndpoint, signingKey } from '../helpers/oauth.js';
import { useCleanups } from '../helpers/cleanups.js';

const cleanups = useCleanups();
const UNAVAILABLE = 'Cannot check the access token now; try again shortly';

describe('bearer(): an issuer whose keys cannot be read', () => {
  it('asks an issuer that answers 500 once for 50 requests, each answered 503 with Retry-After saying when it is asked again', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    keys.status = 500;
    const served = await serveGuarded(cleanups, { audience: AUDIENCE, jwksUri: keys.url });
    const jwt = await token({ key });
    const retryAfter: (string | null)[] = [];
    for (let i = 0; i < 50; i++) {
      const res = await post(served.url, INITIALIZE, { authorization: `Bearer ${jwt}` });
      retryAfter.push(res.headers.get('retry-after'));
      expect([res.status, res.headers.get('www-authenticate'), (await res.json()).error.message], `request ${i}`).toEqual([
        503,
        challenge(served.base, `, error_description="${UNAVAILABLE}"`),
        UNAVAILABLE,
      ]);
    }
    expect(keys.requests).toBe(1);
    // Each 503 tells the server why, and when the issuer is asked again; Retry-After tells the client the same.
    expect(served.errors).toHaveLength(50);
    expect(served.errors[0]!.message).toBe(`bearer(): the issuer's keys (${keys.url}) could not be read: answered HTTP 500; next try in 30 s`);
    expect(retryAfter[0]).toBe('30');
    expect(served.errors.map((e) => /could not be read: answered HTTP 500; next try in (29|30) s$/.exec(e.message)?.[1])).toEqual(retryAfter);
  });

  it('says the pause in Retry-After over HTTP and on a WebSocket upgrade, as long as it lasts', async () => {
    const key = await signingKey('k1');
    const keys = await jwksEndpoint(cleanups, [key]);
    keys.status = 500;
    const served = await serveGuarded(cleanups, { audience: AUDIENCE, jwksUri: keys.url, jwks: { cooldownMs: 7000 } });
    const authorization = `Bearer ${await token({ key })}`;
    const res = await post(served.url, INITIALIZE, { authorization });
    expect([res.status, res.headers.get('retry-after')]).toEqual([503, '7']);
    const upgrade = await new Promise<IncomingMessage>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${served.port}/mcp`, 'mcp', { headers: { authorization } });
      ws.on('unexpected-response', (_req, response) => resolve(response));
      ws.on('open', () => reject(new Error('the upgrade was accepted')));
      ws.on('error', () => {});
    });
    expect([upgrade.statusCode, upgrade.headers['retry-after']]).toEqual([503, '7']);
    upgrade.resume();
    expect(keys.requests).toBe(1);
  });

  it('serves with the last good keys while a refresh fails, and a key rolled over meanwhile gets 503 until the issuer answers', async () => {
    const [k1, k2] = [await signingKey('k1'), await signingKey('k2')];
    const keys = await jwksEndpoint(cleanups, [k1]);
    // Keys always due for a refresh, and no pause: every request asks the issuer.
    const served = await serveGuarded(cleanups, { audience: AUDIENCE, jwksUri: keys.url, jwks: { cacheMaxAgeMs: 0, cooldownMs: 0 } });
    const status = async (key: typeof k1) => (await post(served.url, INITIALIZE, { authorization: `Bearer ${await token({ key })}` })).status;
    expect(await status(k1)).toBe(200);
    keys.status = 500;
    keys.keys = [k1, k2];
    expect(await status(k1)).toBe(200);
    expect(await status(k1)).toBe(200);
    // Signed with a key the issuer may publish by now: this server cannot tell, so not 401.
    expect(await status(k2)).toBe(503);
    // A refresh for each request at most (cooldownMs 0 means no pause at all), one at a time.
    expect(keys.requests).toBeGreaterThanOrEqual(2);
    expect(keys.requests).toBeLessThanOrEqual(4);
    keys.status = 200;
    expect(await status(k2)).toBe(200);
    expect(await status(k1)).toBe(200);
  });
});

describe('IssuerKeys on a clock the test moves', () => {
  async function keysOnClock(options: ConstructorParameters<typeof IssuerKeys>[2]) {
    const [k1, k2] = [await signingKey('k1'), await signingKey('k2')];
    const endpoint = await jwksEndpoint(cleanups, [k1]);
    const clock = { now: 0 };
    const keys = new IssuerKeys(endpoint.url, createLocalJWKSet, options, () => clock.now);
    /** Look a key id up at `at` ms: 'key' or the error's message or code, now. */
    const lookupNow = (at: number, kid: string): Promise<string> => {
      clock.now = at;
      return keys.lookup({ alg: 'ES256', kid }, undefined as unknown as FlattenedJWSInput).then(
        () => 'key',
        (err: Error) => (err instanceof IssuerKeysUnavailableError ? `unavailable: ${err.message}` : ((err as { code?: string }).code ?? err.message)),
      );
    };
    /** The same, and how many requests the endpoint has had once a refresh it started in the background is done. */
    const lookupAt = async (at: number, kid: string): Promise<[string, number]> => {
      const outcome = await lookupNow(at, kid);
      await keys.settled();
      return [outcome, endpoint.requests];
    };
    return { endpoint: endpoint as JwksEndpoint, k1, k2, keys, lookupAt, lookupNow };
  }

  /** `lookup`'s outcome and how long it took, in real ms. */
  async function timed(lookup: Promise<string>): Promise<[string, number]> {
    const started = performance.now();
    const outcome = await lookup;
    return [outcome, performance.now() - started];
  }

  it('serves stale keys at once while a slow issuer answers the refresh, and uses what it answers once it arrives', async () => {
    const { endpoint, k1, k2, lookupAt, lookupNow } = await keysOnClock({ cooldownMs: 1000, cacheMaxAgeMs: 60_000 });
    expect(await lookupAt(0, 'k1')).toEqual(['key', 1]);
    // The issuer rolls k1 over to k2, and takes 2 s to say so.
    endpoint.keys = [k2];
    endpoint.delayMs = 2000;
    const [stale, waited] = await timed(lookupNow(60_000, 'k1'));
    expect(stale).toBe('key');
    expect(waited).toBeLessThan(1000);
    const [again, waitedAgain] = await timed(lookupNow(60_500, 'k1'));
    expect(again).toBe('key');
    expect(waitedAgain).toBeLessThan(1000);
    // A key id it has not seen waits for the refresh under way, and asks no second time.
    const [rolled, waitedForRefresh] = await timed(lookupNow(60_500, 'k2'));
    expect(rolled).toBe('key');
    expect(waitedForRefresh).toBeGreaterThan(1000);
    expect(endpoint.requests).toBe(2);
    // The refreshed keys serve now: k1 is retired, and within the cooldown the issuer is not asked about it.
    expect(await lookupAt(60_500, 'k1')).toEqual(['ERR_JWKS_NO_MATCHING_KEY', 2]);
    endpoint.keys = [k1, k2];
    expect(await lookupAt(61_499, 'k1')).toEqual(['ERR_JWKS_NO_MATCHING_KEY', 2]);
  });

  it('refreshes stale keys in the background once per cooldown while the issuer fails, serving the old ones without a wait', async () => {
    const { endpoint, lookupAt, lookupNow } = await keysOnClock({ cooldownMs: 1000, cacheMaxAgeMs: 60_000 });
    expect(await lookupAt(0, 'k1')).toEqual(['key', 1]);
    endpoint.status = 500;
    endpoint.delayMs = 2000;
    const [outcome, waited] = await timed(lookupNow(60_000, 'k1'));
    expect(outcome).toBe('key');
    expect(waited).toBeLessThan(1000);
    expect(await lookupAt(60_000, 'k1')).toEqual(['key', 2]);
    // The refresh failed: the pause is one cooldown from when it did, and the old keys keep serving.
    expect(await lookupAt(60_999, 'k1')).toEqual(['key', 2]);
    endpoint.delayMs = 0;
    expect(await lookupAt(61_000, 'k1')).toEqual(['key', 3]);
    // Failed twice in a row: two cooldowns.
    expect(await lookupAt(62_999, 'k1')).toEqual(['key', 3]);
    endpoint.status = 200;
    expect(await lookupAt(63_000, 'k1')).toEqual(['key', 4]);
    expect(await lookupAt(64_000, 'k1')).toEqual(['key', 4]);
  });

  it('pauses after failed fetches in a row for 1, 2, 4... cooldowns up to maxCooldownMs, and a good fetch resets the pause', async () => {
    const { endpoint, k2, lookupAt } = await keysOnClock({ cooldownMs: 1000, maxCooldownMs: 5000 });
    endpoint.status = 500;
    expect(await lookupAt(0, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 1]);
    expect(await lookupAt(999, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 1]);
    expect(await lookupAt(1000, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 2 s', 2]);
    expect(await lookupAt(2999, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 2]);
    expect(await lookupAt(3000, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 4 s', 3]);
    expect(await lookupAt(7000, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 5 s', 4]);
    expect(await lookupAt(11_999, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 4]);
    expect(await lookupAt(12_000, 'k1')).toEqual(['unavailable: answered HTTP 500; next try in 5 s', 5]);
    endpoint.status = 200;
    expect(await lookupAt(17_000, 'k1')).toEqual(['key', 6]);
    // Failing again: the pause starts over from one cooldown, and the key it has keeps serving.
    endpoint.status = 500;
    endpoint.keys.push(k2);
    expect(await lookupAt(18_000, 'k2')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 7]);
    expect(await lookupAt(18_999, 'k2')).toEqual(['unavailable: answered HTTP 500; next try in 1 s', 7]);
    expect(await lookupAt(18_999, 'k1')).toEqual(['key', 7]);
  });

  it('uses its keys for cacheMaxAgeMs and past it while a refresh fails, and fetches a key id it has not seen at most once per cooldown', async () => {
    const { endpoint, k2, lookupAt } = await keysOnClock({ cooldownMs: 1000, cacheMaxAgeMs: 60_000 });
    expect(await lookupAt(0, 'k1')).toEqual(['key', 1]);
    // Fetched within the cooldown: the issuer does not publish k2, as far as anyone can know.
    expect(await lookupAt(500, 'k2')).toEqual(['ERR_JWKS_NO_MATCHING_KEY', 1]);
    expect(await lookupAt(1000, 'k2')).toEqual(['ERR_JWKS_NO_MATCHING_KEY', 2]);
    endpoint.keys.push(k2);
    expect(await lookupAt(1999, 'k2')).toEqual(['ERR_JWKS_NO_MATCHING_KEY', 2]);
    expect(await lookupAt(2000, 'k2')).toEqual(['key', 3]);
    expect(await lookupAt(61_999, 'k1')).toEqual(['key', 3]);
    expect(await lookupAt(62_000, 'k1')).toEqual(['key', 4]);
    // Due for a refresh, and the issuer fails: the keys it has still serve, and it is not asked again for a cooldown.
    endpoint.status = 500;
    expect(await lookupAt(122_000, 'k1')).toEqual(['key', 5]);
    expect(await lookupAt(122_999, 'k1')).toEqual(['key', 5]);
    expect(await lookupAt(123_000, 'k1')).toEqual(['key', 6]);
  });

  it('keeps its keys when the issuer answers something that is not a key set, and shares one fetch among lookups under way', async () => {
    const { endpoint, lookupAt, keys } = await keysOnClock({ cooldownMs: 1000, cacheMaxAgeMs: 0 });
    const all = await Promise.all(Array.from({ length: 10 }, () => keys.lookup({ alg: 'ES256', kid: 'k1' }, undefined as unknown as FlattenedJWSInput)));
    expect([all.length, endpoint.requests]).toEqual([10, 1]);
    endpoint.body = JSON.stringify({ keys: 'none' });
    expect(await lookupAt(1000, 'k3')).toEqual(['unavailable: answered something that is not a JSON Web Key Set; next try in 1 s', 2]);
    expect(await lookupAt(1000, 'k1')).toEqual(['key', 2]);
    endpoint.body = '<html>';
    expect(await lookupAt(2000, 'k1')).toEqual(['key', 3]);
    expect(await lookupAt(3000, 'k3')).toEqual(['unavailable: answered something that is not JSON; next try in 1 s', 3]);
  });
});

describe('bearer({ jwks })', () => {
  it('refuses bounds that are not whole milliseconds, and a maxCooldownMs below the cooldown, naming the option', () => {
    const jwt = { issuer: ISSUER, audience: AUDIENCE, jwksUri: 'https://issuer.example.test/jwks' };
    expect(() => bearer({ ...jwt, jwks: { cooldownMs: -1 } })).toThrow(
      new TypeError('bearer(): jwks.cooldownMs must be a whole number of milliseconds, at least 0; got -1'),
    );
    expect(() => bearer({ ...jwt, jwks: { cacheMaxAgeMs: 1.5 } })).toThrow(
      new TypeError('bearer(): jwks.cacheMaxAgeMs must be a whole number of milliseconds, at least 0; got 1.5'),
    );
    expect(() => bearer({ ...jwt, jwks: { timeoutMs: 0 } })).toThrow(
      new TypeError('bearer(): jwks.timeoutMs must be a whole number of milliseconds, at least 1; got 0'),
    );
    expect(() => bearer({ ...jwt, jwks: { cooldownMs: 60_000, maxCooldownMs: 10_000 } })).toThrow(
      new TypeError('bearer(): jwks.maxCooldownMs must be at least jwks.cooldownMs (60000)'),
    );
  });
});
