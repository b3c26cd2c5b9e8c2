/** The soak's output: a line per window, the summary, and the JSON file. */
import { median } from '../bench/measure.js';
import { writeJson } from '../bench/report.js';
import { KINDS } from './ops.js';
import type { Window } from './recorder.js';
import type { SoakResult } from './result.js';
import { RSS_GROWTH_LIMIT } from './settings.js';
import type { ServerReport } from './server-process.js';

export interface WindowRow {
  /** Seconds since the load started, at the window's end, and the window's length. */
  at: number;
  seconds: number;
  window: Window;
  /** Client errors and server `error` events in the window. */
  errors: number;
  rss: number;
  heapUsed: number;
  sessions: number;
  /** CPU time over the window as a share of one CPU: the server's, the clients' (this process), and all other processes'. */
  cpu: { server: number; clients: number; other: number };
  /** The server's event-loop delay over the window, in ms. */
  lagMs: ServerReport['lagMs'];
}

type Memory = ServerReport['memory'];

const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
const ms = (x: number) => (Number.isNaN(x) ? '-' : `${x.toFixed(x < 10 ? 2 : 1)} ms`);
const percent = (x: number, sign = false) => {
  if (Number.isNaN(x)) return '?';
  const whole = Math.round(x * 100) || 0; // no "-0"
  return `${sign && whole >= 0 ? '+' : ''}${whole}%`;
};
const clock = (seconds: number) => {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, '0')}`;
};
/** Ops per second: whole numbers, with a decimal below 10. */
const rate = (count: number, seconds: number) => {
  const r = count / seconds;
  return r >= 10 || r === 0 ? r.toFixed(0) : r.toFixed(1);
};

export function windowLine(row: WindowRow, warmup: boolean): string {
  const { window, seconds } = row;
  const total = KINDS.reduce((sum, kind) => sum + window.ops[kind], 0);
  const kinds = KINDS.map((kind) => `${kind} ${rate(window.ops[kind], seconds)}`).join(' ');
  return (
    `${clock(row.at).padStart(5)}  ${rate(total, seconds).padStart(5)} ops/s (${kinds})  p50 ${ms(window.p50Ms)} p99 ${ms(window.p99Ms)}  ` +
    `errors ${row.errors}  rss ${mb(row.rss)} heap ${mb(row.heapUsed)}  sessions ${row.sessions}  ` +
    `cpu server ${percent(row.cpu.server)} clients ${percent(row.cpu.clients)} other ${percent(Math.max(0, row.cpu.other))}  ` +
    `server lag p99 ${ms(row.lagMs.p99)} max ${ms(row.lagMs.max)}` +
    (warmup ? '  (warm-up)' : '')
  );
}

export function printSummary(r: SoakResult): void {
  const { memory: m, after } = r;
  console.log(
    `\nsummary: ${clock(r.seconds)} of load${r.interrupted ? ' (interrupted)' : ''}, ${r.settings.clients} clients ` +
      `(${r.clients.http} HTTP sessions, ${r.clients.stateless} stateless 2026-07-28 HTTP, ${r.clients.ws} WebSocket), seed ${r.settings.seed}`,
  );
  console.log(
    `  ops       ${r.ops.total} in ${r.seconds.toFixed(1)} s = ${rate(r.ops.total, r.seconds)} ops/s; latency p50 ${ms(r.ops.p50Ms)}, p99 ${ms(r.ops.p99Ms)}`,
  );
  for (const kind of KINDS) {
    const k = r.ops.byKind[kind];
    console.log(
      `    ${kind.padEnd(9)} ${String(k.count).padStart(8)}  ${rate(k.count, r.seconds).padStart(6)} ops/s  p50 ${ms(k.p50Ms).padStart(9)}  p99 ${ms(k.p99Ms).padStart(9)}`,
    );
  }
  if (r.windows.length) {
    const worst = (value: (w: WindowRow) => number) => r.windows.reduce((a, b) => (value(b) > value(a) ? b : a));
    const busiest = worst((w) => w.cpu.other);
    const laggiest = worst((w) => w.lagMs.max);
    const medianOf = (value: (w: WindowRow) => number) => median(r.windows.map(value));
    const other = medianOf((w) => Math.max(0, w.cpu.other));
    console.log(
      `  machine   median cpu: server ${percent(medianOf((w) => w.cpu.server))}, clients ${percent(medianOf((w) => w.cpu.clients))}, ` +
        `other processes ${percent(other)} (most ${percent(busiest.cpu.other)} at ${clock(busiest.at)}); ` +
        `server lag p99 median ${ms(medianOf((w) => w.lagMs.p99))}, max ${ms(laggiest.lagMs.max)} at ${clock(laggiest.at)}`,
    );
  }
  const reading = (x: Memory) => `rss ${mb(x.rss)}, heap ${mb(x.heapUsed)} used of ${mb(x.heapTotal)}, external ${mb(x.external)}`;
  console.log(`  memory    idle    ${reading(m.idle)}`);
  console.log(`            start   ${reading(m.start)}  (after the warm-up, under load, after GC)`);
  console.log(`            end     ${reading(m.end)}  (${r.interrupted ? 'as the clients stopped' : 'under load'}, after GC)`);
  const growth = Number.isNaN(m.rssGrowth)
    ? 'growth unknown (the run ended in the warm-up)'
    : `rss ${percent(m.rssGrowth, true)} (limit ${percent(RSS_GROWTH_LIMIT, true)}), heap used ${percent(m.heapGrowth, true)}`;
  console.log(`            max rss ${mb(m.maxRss)}; ${growth}`);
  console.log(
    `  sessions  ${after.sessionsOpened} opened, ${after.sessionsEnded} ended; after the clients left: ${after.sessions} open, ` +
      `${after.stats.requestsInFlight} requests in flight, ${after.stats.pendingRequests} server requests pending ` +
      `(vanished HTTP clients' sessions wait for the elicitation timeout, ${after.timeouts.elicitationTimeoutMs / 1000} s, and the idle timeout, ${after.timeouts.sessionIdleTimeoutMs / 1000} s)`,
  );
  console.log(`  errors    ${r.errors.total}`);
  const groups = Object.values(r.errors.shapes).sort((a, b) => b.count - a.count);
  for (const { count, example } of groups.slice(0, 20)) console.log(`    ${String(count).padStart(6)}× ${example}`);
  if (groups.length > 20) console.log(`    ... ${groups.length - 20} more in the JSON file`);
  console.log(`  result    ${r.failures.length ? `FAIL: ${r.failures.join('; ')}` : 'PASS'}`);
}

export function writeResult(result: SoakResult): string {
  return writeJson(result, { dir: new URL('results/', import.meta.url), prefix: 'soak' });
}
