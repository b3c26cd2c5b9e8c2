/** Request ids that name the instance that gave them out. */
import type { RequestId } from '../protocol/types.js';
import { RequestIds } from './requests.js';

/**
 * Ids that say who gave them out: `<prefix><n>` strings, counted up. One allocator serves every guest
 * session of an instance (`serveWhereTheyLand`), so that a reply landing on any instance finds the one that asked.
 */
export class TaggedRequestIds extends RequestIds {
  private count = 0;

  constructor(readonly prefix: string) {
    super();
  }

  override next(): string {
    return this.prefix + ++this.count;
  }

  override issued(id: RequestId): boolean {
    if (typeof id !== 'string' || !id.startsWith(this.prefix)) return false;
    const n = Number(id.slice(this.prefix.length));
    return Number.isInteger(n) && n >= 1 && n <= this.count;
  }
}
