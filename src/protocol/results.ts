/** Results built from plain facts. */
import type { CallToolResult } from './types.js';

/** A tool's failure, told to the model as an `isError` result rather than a protocol error (SEP-1303). */
export function errorResult(text: string): CallToolResult {
  return { content: [{ type: 'text', text }], isError: true };
}
