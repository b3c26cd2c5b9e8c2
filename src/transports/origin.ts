/**
 * The `allowedOrigins` and `allowedHosts` options, checked once at construction; the gate matches requests against them.
 */
import { hostnameOf } from './gate.js';

export type { AllowedOrigins } from './gate.js';

/** Options are checked once: a lone string would make `includes` match substrings. */
export function checkAllowedOrigins(option: string, value: unknown): void {
  if (value === undefined || value === '*') return;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new TypeError(`Option ${option} must be '*' or an array of origins like ['https://app.example.com']; got ${JSON.stringify(value)}`);
  }
}

/** Options are checked once: a lone string would make `includes` match substrings. */
export function checkAllowedHosts(option: string, value: unknown): void {
  if (value !== undefined && (!Array.isArray(value) || !value.every((h) => typeof h === 'string'))) {
    throw new TypeError(`Option ${option} must be an array of host names like ['mcp.example.com']; got ${JSON.stringify(value)}`);
  }
  // Requests are matched by host name in lower case, without the port: an entry of another shape would never match.
  const unmatchable = (value as AllowedHosts | undefined)?.find((h) => h !== hostnameOf(h));
  if (unmatchable !== undefined) {
    throw new TypeError(
      `Option ${option} lists host names in lower case and without a port, like 'mcp.example.com' or '[::1]'; got ${JSON.stringify(unmatchable)}`,
    );
  }
}

type AllowedHosts = readonly string[];
