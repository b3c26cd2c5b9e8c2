/**
 * `npm run conformance`: start the fixture server, run the official MCP conformance suites against it,
 * and fail on any failed check or any warning that is not explained below.
 */
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const resultsDir = join(root, 'results', 'conformance');
const nodeMajor = Number(process.versions.node.split('.')[0]);

interface Suite {
  name: string;
  cli: string;
  args: string[];
  /** Only these scenarios count (the frozen --requirements list); the rest run and are reported. */
  scored?: Set<string>;
}

/** The `server:` list of a requirements file (a flat YAML list; no YAML parser needed). */
function scoredServerScenarios(file: string): Set<string> {
  const scored = new Set<string>();
  let inServer = false;
  for (const line of readFileSync(join(root, file), 'utf8').split('\n')) {
    if (/^\S/.test(line)) inServer = line.startsWith('server:');
    else if (inServer) {
      const item = /^\s+-\s+([\w./-]+)\s*$/.exec(line);
      if (item) scored.add(item[1]);
    }
  }
  return scored;
}

const SUITES: Suite[] = [
  { name: 'conformance 0.1.16 --suite all', cli: 'node_modules/@modelcontextprotocol/conformance/dist/index.js', args: ['--suite', 'all'] },
  { name: 'conformance 0.2.0-alpha.12 (default suite)', cli: 'node_modules/conformance-alpha/dist/index.js', args: [] },
  {
    name: 'conformance 0.2.0-alpha.12 --requirements 2026-07-28',
    cli: 'node_modules/conformance-alpha/dist/index.js',
    args: ['--requirements', '2026-07-28'],
    scored: scoredServerScenarios('node_modules/conformance-alpha/requirements/2026-07-28.yaml'),
  },
];

/** Warnings we accept, each with the reason. Anything else fails the run. */
const EXPLAINED_WARNINGS: Record<string, string> = {};

interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

function startFixture(): Promise<{ url: string; stop: () => Promise<void> }> {
  const child = spawn(join(root, 'node_modules/.bin/tsx'), ['conformance/fixture-server.ts', '--port', '0'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      const match = /fixture on (http:\/\/\S+\/mcp)/.exec(out);
      if (match) {
        resolve({
          url: match[1],
          stop: () =>
            new Promise((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
            }),
        });
      }
    });
    child.once('exit', (code) => reject(new Error(`the fixture server exited with ${code}: ${out}`)));
  });
}

function runSuite(suite: Suite, url: string, outDir: string): Promise<number> {
  const shim = nodeMajor < 22 ? ['--import', './conformance/node20-globsync.mjs'] : [];
  const args = [...shim, suite.cli, 'server', '--url', url, ...suite.args, '-o', outDir];
  console.log(`\n=== ${suite.name}\n$ node ${args.join(' ')}`);
  const child = spawn(process.execPath, args, { cwd: root, stdio: 'inherit' });
  const timer = setTimeout(() => child.kill('SIGKILL'), 10 * 60_000);
  return new Promise((resolve) => {
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code ?? 1);
    });
  });
}

function readChecks(outDir: string): { scenario: string; check: Check }[] {
  const found: { scenario: string; check: Check }[] = [];
  for (const entry of readdirSync(outDir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const scenario = entry.name.replace(/^server-/, '').replace(/-\d{4}-\d{2}-\d{2}T.*$/, '');
    let checks: Check[];
    try {
      checks = JSON.parse(readFileSync(join(outDir, entry.name, 'checks.json'), 'utf8'));
    } catch {
      continue;
    }
    for (const check of checks) found.push({ scenario, check });
  }
  return found;
}

rmSync(resultsDir, { recursive: true, force: true });
const fixture = await startFixture();
let failed = false;
try {
  for (const [i, suite] of SUITES.entries()) {
    const outDir = join(resultsDir, String(i));
    const exit = await runSuite(suite, fixture.url, outDir);
    const all = readChecks(outDir);
    const checks = suite.scored ? all.filter((c) => suite.scored!.has(c.scenario)) : all;
    const unscored = all.filter((c) => !checks.includes(c));
    if (unscored.length > 0) {
      const failed = unscored.filter((c) => c.check.status === 'FAILURE');
      console.log(
        `\nnot scored (extensions, pending, added after the release): ${unscored.length - failed.length} passed or informational, ${failed.length} failed`,
      );
      for (const { scenario, check } of failed) console.log(`  not scored: FAILURE ${scenario}/${check.id}: ${check.errorMessage ?? check.name}`);
    }
    const count = (status: Check['status']) => checks.filter((c) => c.check.status === status).length;
    const failures = checks.filter((c) => c.check.status === 'FAILURE');
    const warnings = checks.filter((c) => c.check.status === 'WARNING');
    const unexplained = warnings.filter((w) => !EXPLAINED_WARNINGS[`${w.scenario}/${w.check.id}`]);
    console.log(
      `\n${suite.name}: ${count('SUCCESS')} passed, ${failures.length} failed, ${warnings.length} warnings (${unexplained.length} unexplained), exit ${exit}`,
    );
    for (const { scenario, check } of [...failures, ...unexplained]) {
      console.log(`  ${check.status} ${scenario}/${check.id}: ${check.errorMessage ?? check.name}`);
    }
    for (const w of warnings) {
      const why = EXPLAINED_WARNINGS[`${w.scenario}/${w.check.id}`];
      if (why) console.log(`  WARNING ${w.scenario}/${w.check.id} (explained: ${why})`);
    }
    if (exit !== 0 || failures.length > 0 || unexplained.length > 0 || checks.length === 0) failed = true;
  }
} finally {
  await fixture.stop();
}
console.log(failed ? '\nconformance: FAILED' : '\nconformance: all suites passed');
process.exit(failed ? 1 : 0);
