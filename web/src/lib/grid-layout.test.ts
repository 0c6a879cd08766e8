import { describe, expect, it } from 'vitest';
import { gridLayout, pagesFor } from './grid-layout';

describe('gridLayout', () => {
  it('fits as many minimum-width cards as the row allows and shares the rest', () => {
    expect(gridLayout(1000, 150, 16, 60)).toEqual({
      columns: 6,
      cardWidth: (1000 - 80) / 6,
      rowHeight: Math.ceil(((1000 - 80) / 6) * 1.5 + 76),
    });
  });
  it('keeps one column on a very narrow screen', () => {
    expect(gridLayout(100, 150, 16, 60).columns).toBe(1);
  });
});

describe('pagesFor', () => {
  it('names the pages holding a range of items', () => {
    expect(pagesFor(0, 99, 100)).toEqual([1]);
    expect(pagesFor(95, 205, 100)).toEqual([1, 2, 3]);
    expect(pagesFor(10, 5, 100)).toEqual([]);
  });
});
