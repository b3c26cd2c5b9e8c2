/**
 * Peer links between two instances sharing a real redis-server: requests for the other instance's
 * session go over one WebSocket to it, not an HTTP request each; only an instance with the shared key may
 * open one; an owner whose handler the application mounts takes no link, and gets HTTP forwards.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { connectRedisScale, McpServer, StreamableHttpTransport, type StreamableHttpTransportOptions } from '../../src/index.js';
import { QUEUE_STALL_MS } from '../../src/transports/http/sse.js';
import { useCleanups } from '../helpers/cleanups.js';
import { HttpTestClient } from '../helpers/http-client.js';
import { eventIds, silentPost } from '../helpers/silent-post.js';
import { within } from '../helpers/waits.js';
import { useRedis } from '../helpers/redis.js';

const cleanups = useCleanups();
const redis = useRedis();

/** What `flood` logs, 256 KiB at a time: more than the sockets between the instances and the client hold. */
const FLOOD_CHUNKS = 64;

const FORM = { message: 'Who?', requestedSchema: { type: 'object' as const, properties: { name: { type: 'string' as const } }, required: ['name'] } };

async function instance(name: string, prefix: string, mount: 'listen' | 'app' | 'app with links' = 'listen', options: StreamableHttpTransportOptions = {}) {
  const scale = await connectRedisScale(redis.url, { prefix });
  const server = new McpServer({ name, version: '1.0.0' });
  server.on('error', () => {});
  server.registerTool('echo', { inputSchema: { type: 'object', properties: { text: { type: 'string' } } } }, ({ text }) => `${name}: ${text}`);
  server.registerTool('ask', {}, async (_args, ctx) => `${(await ctx.elicit(FORM)).content?.name} answered ${name}`);
  server.registerTool('flood', {}, async (_args, ctx) => {
    // One message a turn: each goes over the link as it is written, not with the answer.
    for (let i = 0; i < FLOOD_CHUNKS; i++) {
      ctx.log('info', 'x'.repeat(256 * 1024));
      await new Promise((next) => setImmediate(next));
    }
    return `flooded ${name}`;
  });
  cleanups.push(
    () => scale.close(),
    () => server.close(),
  );
  if (mount === 'listen') {
    const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter(), ...options });
    const { url } = await transport.listen({ host: '127.0.0.1', port: 0 });
    return { transport, url, http: transport.httpServer!, scale, server };
  }
  // The application's own server, with the handler mounted on it: no upgrade reaches the transport.
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  const transport = new StreamableHttpTransport(server, { router: scale.sessionRouter(), advertisedUrl: url });
  http.on('request', transport.handler);
  if (mount === 'app with links') transport.acceptPeerLinks(http);
  cleanups.push(
    () =>
      new Promise((resolve) => {
        http.close(resolve);
        http.closeAllConnections();
      }),
  );
  return { transport, url, http, scale, server };
}

/**
 * What reached the owner's node:http server: requests (as node:http parsed them) and, where the transport
 * takes upgrades, upgrades, by path and forwarded-header. (On a server with no upgrade listener node:http
 * makes an upgrade a request; one listener more would leave it unanswered.)
 */
function watch(http: import('node:http').Server, { upgrades = true } = {}) {
  const seen = { requests: [] as string[], upgrades: [] as string[] };
  const describe = (req: IncomingMessage) => `${req.method} ${req.url}${req.headers['x-switchboard-forwarded'] ? ' (forwarded)' : ''}`;
  http.on('request', (req: IncomingMessage) => void seen.requests.push(describe(req)));
  if (upgrades) http.on('upgrade', (req: IncomingMessage) => void seen.upgrades.push(describe(req)));
  return seen;
}

/** A session initialized on `owner`, and the same session addressed to `via`. */
async function sessionOn(owner: string, via: string) {
  const direct = new HttpTestClient(owner);
  await direct.initialize({ capabilities: { elicitation: {} } });
  const other = new HttpTestClient(via);
  other.sessionId = direct.sessionId;
  other.protocolVersion = direct.protocolVersion;
  return { direct, other };
}

const text = (message: unknown) => (message as { result: { content: { text: string }[] } }).result.content[0]!.text;

describe('peer links', () => {
  it("forwards another instance's session requests over one link to its owner, elicitation included, its httpRequest listeners heard", async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    const onA = watch(a.http);
    const heard: string[] = [];
    a.transport.on('httpRequest', (req, res) => {
      heard.push(`${req.method} ${req.headers['x-switchboard-forwarded'] ? 'forwarded' : 'direct'}`);
      res.setHeader('x-served-by', 'a');
    });
    const { other } = await sessionOn(a.url, b.url);

    for (const word of ['one', 'two', 'three']) expect(text(await other.call('tools/call', { name: 'echo', arguments: { text: word } }))).toBe(`a: ${word}`);
    const call = await other.request('tools/call', { name: 'ask', arguments: {} }, 'ask-1');
    expect(call.status).toBe(200);
    expect(call.headers['x-served-by']).toBe('a');
    expect(call.headers['mcp-session-id']).toBe(other.sessionId);
    const asked = await call.nextMessage({ method: 'elicitation/create' });
    const replied = await other.reply((asked as { id: number }).id, { action: 'accept', content: { name: 'Ada' } });
    expect(replied.status).toBe(204);
    expect(replied.headers['x-served-by']).toBe('a');
    expect(text(await call.nextMessage({ id: 'ask-1' }))).toBe('Ada answered a');
    await call.ended;

    // The owner's server parsed only what came to it directly; the rest came over one link, from b.
    expect(onA.requests).toEqual(['POST /mcp', 'POST /mcp']);
    expect(onA.upgrades).toEqual(['GET /.switchboard/peer']);
    expect(heard).toEqual(['POST direct', 'POST direct', 'POST forwarded', 'POST forwarded', 'POST forwarded', 'POST forwarded', 'POST forwarded']);
  });

  it("closes a forwarded stream whose client does not read it past maxBufferedBytes; the owner's stream goes on, and Last-Event-ID replays its answer", async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const limit = { maxBufferedBytes: 1024 * 1024 };
    const a = await instance('a', prefix, 'listen', limit);
    const b = await instance('b', prefix, 'listen', limit);
    const { direct, other } = await sessionOn(a.url, b.url);
    // The flood's POST on b, and the same request as the owner serves it from the link.
    const closedOnB = new Promise<void>((done) => b.http.once('request', (_req, res) => res.once('close', () => done())));
    const closedOnA = new Promise<void>((done) => a.transport.on('httpRequest', (_req, res) => res.once('close', () => done())));
    const post = await silentPost(cleanups, Number(new URL(b.url).port), other.headers(), {
      jsonrpc: '2.0',
      id: 'flood-1',
      method: 'tools/call',
      params: { name: 'flood' },
    });
    await within(closedOnB, QUEUE_STALL_MS + 5000, 'b closing the stream its client does not read');
    await within(closedOnA, 5000, 'the owner hearing of it');
    const ids = eventIds(await within(post.read(), 5000, 'what came before the close'));
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(FLOOD_CHUNKS);

    const resumed = await direct.get({ 'last-event-id': ids.at(-1)! });
    await within(resumed.ended, 5000, 'the replay');
    const last = resumed.events.filter((e) => e.data !== '').at(-1)!;
    expect({ id: last.id, message: last.message }).toEqual({
      id: `${ids.at(-1)!.split('_')[0]}_${FLOOD_CHUNKS + 1}`,
      message: { jsonrpc: '2.0', id: 'flood-1', result: { content: [{ type: 'text', text: 'flooded a' }] } },
    });
  });

  it('carries large bodies and results, quotes and newlines in them, several at once, whole', async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    const { other } = await sessionOn(a.url, b.url);
    const words = ['α', 'β', 'γ', 'δ', 'ε'].map((letter, i) => `${letter}"\n`.repeat(200_000 + i));
    const answers = await Promise.all(words.map((word) => other.call('tools/call', { name: 'echo', arguments: { text: word } })));
    expect(answers.map(text)).toEqual(words.map((word) => `a: ${word}`));
  });

  it("takes links on the application's server when asked (acceptPeerLinks), and leaves its other upgrades alone", async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix, 'app with links');
    const b = await instance('b', prefix);
    const onA = watch(a.http);
    const { other } = await sessionOn(a.url, b.url);
    expect(text(await other.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('a: one');
    expect(text(await other.call('tools/call', { name: 'echo', arguments: { text: 'two' } }))).toBe('a: two');
    expect(onA.requests).toEqual(['POST /mcp', 'POST /mcp']);
    expect(onA.upgrades).toEqual(['GET /.switchboard/peer']);
    // An upgrade elsewhere is another listener's, which answers it: the transport writes nothing to it.
    a.http.on('upgrade', (req: IncomingMessage, socket: import('node:stream').Duplex) => {
      if (req.url === '/chat') socket.end("HTTP/1.1 418 I'm a teapot\r\nconnection: close\r\ncontent-length: 0\r\n\r\n");
    });
    const elsewhere = await new Promise<string>((resolve) => {
      const ws = new WebSocket(a.url.replace('http:', 'ws:').replace('/mcp', '/chat'));
      ws.on('open', () => resolve('opened'));
      ws.on('unexpected-response', (_req, res) => resolve(`answered ${res.statusCode}`));
      ws.on('error', (err) => resolve(err.message));
    });
    expect(elsewhere).toBe('answered 418');
    expect(onA.upgrades).toEqual(['GET /.switchboard/peer', 'GET /chat']);
  });

  it('refuses a link that does not prove the key the instances share, or proves it a second time: 403, nothing served, the connection closed', async () => {
    const a = await instance('a', `link-${Math.random().toString(36).slice(2)}`);
    const onA = watch(a.http);
    const peerUrl = new URL('/.switchboard/peer', a.url).href.replace('http:', 'ws:');
    const signed = (key: string, at = Date.now(), nonce = 'a-nonce-of-sixteen-chars') =>
      `${at}.${nonce}.${createHmac('sha256', key).update(`switchboard-peer\0${at}.${nonce}`).digest('base64url')}`;
    const open = (protocol: string, headers: Record<string, string>) =>
      new Promise<{ status: number; body: string }>((resolve) => {
        const ws = new WebSocket(peerUrl, protocol, { headers });
        ws.on('open', () => {
          ws.close();
          resolve({ status: 101, body: '' });
        });
        ws.on('error', () => {});
        ws.on('unexpected-response', (_req, res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => void (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        });
      });
    const refused = { status: 403, body: 'Forbidden: a peer link needs the key the instances share\n' };
    const key = a.scale.stateKeys[0]!;
    expect(await open('switchboard-peer.1', {})).toEqual(refused);
    expect(await open('switchboard-peer.1', { 'x-switchboard-peer': 'not a proof' })).toEqual(refused);
    expect(await open('switchboard-peer.1', { 'x-switchboard-peer': signed('a key of another deployment, 32+ chars') })).toEqual(refused);
    expect(await open('switchboard-peer.1', { 'x-switchboard-peer': signed(key, Date.now() - 61_000) })).toEqual(refused);
    expect(await open('mcp', { 'x-switchboard-peer': signed(key) })).toEqual(refused);
    // The key's own proof opens one link, once.
    const proof = signed(key);
    expect(await open('switchboard-peer.1', { 'x-switchboard-peer': proof })).toEqual({ status: 101, body: '' });
    expect(await open('switchboard-peer.1', { 'x-switchboard-peer': proof })).toEqual(refused);
    expect(onA.requests).toEqual([]);

    // A refused client that keeps its side open does not keep the connection: the owner closes it.
    const closedThere = new Promise<void>((resolve) =>
      a.http.once('upgrade', (_req: IncomingMessage, there: import('node:stream').Duplex) => there.once('close', () => resolve())),
    );
    const socket = connect({ port: Number(new URL(a.url).port), host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => void (answer += chunk));
    socket.write(
      `GET /.switchboard/peer HTTP/1.1\r\nhost: 127.0.0.1\r\nupgrade: websocket\r\nconnection: Upgrade\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\nsec-websocket-protocol: switchboard-peer.1\r\n\r\n`,
    );
    await closedThere;
    expect(answer).toMatch(/^HTTP\/1\.1 403 Forbidden\r\n/);
    socket.destroy();
  });

  it("keeps serving when the owner's listener sets a header that cannot go on the wire: the listener fails, the request goes on", async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix);
    const b = await instance('b', prefix);
    const failures: string[] = [];
    a.server.on('error', (err) => void failures.push((err as Error).message));
    a.transport.on('httpRequest', (req, res) => {
      if (req.headers['x-switchboard-forwarded']) res.setHeader('x-note', 'two\nlines');
    });
    const { other } = await sessionOn(a.url, b.url);
    const reply = await other.request('tools/call', { name: 'echo', arguments: { text: 'one' } });
    expect(reply.status).toBe(200);
    expect(reply.headers['x-note']).toBeUndefined();
    expect(text(await reply.json())).toBe('a: one');
    expect(failures).toEqual([expect.stringContaining('Invalid character in header content ["x-note"]')]);
  });

  it('forwards over HTTP to an owner whose handler the application mounts (it takes no link)', async () => {
    const prefix = `link-${Math.random().toString(36).slice(2)}`;
    const a = await instance('a', prefix, 'app');
    const b = await instance('b', prefix);
    const onA = watch(a.http, { upgrades: false });
    const { other } = await sessionOn(a.url, b.url);
    expect(text(await other.call('tools/call', { name: 'echo', arguments: { text: 'one' } }))).toBe('a: one');
    expect(text(await other.call('tools/call', { name: 'echo', arguments: { text: 'two' } }))).toBe('a: two');
    // One try at a link (the application's handler answers it as a request, not with a link); then HTTP, and no more tries.
    expect(onA.requests).toEqual(['POST /mcp', 'POST /mcp', 'GET /.switchboard/peer', 'POST /mcp (forwarded)', 'POST /mcp (forwarded)']);
  });
});
