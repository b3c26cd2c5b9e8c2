/**
 * The benchmark's own machinery: the raw-socket clients read every reply shape however the bytes are
 * split, and the report refuses what it cannot trust.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { CASES } from '../bench/cases.js';
import { runWindow, sampleOf } from '../bench/load.js';
import { HttpConnection } from '../bench/raw-http.js';
import { WsConnection } from '../bench/raw-ws.js';
import { type Measured, summarize } from '../bench/report.js';
import { keepCpusAwake } from '../bench/servers.js';

let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  server = undefined;
});

/** A TCP server that answers each connection's first read with `reply`, one byte per write, then leaves it open. */
async function byteByByte(reply: string | Buffer, onData?: (socket: Socket, data: Buffer) => void): Promise<number> {
  server = createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    socket.once('data', async (data) => {
      onData?.(socket, data);
      const bytes = Buffer.from(reply);
      for (let i = 0; i < bytes.length; i++) {
        socket.write(bytes.subarray(i, i + 1));
        if (i % 7 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

describe('HttpConnection', () => {
  it('reads a content-length reply with its session id, split byte by byte', async () => {
    const body = '{"jsonrpc":"2.0","id":0,"result":{}}';
    const port = await byteByByte(`HTTP/1.1 200 OK\r\nMcp-Session-Id: AbC-1\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
    const conn = await HttpConnection.open(port);
    expect(await conn.request('POST', '/mcp', '', '{}')).toEqual({ status: 200, sessionId: 'AbC-1', body });
    conn.close();
  });

  it('reads a chunked SSE reply, handing over each event as it arrives and skipping priming events', async () => {
    const events = ['id: 1\ndata: \n\n', 'event: message\ndata: {"id":7,"method":"elicitation/create"}\n\n', 'data: {"id":1,"result":{}}\n\n'];
    const chunked = events.map((e) => `${Buffer.byteLength(e).toString(16)}\r\n${e}\r\n`).join('');
    const port = await byteByByte(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n${chunked}0\r\n\r\n`);
    const conn = await HttpConnection.open(port);
    const seen: string[] = [];
    const reply = await conn.request('POST', '/mcp', '', '{}', (data) => seen.push(data));
    expect(seen).toEqual(['{"id":7,"method":"elicitation/create"}', '{"id":1,"result":{}}']);
    expect(reply).toEqual({ status: 200, sessionId: undefined, body: seen.join('\n') });
    conn.close();
  });

  it('opens another connection for the next request when the server closed an idle one (its keep-alive timeout)', async () => {
    let connections = 0;
    server = createServer((socket) => {
      sockets.add(socket);
      connections++;
      // Answer one request, then close, as node:http does to a connection idle past keepAliveTimeout.
      socket.once('data', () => socket.end('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n'));
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const conn = await HttpConnection.open((server.address() as AddressInfo).port);
    expect((await conn.request('POST', '/mcp', '', '{}')).status).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await conn.request('POST', '/mcp', '', '{}')).status).toBe(202);
    expect(connections).toBe(2);
    conn.close();
  });

  it('fails the request under way when the server closes its connection', async () => {
    const port = await byteByByte('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\n{"a"', (socket) => setTimeout(() => socket.destroy(), 20));
    const conn = await HttpConnection.open(port);
    await expect(conn.request('POST', '/mcp', '', '{}')).rejects.toThrow('connection closed by the server');
    await expect(conn.request('POST', '/mcp', '', '{}')).rejects.toThrow('connection closed by the server');
  });

  it('writes the request line, the common headers, the given ones and the body length', async () => {
    let request = '';
    const port = await byteByByte('HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\n\r\n', (_socket, data) => void (request = data.toString()));
    const conn = await HttpConnection.open(port);
    expect((await conn.request('DELETE', '/mcp', 'mcp-session-id: s\r\n', 'é')).status).toBe(202);
    expect(request).toBe(
      `DELETE /mcp HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/json\r\naccept: application/json, text/event-stream\r\n` +
        'mcp-session-id: s\r\ncontent-length: 2\r\n\r\né',
    );
    conn.close();
  });
});

describe('WsConnection', () => {
  it('upgrades, then cuts text frames of every length form out of the stream', async () => {
    const frame = (text: string) => {
      const payload = Buffer.from(text);
      const head =
        payload.length < 126
          ? Buffer.from([0x81, payload.length])
          : Buffer.concat([Buffer.from([0x81, 126]), Buffer.from([payload.length >> 8, payload.length & 0xff])]);
      return Buffer.concat([head, payload]);
    };
    const long = 'x'.repeat(300);
    const reply = Buffer.concat([Buffer.from('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n'), frame('short'), frame(long)]);
    const port = await byteByByte(reply);
    const messages: string[] = [];
    const both = new Promise<void>((resolve) => {
      void WsConnection.open(
        port,
        '/mcp',
        (text) => {
          messages.push(text);
          if (messages.length === 2) resolve();
        },
        () => {},
      );
    });
    await both;
    expect(messages).toEqual(['short', long]);
  });

  it('sends text frames masked with a zero key, in the short and the 16-bit length forms', async () => {
    const received: Buffer[] = [];
    server = createServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => {
        socket.write('HTTP/1.1 101 Switching Protocols\r\n\r\n');
        socket.on('data', (data) => received.push(data));
      });
    });
    await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
    const ws = await WsConnection.open(
      (server.address() as AddressInfo).port,
      '/mcp',
      () => {},
      () => {},
    );
    const long = 'y'.repeat(200);
    ws.send('hi');
    ws.send(long);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const zeroMask = [0, 0, 0, 0];
    expect(Buffer.concat(received)).toEqual(
      Buffer.concat([Buffer.from([0x81, 0x82, ...zeroMask]), Buffer.from('hi'), Buffer.from([0x81, 0xfe, 0, 200, ...zeroMask]), Buffer.from(long)]),
    );
  });
});

describe('the report', () => {
  const sample = (role: Measured['role'], rep: number, cpuMicrosPerOp: number, loadGenBusy = 0.5, serverBusy = 0.6, opsPerSecond = 1000): Measured => ({
    rep,
    caseId: 'http-echo',
    concurrency: 16,
    role,
    server: role,
    ops: 1000,
    opsPerSecond,
    cpuMicrosPerOp,
    p50Micros: 1,
    p99Micros: 1,
    loadGenBusy,
    serverBusy,
    otherBusy: 0,
    serverCoreOther: 0,
  });

  it('gives the median of paired ratios to bare, with the number of pairs', () => {
    const rows = summarize([sample('bare', 1, 10), sample('switchboard', 1, 15), sample('bare', 2, 20), sample('switchboard', 2, 40)], CASES);
    expect(rows.find((r) => r.role === 'switchboard')).toMatchObject({ valid: true, ratio: { against: 'bare', value: 1.75, pairs: 2 } });
  });

  it('refuses a cell whose load generator passed 80% of its core while the server was not saturated, and gives no ratio against it', () => {
    const rows = summarize([sample('bare', 1, 10, 0.9, 0.94), sample('switchboard', 1, 15)], CASES);
    expect(rows.find((r) => r.role === 'bare')).toMatchObject({
      valid: false,
      problem: 'invalid: the load generator used 90% of its core, the server 94% of its own',
    });
    const switchboard = rows.find((r) => r.role === 'switchboard')!;
    expect(switchboard.ratio).toBeUndefined();
    expect(switchboard.problem).toBe('no ratio: the bare cell is invalid');
  });

  it('keeps a cell whose server used 95% of its core or more, however busy the load generator was: the server set the pace', () => {
    const rows = summarize([sample('bare', 1, 10, 0.9, 0.97), sample('switchboard', 1, 15, 0.85, 0.99)], CASES);
    expect(rows.find((r) => r.role === 'bare')).toMatchObject({ valid: true, loadGenBusy: 0.9, serverBusy: 0.97 });
    expect(rows.find((r) => r.role === 'switchboard')).toMatchObject({ valid: true, ratio: { against: 'bare', value: 1.5, pairs: 1 } });
    expect(rows.every((r) => r.problem === undefined)).toBe(true);
  });

  it('paced (--rate), refuses a cell whose server kept less than 95% of the rate, however idle the generator was', () => {
    const rows = summarize([sample('bare', 1, 10, 0.2, 0.3, 1000), sample('switchboard', 1, 15, 0.2, 0.9, 940)], CASES, 1000);
    expect(rows.find((r) => r.role === 'bare')).toMatchObject({ valid: true });
    expect(rows.find((r) => r.role === 'switchboard')).toMatchObject({
      valid: false,
      problem: 'invalid: the server kept 940 of the 1000 operations per second asked',
    });
    expect(rows.find((r) => r.role === 'switchboard')!.ratio).toBeUndefined();
  });

  it('paced, keeps a cell whose generator passed 80% of its core while the server was not saturated: the rate set the pace', () => {
    const rows = summarize([sample('bare', 1, 10, 0.9, 0.5, 990), sample('switchboard', 1, 15, 0.9, 0.8, 960)], CASES, 1000);
    expect(rows.find((r) => r.role === 'bare')).toMatchObject({ valid: true });
    expect(rows.find((r) => r.role === 'switchboard')).toMatchObject({ valid: true, ratio: { against: 'bare', value: 1.5, pairs: 1 } });
    expect(rows.every((r) => r.problem === undefined)).toBe(true);
  });

  it('flags a server measured below the bare floor as a measurement problem', () => {
    const rows = summarize([sample('bare', 1, 20), sample('switchboard', 1, 15)], CASES);
    expect(rows.find((r) => r.role === 'switchboard')).toMatchObject({
      ratio: { value: 0.75 },
      problem: 'measurement problem: the bare floor cost more than this server',
    });
  });
});

describe('the windows of a cell', () => {
  it('add up to one sample: CPU over operations, busy shares over time, percentiles over every latency', () => {
    const sample = sampleOf([
      { ops: 100, micros: 200_000, server: 10_000, self: 100_000, machine: 120_000, coreOther: 2_000, latencies: [1, 2, 3] },
      { ops: 300, micros: 200_000, server: 50_000, self: 60_000, machine: 120_000, coreOther: 0, latencies: [4, 5, 6, 7] },
    ]);
    expect(sample).toEqual({
      ops: 400,
      opsPerSecond: 1000,
      cpuMicrosPerOp: 150,
      p50Micros: 4000,
      p99Micros: 7000,
      loadGenBusy: 0.4,
      serverBusy: 0.15,
      otherBusy: 0.05,
      serverCoreOther: 0.005,
    });
  });

  it('paced, start no more operations than the rate allows, where back to back runs thousands', async () => {
    const starts: number[][] = [[], []];
    // Each operation yields to the event loop, as a socket's would: back to back, the clients still run thousands.
    const op = (mine: number[]) => () => new Promise<void>((resolve) => setImmediate(() => resolve(void mine.push(performance.now()))));
    const clients = starts.map((mine) => ({ op: op(mine), close: async () => {} }));
    const begun = performance.now();
    const window = await runWindow(clients, { warmupMs: 20, measureMs: 200, rate: 100 }, async () => 0);
    const elapsedMs = performance.now() - begun;
    // 100 a second is one start per 10 ms in all, over the time that really passed (a loaded machine's timers
    // fire late); a client behind by less than a period may start once at once.
    const all = starts[0].length + starts[1].length;
    expect(all).toBeGreaterThanOrEqual(2);
    expect(all).toBeLessThanOrEqual(elapsedMs / 10 + 2 + 2);
    expect(window.ops).toBeLessThanOrEqual(window.micros / 10_000 + 2 + 2);
  });

  it('give no CPU per operation when no operation ended in them', () => {
    expect(sampleOf([{ ops: 0, micros: 1000, server: 10, self: 0, machine: 10, coreOther: Number.NaN, latencies: [] }]).cpuMicrosPerOp).toBeNaN();
  });
});

describe('keeping idle CPUs awake', () => {
  it('writes a latency request of 0 µs, 32 bits, to the PM QoS device, and says so', () => {
    const dir = mkdtempSync(join(tmpdir(), 'bench-idle-'));
    try {
      // A plain file stands in for the device: what is written is what the kernel would read.
      const device = join(dir, 'cpu_dma_latency');
      writeFileSync(device, 'unwritten');
      expect(keepCpusAwake(device)).toEqual({ held: true, note: `idle CPUs poll (${device} held at 0 µs)` });
      expect([...readFileSync(device)]).toEqual([0, 0, 0, 0]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('changes nothing where the device cannot be opened, and says why', () => {
    const device = join(tmpdir(), 'no-such-dir-for-bench', 'cpu_dma_latency');
    expect(keepCpusAwake(device)).toEqual({ held: false, note: `idle CPUs may sleep (${device}: ENOENT)` });
  });
});
