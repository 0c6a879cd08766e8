import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, formatRelative, humanizeTimestamps, withDetail } from './format';

describe('dates', () => {
  it('a date with its time starts as the same date does everywhere else, without seconds', () => {
    const iso = '2026-11-25T15:48:18Z';
    expect(formatDateTime(iso).startsWith(formatDate(iso))).toBe(true);
    expect(formatDateTime(iso)).not.toMatch(/:18\b/);
    expect(formatDateTime(null)).toBe('—');
  });
});

describe('withDetail', () => {
  it('ends with one full stop, whether the detail has its own or not', () => {
    expect(withDetail('This book has no pages to show', 'Not a zip archive.')).toBe('This book has no pages to show: Not a zip archive.');
    expect(withDetail('This book has no pages to show', 'Not a zip archive')).toBe('This book has no pages to show: Not a zip archive.');
    expect(withDetail('This book has no pages to show', null)).toBe('This book has no pages to show.');
  });
});

describe('relative times', () => {
  const now = Date.parse('2026-12-01T21:40:20Z');
  it('says how long ago in words, in the largest unit that fits', () => {
    expect(formatRelative('2026-12-01T21:37:20Z', now)).toMatch(/3 minutes ago/);
    expect(formatRelative('2026-11-29T21:40:20Z', now)).toMatch(/2 days ago/);
  });
  it('tells the ISO timestamps of a sentence as a date and how long ago, leaving the rest', () => {
    const text = humanizeTimestamps('Added by a scan on 2026-12-01T21:37:20.980Z: it was new.', now);
    expect(text).not.toContain('2026-12-01T');
    expect(text).toContain(formatDateTime('2026-12-01T21:37:20.980Z'));
    expect(text).toMatch(/\(3 minutes ago\): it was new\.$/);
  });
});
