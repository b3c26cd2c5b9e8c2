/**
 * The ids one end gives its own requests: integers counted up, never reused on one connection, so an
 * answer can be told from one to a request this end never sent.
 */
import type { RequestId } from '../protocol/types.js';

export class RequestIds {
  private last: number;

  /** @param first the first id given (a server's sessions count from 0, the client from 1). */
  constructor(private readonly first = 0) {
    this.last = first - 1;
  }

  next(): number {
    return ++this.last;
  }

  /** Whether `id` is one this allocator gave out. */
  issued(id: RequestId): boolean {
    return typeof id === 'number' && Number.isInteger(id) && id >= this.first && id <= this.last;
  }
}
