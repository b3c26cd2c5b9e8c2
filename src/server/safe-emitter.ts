// biome-ignore-all lint/suspicious/noExplicitAny: the overrides must match eventemitter3's own signatures, which use any
/**
 * An eventemitter3 whose listeners cannot break the emitter: a listener that throws (or returns a
 * rejected promise) is reported through `error` and the remaining listeners still run.
 */
import { EventEmitter } from 'eventemitter3';

type Listener = (...args: any[]) => unknown;

export class SafeEmitter<Events extends EventEmitter.ValidEventTypes> extends EventEmitter<Events> {
  /** Each listener's guarded wrapper, per event, so `off(fn)` finds what `on(fn)` registered. */
  private readonly guarded = new WeakMap<Listener, Map<string | symbol, Listener>>();

  override on(event: any, fn: Listener, context?: unknown): this {
    return super.on(event, this.guard(event, fn) as any, context);
  }

  override addListener(event: any, fn: Listener, context?: unknown): this {
    return this.on(event, fn, context);
  }

  override once(event: any, fn: Listener, context?: unknown): this {
    return super.once(event, this.guard(event, fn) as any, context);
  }

  override off(event: any, fn?: Listener, context?: unknown, once?: boolean): this {
    const wrapped = fn && this.guarded.get(fn)?.get(event);
    return super.off(event, (wrapped ?? fn) as any, context, once);
  }

  override removeListener(event: any, fn?: Listener, context?: unknown, once?: boolean): this {
    return this.off(event, fn, context, once);
  }

  /** Report a failure without ever throwing; with no `error` listener it goes to stderr. */
  reportError(error: unknown, ...rest: unknown[]): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error' as any) === 0) {
      console.error('[switchboard]', err);
      return;
    }
    super.emit('error' as any, ...([err, ...rest] as any));
  }

  private guard(event: string | symbol, fn: Listener): Listener {
    let byEvent = this.guarded.get(fn);
    if (!byEvent) this.guarded.set(fn, (byEvent = new Map()));
    let wrapped = byEvent.get(event);
    if (wrapped) return wrapped;
    // A failing `error` listener has nowhere left to report to but stderr.
    const onFailure =
      event === 'error'
        ? (err: unknown) => console.error('[switchboard] an error listener threw', err)
        : (err: unknown) => this.reportListenerError(event, err);
    wrapped = function (this: unknown, ...args: unknown[]) {
      try {
        const out = fn.apply(this, args);
        if (out && typeof (out as Promise<unknown>).then === 'function') (out as Promise<unknown>).then(undefined, onFailure);
      } catch (err) {
        onFailure(err);
      }
    };
    byEvent.set(event, wrapped);
    return wrapped;
  }

  private reportListenerError(event: string | symbol, err: unknown): void {
    const error = err instanceof Error ? err : new Error(String(err));
    error.message = `a '${String(event)}' listener threw: ${error.message}`;
    this.reportError(error);
  }
}
