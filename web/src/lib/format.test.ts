import { describe, expect, it } from 'vitest';
import { formatDate, formatDateTime, withDetail } from './format';

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
