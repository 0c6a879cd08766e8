import { describe, expect, it } from 'vitest';
import { anchorAt, columnWidth, layoutStrip, pageAt, pagesInRange, scrollTopFor, typicalWidth } from './webtoon';

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

describe('webtoon column width', () => {
  it("is the pages' own width (their median) up to 800 px, centred in the window, unless the fit asks for the width", () => {
    expect(
      typicalWidth([
        { width: 400, height: 4000 },
        { width: 400, height: 3000 },
        { width: 1600, height: 900 },
      ]),
    ).toBe(400);
    expect(typicalWidth([{ width: null, height: null }])).toBeNull();
    // 400-px pages on a 1366-px desktop: drawn at 400, not 1366.
    expect(columnWidth(400, 1366, 'screen')).toBe(400);
    expect(columnWidth(400, 1366, 'height')).toBe(400);
    expect(columnWidth(1200, 1366, 'screen')).toBe(800);
    expect(columnWidth(null, 1366, 'screen')).toBe(800);
    expect(columnWidth(1200, 1366, 'original')).toBe(1200);
    // A phone: never wider than the screen.
    expect(columnWidth(800, 412, 'screen')).toBe(412);
    // Fit width: the full width, up to 1600.
    expect(columnWidth(400, 1366, 'width')).toBe(1366);
    expect(columnWidth(400, 2560, 'width')).toBe(1600);
  });
});
