/** stdio transport options, their defaults in one literal, and their checks at construction. */
import type { Readable, Writable } from 'node:stream';
import { positiveInteger } from '../../protocol/option-checks.js';
import { withDefaults } from '../with-defaults.js';

export interface StdioTransportOptions {
  /** Default `process.stdin`. */
  input?: Readable;
  /** Default `process.stdout`. */
  output?: Writable;
  /** The largest message read, in bytes of UTF-8 (one line); a longer line is discarded unread, with an error. Default 4 MiB. */
  maxMessageBytes?: number;
}

/** Every default of a stdio transport, in one place (the streams are the process's, read when the transport is made). */
const STDIO_DEFAULTS = {
  maxMessageBytes: 4 * 1024 * 1024,
} as const satisfies StdioTransportOptions;

export type ResolvedStdioOptions = Required<StdioTransportOptions>;

/** The options over their defaults, checked once (a TypeError names the wrong option). */
export function resolveStdioOptions(options: StdioTransportOptions): ResolvedStdioOptions {
  const resolved = withDefaults({ ...STDIO_DEFAULTS, input: process.stdin, output: process.stdout }, options);
  positiveInteger('maxMessageBytes', resolved.maxMessageBytes);
  return resolved;
}
