/**
 * A fresh clone of this repository's committed HEAD runs an example as CONTRIBUTING.md says: `npm ci`, then
 * `npx tsx examples/quickstart.ts`, with nothing built. The packages come from the npm cache only (`--offline`),
 * which CI's own `npm ci` of the same lockfile has filled; a package missing from it fails here with ENOTCACHED.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PLAIN_ENV, run, type Started, start, succeed } from '../helpers/commands.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Measured: the clone and `npm ci` about 8 s, quickstart listening 3 s, the type check 5 s on two cores. */
const INSTALL_MS = 120_000;
const LISTEN_MS = 30_000;
const TYPECHECK_MS = 60_000;

let work: string;
let clone: string;
const fresh = { dist: true, nodeModules: true };
const started: Started[] = [];

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'switchboard-clone-'));
  clone = join(work, 'switchboard');
  await succeed('git', ['clone', '--quiet', root, clone], { cwd: work, timeoutMs: 30_000 });
  fresh.dist = existsSync(join(clone, 'dist'));
  fresh.nodeModules = existsSync(join(clone, 'node_modules'));
  await succeed('npm', ['ci', '--offline', '--no-audit', '--no-fund'], { cwd: clone, timeoutMs: INSTALL_MS });
}, INSTALL_MS + 30_000);

afterAll(async () => {
  await Promise.all(started.map((command) => command.stop('SIGKILL')));
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('a fresh clone', () => {
  it('holds neither dist/ nor node_modules/, and npm ci builds no dist/', () => {
    expect(fresh).toEqual({ dist: false, nodeModules: false });
    expect(existsSync(join(clone, 'node_modules', '.bin', 'tsx'))).toBe(true);
    expect(existsSync(join(clone, 'dist'))).toBe(false);
  });

  it(
    'runs npx tsx examples/quickstart.ts: it prints its listening line on PORT=0, and stops on SIGTERM',
    async () => {
      const quickstart = start('npx', ['tsx', 'examples/quickstart.ts'], { cwd: clone, env: { ...PLAIN_ENV, PORT: '0' } });
      started.push(quickstart);
      await quickstart.line(/^listening on ws:\/\/127\.0\.0\.1:\d+\/mcp$/m, LISTEN_MS);
      expect(await quickstart.stop()).toMatchObject({ signal: 'SIGTERM', stderr: '' });
      expect(existsSync(join(clone, 'dist'))).toBe(false);
    },
    LISTEN_MS + 10_000,
  );

  it(
    'type-checks with npx tsc --noEmit -p ., the examples against the source they run on',
    async () => {
      const ran = await run('npx', ['tsc', '--noEmit', '-p', '.'], { cwd: clone, timeoutMs: TYPECHECK_MS });
      expect({ code: ran.code, output: `${ran.stdout}${ran.stderr}` }).toEqual({ code: 0, output: '' });
    },
    TYPECHECK_MS + 10_000,
  );
});
