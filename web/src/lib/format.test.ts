import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime } from './format';

describe('dates', () => {
  it('a date with its time starts as the same date does everywhere else, without seconds', () => {
    const iso = '2026-11-25T15:48:18Z';
    expect(formatDateTime(iso).startsWith(formatDate(iso))).toBe(true);
    expect(formatDateTime(iso)).not.toMatch(/:18\b/);
    expect(formatDateTime(null)).toBe('—');
  });
});
