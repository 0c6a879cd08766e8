import { describe, expect, it } from 'vitest';
import { comparePageNames, sortPageNames } from '../../src/media/formats/page-order.js';

/** What every comparison asked of the collator before names of one shape were compared without it. */
const collator = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** A deterministic stream of names of the shapes archives hold: prefixes, digit runs of several widths, cases. */
function names(count: number): string[] {
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const prefixes = ['page', 'Page', 'PAGE', 'p', 'img_', 'scan-', 'x', 'Ä', 'é', ''];
  const suffixes = ['.jpg', '.JPG', '.png', 'a.jpg', 'b.jpg', '', '.jpeg', '-1.jpg', '1.jpg'];
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const width = 1 + next(4);
    const digits = String(next(10 ** width)).padStart(next(2) === 0 ? width : 1, '0');
    out.push(`${prefixes[next(prefixes.length)]}${digits}${next(5) === 0 ? String(next(10)) : ''}${suffixes[next(suffixes.length)]}`);
  }
  return out;
}

describe('page order', () => {
  it('compares every pair of names as the numeric collator does, including those it decides without the collator', () => {
    const list = names(400);
    for (const a of list) {
      for (const b of list) {
        const expected = Math.sign(collator.compare(a, b));
        if (expected === 0) continue; // equal to the collator: a stable tie-break decides, tested below
        expect(Math.sign(comparePageNames(a, b)), `${a} vs ${b}`).toBe(expected);
      }
    }
  });

  it('sorts zero-padded and unpadded numbers by value, with a stable order for names equal but for case', () => {
    const sorted = sortPageNames(['p010.jpg', 'p002.jpg', 'p1.jpg', 'P1.jpg', 'p001.jpg', 'p100.jpg', 'p020.jpg'], (n) => n);
    expect(sorted).toEqual(['P1.jpg', 'p001.jpg', 'p1.jpg', 'p002.jpg', 'p010.jpg', 'p020.jpg', 'p100.jpg']);
  });
});
