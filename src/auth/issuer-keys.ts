/**
 * The issuer's signing keys (its JWKS) for `bearer()`: fetched at the first token, fetched again in the
 * background once they are `cacheMaxAgeMs` old (they serve meanwhile), fetched sooner only for a key id
 * not seen yet, and never twice within the cooldown. A request waits on a fetch only when there are no
 * keys yet or its key id is unknown. A failed fetch keeps the last good keys serving and doubles the
 * pause before the next one (up to `maxCooldownMs`), so an issuer that fails is not asked once per request.
 */
import type { createLocalJWKSet, FlattenedJWSInput, JSONWebKeySet, JWSHeaderParameters } from 'jose';

export interface JwksOptions {
  /** How long fetched keys are used before they are fetched again (ms). Default 600 000. */
  cacheMaxAgeMs?: number;
  /** The least time between two fetches (ms); it doubles with each failed fetch in a row. Default 30 000. */
  cooldownMs?: number;
  /** The longest pause after failed fetches in a row (ms). Default 300 000, or `cooldownMs` when that is longer. */
  maxCooldownMs?: number;
  /** How long to wait for the issuer's answer (ms). Default 5000. */
  timeoutMs?: number;
}

/** The keys cannot be read now: none were ever fetched, or a key id is unknown while the issuer fails. The message says why and when it is asked again. */
export class IssuerKeysUnavailableError extends Error {
  override name = 'IssuerKeysUnavailableError';
  constructor(
    message: string,
    /** Whole seconds until the issuer is asked again. */
    readonly retryAfterSeconds: number,
    options: { cause: unknown },
  ) {
    super(message, options);
  }
}

type LocalKeys = ReturnType<typeof createLocalJWKSet>;

const DEFAULTS = { cacheMaxAgeMs: 600_000, cooldownMs: 30_000, maxCooldownMs: 300_000, timeoutMs: 5000 };

/** `jwks` as bearer() takes it, checked at construction: every bound a whole number of milliseconds. */
export function checkJwksOptions(jwks: unknown): void {
  if (jwks === undefined) return;
  if (typeof jwks !== 'object' || jwks === null) {
    throw new TypeError('bearer(): jwks must be an object { cacheMaxAgeMs, cooldownMs, maxCooldownMs, timeoutMs }');
  }
  const given = jwks as Record<string, unknown>;
  for (const name of ['cacheMaxAgeMs', 'cooldownMs', 'maxCooldownMs', 'timeoutMs'] as const) {
    const value = given[name];
    const least = name === 'timeoutMs' ? 1 : 0;
    if (value !== undefined && (!Number.isSafeInteger(value) || (value as number) < least)) {
      throw new TypeError(`bearer(): jwks.${name} must be a whole number of milliseconds, at least ${least}; got ${String(value)}`);
    }
  }
  if (given.maxCooldownMs !== undefined && (given.maxCooldownMs as number) < ((given.cooldownMs as number | undefined) ?? DEFAULTS.cooldownMs)) {
    throw new TypeError(`bearer(): jwks.maxCooldownMs must be at least jwks.cooldownMs (${String(given.cooldownMs ?? DEFAULTS.cooldownMs)})`);
  }
}

/** Why a fetch failed, in a few words for the server's error event. */
function failureOf(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  if (err.name === 'TimeoutError') return 'timed out';
  if (err.name === 'SyntaxError') return 'answered something that is not JSON';
  if ((err as { code?: string }).code === 'ERR_JWKS_INVALID') return 'answered something that is not a JSON Web Key Set';
  const code = (err.cause as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? `${err.message} (${code})` : err.message;
}

export class IssuerKeys {
  private readonly cacheMaxAgeMs: number;
  private readonly cooldownMs: number;
  private readonly maxCooldownMs: number;
  private readonly timeoutMs: number;
  private keys: LocalKeys | undefined;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  /** The earliest moment the issuer may be asked again: a cooldown after a good fetch, a growing pause after failed ones. */
  private nextFetchAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;
  private lastFailure: unknown;
  private fetching: Promise<void> | undefined;

  constructor(
    private readonly url: string,
    private readonly localKeys: typeof createLocalJWKSet,
    options: JwksOptions = {},
    private readonly now: () => number = Date.now,
  ) {
    this.cacheMaxAgeMs = options.cacheMaxAgeMs ?? DEFAULTS.cacheMaxAgeMs;
    this.cooldownMs = options.cooldownMs ?? DEFAULTS.cooldownMs;
    this.maxCooldownMs = options.maxCooldownMs ?? Math.max(DEFAULTS.maxCooldownMs, this.cooldownMs);
    this.timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  }

  /** The key for a token's protected header, as jose's `jwtVerify` asks for it. */
  readonly lookup = async (header: JWSHeaderParameters, token: FlattenedJWSInput): Promise<CryptoKey> => {
    if (this.keys === undefined) await this.refresh();
    // Stale keys still serve: a slow or failing issuer must not hold up tokens signed with a key in hand.
    else if (this.now() - this.fetchedAt >= this.cacheMaxAgeMs) void this.refresh();
    const keys = this.keys;
    if (keys === undefined) throw this.unavailable();
    try {
      return await keys(header, token);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw err;
      // A key id not seen yet: the issuer may have rolled its keys over since.
      await this.refresh();
      if (this.keys !== keys) return this.keys!(header, token);
      // Whether the issuer publishes it is known only when its last answer was good.
      if (this.failuresInARow > 0) throw this.unavailable();
      throw err;
    }
  };

  /** Settles once the fetch under way, if any, has (it never rejects). */
  settled(): Promise<void> {
    return this.fetching ?? Promise.resolve();
  }

  /** Fetch the keys unless a fetch is under way (then wait for it) or the cooldown has not passed (then do nothing). */
  private refresh(): Promise<void> {
    if (this.fetching) return this.fetching;
    if (this.now() < this.nextFetchAt) return Promise.resolve();
    this.fetching = this.fetchKeys().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  private async fetchKeys(): Promise<void> {
    try {
      // Redirects are not followed (as jose does): the keys come from the URL configured, or not at all.
      const response = await fetch(this.url, {
        headers: { accept: 'application/json, application/jwk-set+json' },
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        throw new Error(`answered HTTP ${response.status}`);
      }
      const keys = this.localKeys((await response.json()) as JSONWebKeySet);
      this.keys = keys;
      this.fetchedAt = this.now();
      this.failuresInARow = 0;
      this.nextFetchAt = this.fetchedAt + this.cooldownMs;
    } catch (err) {
      this.failuresInARow++;
      this.lastFailure = err;
      const pause = Math.min(this.cooldownMs * 2 ** Math.min(this.failuresInARow - 1, 30), this.maxCooldownMs);
      this.nextFetchAt = this.now() + pause;
    }
  }

  private unavailable(): IssuerKeysUnavailableError {
    const seconds = Math.max(0, Math.ceil((this.nextFetchAt - this.now()) / 1000));
    return new IssuerKeysUnavailableError(`${failureOf(this.lastFailure)}; next try in ${seconds} s`, seconds, { cause: this.lastFailure });
  }
}
