/** Medians over repetitions, paired ratios, validity, the tables and the JSON file. */
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Case, CaseId } from './cases.js';
import type { Sample } from './load.js';
import { median } from './measure.js';
import { ROLES, type Role } from './peers.js';

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
  serverBusy: number;
  otherBusy: number;
  serverCoreOther: number;
  /**
   * False when the load generator passed GENERATOR_LIMIT of its core while the server stayed under
   * SERVER_SATURATED of its own: the figures are the client's, not the server's.
   */
  valid: boolean;
  /**
   * Against bare, or for a variant case against the same server on the case it varies: the median of
   * per-repetition CPU ratios, over the repetitions valid on both sides (`pairs` of them).
   */
  ratio?: { against: string; value: number; pairs: number };
  /** A peer's or a variant server's CPU against Switchboard's on the same case, paired the same way. */
  toSwitchboard?: number;
  /** Why the cell cannot be trusted, when it cannot. */
  problem?: string;
}

/**
 * The load generator's share of its core above which a cell is refused: near saturation it batches
 * less, the server sees fewer requests per event-loop turn, and the floor's cost per request rises.
 */
export const GENERATOR_LIMIT = 0.8;
/**
 * A server that used this much of its core served as fast as it can: then it, not the load generator,
 * set the pace, however busy the generator was. On a WebSocket the kernel's work for each message (the
 * write that hands it over loopback, 3/4 of the generator's time) costs the generator about what it
 * costs a bare server, so a bare WebSocket server is saturated with its generator at 80-90%.
 */
export const SERVER_SATURATED = 0.95;
/** The generator left the server short of work: it was busy past GENERATOR_LIMIT and the server was not saturated. */
const generatorBound = (loadGenBusy: number, serverBusy: number) => loadGenBusy > GENERATOR_LIMIT && !(serverBusy >= SERVER_SATURATED);
/**
 * On a shared machine another process can take a CPU for seconds; a window in which others used more
 * than this (in CPUs) is left out of the medians, unless the cell has no quieter window.
 */
export const CONTENDED = 0.25;
/** The same for the server's own core, where other work costs the server most (its caches). */
export const CORE_CONTENDED = 0.1;
/** With --rate, a cell whose server served less than this share of the rate is refused: it could not keep up, and set the pace. */
export const RATE_KEPT = 0.95;
const quiet = (s: Measured) => !(s.otherBusy > CONTENDED) && !(s.serverCoreOther > CORE_CONTENDED);
const quietest = <T>(all: T[], isQuiet: (t: T) => boolean) => (all.some(isQuiet) ? all.filter(isQuiet) : all);

/** `rate`: the operations per second the clients were paced to (--rate); undefined when they ran back to back. */
export function summarize(samples: Measured[], cases: Record<CaseId, Case>, rate?: number): Row[] {
  // Paced, the generator has time to spare by design: what makes a cell invalid is a server that fell behind.
  const paceOk = (loadGenBusy: number, serverBusy: number, opsPerSecond: number) =>
    rate === undefined ? !generatorBound(loadGenBusy, serverBusy) : opsPerSecond >= RATE_KEPT * rate;
  const sampleOk = (s: Measured) => paceOk(s.loadGenBusy, s.serverBusy, s.opsPerSecond) && Number.isFinite(s.cpuMicrosPerOp);
  const cells = new Map<string, Measured[]>();
  for (const s of samples) {
    const key = `${s.caseId} ${s.concurrency} ${s.role}`;
    cells.set(key, [...(cells.get(key) ?? []), s]);
  }
  const rows = [...cells.values()].map((all) => {
    const { caseId, concurrency, role, server } = all[0];
    const used = quietest(all, quiet);
    const cpu = used.map((s) => s.cpuMicrosPerOp);
    const loadGenBusy = median(used.map((s) => s.loadGenBusy));
    const serverBusy = median(used.map((s) => s.serverBusy));
    const opsPerSecond = median(used.map((s) => s.opsPerSecond));
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
      opsPerSecond,
      loadGenBusy,
      serverBusy,
      otherBusy: median(used.map((s) => s.otherBusy)),
      serverCoreOther: median(used.map((s) => s.serverCoreOther)),
      valid: paceOk(loadGenBusy, serverBusy, opsPerSecond) && Number.isFinite(median(cpu)),
    };
    if (!Number.isFinite(row.cpuMicrosPerOp)) row.problem = 'invalid: no operation completed in the window';
    else if (!row.valid && rate !== undefined) row.problem = `invalid: the server kept ${opsPerSecond.toFixed(0)} of the ${rate} operations per second asked`;
    else if (!row.valid) row.problem = `invalid: the load generator used ${percent(loadGenBusy)} of its core, the server ${percent(serverBusy)} of its own`;
    return row;
  });
  /** The median ratio of `row`'s samples to their pairs (same repetition) on `baseRole` and `baseCase`, over pairs valid on both sides. */
  const pairedRatio = (row: Row, baseRole: Role, baseCase: CaseId) => {
    const pairs = samples.flatMap((s) => {
      if (s.role !== row.role || s.caseId !== row.caseId || s.concurrency !== row.concurrency || !sampleOk(s)) return [];
      const b = samples.find((x) => x.role === baseRole && x.rep === s.rep && x.caseId === baseCase && x.concurrency === row.concurrency);
      return b && sampleOk(b) ? [[s, b]] : [];
    });
    const paired = quietest(pairs, (pair) => pair.every(quiet));
    return paired.length ? { value: median(paired.map(([s, b]) => s.cpuMicrosPerOp / b.cpuMicrosPerOp)), pairs: paired.length } : undefined;
  };
  for (const row of rows) {
    const variantOf = cases[row.caseId].variantOf;
    const [against, baseRole, baseCase] = variantOf ? [variantOf, row.role, variantOf] : ['bare', 'bare' as Role, row.caseId];
    if (!variantOf && row.role === 'bare') continue;
    const base = rows.find((r) => r.role === baseRole && r.caseId === baseCase && r.concurrency === row.concurrency);
    if (!base) continue;
    if (!base.valid) {
      row.problem ??= `no ratio: the ${base.server} cell is invalid`;
      continue;
    }
    const ratio = row.valid ? pairedRatio(row, baseRole, baseCase) : undefined;
    if (!ratio) continue;
    row.ratio = { against, ...ratio };
    // The floor does less than any server by construction: a server measured below it says the method failed.
    if (!variantOf && ratio.value < 1) row.problem = 'measurement problem: the bare floor cost more than this server';
    const switchboard = rows.find((r) => r.role === 'switchboard' && r.caseId === row.caseId && r.concurrency === row.concurrency);
    if (!variantOf && row.role !== 'switchboard' && switchboard?.valid) row.toSwitchboard = pairedRatio(row, 'switchboard', row.caseId)?.value;
  }
  return rows;
}

const percent = (x: number) => `${(Math.max(0, x) * 100).toFixed(0)}%`;

export function printTable(rows: Row[]): void {
  const columns: [string, number, (r: Row) => string][] = [
    ['case', -26, (r) => r.title],
    ['clients', 7, (r) => String(r.concurrency)],
    ['server', -18, (r) => r.server],
    ['reps', 4, (r) => `${r.reps}/${r.repsRun}`],
    ['CPU µs/op', 9, (r) => r.cpuMicrosPerOp.toFixed(1)],
    ['±reps', 5, (r) => `${(r.cpuSpread * 100).toFixed(0)}%`],
    ['p50 µs', 7, (r) => r.p50Micros.toFixed(0)],
    ['p99 µs', 7, (r) => r.p99Micros.toFixed(0)],
    ['ops/s', 6, (r) => r.opsPerSecond.toFixed(0)],
    ['gen', 4, (r) => percent(r.loadGenBusy)],
    ['srv', 4, (r) => percent(r.serverBusy)],
    // Rough (see machineBusy): a small negative value is sampling error, shown as 0.
    ['other', 5, (r) => (Number.isNaN(r.otherBusy) ? '?' : percent(r.otherBusy))],
    ['core', 4, (r) => (Number.isNaN(r.serverCoreOther) ? '?' : percent(r.serverCoreOther))],
    ['ratio', -20, (r) => (r.ratio ? `${r.ratio.value.toFixed(2)}× ${r.ratio.against} (${r.ratio.pairs})` : '')],
    ['/SB', 6, (r) => (r.toSwitchboard === undefined ? '' : `${r.toSwitchboard.toFixed(2)}×`)],
    ['', 0, (r) => r.problem ?? ''],
  ];
  const cell = (text: string, width: number) => (width < 0 ? text.padEnd(-width) : text.padStart(width));
  console.log(columns.map(([name, width]) => cell(name, width)).join('  '));
  for (const row of rows) console.log(columns.map(([, width, value]) => cell(value(row), width)).join('  '));
}

/** One line per case and client count: bare's CPU µs/op, then every other server as a multiple of it. */
export function printSummary(rows: Row[]): void {
  const roles = ROLES.filter((role) => role !== 'bare' && rows.some((r) => r.role === role));
  const header = ['case'.padEnd(26), 'clients', 'bare µs/op'.padStart(10), ...roles.map((role) => role.padStart(16))];
  console.log(header.join('  '));
  const seen = new Set<string>();
  for (const row of rows) {
    const key = `${row.caseId} ${row.concurrency}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const same = rows.filter((r) => r.caseId === row.caseId && r.concurrency === row.concurrency);
    const bare = same.find((r) => r.role === 'bare');
    const value = (r: Row | undefined) => {
      if (!r) return '—';
      if (!r.valid) return 'invalid';
      const mark = r.problem ? '!' : '';
      return r.ratio
        ? `${r.ratio.value.toFixed(2)}×${r.ratio.against === 'bare' ? '' : ` ${r.ratio.against}`}${mark}`
        : `${r.cpuMicrosPerOp.toFixed(0)} µs${mark}`;
    };
    const floor = bare ? (bare.valid ? bare.cpuMicrosPerOp.toFixed(1) : 'invalid') : '—';
    console.log(
      [
        row.title.padEnd(26),
        String(row.concurrency).padStart(7),
        floor.padStart(10),
        ...roles.map((role) => value(same.find((r) => r.role === role)).padStart(16)),
      ].join('  '),
    );
  }
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
  const core = samples.map((s) => s.serverCoreOther).filter((x) => !Number.isNaN(x));
  if (core.length)
    console.log(
      `other work on the server's core: median ${percent(median(core))}, over ${percent(CORE_CONTENDED)} in ${core.filter((x) => x > CORE_CONTENDED).length} of ${core.length}`,
    );
}

/** Write `report` to `dir` (bench/results/ by default) as `<prefix>-<time>.json`; returns the path. */
export function writeJson(report: object, { dir = new URL('results/', import.meta.url), prefix = 'load' }: { dir?: URL; prefix?: string } = {}): string {
  mkdirSync(dir, { recursive: true });
  const file = new URL(`${prefix}-${new Date().toISOString().replace(/[:.]/g, '-')}.json`, dir);
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  return file.pathname;
}
