import { describe, expect, it } from 'vitest';
import { judge, labelled, summarise } from '../../bench/match.js';
import { labelledNames } from '../../bench/match-names.js';

/**
 * Identification's decisions over the labelled folder names (issue 51's calibration; `npm run bench -- --match`
 * prints the table): applied only when right, and most names applied without asking.
 */
describe('match calibration', () => {
  const names = labelled();
  const judged = names.map((c) => judge(c));

  it('holds at least 150 labelled names, as bench/match-names.ts makes them from the recorded lists', () => {
    expect(names.length).toBeGreaterThanOrEqual(150);
    expect(labelledNames()).toEqual(names);
    for (const media of ['manga', 'comics', 'books']) expect(names.some((n) => n.media === media)).toBe(true);
  });

  it('applies automatically only when right (precision ≥ 0.98), and at least 70% of names so', () => {
    const s = summarise(judged);
    expect(s.precision, JSON.stringify(judged.filter((j) => j.outcome === 'wrong'))).toBeGreaterThanOrEqual(0.98);
    expect(s.autoShare).toBeGreaterThanOrEqual(0.7);
  });

  it('never applies anything for a work the list does not hold', () => {
    expect(judged.filter((j) => j.expect === null && j.outcome === 'wrong')).toEqual([]);
  });
});
