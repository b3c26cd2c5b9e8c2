/** Log levels (RFC 5424 severities, logging.mdx) and the threshold check. */
import { LOGGING_LEVELS, type LoggingLevel } from './types.js';

const rank = new Map<string, number>(LOGGING_LEVELS.map((level, i) => [level, i]));

export function isLoggingLevel(value: unknown): value is LoggingLevel {
  return typeof value === 'string' && rank.has(value);
}

/** Whether a message at `level` passes a session whose threshold is `threshold`. */
export function isLevelEnabled(level: LoggingLevel, threshold: LoggingLevel): boolean {
  return rank.get(level)! >= rank.get(threshold)!;
}
