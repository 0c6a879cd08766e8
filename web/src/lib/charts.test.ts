import { describe, expect, it } from 'vitest';
import { formatDuration, labelledIndexes, layoutBars, niceMax, shares } from './charts';

describe('niceMax: a round top for the value axis', () => {
  it('rounds up to 1, 2 or 5 times a power of ten, and never below 1', () => {
    expect(niceMax(0)).toBe(1);
    expect(niceMax(0.3)).toBe(0.5);
    expect(niceMax(7)).toBe(10);
    expect(niceMax(13)).toBe(20);
    expect(niceMax(48)).toBe(50);
    expect(niceMax(100)).toBe(100);
    expect(niceMax(101)).toBe(200);
  });
});

describe('layoutBars', () => {
  it('gives each value an equal slot and a height proportional to the rounded maximum', () => {
    const { bars, max } = layoutBars(
      [
        { label: 'a', value: 10 },
        { label: 'b', value: 5 },
        { label: 'c', value: 0 },
        { label: 'd', value: 20 },
      ],
      400,
      100,
      0,
    );
    expect(max).toBe(20);
    expect(bars.map((b) => b.x)).toEqual([0, 100, 200, 300]);
    expect(bars.map((b) => b.height)).toEqual([50, 25, 0, 100]);
    expect(bars.map((b) => b.y)).toEqual([50, 75, 100, 0]);
  });

  it('draws an empty axis for no data and for all-zero data', () => {
    expect(layoutBars([], 100, 50).bars).toEqual([]);
    expect(layoutBars([{ label: 'x', value: 0 }], 100, 50).bars[0]?.height).toBe(0);
  });
});

describe('formatDuration', () => {
  it('reads as seconds, minutes, or hours and minutes', () => {
    expect(formatDuration(0)).toBe('0 s');
    expect(formatDuration(59)).toBe('59 s');
    expect(formatDuration(60)).toBe('1 min');
    expect(formatDuration(3599)).toBe('59 min');
    expect(formatDuration(3900)).toBe('1 h 05 min');
  });
});

describe('labelledIndexes', () => {
  it('labels about the asked number of bars, always the last one', () => {
    const picked = labelledIndexes(30, 6);
    expect(picked.has(29)).toBe(true);
    expect(picked.size).toBeLessThanOrEqual(6);
    expect(picked.size).toBeGreaterThanOrEqual(5);
    expect([...labelledIndexes(3, 10)].sort()).toEqual([0, 1, 2]);
    expect(labelledIndexes(0, 5).size).toBe(0);
  });
});

describe('shares', () => {
  it('orders largest first with fractions of the total', () => {
    const result = shares(
      [
        { n: 'tablet', v: 10 },
        { n: 'phone', v: 30 },
      ],
      (d) => d.v,
    );
    expect(result.map((r) => [r.item.n, r.share])).toEqual([
      ['phone', 0.75],
      ['tablet', 0.25],
    ]);
    expect(shares([{ v: 0 }], (d) => d.v)[0]?.share).toBe(0);
  });
});
