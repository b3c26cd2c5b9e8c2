/**
 * A Streamable HTTP client that opens an event stream and stops reading it: what the server queues for
 * it is bounded by `maxBufferedBytes` (as a WebSocket peer's is). Past it the connection is closed; a
 * 2025-11-25 stream goes on into the event store, and the client resumes it with Last-Event-ID; a
 * 2026-07-28 request, whose stream is the request, is cancelled, saying why; a resumption's replay is
 * bounded as what it sends after it is. Raw sockets on loopback,
 * paused the way a client that does not read leaves them.
 */
import { describe, expect, it } from 'vitest';
import { InMemoryEventStore, McpError, type McpServer, type StoredEvent } from '../../src/index.js';
import { QUEUE_STALL_MS } from '../../src/transports/http/sse.js';
import { textResult } from '../helpers/client-requests.js';
import { deferred } from '../helpers/deferred.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { META_KEYS, modernHeaders, modernRequest } from '../helpers/modern.js';
import { useCleanups } from '../helpers/cleanups.js';
import { eventIds, messagesIn, silentPost, silentRequest } from '../helpers/silent-post.js';
import { startHttp } from '../helpers/servers.js';
import { within } from '../helpers/waits.js';

const cleanups = useCleanups();

const KiB = 1024;
const MiB = 1024 * KiB;
const CHUNK = 256 * KiB;
/** 16 MiB of log messages: more than the kernel's socket buffers hold, so most of it queues in the server. */
const CHUNKS = 64;
const LIMIT = 1 * MiB;
const CLOSED_FOR = `the client does not read what it is sent (over ${LIMIT} bytes queued)`;

/** `flood`: CHUNKS log messages of CHUNK characters, at once, then its answer. */
function floodTool(server: McpServer, flooded: { resolve(): void }): void {
  server.registerTool('flood', {}, (_args, ctx) => {
    for (let i = 0; i < CHUNKS; i++) ctx.log('info', 'x'.repeat(CHUNK));
    flooded.resolve();
    return 'flooded';
  });
}

describe('a 2025-11-25 event stream whose client does not read it', () => {
  it('is closed once more than maxBufferedBytes is queued; the call completes, and Last-Event-ID replays the rest with its answer', async () => {
    const flooded = deferred();
    const running = await startHttp(cleanups, (server) => floodTool(server, flooded), { transport: { maxBufferedBytes: LIMIT } });
    const client = new HttpTestClient(running.url);
    await client.initialize();
    // The call's response on the server: it closes when the server gives up on the client.
    const closed = new Promise<void>((done) => running.transport.httpServer!.once('request', (_req, res) => res.once('close', () => done())));
    const post = await silentPost(cleanups, running.port, client.headers(), { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'flood' } });
    await within(flooded.promise, 5000, 'the flood');
    await within(closed, QUEUE_STALL_MS + 3000, 'the server closing the stream');
    const raw = await within(post.read(), 5000, 'the end of what was sent before the close');

    const ids = eventIds(raw);
    // Some arrived (what the socket buffers held), not all, and not the answer: it came after the close.
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(CHUNKS);
    expect(raw).not.toContain('"id":7');
    expect(raw.endsWith('0\r\n\r\n')).toBe(false);

    const resumed = await client.get({ 'last-event-id': ids.at(-1)! });
    await within(resumed.ended, 5000, 'the replay');
    const replayed = resumed.events.filter((e) => e.data !== '');
    const last = replayed.at(-1)!;
    // The answer is the stream's event after its CHUNKS log messages.
    expect({ id: last.id, message: last.message }).toEqual({ id: `${ids.at(-1)!.split('_')[0]}_${CHUNKS + 1}`, message: textResult(7, 'flooded') });
    expect(running.errors).toEqual([]);
  });

  it('is not closed while its client reads: a burst over the limit drains, and the whole flood arrives with its answer', async () => {
    const flooded = deferred();
    const running = await startHttp(cleanups, (server) => floodTool(server, flooded), { transport: { maxBufferedBytes: LIMIT } });
    const client = new HttpTestClient(running.url);
    await client.initialize();
    const post = await silentPost(cleanups, running.port, client.headers(), { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'flood' } });
    await within(flooded.promise, 5000, 'the flood');
    // The server ends the answer and keeps the connection: read up to the last chunk.
    const raw = await within(post.read('0\r\n\r\n'), 5000, 'the whole answer');
    expect(messagesIn(raw)).toBe(CHUNKS + 1);
    expect(raw).toContain(JSON.stringify(textResult(7, 'flooded')));
  });
});

describe('a resumption whose client does not read the replay', () => {
  it("is closed once more than maxBufferedBytes of a custom store's replay waits for it; the session goes on", async () => {
    // A store that keeps more than the default one would: its replay of the standalone stream is 16 MiB.
    class LargeReplays extends InMemoryEventStore {
      override replayAfter(): StoredEvent[] {
        return Array.from({ length: CHUNKS }, (_, i) => ({ eventId: `0_${i + 1}`, data: JSON.stringify('x'.repeat(CHUNK)) }));
      }
    }
    const running = await startHttp(cleanups, undefined, { transport: { maxBufferedBytes: LIMIT, eventStore: new LargeReplays() } });
    const client = new HttpTestClient(running.url);
    await client.initialize();
    const closed = new Promise<void>((done) => running.transport.httpServer!.once('request', (_req, res) => res.once('close', () => done())));
    const { 'content-type': _none, ...headers } = client.headers({ accept: 'text/event-stream', 'last-event-id': '0_0' });
    const get = await silentRequest(cleanups, running.port, 'GET', headers);
    await within(closed, QUEUE_STALL_MS + 3000, 'the server closing the resumed stream');
    const raw = await within(get.read(), 5000, 'what came before the close');
    expect(messagesIn(raw)).toBeLessThan(CHUNKS);
    // The standalone stream is free again (not 409), and the session serves.
    const again = await client.get();
    expect(again.status).toBe(200);
    again.abort();
    expect((await client.call('ping', undefined, 'after')).result).toEqual({});
    expect(running.errors).toEqual([]);
  });
});

describe('a 2026-07-28 request whose client does not read its stream', () => {
  it('is cancelled once more than maxBufferedBytes is queued, its signal saying why, and its answer never goes', async () => {
    const aborted = deferred<unknown>();
    const running = await startHttp(
      cleanups,
      (server) =>
        server.registerTool('flood', {}, async (_args, ctx) => {
          for (let i = 0; i < CHUNKS && !ctx.signal.aborted; i++) ctx.log('info', 'x'.repeat(CHUNK));
          await new Promise((resume) => {
            if (ctx.signal.aborted) resume(undefined);
            else ctx.signal.addEventListener('abort', resume, { once: true });
          });
          aborted.resolve(ctx.signal.reason);
          return 'flooded';
        }),
      { transport: { maxBufferedBytes: LIMIT } },
    );
    const params = { name: 'flood' };
    const post = await silentPost(
      cleanups,
      running.port,
      modernHeaders('tools/call', params),
      modernRequest(9, 'tools/call', params, { [META_KEYS.logLevel]: 'info' }),
    );
    const reason = (await within(aborted.promise, 5000, 'the cancellation')) as McpError;
    expect(reason).toBeInstanceOf(McpError);
    expect({ code: reason.code, message: reason.message }).toEqual({ code: -32800, message: CLOSED_FOR });
    const raw = await within(post.read(), 5000, 'the server closing the connection');
    expect(messagesIn(raw)).toBeGreaterThan(0);
    expect(messagesIn(raw)).toBeLessThan(CHUNKS);
    expect(raw).not.toContain('"id":9');
    expect(running.errors).toEqual([]);
  });
});
