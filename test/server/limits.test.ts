/**
 * Bounds on what clients can make the server keep or compute: the schema compiler's cache (LRU, and
 * ajv's own copy of an evicted schema removed), URI template matching of very long URIs, and how many
 * resources one session may watch.
 */
import { describe, expect, it } from 'vitest';
import { UriTemplate } from '../../src/server/uri-template.js';
import { SchemaCompiler } from '../../src/schema/compiler.js';
import { recordEvents } from '../helpers/server-events.js';
import { pingOk, useWsSessions } from '../helpers/ws-sessions.js';
import { useCleanups } from '../helpers/cleanups.js';
import { startWebSocket } from '../helpers/servers.js';

const cleanups = useCleanups();
const h = useWsSessions(cleanups);

/** A distinct schema per n: an object whose property `p<n>` must be a string. */
function schema(n: number): object {
  return { type: 'object', properties: { [`p${n}`]: { type: 'string' } } };
}

describe('SchemaCompiler cache', () => {
  it('keeps at most its limit: after 5 distinct schemas with limit 3 it holds 3, the newest come from the cache and the oldest is compiled again', () => {
    const compiler = new SchemaCompiler(3);
    const validators = [1, 2, 3, 4, 5].map((n) => compiler.compile(schema(n)));
    expect(compiler.size).toBe(3);
    expect(compiler.compile(schema(3))).toBe(validators[2]);
    expect(compiler.compile(schema(4))).toBe(validators[3]);
    expect(compiler.compile(schema(5))).toBe(validators[4]);
    const again = compiler.compile(schema(1));
    expect(again).not.toBe(validators[0]);
    expect(compiler.size).toBe(3);
    // The recompiled validator validates as the first one did.
    expect([again({ p1: 'x' }), again({ p1: 1 })]).toEqual([validators[0]({ p1: 'x' }), validators[0]({ p1: 1 })]);
    expect(again({ p1: 1 })).toEqual([{ path: '/p1', rule: 'type', message: 'must be string' }]);
  });

  it('evicts the least recently used schema, not the first compiled', () => {
    const compiler = new SchemaCompiler(2);
    const a = compiler.compile(schema(1));
    const b = compiler.compile(schema(2));
    expect(compiler.compile(schema(1))).toBe(a); // a is now the most recently used
    compiler.compile(schema(3)); // evicts b
    expect(compiler.compile(schema(1))).toBe(a);
    expect(compiler.compile(schema(2))).not.toBe(b);
    expect(compiler.size).toBe(2);
  });

  it('removes an evicted schema from ajv too, so a schema with an $id compiles again after eviction', () => {
    const compiler = new SchemaCompiler(1);
    const withId = () => JSON.parse('{"$id":"urn:test:limits","type":"object","properties":{"a":{"type":"string"}}}') as object;
    const first = compiler.compile(withId());
    compiler.compile(schema(1)); // evicts the $id schema
    let again: ReturnType<SchemaCompiler['compile']> | undefined;
    expect(() => (again = compiler.compile(withId()))).not.toThrow();
    expect(again).not.toBe(first);
    expect(again!({ a: 1 })).toEqual([{ path: '/a', rule: 'type', message: 'must be string' }]);
    // Draft-07 schemas live in ajv's other instance, and are removed from it as well.
    const draft07 = () => ({ $schema: 'http://json-schema.org/draft-07/schema#', $id: 'urn:test:draft07', type: 'string' });
    compiler.compile(draft07());
    compiler.compile(schema(2));
    expect(() => compiler.compile(draft07())).not.toThrow();
  });

  it('is bounded at 1000 by default', () => {
    const compiler = new SchemaCompiler();
    for (let n = 0; n <= 1000; n++) compiler.compile(schema(n));
    expect(compiler.size).toBe(1000);
  });
});

describe('URI template matching of long URIs', () => {
  const TEMPLATE = 'file:///{+a}/{+b}/{+c}/{+d}';

  /** A URI that matches TEMPLATE, exactly `length` characters long. */
  function uriOf(length: number): string {
    const head = 'file:///';
    const tail = '/b/c/d';
    return head + 'a'.repeat(length - head.length - tail.length) + tail;
  }

  it('UriTemplate.match matches a URI of 8192 characters and declines one of 8193', () => {
    const template = new UriTemplate(TEMPLATE);
    expect(template.match(uriOf(8192))).toEqual({ a: 'a'.repeat(8192 - 14), b: 'b', c: 'c', d: 'd' });
    expect(template.match(uriOf(8193))).toBeNull();
  });

  it('answers resources/read of a URI longer than 8192 characters with resource-not-found (-32002) instead of matching the template', async () => {
    const reads: string[] = [];
    const running = await startWebSocket(cleanups, (server) =>
      server.registerResourceTemplate(TEMPLATE, { name: 'files' }, (uri, variables) => {
        reads.push(uri);
        return `read ${variables.b}${variables.c}${variables.d}`;
      }),
    );
    const { client } = await h.open(running);
    const long = uriOf(8193);
    expect(await client.request('resources/read', { uri: long }, 'long')).toEqual({
      jsonrpc: '2.0',
      id: 'long',
      error: { code: -32002, message: `Resource not found: ${long}`, data: { uri: long } },
    });
    const limit = uriOf(8192);
    expect(await client.request('resources/read', { uri: limit }, 'limit')).toEqual({
      jsonrpc: '2.0',
      id: 'limit',
      result: { contents: [{ uri: limit, text: 'read bcd' }] },
    });
    expect(reads).toEqual([limit]);
  });
});

describe('resources/subscribe limit', () => {
  const uri = (n: number) => `file:///watched/${n}.txt`;
  // These tests pipeline a thousand requests at once: more than a session may have in flight by default.
  const PIPELINED = { server: { maxRequestsInFlight: 2000 } };
  const TOO_MANY = { code: -32602, message: 'Too many subscriptions: a session may watch 1000 resources; unsubscribe from some first' };

  it('accepts 1000 distinct URIs, refuses the 1001st with -32602, and still accepts re-subscribing to a known one', async () => {
    const running = await startWebSocket(cleanups, undefined, PIPELINED);
    const { client, session } = await h.open(running);
    const replies = await Promise.all(Array.from({ length: 1000 }, (_, n) => client.request('resources/subscribe', { uri: uri(n) }, `s${n}`)));
    expect(replies.every((r, n) => r.id === `s${n}` && JSON.stringify(r.result) === '{}')).toBe(true);
    expect(session.subscriptions.size).toBe(1000);
    const subscribed = recordEvents(running.server, 'resourceSubscribe');
    expect(await client.request('resources/subscribe', { uri: uri(1000) }, 'over')).toEqual({ jsonrpc: '2.0', id: 'over', error: TOO_MANY });
    expect(await client.request('resources/subscribe', { uri: uri(7) }, 'known')).toEqual({ jsonrpc: '2.0', id: 'known', result: {} });
    expect(session.subscriptions.size).toBe(1000);
    expect(session.subscriptions.has(uri(1000))).toBe(false);
    expect(subscribed).toEqual([[session, uri(7)]]);
  });

  it('accepts a new URI again once the session unsubscribed from one', async () => {
    const running = await startWebSocket(cleanups, undefined, PIPELINED);
    const { client, session } = await h.open(running);
    await Promise.all(Array.from({ length: 1000 }, (_, n) => client.request('resources/subscribe', { uri: uri(n) }, `s${n}`)));
    expect(await client.request('resources/unsubscribe', { uri: uri(0) }, 'un')).toEqual({ jsonrpc: '2.0', id: 'un', result: {} });
    expect(await client.request('resources/subscribe', { uri: uri(1000) }, 'new')).toEqual({ jsonrpc: '2.0', id: 'new', result: {} });
    expect(await client.request('resources/subscribe', { uri: uri(1001) }, 'next')).toEqual({ jsonrpc: '2.0', id: 'next', error: TOO_MANY });
    expect(session.subscriptions.size).toBe(1000);
    await pingOk(client);
  });

  it('counts per session: another session may watch its own 1000', async () => {
    const running = await startWebSocket(cleanups, undefined, PIPELINED);
    const { client: first } = await h.open(running);
    const { client: second } = await h.open(running);
    await Promise.all(Array.from({ length: 1000 }, (_, n) => first.request('resources/subscribe', { uri: uri(n) }, `s${n}`)));
    expect(await second.request('resources/subscribe', { uri: uri(5000) }, 'other')).toEqual({ jsonrpc: '2.0', id: 'other', result: {} });
  });
});
