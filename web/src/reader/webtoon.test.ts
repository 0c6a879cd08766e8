import { describe, expect, it } from 'vitest';
import { anchorAt, layoutStrip, pageAt, pagesInRange, scrollTopFor } from './webtoon';

const pages = [
  { width: 800, height: 1600 },
  { width: 800, height: 800 },
  { width: 800, height: 2400 },
  { width: null, height: null },
];

describe('webtoon strip', () => {
  it('reserves every page height from the API sizes before any image arrives', () => {
    const strip = layoutStrip(pages, 400, 10);
    expect(strip.heights).toEqual([800, 400, 1200, 600]);
    expect(strip.tops).toEqual([0, 810, 1220, 2430]);
    expect(strip.total).toBe(3030);
  });

  it('the current page is the one under the viewport centre', () => {
    const strip = layoutStrip(pages, 400, 10);
    expect(pageAt(strip, 0)).toBe(0);
    expect(pageAt(strip, 805)).toBe(0);
    expect(pageAt(strip, 810)).toBe(1);
    expect(anchorAt(strip, 700, 400).page).toBe(1);
    expect(anchorAt(strip, 500, 400)).toEqual({ page: 0, offset: 700 / 800 });
  });

  it('a resize keeps the same place of the same page at the viewport centre', () => {
    const narrow = layoutStrip(pages, 400, 10);
    const anchor = anchorAt(narrow, 1500, 600);
    expect(anchor.page).toBe(2);
    const wide = layoutStrip(pages, 800, 10);
    const top = scrollTopFor(wide, anchor, 600);
    const again = anchorAt(wide, top, 600);
    expect(again.page).toBe(2);
    expect(again.offset).toBeCloseTo(anchor.offset, 5);
  });

  it('scroll positions are clamped to the strip', () => {
    const strip = layoutStrip(pages, 400, 10);
    expect(scrollTopFor(strip, { page: 0, offset: 0 }, 600)).toBe(0);
    expect(scrollTopFor(strip, { page: 3, offset: 1 }, 600)).toBe(3030 - 600);
  });

  it('pages near the viewport get images', () => {
    const strip = layoutStrip(pages, 400, 10);
    expect(pagesInRange(strip, 0, 500, 0)).toEqual([0]);
    expect(pagesInRange(strip, 0, 500, 400)).toEqual([0, 1]);
  });
});
