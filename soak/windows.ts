/** The soak's clock: every window, what the clients did, what the server reports and what the CPUs did, as a line. */
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuTimes } from '../bench/measure.js';
import type { Recorder } from './recorder.js';
import { type WindowRow, windowLine } from './report.js';
import type { ServerReport, SoakServer } from './server-process.js';
import { WARMUP_WINDOWS, WINDOW_MS } from './settings.js';

export interface Observed {
  windows: WindowRow[];
  /** The server after the warm-up (after GC); undefined when the run ended before. */
  baseline: ServerReport | undefined;
  latest: ServerReport;
}

/** Print a line per window for `loadMs` from now, or until `stop`; windows end on a fixed schedule, the last may be shorter. */
export async function observe(server: SoakServer, recorder: Recorder, loadMs: number, first: ServerReport, stop: AbortSignal): Promise<Observed> {
  const observed: Observed = { windows: [], baseline: undefined, latest: first };
  const started = performance.now();
  let before = await cpuTimes(() => server.cpuMicros());
  let windowStarted = started;
  for (let i = 1; i <= Math.ceil(loadMs / WINDOW_MS) && !stop.aborted; i++) {
    await sleep(started + Math.min(i * WINDOW_MS, loadMs) - performance.now(), undefined, { signal: stop }).catch(() => {});
    const now = performance.now();
    const window = recorder.takeWindow();
    let report: ServerReport;
    try {
      // The baseline, after the last warm-up window, is read after GC, as the end reading is.
      report = await server.report(i === WARMUP_WINDOWS);
    } catch (err) {
      recorder.error((err as Error).message);
      break;
    }
    const times = await cpuTimes(() => server.cpuMicros());
    const micros = (now - windowStarted) * 1000;
    const [serverCpu, clientCpu] = [times.server - before.server, times.self - before.self];
    const row: WindowRow = {
      at: (now - started) / 1000,
      seconds: micros / 1e6,
      window,
      errors: window.errors + report.errors - observed.latest.errors,
      rss: report.memory.rss,
      heapUsed: report.memory.heapUsed,
      sessions: report.sessions,
      cpu: { server: serverCpu / micros, clients: clientCpu / micros, other: (times.machine - before.machine - serverCpu - clientCpu) / micros },
      lagMs: report.lagMs,
    };
    observed.windows.push(row);
    console.log(windowLine(row, i <= WARMUP_WINDOWS));
    if (i === WARMUP_WINDOWS) observed.baseline = report;
    observed.latest = report;
    before = times;
    windowStarted = now;
  }
  return observed;
}
