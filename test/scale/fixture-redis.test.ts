/**
 * `npm run fixture -- --port N --redis URL`: fixture processes started with the same Redis URL share the
 * requestState key ring, so a 2026-07-28 flow goes through with each request on another process, and
 * keep their tasks in it; and a fixture that cannot reach Redis exits 2 saying so.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { type ElicitResult, McpClient, StreamableHttpClientTransport } from '../../src/index.js';
import { send } from '../helpers/http-client.js';
import { ModernClient } from '../helpers/modern.js';
import { DECLARES, resultOf, untilStatus } from '../helpers/tasks.js';
import { useRedis } from '../helpers/redis.js';
import { useCleanups } from '../helpers/cleanups.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const ACCEPT = { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-11-25' };
const INITIALIZE = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};
const cleanups = useCleanups();
const redis = useRedis();

/** A fixture process; resolves with its URL once it listens, or rejects with what it printed if it exits. */
function fixture(args: string[]): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'conformance/fixture-server.ts', '--port', '0', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  });
  let out = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the fixture did not start within 15 s: ${out}`)), 15_000);
    const read = (chunk: string) => {
      out += chunk;
      const match = /conformance fixture on (http:\/\/\S+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child });
      }
    };
    child.stdout!.setEncoding('utf8').on('data', read);
    child.stderr!.setEncoding('utf8').on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(Object.assign(new Error(`the fixture exited with ${code}: ${out.trim()}`), { code, out: out.trim() }));
    });
  });
}

describe('fixtures sharing a Redis', () => {
  it('serve a multi-round 2026-07-28 flow with every request on the other process', async () => {
    const [a, b] = await Promise.all([fixture(['--redis', redis.url]), fixture(['--redis', redis.url])]);
    let turn = 0;
    const alternate = (_input: URL, init: RequestInit) => fetch([a.url, b.url][turn++ % 2]!, init);
    const client = new McpClient({ name: 'alternating', version: '1.0.0' }, { era: 'modern' });
    client.onElicitation((params): ElicitResult => ({ action: 'accept', content: params.message.startsWith('Step 1') ? { name: 'Ada' } : { color: 'teal' } }));
    cleanups.push(() => client.close());
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: alternate }));
    expect((await client.callTool('test_input_required_result_multi_round')).content).toEqual([{ type: 'text', text: 'Ada likes teal.' }]);
    expect(turn).toBeGreaterThanOrEqual(5);
  });

  it('serve a legacy-era session from both processes; once its owner is killed, the other goes on with it, same Mcp-Session-Id', async () => {
    const [a, b] = await Promise.all([fixture(['--redis', redis.url]), fixture(['--redis', redis.url])]);
    const client = new McpClient({ name: 'legacy', version: '1.0.0' }, { era: 'legacy' });
    client.onElicitation((): ElicitResult => ({ action: 'accept', content: { username: 'ada', email: 'ada@example.com' } }));
    cleanups.push(() => client.close());
    let turn = 0;
    const alternate = (_input: URL, init: RequestInit) => fetch([a.url, b.url][turn++ % 2]!, init);
    await client.connect(new StreamableHttpClientTransport(a.url, { fetch: alternate }));
    const answered = await client.callTool('test_elicitation', { message: 'Who are you?' });
    expect(answered.content).toEqual([{ type: 'text', text: 'User response: action=accept, content={"username":"ada","email":"ada@example.com"}' }]);

    const init = await send(b.url, 'POST', ACCEPT, INITIALIZE);
    const sessionId = init.headers['mcp-session-id'] as string;
    const session = { ...ACCEPT, 'mcp-session-id': sessionId };
    expect((await send(b.url, 'POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const exited = new Promise((resolve) => b.child.once('exit', resolve));
    b.child.kill('SIGKILL');
    await exited;
    const ping = await send(a.url, 'POST', session, { jsonrpc: '2.0', id: 2, method: 'ping' });
    expect([ping.status, await ping.json()]).toEqual([200, { jsonrpc: '2.0', id: 2, result: {} }]);
    const call = await send(a.url, 'POST', session, { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'test_simple_text', arguments: {} } });
    expect([call.status, await call.json()]).toEqual([
      200,
      { jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'This is a simple text response for testing.' }] } },
    ]);
  });

  it('answer a resumption of a stream that was under way on a killed owner with 400 at once, its request lost; the session goes on', async () => {
    const [a, b] = await Promise.all([fixture(['--redis', redis.url]), fixture(['--redis', redis.url])]);
    const init = await send(b.url, 'POST', ACCEPT, { ...INITIALIZE, params: { ...INITIALIZE.params, capabilities: { elicitation: {} } } });
    await init.json();
    const session = { ...ACCEPT, 'mcp-session-id': init.headers['mcp-session-id'] as string };
    expect((await send(b.url, 'POST', session, { jsonrpc: '2.0', method: 'notifications/initialized' })).status).toBe(202);
    const call = await send(b.url, 'POST', session, {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'test_elicitation', arguments: { message: 'Who?' } },
    });
    const asked = await call.nextEvent((e) => e.message?.method === 'elicitation/create');
    expect(asked.message?.params.message).toBe('Who?');
    const lastEventId = asked.id;
    const exited = new Promise((resolve) => b.child.once('exit', resolve));
    b.child.kill('SIGKILL');
    await exited;
    const resumed = await send(a.url, 'GET', { ...session, accept: 'text/event-stream', 'last-event-id': lastEventId! });
    expect([resumed.status, await resumed.json()]).toEqual([
      400,
      {
        jsonrpc: '2.0',
        error: {
          code: -32030,
          message: `Bad Request: the stream of Last-Event-ID ${lastEventId} was on an instance that is gone, with its request; send the request again`,
        },
        id: null,
      },
    ]);
    const ping = await send(a.url, 'POST', session, { jsonrpc: '2.0', id: 3, method: 'ping' });
    expect([ping.status, await ping.json()]).toEqual([200, { jsonrpc: '2.0', id: 3, result: {} }]);
  });

  it('keep tasks in Redis: a task created on one process is polled to its end on the other', async () => {
    const [a, b] = await Promise.all([fixture(['--redis', redis.url]), fixture(['--redis', redis.url])]);
    const created = resultOf(await new ModernClient(a.url, DECLARES).callTool('slow_compute', { seconds: 0.2, label: 'sum' }));
    expect(created).toMatchObject({ resultType: 'task', status: 'working' });
    const done = await untilStatus(new ModernClient(b.url, DECLARES), created.taskId, 'completed');
    expect(done.result).toEqual({ content: [{ type: 'text', text: 'Computed sum after 0.2s' }] });
  });

  it('exits 2 with one line saying where Redis could not be reached', async () => {
    const failure = await fixture(['--redis', `redis://127.0.0.1:${redis.port + 1}`]).catch((err: Error & { code?: number; out?: string }) => err);
    expect(failure).toMatchObject({
      code: 2,
      out: expect.stringMatching(new RegExp(`^Could not share state through Redis at redis://127\\.0\\.0\\.1:${redis.port + 1}/?: `)),
    });
  });
});
