/**
 * The requestState codec: what a handler keeps between MRTR rounds travels through the client, so it is
 * signed with HMAC-SHA256 (and optionally sealed with AES-256-GCM), bound to the request it belongs to,
 * and dated (basic/patterns/mrtr.mdx: treat inbound requestState as attacker-controlled).
 */
import * as crypto from 'node:crypto';
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import { InvalidRequestStateError } from '../protocol/errors.js';
import { canonicalJson, isEmptyRecord, isObject } from '../protocol/jsonrpc.js';

export interface RequestStateOptions {
  /** Secrets, at least 32 bytes each: the first signs, all verify (rotation). Default: one random key per process. */
  keys?: (string | Buffer)[];
  /** Encrypt the state as well as sign it (AES-256-GCM). Default false. */
  seal?: boolean;
  /** How long a requestState stays valid. Default 10 minutes. */
  ttlMs?: number;
  /**
   * Single-use enforcement: called with each verified state's id and expiry; return false (or a promise
   * of false) if that id was seen before, and the retry is refused as invalid.
   */
  consume?: (stateId: string, expiresAt: number) => boolean | Promise<boolean>;
  /**
   * Refuse a requestState that was used before, without a `consume` of your own: the server keeps the
   * marks (shared through its `scale` store, else in memory). Default false.
   */
  singleUse?: boolean;
}

/**
 * What the request is, for binding: one digest of the method, the tool/prompt name or URI, the arguments
 * and the principal (`bindingDigest`).
 */
export type StateBinding = string;

/** A question as requestState remembers it. */
export interface AskedQuestion {
  method: string;
  /** A form's requestedSchema: the answers must fit it. */
  schema?: object;
  /**
   * A form `ctx.elicit` asked: a digest of its schema instead of the schema, for the replayed handler asks
   * it again, and its answer is read then, against what it asks.
   */
  form?: string;
  /** An elicitation's message, and a URL-mode one's URL: what its response event shows. */
  message?: string;
  url?: string;
}

export interface StatePayload {
  /** A random id, for single-use enforcement: only when the codec has a `consume` to check it with. */
  id?: string;
  binding: StateBinding;
  expiresAt: number;
  round: number;
  /** What was asked in any round, by key: its method and, for forms, the schema answers must fit. */
  asked: Record<string, AskedQuestion>;
  /** The keys the last round asked: the retry's inputResponses answer these. */
  last: string[];
  /** Answers gathered in earlier rounds (the client sends only the latest round's); absent when none. */
  answers?: Record<string, unknown>;
  /** Answers to forms `ctx.elicit` asked that no replay has asked again yet, as the client sent them: read when one does. */
  unread?: Record<string, unknown>;
  /** The handler's own state. */
  state?: unknown;
}

interface Key {
  id: string;
  mac: Buffer;
  /** The MAC key XOR ipad (RFC 2104), with room after it for the text: what the inner hash reads. */
  inner: Buffer;
  /** The MAC key XOR opad, then the inner digest: what the outer hash reads. */
  outer: Buffer;
  seal: Buffer;
}

/** SHA-256's block: an HMAC key shorter than it is padded to it with zeros. */
const BLOCK = 64;
/** The longest text the pads' buffers take (as UTF-8 it is at most three bytes a character); longer ones go to createHmac. */
const PADDED_MAX_CHARS = 4096;

function padded(mac: Buffer, pad: number, room: number): Buffer {
  const out = Buffer.alloc(BLOCK + room);
  mac.copy(out);
  for (let i = 0; i < BLOCK; i++) out[i] ^= pad;
  return out;
}

function deriveKey(secret: string | Buffer): Key {
  const raw = typeof secret === 'string' ? Buffer.from(secret) : secret;
  if (raw.length < 32) throw new TypeError('requestState keys must be at least 32 bytes long');
  const mac = createHmac('sha256', raw).update('switchboard requestState mac').digest();
  return {
    id: createHash('sha256').update(raw).digest('base64url').slice(0, 8),
    mac,
    inner: padded(mac, 0x36, 3 * PADDED_MAX_CHARS),
    outer: padded(mac, 0x5c, 32),
    seal: createHmac('sha256', raw).update('switchboard requestState seal').digest(),
  };
}

/**
 * HMAC-SHA256 of `text` (as UTF-8) under `key`, in base64url: with one-shot hashing, two hashes over the pads
 * made once per key, where an Hmac object per token cost a quarter more; createHmac without it, or for a text too long.
 */
function mac(key: Key, text: string): string {
  if (!oneShot || text.length > PADDED_MAX_CHARS) return createHmac('sha256', key.mac).update(text).digest('base64url');
  const length = BLOCK + key.inner.write(text, BLOCK);
  // The inner digest as Latin-1 is its 32 bytes one for one: written after the outer pad, it is what the outer hash reads.
  key.outer.write(oneShot('sha256', key.inner.subarray(0, length), 'latin1'), BLOCK, 'latin1');
  return oneShot('sha256', key.outer, 'base64url');
}

/** Tokens minted here that open without decoding: how many, and how long each may be (a few MB at most). */
const MINTED_LIMIT = 1024;
const MINTED_MAX_CHARS = 4096;

export class RequestStateCodec {
  readonly ttlMs: number;
  /** True when no keys were configured: states do not survive a restart or cross instances. */
  readonly ephemeral: boolean;
  private readonly keys: Key[];
  private readonly seal: boolean;
  private readonly consume: RequestStateOptions['consume'];
  private warned = false;
  /** The tokens minted here lately with the JSON inside, by their ends (`mintedKey`; the oldest leave first). */
  private readonly minted = new Map<string, { token: string; text: string }>();

  constructor(options: RequestStateOptions = {}) {
    this.ttlMs = options.ttlMs ?? 600_000;
    if (!Number.isInteger(this.ttlMs) || this.ttlMs <= 0)
      throw new TypeError(`Option requestState.ttlMs must be a positive integer; got ${JSON.stringify(options.ttlMs)}`);
    if (options.keys !== undefined && (!Array.isArray(options.keys) || options.keys.length === 0)) {
      throw new TypeError('Option requestState.keys must be a non-empty array of secrets (the first signs, all verify)');
    }
    this.ephemeral = options.keys === undefined;
    this.keys = (options.keys ?? [randomBytes(32)]).map(deriveKey);
    this.seal = options.seal ?? false;
    this.consume = options.consume;
  }

  mint(payload: Omit<StatePayload, 'id' | 'expiresAt'>): string {
    if (this.ephemeral && !this.warned) {
      this.warned = true;
      process.emitWarning(
        'requestState is signed with a random per-process key: set requestState.keys when several instances serve one endpoint, or retries will fail',
        {
          code: 'SWITCHBOARD_EPHEMERAL_STATE_KEY',
        },
      );
    }
    const key = this.keys[0];
    const text = payloadJson(payload, Date.now() + this.ttlMs, this.consume ? randomUUID() : undefined);
    let token: string;
    if (this.seal) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key.seal, iv);
      const body = Buffer.concat([iv, cipher.update(text, 'utf8'), cipher.final(), cipher.getAuthTag()]).toString('base64url');
      token = `s1.${key.id}.${body}`;
    } else {
      const head = `v1.${key.id}.${base64url(text)}`;
      token = `${head}.${mac(key, head)}`;
    }
    if (token.length <= MINTED_MAX_CHARS) {
      if (this.minted.size >= MINTED_LIMIT) this.minted.delete(this.minted.keys().next().value as string);
      this.minted.set(mintedKey(token), { token, text });
    }
    return token;
  }

  /**
   * Verify and decode: the payload, or InvalidRequestStateError thrown for anything tampered, expired or
   * mis-bound; a promise only when a `consume` check must be waited for (rejected when the state was used).
   */
  read(token: unknown, binding: StateBinding): StatePayload | Promise<StatePayload> {
    if (typeof token !== 'string' || token.length > 1_000_000) throw new InvalidRequestStateError('not a requestState this server issued');
    // Equal to a token this codec minted is proof enough: no base64 to decode, no MAC or cipher to run.
    const text = (token.length <= MINTED_MAX_CHARS ? this.mintedText(token) : undefined) ?? this.verify(token).toString('utf8');
    let payload: StatePayload;
    try {
      payload = JSON.parse(text) as StatePayload;
    } catch {
      throw new InvalidRequestStateError('malformed');
    }
    if (!(payload.expiresAt > Date.now())) {
      this.minted.delete(mintedKey(token));
      throw new InvalidRequestStateError('expired');
    }
    if (payload.binding !== binding) throw new InvalidRequestStateError('issued for another request');
    if (this.consume) {
      // Consumed (or refused), it leaves: a later try takes the full path to `consume`. Without single use, one
      // token may come back (a client's repeat, or two requests alike minted in the same millisecond).
      this.minted.delete(mintedKey(token));
      // A state minted before single use was on has no id: it cannot be marked, so it is refused.
      if (typeof payload.id !== 'string') throw new InvalidRequestStateError('already used');
      return consumed(this.consume(payload.id, payload.expiresAt), payload);
    }
    return payload;
  }

  /** The JSON inside `token` if this codec minted it lately. */
  private mintedText(token: string): string | undefined {
    const minted = this.minted.get(mintedKey(token));
    return minted !== undefined && minted.token === token ? minted.text : undefined;
  }

  /** The JSON inside a token from anywhere: its MAC checked (or its seal opened) with the key it names. */
  private verify(token: string): Buffer {
    const parts = token.split('.');
    const key = this.keys.find((k) => k.id === parts[1]);
    if (!key) throw new InvalidRequestStateError('unknown key');
    if (parts[0] === 's1' && parts.length === 3) {
      const raw = Buffer.from(parts[2], 'base64url');
      if (raw.length < 29) throw new InvalidRequestStateError('malformed');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key.seal, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(raw.length - 16));
        return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]);
      } catch {
        throw new InvalidRequestStateError('failed authentication');
      }
    }
    if (parts[0] === 'v1' && parts.length === 4) {
      // A server that seals never issued a signed-only state: one is a downgrade, whoever signed it.
      if (this.seal) throw new InvalidRequestStateError('not sealed');
      const expected = Buffer.from(mac(key, token.slice(0, token.lastIndexOf('.'))), 'base64url');
      const given = Buffer.from(parts[3], 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new InvalidRequestStateError('bad signature');
      return Buffer.from(parts[2], 'base64url');
    }
    throw new InvalidRequestStateError('malformed');
  }
}

/**
 * What a minted token is found by: its last characters, which are its MAC (or its seal's tag), so that the
 * map hashes those and not a token's whole length; the whole token is compared on a hit.
 */
function mintedKey(token: string): string {
  return token.slice(-MINTED_KEY_CHARS);
}

const MINTED_KEY_CHARS = 24;

/**
 * The JSON of a state: the members in the order StatePayload lists them, and like JSON.stringify of that
 * object, a member whose value has no JSON form (undefined) left out; empty answers say nothing, and an id
 * is there only to be consumed. Written out, where JSON.stringify of a literal with undefined members cost
 * twice as much.
 */
function payloadJson(payload: Omit<StatePayload, 'id' | 'expiresAt'>, expiresAt: number, id: string | undefined): string {
  let json = `{"binding":${JSON.stringify(payload.binding)},"round":${JSON.stringify(payload.round)},"asked":${JSON.stringify(payload.asked)},"last":${JSON.stringify(payload.last)}`;
  json += member('unread', payload.unread) + member('state', payload.state);
  json += `,"expiresAt":${expiresAt}`;
  if (payload.answers !== undefined && !isEmptyRecord(payload.answers)) json += member('answers', payload.answers);
  if (id !== undefined) json += `,"id":"${id}"`;
  return `${json}}`;
}

function member(name: string, value: unknown): string {
  const json = value === undefined ? undefined : JSON.stringify(value);
  return json === undefined ? '' : `,"${name}":${json}`;
}

/** Scratch for `base64url`: a state's JSON is written here, and read out as base64url, with no Buffer made per token. */
const scratch = Buffer.allocUnsafe(3 * MINTED_MAX_CHARS);

function base64url(text: string): string {
  // As UTF-8 a character is at most three bytes: a text that might not fit gets a Buffer of its own.
  if (text.length > MINTED_MAX_CHARS) return Buffer.from(text).toString('base64url');
  return scratch.toString('base64url', 0, scratch.write(text));
}

/** The payload once `consume` said it is the first use; InvalidRequestStateError when it was not. */
async function consumed(first: boolean | Promise<boolean>, payload: StatePayload): Promise<StatePayload> {
  if (!(await first)) throw new InvalidRequestStateError('already used');
  return payload;
}

/** What a request is bound by: its method, target, arguments (key order aside) and principal key. */
export interface BindingParts {
  method: string;
  target: string;
  arguments: unknown;
  principalKey: string;
}

/**
 * One digest binds a state to its request: 128 bits of SHA-256 over the parts, which is all a state inside
 * a MAC needs (one hash per round, where a digest per part and the whole cost three).
 */
export function bindingDigest(parts: BindingParts): StateBinding {
  const args = parts.arguments;
  // Most calls have no arguments: skip sorting keys that are not there. Object keys sorted, so the client's key order does not matter.
  const argsJson = args === undefined || args === null || (isObject(args) && isEmptyRecord(args)) ? '{}' : canonicalJson(args);
  const bound = `${quotedMethod(parts.method)},${JSON.stringify(parts.target)},${quotedPrincipal(parts.principalKey)},${argsJson}`;
  // A round is bound twice (when its state is minted, and when the retry opens it): the second time is a lookup.
  if (bound.length > BOUND_MAX_CHARS) return sha256(bound).slice(0, 22);
  let digest = boundLately.get(bound);
  if (digest === undefined) {
    digest = sha256(bound).slice(0, 22);
    if (boundLately.size >= BOUND_LIMIT) boundLately.delete(boundLately.keys().next().value as string);
    boundLately.set(bound, digest);
  }
  return digest;
}

/** The digests of requests bound lately, by what was hashed (the oldest leaves first): at most a few hundred kB. */
const boundLately = new Map<string, string>();
const BOUND_LIMIT = 1024;
const BOUND_MAX_CHARS = 256;

/** The methods that take input, quoted once: one of them is bound on every round. */
const QUOTED_METHODS = new Map(['tools/call', 'prompts/get', 'resources/read'].map((method) => [method, JSON.stringify(method)]));

function quotedMethod(method: string): string {
  return QUOTED_METHODS.get(method) ?? JSON.stringify(method);
}

/** The last principal key quoted (an anonymous caller's is the same on every request). */
let lastPrincipal = { key: 'none', json: '"none"' };

function quotedPrincipal(key: string): string {
  if (key !== lastPrincipal.key) lastPrincipal = { key, json: JSON.stringify(key) };
  return lastPrincipal.json;
}

// One-shot hashing (Node 20.12 and later) costs a third of a Hash object per call.
const oneShot = (crypto as { hash?: (algorithm: string, data: string | Buffer, encoding: 'base64url' | 'latin1') => string }).hash;

function sha256(text: string): string {
  return oneShot ? oneShot('sha256', text, 'base64url') : createHash('sha256').update(text).digest('base64url');
}

/** 96 bits of SHA-256: enough to tell apart the questions a server's own handlers ask, inside a MAC. */
export function shortDigest(text: string): string {
  return sha256(text).slice(0, 16);
}
