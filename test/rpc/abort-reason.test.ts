import { describe, expect, it } from 'vitest';
import { abortReason } from '../../src/rpc/abort-reason.js';

describe('abortReason, the same on both ends', () => {
  it("is an Error's message, a string as given, the platform's message for a bare abort(), and 'aborted' otherwise", () => {
    const reasonOf = (abort: (control: AbortController) => void) => {
      const control = new AbortController();
      abort(control);
      return abortReason(control.signal);
    };
    expect(reasonOf((c) => c.abort(new Error('disk full')))).toBe('disk full');
    expect(reasonOf((c) => c.abort('the user left'))).toBe('the user left');
    expect(reasonOf((c) => c.abort())).toBe('This operation was aborted');
    expect(reasonOf((c) => c.abort(42))).toBe('aborted');
  });
});
