// biome-ignore-all lint/suspicious/noExplicitAny: the implementations must accept what eventemitter3's own signatures do
/**
 * An eventemitter3 whose listeners cannot break the emitter: a listener that throws (or returns a
 * rejected promise) is reported through `error` and the remaining listeners still run. Listeners keep
 * eventemitter3's typed signatures.
 */
import { EventEmitter } from 'eventemitter3';

type Listener = (...args: any[]) => unknown;
type Names<Events extends EventEmitter.ValidEventTypes> = EventEmitter.EventNames<Events>;
type ListenerOf<Events extends EventEmitter.ValidEventTypes, T extends Names<Events>> = EventEmitter.EventListener<Events, T>;

export class SafeEmitter<Events extends EventEmitter.ValidEventTypes> extends EventEmitter<Events> {
  /** Each listener's guarded wrapper, per event, so `off(fn)` finds what `on(fn)` registered. */
  private readonly guarded = new WeakMap<Listener, Map<string | symbol, Listener>>();

  override on<T extends Names<Events>>(event: T, fn: ListenerOf<Events, T>, context?: unknown): this;
  override on(event: any, fn: Listener, context?: unknown): this {
    return super.on(event, this.guard(event, fn) as any, context);
  }

  override addListener<T extends Names<Events>>(event: T, fn: ListenerOf<Events, T>, context?: unknown): this;
  override addListener(event: any, fn: Listener, context?: unknown): this {
    return this.on(event, fn as any, context);
  }

  override once<T extends Names<Events>>(event: T, fn: ListenerOf<Events, T>, context?: unknown): this;
  override once(event: any, fn: Listener, context?: unknown): this {
    return super.once(event, this.guard(event, fn) as any, context);
  }

  override off<T extends Names<Events>>(event: T, fn?: ListenerOf<Events, T>, context?: unknown, once?: boolean): this;
  override off(event: any, fn?: Listener, context?: unknown, once?: boolean): this {
    const wrapped = fn && this.guarded.get(fn)?.get(event);
    return super.off(event, (wrapped ?? fn) as any, context, once);
  }

  override removeListener<T extends Names<Events>>(event: T, fn?: ListenerOf<Events, T>, context?: unknown, once?: boolean): this;
  override removeListener(event: any, fn?: Listener, context?: unknown, once?: boolean): this {
    return this.off(event, fn as any, context, once);
  }

  /** Whether `event` has listeners: the check before building an event nobody hears. */
  listening(event: Names<Events>): boolean {
    return super.listenerCount(event) > 0;
  }

  /** Report a failure without ever throwing; with no `error` listener it goes to stderr. `about` is what it concerns, if anything. */
  reportError(error: unknown, about?: unknown): void {
    const err = error instanceof Error ? error : new Error(String(error));
    if (this.listenerCount('error' as any) === 0) {
      console.error('[switchboard]', err);
      return;
    }
    if (about === undefined) super.emit('error' as any, ...([err] as any));
    else super.emit('error' as any, ...([err, about] as any));
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
