/** StdioClientTransport against real child processes: the repo's stdio server (with tsx), and small node scripts that misbehave. */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { StdioClientTransport, type StdioClientTransportOptions } from '../../../src/client/transports/stdio.js';
import { RecordingSink } from '../../helpers/recording-sink.js';
import { DEFAULT_CAPABILITIES } from '../../helpers/servers.js';
import { parseErrorMessage } from '../../helpers/parse-error.js';
import { useCleanups } from '../../helpers/cleanups.js';

const cleanups = useCleanups();

const root = fileURLToPath(new URL('../../..', import.meta.url));
const INIT_PARAMS = { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'stdio-transport-test', version: '1.0.0' } };
const TOOLS = [
  { name: 'echo', description: 'Repeats text', inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } },
  { name: 'log_to_stdout', description: 'Logs to stdout, then answers', inputSchema: { type: 'object', additionalProperties: false } },
];

/** A transport whose close() runs after the test. */
function transportFor(options: StdioClientTransportOptions): StdioClientTransport {
  const transport = new StdioClientTransport(options);
  cleanups.push(() => transport.close());
  return transport;
}

async function started(options: StdioClientTransportOptions) {
  const transport = transportFor(options);
  const sink = new RecordingSink();
  await transport.start(sink);
  return { transport, sink };
}

/** The stdio echo server fixture, run by this node with tsx's loader. */
function echoServer(options: Partial<StdioClientTransportOptions> = {}): StdioClientTransportOptions {
  return { command: process.execPath, args: ['--import', 'tsx', 'test/fixtures/stdio-echo-server.ts'], cwd: root, stderr: 'ignore', ...options };
}

/** A child running `script` with this node. */
function nodeScript(script: string, options: Partial<StdioClientTransportOptions> = {}): StdioClientTransportOptions {
  return { command: process.execPath, args: ['-e', script], ...options };
}

/** Whether a process with this id is still running. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += String(chunk);
  return text;
}

describe('StdioClientTransport with the repo stdio server', () => {
  it('says what it is: stdio, cancelled by notifications/cancelled', () => {
    const transport = new StdioClientTransport({ command: 'node' });
    expect({ kind: transport.kind, cancelsByClosingStream: transport.cancelsByClosingStream }).toEqual({ kind: 'stdio', cancelsByClosingStream: false });
  });

  it('carries initialize, notifications/initialized and tools/list as lines', async () => {
    const { transport, sink } = await started(echoServer());
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await sink.messageCount(1, 10_000);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 'list', method: 'tools/list' });
    await sink.messageCount(2);
    expect(sink.messages).toEqual([
      {
        jsonrpc: '2.0',
        id: 0,
        result: { protocolVersion: '2025-11-25', capabilities: DEFAULT_CAPABILITIES, serverInfo: { name: 'stdio-echo', version: '1.0.0' } },
      },
      { jsonrpc: '2.0', id: 'list', result: { tools: TOOLS } },
    ]);
    expect({ errors: sink.errorMessages, closed: sink.closedReasons }).toEqual({ errors: [], closed: [] });
  });

  it('reports a stdout line that is not JSON and goes on', async () => {
    const { transport, sink } = await started(echoServer());
    await transport.send({ jsonrpc: '2.0', id: 0, method: 'initialize', params: INIT_PARAMS });
    await sink.messageCount(1, 10_000);
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.send({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'log_to_stdout', arguments: {} } });
    await transport.send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { text: 'still here' } } });
    await sink.messageCount(3);
    expect(sink.messages.slice(1)).toEqual([
      { jsonrpc: '2.0', id: 1, result: { content: [{ type: 'text', text: 'logged' }] } },
      { jsonrpc: '2.0', id: 2, result: { content: [{ type: 'text', text: 'still here' }] } },
    ]);
    expect(sink.errorMessages).toEqual([
      `The server sent a stdout line that is not JSON (Parse error: ${parseErrorMessage('starting up...')}): "starting up..."`,
    ]);
  });

  it('close() ends stdin, and the server exits by itself', async () => {
    const { transport, sink } = await started(echoServer());
    const pid = transport.pid!;
    expect(alive(pid)).toBe(true);
    await transport.close();
    expect(alive(pid)).toBe(false);
    expect(sink.closedReasons).toEqual(['the server process exited (code 0)']);
    await transport.close();
    expect(sink.closedReasons).toHaveLength(1);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(
      new Error('Cannot send: the server process is not running'),
    );
  });

  it("pipes the child's stderr to transport.stderr with stderr: 'pipe'", async () => {
    const transport = transportFor(nodeScript("process.stderr.write('a log line\\n')", { stderr: 'pipe' }));
    const text = readAll(transport.stderr!);
    await transport.start(new RecordingSink());
    expect(await text).toBe('a log line\n');
    expect(new StdioClientTransport({ command: 'node' }).stderr).toBeNull();
  });
});

describe('StdioClientTransport reading stdout', () => {
  it('decodes a character split across chunks, skips blank lines, tolerates CRLF and delivers a batch member by member', async () => {
    // '😀' is F0 9F 98 80 in UTF-8: the first chunk ends inside it.
    const script = `
      const line = Buffer.from('{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"€ ü 😀"}}\\r\\n');
      const cut = line.indexOf(0x9f) + 1;
      process.stdout.write('\\n  \\r\\n');
      process.stdout.write(line.subarray(0, cut));
      setTimeout(() => process.stdout.write(Buffer.concat([line.subarray(cut), Buffer.from('[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","id":1,"result":{}}]\\n')])), 100);
    `;
    const { sink } = await started(nodeScript(script));
    await sink.messageCount(3);
    expect(sink.messages).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { data: '€ ü 😀' } },
      { jsonrpc: '2.0', method: 'a' },
      { jsonrpc: '2.0', id: 1, result: {} },
    ]);
    expect(sink.errorMessages).toEqual([]);
  });

  it('discards a line longer than maxMessageBytes, in one piece or several, and reads the next', async () => {
    const script = `
      process.stdout.write('{"jsonrpc":"2.0","method":"long","params":{"x":"${'x'.repeat(100)}"}}\\n');
      process.stdout.write('{"jsonrpc":"2.0","method":"split","params":{"x":"${'x'.repeat(40)}');
      setTimeout(() => process.stdout.write('${'y'.repeat(40)}"}}\\n{"jsonrpc":"2.0","method":"fits"}\\n'), 100);
    `;
    const { sink } = await started(nodeScript(script, { maxMessageBytes: 64 }));
    await sink.messageCount(1);
    expect(sink.messages).toEqual([{ jsonrpc: '2.0', method: 'fits' }]);
    const tooLong = 'The server sent a stdout line longer than maxMessageBytes (64 bytes); it was discarded';
    expect(sink.errorMessages).toEqual([tooLong, tooLong]);
  });

  it('writes each message as one line on stdin', async () => {
    const script = `
      let text = '';
      process.stdin.on('data', (chunk) => (text += chunk));
      process.stdin.on('end', () => process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'got', params: { text } }) + '\\n'));
    `;
    const { transport, sink } = await started(nodeScript(script));
    await transport.send({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'echo', arguments: { text: 'é\n' } } });
    await transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    await transport.close();
    expect(sink.messages).toEqual([
      {
        jsonrpc: '2.0',
        method: 'got',
        params: {
          text: '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"text":"é\\n"}}}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
        },
      },
    ]);
  });
});

describe('StdioClientTransport and the child process', () => {
  it('reports the child exiting with its code, once, and sends nothing more', async () => {
    const { transport, sink } = await started(nodeScript('process.exit(3)'));
    await sink.until(() => sink.closedReasons.length > 0);
    expect(sink.closedReasons).toEqual(['the server process exited (code 3)']);
    await expect(transport.send({ jsonrpc: '2.0', method: 'notifications/initialized' })).rejects.toThrow(
      new Error('Cannot send: the server process is not running'),
    );
    await transport.close();
    expect(sink.closedReasons).toHaveLength(1);
  });

  it('close() called while the child is being spawned stops it once spawned', async () => {
    const transport = transportFor(nodeScript("process.stdin.on('end', () => process.exit(5)); process.stdin.resume()"));
    const sink = new RecordingSink();
    const start = transport.start(sink);
    await transport.close();
    await start;
    expect(sink.closedReasons).toEqual(['the server process exited (code 5)']);
  });

  it('reports the child killed by a signal', async () => {
    const { sink } = await started(nodeScript("process.kill(process.pid, 'SIGKILL')"));
    await sink.until(() => sink.closedReasons.length > 0);
    expect(sink.closedReasons).toEqual(['the server process exited (signal SIGKILL)']);
  });

  it('close() sends SIGTERM to a child that does not exit when stdin ends', async () => {
    const { transport, sink } = await started(nodeScript('setInterval(() => {}, 1000)'));
    const pid = transport.pid!;
    const began = Date.now();
    await transport.close();
    expect(Date.now() - began).toBeGreaterThanOrEqual(1900);
    expect(alive(pid)).toBe(false);
    expect(sink.closedReasons).toEqual(['the server process exited (signal SIGTERM)']);
  });

  it('close() sends SIGKILL to a child that ignores SIGTERM', async () => {
    const script = 'process.on(\'SIGTERM\', () => {}); process.stdout.write(\'{"jsonrpc":"2.0","method":"ready"}\\n\'); setInterval(() => {}, 1000)';
    const { transport, sink } = await started(nodeScript(script));
    await sink.messageCount(1); // The SIGTERM handler is in place.
    const pid = transport.pid!;
    await transport.close();
    expect(alive(pid)).toBe(false);
    expect(sink.closedReasons).toEqual(['the server process exited (signal SIGKILL)']);
  }, 10_000);

  it('passes env on top of a few inherited variables, and not the rest of this process environment', async () => {
    process.env.SWITCHBOARD_TEST_SECRET = 'do not pass';
    cleanups.push(() => delete process.env.SWITCHBOARD_TEST_SECRET);
    const script = `process.stdout.write(JSON.stringify({ jsonrpc: '2.0', method: 'env', params: {
      given: process.env.GIVEN ?? null, secret: process.env.SWITCHBOARD_TEST_SECRET ?? null, path: process.env.PATH === ${JSON.stringify(process.env.PATH)} } }) + '\\n')`;
    const { sink } = await started(nodeScript(script, { env: { GIVEN: 'yes' } }));
    await sink.messageCount(1);
    expect(sink.messages).toEqual([{ jsonrpc: '2.0', method: 'env', params: { given: 'yes', secret: null, path: true } }]);
  });

  it('fails start() naming a command that does not exist', async () => {
    const transport = transportFor({ command: 'switchboard-no-such-command', args: ['--x'] });
    await expect(transport.start(new RecordingSink())).rejects.toThrow(
      new Error('Could not start the server process "switchboard-no-such-command": spawn switchboard-no-such-command ENOENT'),
    );
  });

  it('rejects send() before start()', async () => {
    await expect(new StdioClientTransport({ command: 'node' }).send({ jsonrpc: '2.0', method: 'ping' } as never)).rejects.toThrow(
      new Error('Cannot send: the server process is not started'),
    );
  });

  it('rejects wrong options at construction', () => {
    expect(() => new StdioClientTransport({ command: '' })).toThrow(new TypeError('Option command must be a non-empty string; got ""'));
    expect(() => new StdioClientTransport({ command: 'node', args: [1 as never] })).toThrow(new TypeError('Option args must be an array of strings'));
    expect(() => new StdioClientTransport({ command: 'node', env: { A: 1 as never } })).toThrow(
      new TypeError('Option env must be an object of variable names to string values'),
    );
    expect(() => new StdioClientTransport({ command: 'node', stderr: 'file' as never })).toThrow(
      new TypeError(`Option stderr must be 'inherit', 'pipe' or 'ignore'; got "file"`),
    );
    expect(() => new StdioClientTransport({ command: 'node', maxMessageBytes: -1 })).toThrow(
      new TypeError('Option maxMessageBytes must be a positive integer; got -1'),
    );
  });
});
