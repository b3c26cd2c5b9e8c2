/** Medians over repetitions, paired ratios, the table and the JSON file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Case, CaseId } from './cases.js';
import type { Sample } from './load.js';
import { median } from './measure.js';

export type Role = 'bare' | 'switchboard' | 'sdk' | 'otel' | 'otel-sdk';

export interface Measured extends Sample {
  rep: number;
  caseId: CaseId;
  concurrency: number;
  role: Role;
  server: string;
}

export interface Row {
  caseId: CaseId;
  title: string;
  concurrency: number;
  server: string;
  role: Role;
  /** Repetitions the medians are taken over, of `repsRun`. */
  reps: number;
  repsRun: number;
  cpuMicrosPerOp: number;
  /** Half the range of CPU µs/op over those repetitions, relative to the median. */
  cpuSpread: number;
  p50Micros: number;
  p99Micros: number;
  opsPerSecond: number;
  loadGenBusy: number;
  otherBusy: number;
  /**
   * Switchboard against bare, the SDK and the telemetry variants against Switchboard, a variant case's
   * server against itself on the case it varies: median of per-repetition CPU ratios.
   */
  ratio?: { against: string; value: number };
}

const AGAINST: Partial<Record<Role, Role>> = { switchboard: 'bare', sdk: 'switchboard', otel: 'switchboard', 'otel-sdk': 'switchboard' };

/**
 * On a shared machine another process can take a CPU for seconds; a window in which others used more
 * than this (in CPUs) is left out of the medians, unless the cell has no quieter window.
 */
export const CONTENDED = 0.25;
const quiet = (s: Measured) => !(s.otherBusy > CONTENDED);
const quietest = <T>(all: T[], isQuiet: (t: T) => boolean) => (all.some(isQuiet) ? all.filter(isQuiet) : all);

export function summarize(samples: Measured[], cases: Record<CaseId, Case>): Row[] {
  const cells = new Map<string, Measured[]>();
  for (const s of samples) {
    const key = `${s.caseId} ${s.concurrency} ${s.role}`;
    cells.set(key, [...(cells.get(key) ?? []), s]);
  }
  return [...cells.values()].map((all) => {
    const { caseId, concurrency, role, server } = all[0];
    const used = quietest(all, quiet);
    const cpu = used.map((s) => s.cpuMicrosPerOp);
    const row: Row = {
      caseId,
      title: cases[caseId].title,
      concurrency,
      server,
      role,
      reps: used.length,
      repsRun: all.length,
      cpuMicrosPerOp: median(cpu),
      cpuSpread: (Math.max(...cpu) - Math.min(...cpu)) / 2 / median(cpu),
      p50Micros: median(used.map((s) => s.p50Micros)),
      p99Micros: median(used.map((s) => s.p99Micros)),
      opsPerSecond: median(used.map((s) => s.opsPerSecond)),
      loadGenBusy: median(used.map((s) => s.loadGenBusy)),
      otherBusy: median(used.map((s) => s.otherBusy)),
    };
    const variantOf = cases[caseId].variantOf;
    const [against, baseRole, baseCase] = variantOf ? [variantOf, role, variantOf] : [AGAINST[role], AGAINST[role], caseId];
    const pairs = all.flatMap((s) => {
      const base = samples.find((b) => b.role === baseRole && b.rep === s.rep && b.caseId === baseCase && b.concurrency === concurrency);
      return base ? [[s, base]] : [];
    });
    const paired = quietest(pairs, (pair) => pair.every(quiet));
    if (against && paired.length) row.ratio = { against, value: median(paired.map(([s, base]) => s.cpuMicrosPerOp / base.cpuMicrosPerOp)) };
    return row;
  });
}

const percent = (x: number) => `${(Math.max(0, x) * 100).toFixed(0)}%`;

export function printTable(rows: Row[]): void {
  const columns: [string, number, (r: Row) => string][] = [
    ['case', -22, (r) => r.title],
    ['clients', 7, (r) => String(r.concurrency)],
    ['server', -14, (r) => r.server],
    ['reps', 4, (r) => `${r.reps}/${r.repsRun}`],
    ['CPU µs/op', 9, (r) => r.cpuMicrosPerOp.toFixed(1)],
    ['±reps', 5, (r) => `${(r.cpuSpread * 100).toFixed(0)}%`],
    ['p50 µs', 7, (r) => r.p50Micros.toFixed(0)],
    ['p99 µs', 7, (r) => r.p99Micros.toFixed(0)],
    ['ops/s', 6, (r) => r.opsPerSecond.toFixed(0)],
    ['client', 6, (r) => percent(r.loadGenBusy)],
    // Rough (see machineBusy): a small negative value is sampling error, shown as 0.
    ['other', 5, (r) => (Number.isNaN(r.otherBusy) ? '?' : percent(r.otherBusy))],
    ['ratio', -18, (r) => (r.ratio ? `${r.ratio.value.toFixed(2)}× ${r.ratio.against}` : '')],
  ];
  const cell = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));
  console.log(columns.map(([name, width]) => cell(name, width)).join('  '));
  for (const row of rows) console.log(columns.map(([, width, value]) => cell(value(row), width)).join('  '));
}

/** How much of the machine other processes took during the windows: a loaded machine makes every number noisier. */
export function printOtherLoad(samples: Measured[]): void {
  const other = samples.map((s) => s.otherBusy).filter((x) => !Number.isNaN(x));
  if (!other.length) return console.log('other load: unknown (no /proc/stat)');
  const busiest = samples.reduce((a, b) => (b.otherBusy > a.otherBusy ? b : a));
  const contended = other.filter((x) => x > CONTENDED).length;
  console.log(
    `other load during windows: median ${percent(median(other))} of a CPU, over ${percent(CONTENDED)} in ${contended} of ${other.length}, max ${percent(busiest.otherBusy)} ` +
      `(rep ${busiest.rep}, ${busiest.caseId}, ${busiest.concurrency} clients, ${busiest.server})`,
  );
}

/** Write `report` to `dir` (bench/results/ by default) as `<prefix>-<time>.json`; returns the path. */
export function writeJson(report: object, { dir = new URL('results/', import.meta.url), prefix = 'load' }: { dir?: URL; prefix?: string } = {}): string {
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, dir);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file.pathname;
}
