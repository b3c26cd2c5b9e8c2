/**
 * Property-based fuzzing with fast-check: a fixed seed that `FUZZ_SEED` overrides, run counts that
 * `FUZZ_RUNS` overrides, replay of one counterexample with `FUZZ_SEED` and `FUZZ_PATH` (name its test
 * with `vitest run -t`), a time budget for shrinking (`FUZZ_SHRINK_MS`, 10 s), failures that name the
 * seed and path, awaits with deadlines, and a record of the process-level errors (`uncaughtException`,
 * `unhandledRejection`) a server must never cause.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import fc from 'fast-check';

/** The seed every property starts from unless `FUZZ_SEED` says otherwise. */
const BASE_SEED = 0x5b0a2d;

/** How long shrinking may go on after the first failure before the smallest counterexample so far is reported. */
const SHRINK_BUDGET_MS = envInteger('FUZZ_SHRINK_MS') ?? 10_000;

/** A failure report is cut to this many characters (counterexamples can hold values of hundreds of kilobytes). */
const MAX_REPORT_CHARS = 20_000;

function envInteger(name: string): number | undefined {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value)) throw new TypeError(`${name} must be an integer; got ${JSON.stringify(raw)}`);
  return value;
}

/** The seed, run count and replay path a property runs with. */
function fuzzSettings(defaultRuns: number): { seed: number; numRuns: number; path: string | undefined } {
  const numRuns = envInteger('FUZZ_RUNS') ?? defaultRuns;
  if (numRuns < 1) throw new TypeError(`FUZZ_RUNS must be at least 1; got ${numRuns}`);
  return { seed: envInteger('FUZZ_SEED') ?? BASE_SEED, numRuns, path: process.env.FUZZ_PATH || undefined };
}

/**
 * Check that `predicate` holds (returns without throwing) for `defaultRuns` values of `arbitrary` (or
 * `FUZZ_RUNS`). On failure it throws an error that names the seed and the path to replay the
 * counterexample with, followed by fast-check's report (counterexample, shrinks, the error). Without
 * `shrink` the first counterexample is reported as it is (for inputs too large to shrink usefully);
 * with `fixedRuns` the property runs `defaultRuns` times whatever `FUZZ_RUNS` says (one long run).
 */
export async function checkProperty<T>(
  arbitrary: fc.Arbitrary<T>,
  predicate: (value: T) => Promise<void> | void,
  defaultRuns: number,
  { shrink = true, fixedRuns = false }: { shrink?: boolean; fixedRuns?: boolean } = {},
): Promise<void> {
  const settings = fuzzSettings(defaultRuns);
  const { seed, path } = settings;
  const numRuns = fixedRuns ? defaultRuns : settings.numRuns;
  let firstFailure: number | undefined;
  const property = fc.asyncProperty(arbitrary, async (value) => {
    // Past the budget every further shrink candidate passes unchecked, so the smallest failure so far is reported.
    if (firstFailure !== undefined && performance.now() - firstFailure > SHRINK_BUDGET_MS) return;
    try {
      await predicate(value);
    } catch (err) {
      firstFailure ??= performance.now();
      throw err;
    }
  });
  await fc.assert(property, {
    seed,
    numRuns,
    ...(path === undefined ? {} : { path }),
    endOnFailure: path !== undefined || !shrink,
    reporter(details) {
      if (!details.failed) return;
      const error = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
      const report = fc.defaultReportMessage(details) ?? 'the property failed';
      throw new Error(
        `Replay with FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''}\n${clip(error)}\n\nfast-check's report:\n${clip(report)}`,
      );
    },
  });
}

function clip(text: string): string {
  return text.length > MAX_REPORT_CHARS ? `${text.slice(0, MAX_REPORT_CHARS)}\n… (${text.length - MAX_REPORT_CHARS} more characters)` : text;
}

/** Every `uncaughtException` and `unhandledRejection` in this process from now until `stop()`. */
export function watchProcessErrors(): { errors: unknown[]; stop(): void } {
  const errors: unknown[] = [];
  const record = (err: unknown) => void errors.push(err);
  process.on('uncaughtException', record);
  process.on('unhandledRejection', record);
  return {
    errors,
    stop() {
      process.off('uncaughtException', record);
      process.off('unhandledRejection', record);
    },
  };
}

/** Throws an error listing `problems` (the first 40), each on its own line, unless there are none. */
export function expectNoProblems(problems: string[], what: string): void {
  if (problems.length === 0) return;
  const listed = problems.slice(0, 40).map((p) => clip(p));
  if (problems.length > listed.length) listed.push(`… and ${problems.length - listed.length} more`);
  throw new Error(`${what}:\n- ${listed.join('\n- ')}`);
}

/**
 * A full garbage collection: `global.gc` when node runs with --expose-gc, otherwise the same function
 * exposed at run time (V8 hands it to a new context once the flag is set).
 */
export function garbageCollector(): () => void {
  const exposed = (globalThis as { gc?: () => void }).gc;
  if (exposed) return exposed;
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

/** A short, printable account of a value for an assertion message. */
export function brief(value: unknown, max = 300): string {
  let text: string;
  try {
    text =
      typeof value === 'string' ? JSON.stringify(value) : value instanceof Error ? `${value.name}: ${value.message}` : (JSON.stringify(value) ?? String(value));
  } catch (err) {
    text = `(unprintable: ${(err as Error).message})`;
  }
  return text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;
}
