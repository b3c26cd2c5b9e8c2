/**
 * URL-mode elicitation bound to the principal it was issued for (the 2026-07-28 spec's phishing rule:
 * the server must check that the user who completes the flow is the one it asked). `issue` puts a
 * signed, expiring claim in the URL; the page that serves the flow authenticates its user its own way
 * and calls `verify` with that user's principal, which must be the one the elicitation was issued for.
 */
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { principalKey, UNKEYED_PRINCIPAL } from '../protocol/principal.js';

export interface UrlElicitationBinderOptions {
  /** The signing key (at least 32 bytes): the same on every instance that serves the page. Default: random, this process only. */
  secret?: string | Uint8Array;
  /** How long an issued URL stays valid. Default 10 minutes. */
  ttlMs?: number;
  /** The query parameter that carries the claim. Default `mcp_elicitation`. */
  param?: string;
}

export interface IssuedElicitation {
  /** The URL to send in the URL-mode elicitation (the page's URL, with the signed claim). */
  url: string;
  /** The elicitation id to send with it (2025-11-25), and to pass to `sendElicitationComplete`. */
  elicitationId: string;
}

/** Why `verify` refused: the URL carries no claim, a forged or expired one, or the user is someone else. */
export class ElicitationBindingError extends Error {
  override name = 'ElicitationBindingError';
  constructor(
    readonly reason: 'missing' | 'invalid' | 'expired' | 'other-principal',
    message: string,
  ) {
    super(message);
  }
}

interface Claim {
  /** The elicitation id. */
  e: string;
  /** A keyed digest of the principal. */
  p: string;
  /** Expiry, epoch ms. */
  x: number;
}

export class UrlElicitationBinder {
  private readonly key: Buffer;
  private readonly ttlMs: number;
  private readonly param: string;

  constructor(options: UrlElicitationBinderOptions = {}) {
    const secret = options.secret ?? randomBytes(32);
    this.key = Buffer.from(typeof secret === 'string' ? Buffer.from(secret, 'utf8') : secret);
    if (this.key.length < 32) throw new TypeError('UrlElicitationBinder: secret must be at least 32 bytes');
    this.ttlMs = options.ttlMs ?? 600_000;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs <= 0) throw new TypeError(`UrlElicitationBinder: ttlMs must be a positive integer; got ${options.ttlMs}`);
    this.param = options.param ?? 'mcp_elicitation';
  }

  /** A URL for `principal` (the request's, `ctx.session.principal`): `page` with the signed claim, and a fresh elicitation id. */
  issue(principal: unknown, page: string | URL, elicitationId: string = randomUUID()): IssuedElicitation {
    const url = new URL(page);
    const claim: Claim = { e: elicitationId, p: this.principalDigest(principal), x: Date.now() + this.ttlMs };
    const payload = Buffer.from(JSON.stringify(claim)).toString('base64url');
    url.searchParams.set(this.param, `${payload}.${this.sign(payload)}`);
    return { url: url.toString(), elicitationId };
  }

  /**
   * The elicitation id the URL `page` was issued for, when `principal` (the user the page authenticated)
   * is the one it was issued to; otherwise an ElicitationBindingError saying why.
   */
  verify(page: string | URL, principal: unknown): string {
    const url = new URL(page, 'http://localhost');
    const value = url.searchParams.get(this.param);
    if (!value) throw new ElicitationBindingError('missing', `The URL carries no ${this.param}: it was not issued by this server`);
    const [payload, signature, extra] = value.split('.');
    if (!payload || !signature || extra !== undefined || !this.signedBy(payload, signature)) {
      throw new ElicitationBindingError('invalid', 'The elicitation URL was altered or signed with another key');
    }
    let claim: Claim;
    try {
      claim = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Claim;
    } catch {
      throw new ElicitationBindingError('invalid', 'The elicitation URL carries an unreadable claim');
    }
    if (!(claim.x > Date.now())) throw new ElicitationBindingError('expired', 'The elicitation URL expired: ask again from the client');
    if (!this.sameDigest(claim.p, this.principalDigest(principal))) {
      throw new ElicitationBindingError('other-principal', 'This elicitation was issued to another user: sign in as the user the client acts for');
    }
    return claim.e;
  }

  private principalDigest(principal: unknown): string {
    const key = principalKey(principal);
    if (key === undefined) throw new TypeError(`Cannot bind an elicitation: ${UNKEYED_PRINCIPAL}`);
    return createHmac('sha256', this.key).update(`principal\0${key}`).digest('base64url');
  }

  private sign(payload: string): string {
    return createHmac('sha256', this.key).update(`claim\0${payload}`).digest('base64url');
  }

  private signedBy(payload: string, signature: string): boolean {
    return this.sameDigest(signature, this.sign(payload));
  }

  private sameDigest(a: string, b: string): boolean {
    const x = Buffer.from(a);
    const y = Buffer.from(b);
    return x.length === y.length && timingSafeEqual(x, y);
  }
}
