/** A ClientSink for the client transport tests: records every call, and lets a test wait until what it recorded says enough. */
import type { ClientSink } from '../../src/client/transport.js';

export class RecordingSink implements ClientSink {
  readonly messages: unknown[] = [];
  readonly errors: Error[] = [];
  readonly closedReasons: string[] = [];
  private waiters: { check: () => boolean; resolve: () => void }[] = [];

  message(message: unknown): void {
    this.messages.push(message);
    this.wake();
  }

  error(error: Error): void {
    this.errors.push(error);
    this.wake();
  }

  closed(reason: string): void {
    this.closedReasons.push(reason);
    this.wake();
  }

  /** The messages of the errors recorded so far. */
  get errorMessages(): string[] {
    return this.errors.map((err) => err.message);
  }

  /** Resolve once `check()` holds (tried now and after every call), or reject after `timeoutMs`. */
  until(check: () => boolean, timeoutMs = 5000): Promise<void> {
    if (check()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter = {
        check,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        reject(new Error(`sink condition not met within ${timeoutMs} ms; recorded ${JSON.stringify(this.recorded())}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Resolve once `count` messages have been recorded. */
  messageCount(count: number, timeoutMs?: number): Promise<void> {
    return this.until(() => this.messages.length >= count, timeoutMs);
  }

  private recorded() {
    return { messages: this.messages, errors: this.errorMessages, closed: this.closedReasons };
  }

  private wake(): void {
    for (const waiter of this.waiters.filter((w) => w.check())) {
      this.waiters.splice(this.waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  }
}
