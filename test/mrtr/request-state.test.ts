/** The requestState codec on its own: signing, sealing, binding, expiry, key rotation, single use, options. */
import { createHmac } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { InvalidRequestStateError, McpServer } from '../../src/index.js';
import { type BindingParts, bindingDigest, RequestStateCodec, type StateBinding, type StatePayload } from '../../src/mrtr/request-state.js';

const KEY_A = 'a'.repeat(32);
const KEY_B = 'b'.repeat(40);
const NOW = Date.UTC(2026, 6, 28, 12, 0, 0);

const PARTS: BindingParts = { method: 'tools/call', target: 'book_flight', arguments: { from: 'LHR', to: 'JFK' }, principalKey: 'id:string:alice' };
const BINDING: StateBinding = bindingDigest(PARTS);

const CONTENT: Omit<StatePayload, 'id' | 'expiresAt'> = {
  binding: BINDING,
  round: 1,
  asked: { seat: { method: 'elicitation/create', schema: { type: 'object', properties: { seat: { type: 'string' } } } } },
  last: ['seat'],
  state: { cart: 'secret-cart-7781', step: 2 },
};

/** The JSON-RPC error object `read` threw or rejected with; fails if it gave a payload or failed with anything else. */
async function rejection(read: () => unknown): Promise<unknown> {
  let caught: unknown;
  try {
    await read();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(InvalidRequestStateError);
  return (caught as InvalidRequestStateError).toJSON();
}

function invalid(reason: string) {
  return { code: -32602, message: 'Invalid or expired requestState', data: { reason } };
}

/** Replace the character at `index` with another base64url character. */
function flip(text: string, index: number): string {
  const replacement = text[index] === 'A' ? 'B' : 'A';
  return text.slice(0, index) + replacement + text.slice(index + 1);
}

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('RequestStateCodec: signing', () => {
  it('mints v1.<key id>.<payload>.<mac> and opens it back to the payload with the expiry', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    expect(token).toMatch(/^v1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(await codec.read(token, BINDING)).toEqual({ ...CONTENT, expiresAt: NOW + 600_000 });
  });

  it('writes the payload as JSON.stringify writes the StatePayload literal: members in order, those without a JSON form left out', () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const single = new RequestStateCodec({ keys: [KEY_A], consume: () => true });
    const withToJson = { toJSON: () => ({ replaced: true }) };
    const payloads: Omit<StatePayload, 'id' | 'expiresAt'>[] = [
      CONTENT,
      { ...CONTENT, state: undefined },
      { ...CONTENT, state: () => 'a function has no JSON form' },
      { ...CONTENT, state: withToJson, unread: { seat: { action: 'accept', content: { seat: '3A' } } }, answers: { seat: 'kept' } },
      { ...CONTENT, state: { skipped: undefined, date: new Date(NOW), quote: 'a "quoted" \\ line\n' }, answers: {} },
      { ...CONTENT, state: 0, round: 3, last: [] },
    ];
    for (const payload of payloads) {
      for (const minter of [codec, single]) {
        const text = Buffer.from(minter.mint(payload).split('.')[2], 'base64url').toString('utf8');
        const id = minter === single ? (JSON.parse(text) as StatePayload).id : undefined;
        const answers = payload.answers && Object.keys(payload.answers).length > 0 ? payload.answers : undefined;
        const { binding, round, asked, last, unread, state } = payload;
        const literal = { binding, round, asked, last, unread, state, expiresAt: NOW + 600_000, answers, id };
        expect(text).toBe(JSON.stringify(literal));
      }
    }
  });

  it('signs with HMAC-SHA256 under the key derived from the secret, whatever the length or characters, and another instance opens it', async () => {
    const macKey = createHmac('sha256', KEY_A).update('switchboard requestState mac').digest();
    const minter = new RequestStateCodec({ keys: [KEY_A] });
    const opener = new RequestStateCodec({ keys: [KEY_A] });
    // A state of plain ASCII, one beyond Latin-1 (it reaches the token as base64url), and one whose token is past the pads' room (createHmac's).
    for (const state of [CONTENT.state, { name: 'Zoë 🚀 Ŷ' }, { note: 'x'.repeat(5000) }]) {
      const token = minter.mint({ ...CONTENT, state });
      const head = token.slice(0, token.lastIndexOf('.'));
      expect(token.slice(head.length + 1)).toBe(createHmac('sha256', macKey).update(head).digest('base64url'));
      expect((await opener.read(token, BINDING)).state).toEqual(state);
    }
  });

  it('refuses a token with a character of its payload swapped for one beyond Latin-1 whose low byte is the same', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = new RequestStateCodec({ keys: [KEY_A] }).mint(CONTENT);
    const at = token.indexOf('.', 3) + 1;
    // The character plus 0x100 is the same character cut to a byte: the MAC covers the UTF-8, so no swap keeps it.
    const swapped = `${token.slice(0, at)}${String.fromCharCode(0x100 + token.charCodeAt(at))}${token.slice(at + 1)}`;
    expect(await rejection(() => codec.read(swapped, BINDING))).toEqual(invalid('bad signature'));
  });

  it('keeps the answers gathered so far, and leaves empty answers out', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const answers = { who: { action: 'accept', content: { name: 'Ada' } } };
    expect((await codec.read(codec.mint({ ...CONTENT, answers }), BINDING)).answers).toEqual(answers);
    const empty = codec.mint({ ...CONTENT, answers: {} });
    expect(JSON.parse(Buffer.from(empty.split('.')[2], 'base64url').toString('utf8'))).not.toHaveProperty('answers');
  });

  it('gives every minted state a different random id when single use is on, and none otherwise', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], consume: () => true });
    const a = await codec.read(codec.mint(CONTENT), BINDING);
    const b = await codec.read(codec.mint(CONTENT), BINDING);
    expect(a.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.id).not.toBe(b.id);
    const plain = new RequestStateCodec({ keys: [KEY_A] });
    expect((await plain.read(plain.mint(CONTENT), BINDING)).id).toBeUndefined();
  });

  it('with single use on, refuses a state minted without an id (before single use was on) as already used', async () => {
    const consume = vi.fn(() => true);
    const token = new RequestStateCodec({ keys: [KEY_A] }).mint(CONTENT);
    expect(await rejection(() => new RequestStateCodec({ keys: [KEY_A], consume }).read(token, BINDING))).toEqual(invalid('already used'));
    expect(consume).not.toHaveBeenCalled();
  });

  it('leaves a signed-only payload readable by whoever holds the token (signing is not encryption)', () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    const json = JSON.parse(Buffer.from(token.split('.')[2], 'base64url').toString('utf8'));
    expect(json.state).toEqual({ cart: 'secret-cart-7781', step: 2 });
  });

  it('refuses a token whose payload was changed, even by one character, as a bad signature', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const [version, kid, payload, mac] = codec.mint(CONTENT).split('.');
    expect(await rejection(() => codec.read([version, kid, flip(payload, 5), mac].join('.'), BINDING))).toEqual(invalid('bad signature'));
  });

  it('refuses a token whose payload was rewritten (round reset to 0) and re-encoded without the key', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const [version, kid, payload, mac] = codec.mint(CONTENT).split('.');
    const forged = {
      ...JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')),
      round: 0,
      answers: { seat: { action: 'accept', content: { seat: '1A' } } },
    };
    const token = [version, kid, Buffer.from(JSON.stringify(forged)).toString('base64url'), mac].join('.');
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('bad signature'));
  });

  it('refuses a token whose mac was changed or truncated', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const [version, kid, payload, mac] = codec.mint(CONTENT).split('.');
    expect(await rejection(() => codec.read([version, kid, payload, flip(mac, 0)].join('.'), BINDING))).toEqual(invalid('bad signature'));
    expect(await rejection(() => codec.read([version, kid, payload, mac.slice(0, 20)].join('.'), BINDING))).toEqual(invalid('bad signature'));
  });

  it('refuses a token signed with the same key id but by another secret', async () => {
    const mine = new RequestStateCodec({ keys: [KEY_A] });
    const theirs = new RequestStateCodec({ keys: [KEY_B] });
    const [, myKid] = mine.mint(CONTENT).split('.');
    const [version, , payload, mac] = theirs.mint(CONTENT).split('.');
    expect(await rejection(() => mine.read([version, myKid, payload, mac].join('.'), BINDING))).toEqual(invalid('bad signature'));
  });

  it.each([
    ['a number', 42, 'not a requestState this server issued'],
    ['an object', { state: 1 }, 'not a requestState this server issued'],
    ['an empty string', '', 'unknown key'],
    ['a base64 blob', 'eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0', 'unknown key'],
  ])('refuses %s as requestState', async (_name, token, reason) => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid(reason));
  });

  it('refuses a token of the right key but the wrong shape as malformed', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const [, kid, payload] = codec.mint(CONTENT).split('.');
    expect(await rejection(() => codec.read(`v1.${kid}.${payload}`, BINDING))).toEqual(invalid('malformed'));
    expect(await rejection(() => codec.read(`v2.${kid}.${payload}.x`, BINDING))).toEqual(invalid('malformed'));
  });

  it('refuses a token longer than a million characters without decoding it', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    expect(await rejection(() => codec.read(`v1.${'A'.repeat(1_000_001)}`, BINDING))).toEqual(invalid('not a requestState this server issued'));
  });
});

describe('RequestStateCodec: sealing', () => {
  it('with seal: true mints s1.<key id>.<body> whose payload cannot be read, and opens it back', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true });
    const token = codec.mint(CONTENT);
    expect(token).toMatch(/^s1\.[A-Za-z0-9_-]{8}\.[A-Za-z0-9_-]+$/);
    const body = Buffer.from(token.split('.')[2], 'base64url');
    expect(body.toString('latin1')).not.toContain('secret-cart-7781');
    expect(body.toString('latin1')).not.toContain('book_flight');
    expect(token).not.toContain(Buffer.from('secret-cart-7781').toString('base64url').slice(0, 12));
    expect(await codec.read(token, BINDING)).toEqual({ ...CONTENT, expiresAt: NOW + 600_000 });
  });

  it('encrypts the same content differently each time (a fresh IV per token)', () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true });
    expect(codec.mint(CONTENT).split('.')[2]).not.toBe(codec.mint(CONTENT).split('.')[2]);
  });

  it('refuses a sealed token with one byte of its ciphertext changed as failed authentication', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true });
    const [version, kid, body] = codec.mint(CONTENT).split('.');
    const raw = Buffer.from(body, 'base64url');
    raw[20] ^= 0x01;
    expect(await rejection(() => codec.read([version, kid, raw.toString('base64url')].join('.'), BINDING))).toEqual(invalid('failed authentication'));
  });

  it('refuses a sealed token too short to hold an IV and a tag as malformed', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true });
    const [version, kid] = codec.mint(CONTENT).split('.');
    expect(await rejection(() => codec.read([version, kid, Buffer.alloc(20).toString('base64url')].join('.'), BINDING))).toEqual(invalid('malformed'));
  });

  it('refuses a state sealed under another secret', async () => {
    const mine = new RequestStateCodec({ keys: [KEY_A], seal: true });
    const theirs = new RequestStateCodec({ keys: [KEY_B], seal: true });
    const [, myKid] = mine.mint(CONTENT).split('.');
    const [version, , body] = theirs.mint(CONTENT).split('.');
    expect(await rejection(() => mine.read([version, myKid, body].join('.'), BINDING))).toEqual(invalid('failed authentication'));
  });
});

describe('RequestStateCodec: binding', () => {
  it.each([
    ['method', { method: 'prompts/get' }],
    ['target', { target: 'cancel_flight' }],
    ['arguments', { arguments: { from: 'LHR', to: 'SFO' } }],
    ['principal', { principalKey: 'id:string:mallory' }],
  ])('refuses a state presented with another %s', async (_what, change) => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    expect(await rejection(() => codec.read(token, bindingDigest({ ...PARTS, ...change })))).toEqual(invalid('issued for another request'));
  });

  it('accepts a state presented with the same arguments in another key order', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    const reordered = bindingDigest({ ...PARTS, arguments: { to: 'JFK', from: 'LHR' } });
    expect((await codec.read(token, reordered)).state).toEqual({ cart: 'secret-cart-7781', step: 2 });
  });

  it('binds the same for no arguments, null and {}, and tells the parts apart where they meet', () => {
    const none = bindingDigest({ ...PARTS, arguments: undefined });
    expect(bindingDigest({ ...PARTS, arguments: null })).toBe(none);
    expect(bindingDigest({ ...PARTS, arguments: {} })).toBe(none);
    expect(bindingDigest({ ...PARTS, target: 'a', principalKey: 'b,c' })).not.toBe(bindingDigest({ ...PARTS, target: 'a,b', principalKey: 'c' }));
  });

  it('binds sealed states just the same', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true });
    expect(await rejection(() => codec.read(codec.mint(CONTENT), bindingDigest({ ...PARTS, target: 'other' })))).toEqual(invalid('issued for another request'));
  });
});

describe('bindingDigest', () => {
  const digest = (args: unknown) => bindingDigest({ ...PARTS, arguments: args });

  it("does not depend on the arguments' key order, at any depth", () => {
    expect(digest({ a: 1, b: { c: [1, { d: 2, e: 3 }], f: null } })).toBe(digest({ b: { f: null, c: [1, { e: 3, d: 2 }] }, a: 1 }));
  });

  it.each([
    ['a different value', { a: 1, b: 2 }, { a: 1, b: 3 }],
    ['a value of another type', { a: 1 }, { a: '1' }],
    ['an extra key', { a: 1 }, { a: 1, b: 1 }],
    ['array order', { a: [1, 2] }, { a: [2, 1] }],
    ['a nested value', { a: { b: 'x' } }, { a: { b: 'y' } }],
    ['an empty array for no arguments', [], {}],
  ])('differs for %s', (_what, left, right) => {
    expect(digest(left)).not.toBe(digest(right));
  });

  it('is 128 bits of a base64url SHA-256 (22 characters)', () => {
    expect(digest({ a: 1 })).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});

describe('RequestStateCodec: expiry', () => {
  it('opens a state until its TTL has passed, and refuses it as expired from then on', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A], ttlMs: 1000 });
    const token = codec.mint(CONTENT);
    vi.setSystemTime(NOW + 999);
    expect((await codec.read(token, BINDING)).expiresAt).toBe(NOW + 1000);
    vi.setSystemTime(NOW + 1000);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('expired'));
  });

  it('defaults to a 10 minute TTL', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    expect(codec.ttlMs).toBe(600_000);
    const token = codec.mint(CONTENT);
    vi.setSystemTime(NOW + 600_000);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('expired'));
  });

  it('expires sealed states too', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true, ttlMs: 50 });
    const token = codec.mint(CONTENT);
    vi.setSystemTime(NOW + 51);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('expired'));
  });
});

describe('RequestStateCodec: key rotation', () => {
  it('opens a state minted with an old key while that key is still in the verify list', async () => {
    const before = new RequestStateCodec({ keys: [KEY_A] });
    const after = new RequestStateCodec({ keys: [KEY_B, KEY_A] });
    const old = before.mint(CONTENT);
    expect((await after.read(old, BINDING)).state).toEqual(CONTENT.state);
  });

  it('signs new states with the first key only', async () => {
    const rotated = new RequestStateCodec({ keys: [KEY_B, KEY_A] });
    const onlyA = new RequestStateCodec({ keys: [KEY_A] });
    const onlyB = new RequestStateCodec({ keys: [KEY_B] });
    const token = rotated.mint(CONTENT);
    expect(token.split('.')[1]).toBe(onlyB.mint(CONTENT).split('.')[1]);
    expect((await onlyB.read(token, BINDING)).round).toBe(1);
    expect(await rejection(() => onlyA.read(token, BINDING))).toEqual(invalid('unknown key'));
  });

  it('refuses a state minted with a key that has left the verify list', async () => {
    const before = new RequestStateCodec({ keys: [KEY_A] });
    const after = new RequestStateCodec({ keys: [KEY_B] });
    expect(await rejection(() => after.read(before.mint(CONTENT), BINDING))).toEqual(invalid('unknown key'));
  });

  it('rotates sealing keys the same way', async () => {
    const before = new RequestStateCodec({ keys: [KEY_A], seal: true });
    const rotating = new RequestStateCodec({ keys: [KEY_B, KEY_A], seal: true });
    const after = new RequestStateCodec({ keys: [KEY_B], seal: true });
    const old = before.mint(CONTENT);
    expect((await rotating.read(old, BINDING)).state).toEqual(CONTENT.state);
    expect(await rejection(() => after.read(old, BINDING))).toEqual(invalid('unknown key'));
  });

  it('accepts Buffer keys, and a Buffer and a string of the same bytes are the same key', async () => {
    const fromString = new RequestStateCodec({ keys: [KEY_A] });
    const fromBuffer = new RequestStateCodec({ keys: [Buffer.from(KEY_A)] });
    expect((await fromBuffer.read(fromString.mint(CONTENT), BINDING)).round).toBe(1);
  });
});

describe('RequestStateCodec: single use', () => {
  it('calls consume with the state id and expiry after verification, and refuses the state when it returns false', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const calls: [string, number][] = [];
    const seen = new Set<string>();
    const codec = new RequestStateCodec({
      keys: [KEY_A],
      consume: (id, expiresAt) => {
        calls.push([id, expiresAt]);
        if (seen.has(id)) return false;
        seen.add(id);
        return true;
      },
    });
    const token = codec.mint(CONTENT);
    const first = await codec.read(token, BINDING);
    expect(calls).toEqual([[first.id, NOW + 600_000]]);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('already used'));
    expect(calls).toEqual([
      [first.id, NOW + 600_000],
      [first.id, NOW + 600_000],
    ]);
  });

  it('waits for a consume hook that answers with a promise', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A], consume: async () => false });
    expect(await rejection(() => codec.read(codec.mint(CONTENT), BINDING))).toEqual(invalid('already used'));
    const accepting = new RequestStateCodec({ keys: [KEY_A], consume: async () => true });
    expect((await accepting.read(accepting.mint(CONTENT), BINDING)).round).toBe(1);
  });

  it('does not call consume for a state that fails verification, binding or expiry', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const consume = vi.fn(() => true);
    const codec = new RequestStateCodec({ keys: [KEY_A], ttlMs: 100, consume });
    const token = codec.mint(CONTENT);
    const [version, kid, payload, mac] = token.split('.');
    await rejection(() => codec.read([version, kid, flip(payload, 3), mac].join('.'), BINDING));
    await rejection(() => codec.read(token, bindingDigest({ ...PARTS, target: 'x' })));
    vi.setSystemTime(NOW + 100);
    await rejection(() => codec.read(token, BINDING));
    expect(consume).not.toHaveBeenCalled();
  });
});

describe('RequestStateCodec: options', () => {
  it('refuses a key shorter than 32 bytes at construction, as a string or a Buffer', () => {
    expect(() => new RequestStateCodec({ keys: ['x'.repeat(31)] })).toThrow(new TypeError('requestState keys must be at least 32 bytes long'));
    expect(() => new RequestStateCodec({ keys: [Buffer.alloc(31, 1)] })).toThrow(new TypeError('requestState keys must be at least 32 bytes long'));
    expect(() => new RequestStateCodec({ keys: [KEY_A, 'short'] })).toThrow(new TypeError('requestState keys must be at least 32 bytes long'));
    expect(() => new RequestStateCodec({ keys: [Buffer.alloc(32, 1)] })).not.toThrow();
  });

  it('counts bytes, not characters, against the 32-byte minimum', () => {
    // 16 two-byte characters are 32 bytes.
    expect(() => new RequestStateCodec({ keys: ['é'.repeat(16)] })).not.toThrow();
    expect(() => new RequestStateCodec({ keys: ['é'.repeat(15)] })).toThrow(new TypeError('requestState keys must be at least 32 bytes long'));
  });

  it('refuses a short key when the server is constructed', () => {
    expect(() => new McpServer({ name: 's', version: '1' }, { requestState: { keys: ['too-short'] } })).toThrow(
      new TypeError('requestState keys must be at least 32 bytes long'),
    );
  });

  it('refuses an empty key list', () => {
    expect(() => new RequestStateCodec({ keys: [] })).toThrow(
      new TypeError('Option requestState.keys must be a non-empty array of secrets (the first signs, all verify)'),
    );
  });

  it.each([0, -1, 1.5])('refuses ttlMs %s', (ttlMs) => {
    expect(() => new RequestStateCodec({ keys: [KEY_A], ttlMs })).toThrow(
      new TypeError(`Option requestState.ttlMs must be a positive integer; got ${JSON.stringify(ttlMs)}`),
    );
  });
});

describe('RequestStateCodec: the ephemeral key', () => {
  it('with no keys emits one SWITCHBOARD_EPHEMERAL_STATE_KEY warning, on the first mint', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const codec = new RequestStateCodec();
    expect(codec.ephemeral).toBe(true);
    expect(warn).not.toHaveBeenCalled();
    codec.mint(CONTENT);
    codec.mint(CONTENT);
    codec.mint(CONTENT);
    expect(warn.mock.calls).toEqual([
      [
        'requestState is signed with a random per-process key: set requestState.keys when several instances serve one endpoint, or retries will fail',
        { code: 'SWITCHBOARD_EPHEMERAL_STATE_KEY' },
      ],
    ]);
  });

  it('with keys emits no warning', () => {
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    codec.mint(CONTENT);
    expect(codec.ephemeral).toBe(false);
    expect(warn).not.toHaveBeenCalled();
  });

  it('opens its own states, but not those of another instance (each has its own random key)', async () => {
    vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const one = new RequestStateCodec();
    const other = new RequestStateCodec();
    const token = one.mint(CONTENT);
    expect((await one.read(token, BINDING)).round).toBe(1);
    expect(await rejection(() => other.read(token, BINDING))).toEqual(invalid('unknown key'));
  });
});

describe('InvalidRequestStateError', () => {
  it('is JSON-RPC -32602 "Invalid or expired requestState" with the reason in data', () => {
    const error = new InvalidRequestStateError('expired');
    expect(error.toJSON()).toEqual(invalid('expired'));
    expect(error.reason).toBe('expired');
  });
});

describe('RequestStateCodec: states minted here', () => {
  it('refuses one of its own states opened again after single use, as already used', async () => {
    const seen = new Set<string>();
    const consume = vi.fn((id: string) => !seen.has(id) && seen.add(id) !== undefined);
    const codec = new RequestStateCodec({ keys: [KEY_A], consume });
    const token = codec.mint(CONTENT);
    expect((await codec.read(token, BINDING)).state).toEqual(CONTENT.state);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('already used'));
    expect(consume).toHaveBeenCalledTimes(2);
  });

  it('refuses one of its own sealed states opened again after single use, as already used', async () => {
    const seen = new Set<string>();
    const codec = new RequestStateCodec({ keys: [KEY_A], seal: true, consume: (id) => !seen.has(id) && seen.add(id) !== undefined });
    const token = codec.mint(CONTENT);
    expect((await codec.read(token, BINDING)).round).toBe(1);
    expect(await rejection(() => codec.read(token, BINDING))).toEqual(invalid('already used'));
  });

  it('without single use, opens one of its own states as often as it comes back', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    // Two requests alike, minted in the same millisecond, get the same token.
    expect(codec.mint(CONTENT)).toBe(token);
    for (let i = 0; i < 3; i++) expect(await codec.read(token, BINDING)).toEqual({ ...CONTENT, expiresAt: NOW + 600_000 });
  });

  it('refuses one of its own states altered in any one character', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const token = codec.mint(CONTENT);
    const [version, kid, payload] = token.split('.');
    const payloadAt = version.length + kid.length + 2;
    for (const index of [payloadAt, payloadAt + Math.floor(payload.length / 2), token.length - 5]) {
      expect(await rejection(() => codec.read(flip(token, index), BINDING))).toEqual(invalid('bad signature'));
    }
    expect(await rejection(() => codec.read(flip(token, 1), BINDING))).toEqual(invalid('malformed'));
    expect(await rejection(() => codec.read(flip(token, version.length + 1), BINDING))).toEqual(invalid('unknown key'));
    expect(await rejection(() => codec.read(`${token}A`, BINDING))).toEqual(invalid('bad signature'));
    // The state itself was never spent: it opens as minted.
    expect((await codec.read(token, BINDING)).round).toBe(1);
  });

  it('checks expiry and binding of its own states as of any other', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const codec = new RequestStateCodec({ keys: [KEY_A], ttlMs: 1000 });
    const token = codec.mint(CONTENT);
    expect(await rejection(() => codec.read(token, bindingDigest({ ...PARTS, target: 'other' })))).toEqual(invalid('issued for another request'));
    vi.setSystemTime(NOW + 999);
    expect((await codec.read(token, BINDING)).expiresAt).toBe(NOW + 1000);
    const later = codec.mint(CONTENT);
    vi.setSystemTime(NOW + 1999);
    expect(await rejection(() => codec.read(later, BINDING))).toEqual(invalid('expired'));
  });

  it('opens a state another instance with the same keys minted, and refuses it after single use there too', async () => {
    vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
    const marks = new Set<string>();
    const consume = (id: string) => !marks.has(id) && marks.add(id) !== undefined;
    const one = new RequestStateCodec({ keys: [KEY_A], consume });
    const other = new RequestStateCodec({ keys: [KEY_A], consume });
    const token = one.mint(CONTENT);
    const opened = await other.read(token, BINDING);
    expect(opened).toEqual({ ...CONTENT, expiresAt: NOW + 600_000, id: opened.id });
    expect(await rejection(() => one.read(token, BINDING))).toEqual(invalid('already used'));
    expect(await rejection(() => other.read(token, BINDING))).toEqual(invalid('already used'));
  });

  it('opens to a payload of its own: what the handler kept cannot change after the state was minted', async () => {
    const codec = new RequestStateCodec({ keys: [KEY_A] });
    const state = { cart: ['a'] };
    const token = codec.mint({ ...CONTENT, state });
    state.cart.push('b');
    const opened = await codec.read(token, BINDING);
    expect(opened.state).toEqual({ cart: ['a'] });
    expect(opened.state).not.toBe(state);
  });
});
