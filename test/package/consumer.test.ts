/**
 * The package as a new user gets it: `npm pack` (which builds dist/ through `prepare`), the tarball's
 * file list, an application of its own in the OS temp directory that installs the tarball, runs a
 * server and the official SDK v1 client with plain `node`, and type-checks a strict TypeScript consumer.
 *
 * The working tree is packed from a copy, so the rebuild of dist/ never races the tests that run the
 * examples, which import the package by name and so load this checkout's dist/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string; devDependencies: Record<string, string> };

/** Everything in this file, child processes included, ends within this budget. */
const BUDGET_MS = 180_000;
const startedAt = Date.now();
const remaining = () => startedAt + BUDGET_MS - Date.now();
/** How long the app and the type check may run; each test waits a little longer, to report what they printed. */
const RUN_MS = 45_000;
const TEST_MS = 60_000;

/** On Node 20 the SDK's WebSocket client needs the global WebSocket, which is behind this flag. */
const NODE_FLAGS = Number(process.versions.node.split('.')[0]) < 22 ? ['--experimental-websocket'] : [];
/** Plain node: no loader or other options inherited from the test runner. */
const PLAIN_NODE_ENV = Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== 'NODE_OPTIONS'));

interface Ran {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();

/** Kill a child and everything it started (it leads its own process group on POSIX). */
function kill(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  try {
    if (process.platform !== 'win32' && child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    else child.kill('SIGKILL');
  } catch {
    child.kill('SIGKILL');
  }
}

/** Run a command to its end, or kill it after `timeoutMs` (never past the file's budget). */
function run(command: string, args: string[], cwd: string, timeoutMs: number, env: NodeJS.ProcessEnv = process.env): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: process.platform !== 'win32',
      shell: process.platform === 'win32',
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => kill(child), Math.max(0, Math.min(timeoutMs, remaining())));
    child.once('error', (error) => {
      clearTimeout(timer);
      running.delete(child);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** Run, and throw with the command's output unless it exited 0. */
async function succeed(command: string, args: string[], cwd: string, timeoutMs: number): Promise<Ran> {
  const ran = await run(command, args, cwd, timeoutMs);
  if (ran.code !== 0) throw new Error(`${command} ${args.join(' ')} ended with ${ran.code ?? ran.signal}\n${ran.stdout}\n${ran.stderr}`);
  return ran;
}

/** Every file below `dir`, as paths relative to it with forward slashes. */
function filesBelow(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => relative(dir, join(entry.parentPath, entry.name)).split('\\').join('/'));
}

interface PackedFile {
  path: string;
}

let work: string;
let app: string;
let packed: { name: string; version: string; filename: string; files: PackedFile[] };

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'switchboard-consumer-'));

  // npm pack a copy of the working tree (without node_modules, .git and dist/), sharing node_modules.
  const tree = join(work, 'tree');
  cpSync(root, tree, {
    recursive: true,
    filter: (source) => {
      const path = relative(root, source).split('\\').join('/');
      return path !== '.git' && path !== 'dist' && basename(path) !== 'node_modules';
    },
  });
  symlinkSync(join(root, 'node_modules'), join(tree, 'node_modules'), 'junction');
  const pack = await succeed('npm', ['pack', '--json', '--pack-destination', work], tree, 90_000);
  [packed] = JSON.parse(pack.stdout.slice(pack.stdout.search(/^\[/m)));

  // An application of its own, outside the repository, with the tarball, the SDK the repo tests with, and the
  // repo's zod (which the SDK installs anyway) for typed tools; pinned, so the npm cache has each of them.
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ name: 'switchboard-consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
  const deps = ['@modelcontextprotocol/sdk', '@types/node', 'zod'].map((name) => `${name}@${manifest.devDependencies[name]}`);
  await succeed('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--save-exact', join(work, packed.filename), ...deps], app, 120_000);
  for (const file of ['app.mjs', 'consumer.ts', 'tsconfig.json']) copyFileSync(join(fixtures, file), join(app, file));
}, BUDGET_MS);

afterAll(() => {
  for (const child of running) kill(child);
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the npm package', () => {
  it('holds only package.json, README.md, LICENSE, CHANGELOG.md and the JavaScript and declarations built from every source file', () => {
    expect(packed).toMatchObject({ name: manifest.name, version: manifest.version, filename: `${manifest.name}-${manifest.version}.tgz` });
    const paths = packed.files.map((file) => file.path).sort();
    expect(paths.filter((path) => !/^(package\.json|README\.md|LICENSE|CHANGELOG\.md|dist\/.+\.(js|d\.ts))$/.test(path))).toEqual([]);
    expect(paths).toEqual(expect.arrayContaining(['package.json', 'README.md', 'LICENSE', 'CHANGELOG.md', 'dist/index.js', 'dist/index.d.ts']));
    const built = filesBelow(join(root, 'src'))
      .filter((path) => path.endsWith('.ts'))
      .flatMap((path) => [`dist/${path.replace(/\.ts$/, '.js')}`, `dist/${path.replace(/\.ts$/, '.d.ts')}`]);
    expect(paths).toEqual(['CHANGELOG.md', 'LICENSE', 'README.md', ...built, 'package.json'].sort());
  });

  it(
    'installs into a new application, and runs with plain node: a tool call and an elicitation over Streamable HTTP and WebSocket with the SDK v1 client',
    async () => {
      const ran = await run(process.execPath, [...NODE_FLAGS, 'app.mjs'], app, RUN_MS, PLAIN_NODE_ENV);
      expect(ran).toMatchObject({ code: 0, signal: null });
      // Node 20 may warn once that WebSocket is experimental; nothing else may reach stderr.
      expect(ran.stderr.replace(/^.*(ExperimentalWarning: WebSocket|--trace-warnings).*\n/gm, '')).toBe('');
      const lines = ran.stdout.split('\n').filter((line) => line !== '');
      expect(lines).toHaveLength(1);

      const ask = {
        message: 'What is your name?',
        requestedSchema: { type: 'object', properties: { name: { type: 'string', minLength: 1 } }, required: ['name'] },
      };
      const text = (value: string) => ({ content: [{ type: 'text', text: value }] });
      const client = (kind: string) => ({
        serverVersion: { name: 'consumer-app', version: '1.0.0' },
        tools: ['echo', 'greet'],
        echo: text(`echo: hi over ${kind}`),
        greet: text(`Hello, Ada on ${kind}, over ${kind}!`),
        asked: [ask],
      });
      const server = (kind: string, endReason: string) => [
        {
          event: 'sessionNew',
          transport: kind,
          protocolVersion: '2025-11-25',
          clientInfo: { name: `consumer-${kind}`, version: '1.0.0' },
          clientCapabilities: { elicitation: { form: {} } },
        },
        {
          event: 'responseElicitationCreate',
          transport: kind,
          request: { jsonrpc: '2.0', id: 0, method: 'elicitation/create', params: ask },
          response: { isError: false, action: 'accept', content: { name: `Ada on ${kind}` } },
        },
        { event: 'sessionEnd', transport: kind, reason: endReason },
      ];
      expect(JSON.parse(lines[0]!)).toStrictEqual({
        url: 'http://127.0.0.1:PORT/mcp',
        http: client('http'),
        websocket: client('websocket'),
        // The SDK's WebSocket client closes without a status code: 1005.
        server: [...server('http', 'deleted by the client'), ...server('websocket', 'websocket closed (1005)')],
      });
    },
    TEST_MS,
  );

  it(
    'exports the client alone as switchboard-mcp/browser: plain node imports it, and it holds McpClient and the browser transports',
    async () => {
      const script = "import('switchboard-mcp/browser').then((m) => console.log(Object.keys(m).sort().join(',')))";
      const ran = await run(process.execPath, ['--input-type=module', '-e', script], app, RUN_MS, PLAIN_NODE_ENV);
      expect({ code: ran.code, stderr: ran.stderr }).toEqual({ code: 0, stderr: '' });
      expect(ran.stdout.trim().split(',')).toEqual([
        'BrowserWebSocketClientTransport',
        'ConnectionClosedError',
        'ElicitationValidationError',
        'ErrorCode',
        'McpClient',
        'McpError',
        'RequestCancelledError',
        'RequestTimeoutError',
        'StreamableHttpClientTransport',
        'UnsupportedProtocolVersionError',
        'describeFields',
        'escapeControls',
      ]);
    },
    TEST_MS,
  );

  it(
    'type-checks a strict TypeScript consumer of the documented API, declarations included, with tools typed by zod and by an as const schema',
    async () => {
      const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
      const ran = await run(process.execPath, [tsc, '-p', app], app, RUN_MS);
      expect({ code: ran.code, output: `${ran.stdout}${ran.stderr}` }).toEqual({ code: 0, output: '' });
    },
    TEST_MS,
  );
});
