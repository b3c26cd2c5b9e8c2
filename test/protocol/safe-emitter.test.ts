import { afterEach, describe, expect, it, vi } from 'vitest';
import { SafeEmitter } from '../../src/protocol/safe-emitter.js';
import { tick } from '../helpers/deferred.js';

interface Events {
  ping: [value: number];
  other: [];
  error: [err: Error, ...rest: unknown[]];
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('SafeEmitter: failing listeners', () => {
  it('reports a listener that throws through error, naming the event, and still runs later listeners', () => {
    const emitter = new SafeEmitter<Events>();
    const errors: Error[] = [];
    emitter.on('error', (err: Error) => errors.push(err));
    const calls: string[] = [];
    emitter.on('ping', () => {
      calls.push('first');
      throw new Error('boom');
    });
    emitter.on('ping', (value: number) => calls.push(`second ${value}`));
    expect(() => emitter.emit('ping', 7)).not.toThrow();
    expect(calls).toEqual(['first', 'second 7']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
    expect(errors[0].message).toBe("a 'ping' listener threw: boom");
  });

  it('wraps a thrown non-Error in an Error', () => {
    const emitter = new SafeEmitter<Events>();
    const errors: Error[] = [];
    emitter.on('error', (err: Error) => errors.push(err));
    emitter.on('other', () => {
      throw 'just a string';
    });
    emitter.emit('other');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(Error);
    expect(errors[0].message).toBe("a 'other' listener threw: just a string");
  });

  it('reports a listener that returns a rejected promise', async () => {
    const emitter = new SafeEmitter<Events>();
    const errors: Error[] = [];
    emitter.on('error', (err: Error) => errors.push(err));
    const after = vi.fn();
    emitter.on('ping', async () => {
      throw new Error('async boom');
    });
    emitter.on('ping', after);
    emitter.emit('ping', 1);
    expect(after).toHaveBeenCalledWith(1);
    await tick();
    expect(errors.map((e) => e.message)).toEqual(["a 'ping' listener threw: async boom"]);
  });

  it('does not report a listener whose promise resolves', async () => {
    const emitter = new SafeEmitter<Events>();
    const onError = vi.fn();
    emitter.on('error', onError);
    emitter.on('ping', async () => 'fine');
    emitter.emit('ping', 1);
    await tick();
    expect(onError).not.toHaveBeenCalled();
  });

  it('reports through the emitter that emitted when one listener is shared by two emitters', () => {
    const a = new SafeEmitter<Events>();
    const b = new SafeEmitter<Events>();
    const aErrors: string[] = [];
    const bErrors: string[] = [];
    a.on('error', (err: Error) => aErrors.push(err.message));
    b.on('error', (err: Error) => bErrors.push(err.message));
    const shared = (value: number) => {
      throw new Error(`bad ${value}`);
    };
    a.on('ping', shared);
    b.on('ping', shared);
    b.emit('ping', 2);
    expect(bErrors).toEqual(["a 'ping' listener threw: bad 2"]);
    expect(aErrors).toEqual([]);
  });

  it('an error listener that throws does not throw out of emit, and goes to console.error', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const emitter = new SafeEmitter<Events>();
    const thrown = new Error('error listener broke');
    emitter.on('error', () => {
      throw thrown;
    });
    emitter.on('ping', () => {
      throw new Error('boom');
    });
    expect(() => emitter.emit('ping', 1)).not.toThrow();
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError).toHaveBeenCalledWith('[switchboard] an error listener threw', thrown);
  });

  it('an error listener that throws while error is emitted directly does not throw either', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const emitter = new SafeEmitter<Events>();
    emitter.on('error', () => {
      throw new Error('nope');
    });
    expect(() => emitter.emit('error', new Error('x'))).not.toThrow();
    expect(consoleError).toHaveBeenCalledTimes(1);
  });
});

describe('SafeEmitter: reportError', () => {
  it('emits error with the error and what it concerns when there is an error listener', () => {
    const emitter = new SafeEmitter<Events>();
    const onError = vi.fn();
    emitter.on('error', onError);
    const err = new Error('bad');
    emitter.reportError(err, 'session-1');
    expect(onError).toHaveBeenCalledTimes(1);
    expect(onError).toHaveBeenCalledWith(err, 'session-1');
  });

  it('wraps a non-Error in an Error', () => {
    const emitter = new SafeEmitter<Events>();
    const onError = vi.fn();
    emitter.on('error', onError);
    emitter.reportError('plain text');
    const reported = onError.mock.calls[0][0] as Error;
    expect(reported).toBeInstanceOf(Error);
    expect(reported.message).toBe('plain text');
  });

  it('with no error listener writes to console.error and does not throw', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const emitter = new SafeEmitter<Events>();
    const err = new Error('nobody listens');
    expect(() => emitter.reportError(err)).not.toThrow();
    expect(consoleError).toHaveBeenCalledTimes(1);
    expect(consoleError).toHaveBeenCalledWith('[switchboard]', err);
  });

  it('with no error listener, a throwing listener goes to console.error and emit does not throw', () => {
    const consoleError = vi.spyOn(console, 'error').mockImplementation(() => {});
    const emitter = new SafeEmitter<Events>();
    emitter.on('ping', () => {
      throw new Error('boom');
    });
    expect(() => emitter.emit('ping', 1)).not.toThrow();
    expect(consoleError).toHaveBeenCalledTimes(1);
    const [prefix, reported] = consoleError.mock.calls[0];
    expect(prefix).toBe('[switchboard]');
    expect((reported as Error).message).toBe("a 'ping' listener threw: boom");
  });
});

describe('SafeEmitter: once and off', () => {
  it('runs a once listener once', () => {
    const emitter = new SafeEmitter<Events>();
    const fn = vi.fn();
    emitter.once('ping', fn);
    emitter.emit('ping', 1);
    emitter.emit('ping', 2);
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith(1);
    expect(emitter.listenerCount('ping')).toBe(0);
  });

  it('reports a once listener that throws', () => {
    const emitter = new SafeEmitter<Events>();
    const onError = vi.fn();
    emitter.on('error', onError);
    emitter.once('ping', () => {
      throw new Error('once boom');
    });
    emitter.emit('ping', 1);
    emitter.emit('ping', 2);
    expect(onError).toHaveBeenCalledTimes(1);
    expect((onError.mock.calls[0][0] as Error).message).toBe("a 'ping' listener threw: once boom");
  });

  it('off removes a listener added with on', () => {
    const emitter = new SafeEmitter<Events>();
    const fn = vi.fn();
    emitter.on('ping', fn);
    expect(emitter.listenerCount('ping')).toBe(1);
    emitter.off('ping', fn);
    expect(emitter.listenerCount('ping')).toBe(0);
    emitter.emit('ping', 1);
    expect(fn).not.toHaveBeenCalled();
  });

  it('off removes a listener added with once', () => {
    const emitter = new SafeEmitter<Events>();
    const fn = vi.fn();
    emitter.once('ping', fn);
    emitter.off('ping', fn);
    expect(emitter.listenerCount('ping')).toBe(0);
    emitter.emit('ping', 1);
    expect(fn).not.toHaveBeenCalled();
  });

  it('off removes only the listener it names', () => {
    const emitter = new SafeEmitter<Events>();
    const removed = vi.fn();
    const kept = vi.fn();
    emitter.on('ping', removed);
    emitter.on('ping', kept);
    emitter.off('ping', removed);
    emitter.emit('ping', 3);
    expect(removed).not.toHaveBeenCalled();
    expect(kept).toHaveBeenCalledWith(3);
  });

  it('off for one event leaves the same function on another event', () => {
    const emitter = new SafeEmitter<Events>();
    const fn = vi.fn();
    emitter.on('ping', fn);
    emitter.on('other', fn);
    emitter.off('ping', fn);
    emitter.emit('ping', 1);
    emitter.emit('other');
    expect(fn).toHaveBeenCalledTimes(1);
    expect(fn).toHaveBeenCalledWith();
  });

  it('addListener and removeListener behave like on and off', () => {
    const emitter = new SafeEmitter<Events>();
    const onError = vi.fn();
    emitter.on('error', onError);
    const fn = vi.fn(() => {
      throw new Error('x');
    });
    emitter.addListener('ping', fn);
    emitter.emit('ping', 1);
    expect(onError).toHaveBeenCalledTimes(1);
    emitter.removeListener('ping', fn);
    emitter.emit('ping', 2);
    expect(fn).toHaveBeenCalledTimes(1);
  });

  it('passes the context to the listener as this', () => {
    const emitter = new SafeEmitter<Events>();
    const context = { name: 'ctx' };
    let seen: unknown;
    emitter.on(
      'ping',
      function (this: unknown) {
        seen = this;
      },
      context,
    );
    emitter.emit('ping', 1);
    expect(seen).toBe(context);
  });
});
