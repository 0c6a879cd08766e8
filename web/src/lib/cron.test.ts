import { describe, expect, it } from 'vitest';
import { checkCron } from './cron';

describe('checkCron: the scan schedule field, validated as the admin types', () => {
  const from = new Date('2026-01-05T10:00:00Z');

  it('accepts a five-field expression and tells the next runs', () => {
    const result = checkCron('0 3 * * *', from);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.nextRuns).toHaveLength(3);
      expect(result.nextRuns[0]!.getTime()).toBeGreaterThan(from.getTime());
      expect(result.nextRuns[1]!.getTime() - result.nextRuns[0]!.getTime()).toBe(24 * 3600 * 1000);
    }
  });

  it('treats an empty field as "no schedule"', () => {
    expect(checkCron('   ')).toEqual({ ok: true, nextRuns: [] });
  });

  it('refuses the wrong number of fields, as the server does (croner alone would take six)', () => {
    const six = checkCron('0 0 3 * * *', from);
    expect(six.ok).toBe(false);
    if (!six.ok) expect(six.message).toMatch(/five fields.*has 6/);
    expect(checkCron('0 3 *', from).ok).toBe(false);
  });

  it("refuses values out of range with croner's reason", () => {
    const bad = checkCron('61 3 * * *', from);
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.message.length).toBeGreaterThan(0);
    expect(checkCron('* * * * funday', from).ok).toBe(false);
  });
});
