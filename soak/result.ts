/** The verdict and the record of a run: what the summary prints and the JSON file holds. */
import { KINDS, type Kind } from './ops.js';
import type { ErrorGroup, Recorder } from './recorder.js';
import type { WindowRow } from './report.js';
import type { ServerReport } from './server-process.js';
import { RSS_GROWTH_LIMIT, type Settings } from './settings.js';
import type { Observed } from './windows.js';

type Memory = ServerReport['memory'];

export interface SoakResult {
  settings: Settings;
  clients: { http: number; stateless: number; ws: number };
  node: string;
  startedAt: string;
  interrupted: boolean;
  /** Seconds of load, warm-up included. */
  seconds: number;
  ops: { total: number; perSecond: number; p50Ms: number; p99Ms: number; byKind: Record<Kind, { count: number; p50Ms: number; p99Ms: number }> };
  /** Server memory before any client, after the warm-up and at the end (both under load, after GC); growth is NaN without a baseline. */
  memory: { idle: Memory; start: Memory; end: Memory; maxRss: number; rssGrowth: number; heapGrowth: number };
  /** The server once the clients had left. */
  after: ServerReport;
  /** Every error, client-side or a server `error` event, grouped by the shape of its text. */
  errors: { total: number; shapes: Record<string, ErrorGroup> };
  /** Why the run failed; empty when it passed. */
  failures: string[];
  exitCode: number;
  windows: WindowRow[];
}

export interface RunRecord {
  settings: Settings;
  clients: SoakResult['clients'];
  seconds: number;
  interrupted: boolean;
  recorder: Recorder;
  observed: Observed;
  idle: ServerReport;
  end: ServerReport;
  after: ServerReport;
}

export function judge({ settings, clients, seconds, interrupted, recorder, observed, idle, end, after }: RunRecord): SoakResult {
  // A run interrupted in its warm-up has no baseline: its growth is unknown, and not judged.
  const { baseline, windows } = observed;
  const start = baseline ?? idle;
  const rssGrowth = baseline ? end.memory.rss / start.memory.rss - 1 : Number.NaN;
  const shapes = Object.fromEntries(recorder.errorShapes);
  for (const [shape, group] of Object.entries(after.errorShapes)) {
    shapes[`server error event: ${shape}`] = { ...group, example: `server error event: ${group.example}` };
  }
  const errors = recorder.errors + after.errors;
  const failures = [
    ...(errors > 0 ? [`${errors} errors`] : []),
    ...(rssGrowth > RSS_GROWTH_LIMIT ? [`server RSS grew ${(rssGrowth * 100).toFixed(0)}% (limit ${RSS_GROWTH_LIMIT * 100}%)`] : []),
  ];
  const latency = (h: Recorder['overall']) => ({ p50Ms: h.percentile(50), p99Ms: h.percentile(99) });
  return {
    settings,
    clients,
    node: process.version,
    startedAt: new Date(Date.now() - seconds * 1000).toISOString(),
    interrupted,
    seconds,
    ops: {
      total: recorder.overall.count,
      perSecond: recorder.overall.count / seconds,
      ...latency(recorder.overall),
      byKind: Object.fromEntries(
        KINDS.map((kind) => [kind, { count: recorder.latency[kind].count, ...latency(recorder.latency[kind]) }]),
      ) as SoakResult['ops']['byKind'],
    },
    memory: {
      idle: idle.memory,
      start: start.memory,
      end: end.memory,
      maxRss: Math.max(start.memory.rss, end.memory.rss, ...windows.map((w) => w.rss)),
      rssGrowth,
      heapGrowth: end.memory.heapUsed / start.memory.heapUsed - 1,
    },
    after,
    errors: { total: errors, shapes },
    failures,
    exitCode: failures.length ? 1 : interrupted ? 130 : 0,
    windows,
  };
}
