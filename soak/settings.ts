/** The soak's knobs: the command line, and the constants behind it. */
import { parseArgs } from 'node:util';

export interface Settings {
  minutes: number;
  clients: number;
  seed: number;
}

/** One line of output per window. */
export const WINDOW_MS = 10_000;
/**
 * The first windows are the warm-up, after which the memory baseline is taken: long enough for the
 * sessions of vanished clients to reach their steady number (the server reaps them within about 20 s).
 */
export const WARMUP_WINDOWS = 3;
/** An operation (connecting included) not done by then is an error. */
export const OP_TIMEOUT_MS = 15_000;
/** Each client waits between 0 and this many ms between operations, as a person or a model would. */
export const MAX_THINK_MS = 20;
/** Server RSS may grow by this share of its baseline before the soak fails. */
export const RSS_GROWTH_LIMIT = 0.5;

export function parseSettings(argv: string[]): Settings {
  const { values } = parseArgs({
    args: argv,
    options: { minutes: { type: 'string', default: '1' }, clients: { type: 'string', default: '50' }, seed: { type: 'string', default: '1' } },
  });
  const settings = { minutes: Number(values.minutes), clients: Number(values.clients), seed: Number(values.seed) };
  const shortest = ((WARMUP_WINDOWS + 1) * WINDOW_MS) / 60_000;
  if (!(settings.minutes >= shortest) || settings.minutes > 24 * 60) {
    throw new Error(`--minutes takes a number of minutes from ${shortest.toFixed(2)} (the warm-up and one window) to a day`);
  }
  if (!Number.isInteger(settings.clients) || settings.clients < 3) throw new Error('--clients takes a whole number, at least 3');
  if (!Number.isInteger(settings.seed)) throw new Error('--seed takes a whole number');
  return settings;
}

/** About half HTTP, half WebSocket; among the HTTP clients, one in twelve of all speaks 2026-07-28 without a session. */
export function clientMix(clients: number): { http: number; stateless: number; ws: number } {
  const stateless = Math.max(1, Math.round(clients / 12));
  const http = Math.round(clients / 2) - stateless;
  return { http, stateless, ws: clients - http - stateless };
}
