import { describe, expect, it } from 'vitest';
import {
  LATEST_LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  allowsBatches,
  isAtLeast,
  isLegacyProtocolVersion,
  negotiateProtocolVersion,
} from '../../src/protocol/versions.js';

describe('protocol versions', () => {
  it('lists the four legacy revisions oldest first, with 2025-11-25 as the latest', () => {
    expect(LEGACY_PROTOCOL_VERSIONS).toEqual(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25']);
    expect(LATEST_LEGACY_PROTOCOL_VERSION).toBe('2025-11-25');
  });

  it.each(['2024-11-05', '2025-03-26', '2025-06-18', '2025-11-25'])('negotiateProtocolVersion echoes the supported version %s', (version) => {
    expect(negotiateProtocolVersion(version)).toBe(version);
  });

  it.each(['1.0.0', '2026-07-28', '', '2024-10-07', 'DRAFT-2025-v3', '2025-11-25 '])(
    'negotiateProtocolVersion answers 2025-11-25 for the unsupported version %j',
    (version) => {
      expect(negotiateProtocolVersion(version)).toBe('2025-11-25');
    },
  );

  it('isLegacyProtocolVersion accepts only the four legacy strings', () => {
    expect(LEGACY_PROTOCOL_VERSIONS.every((v) => isLegacyProtocolVersion(v))).toBe(true);
    expect(['2026-07-28', '', '1.0.0', 20241105, undefined, null].map(isLegacyProtocolVersion)).toEqual([false, false, false, false, false, false]);
  });

  it('allowsBatches only for 2025-03-26', () => {
    expect(allowsBatches('2025-03-26')).toBe(true);
    expect(['2024-11-05', '2025-06-18', '2025-11-25', '2026-07-28', ''].map(allowsBatches)).toEqual([false, false, false, false, false]);
    expect(allowsBatches(undefined)).toBe(false);
  });

  it('isAtLeast is true for the same or a later version', () => {
    expect(isAtLeast('2025-06-18', '2025-06-18')).toBe(true);
    expect(isAtLeast('2025-11-25', '2025-06-18')).toBe(true);
    expect(isAtLeast('2025-03-26', '2024-11-05')).toBe(true);
  });

  it('isAtLeast is false for an earlier version or no version', () => {
    expect(isAtLeast('2025-03-26', '2025-06-18')).toBe(false);
    expect(isAtLeast('2024-11-05', '2025-11-25')).toBe(false);
    expect(isAtLeast(undefined, '2024-11-05')).toBe(false);
  });
});
