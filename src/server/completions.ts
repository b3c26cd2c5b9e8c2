/** `completion/complete` (server/utilities/completion.mdx): at most 100 values per answer. */
import type { CompleteResult } from '../protocol/types.js';
import type { RequestContext } from './api.js';

/** Suggest values for an argument, given what was typed so far and the other arguments already filled in. */
export type Completer = (value: string, context: { arguments: Record<string, string>; ctx: RequestContext }) => string[] | Promise<string[]>;

const MAX_VALUES = 100;

export const EMPTY_COMPLETION: CompleteResult = { completion: { values: [], hasMore: false } };

export function toCompleteResult(values: string[]): CompleteResult {
  if (values.length <= MAX_VALUES) return { completion: { values, total: values.length, hasMore: false } };
  return { completion: { values: values.slice(0, MAX_VALUES), total: values.length, hasMore: true } };
}
