import type { Fit, PageSize } from './layout';

/**
 * Continuous vertical scroll: every page's height is reserved from the size the API gives before any image
 * arrives, so the scroll bar is true and nothing moves when images load. Positions are kept as (page, share of
 * that page) so a resize or a rotation, which changes every height, puts the reader back at the same place.
 */
export interface Strip {
  /** Top of each page, CSS pixels from the top of the strip. */
  tops: number[];
  heights: number[];
  total: number;
}

export function layoutStrip(pages: readonly PageSize[], width: number, gap: number): Strip {
  const tops: number[] = [];
  const heights: number[] = [];
  let y = 0;
  for (const page of pages) {
    const h = Math.round(width * ((page.height ?? 1500) / (page.width ?? 1000)));
    tops.push(y);
    heights.push(h);
    y += h + gap;
  }
  return { tops, heights, total: Math.max(0, y - (pages.length > 0 ? gap : 0)) };
}

/** The page under `y` (a gap belongs to the page above it). */
export function pageAt(strip: Strip, y: number): number {
  let lo = 0;
  let hi = strip.tops.length - 1;
  if (hi < 0) return 0;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((strip.tops[mid] ?? 0) <= y) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

export interface Anchor {
  page: number;
  /** Share of the page above the viewport's centre, 0..1. */
  offset: number;
}

/** Where the viewport's centre is, as a page and a share of it. */
export function anchorAt(strip: Strip, scrollTop: number, viewportHeight: number): Anchor {
  const centre = scrollTop + viewportHeight / 2;
  const page = pageAt(strip, centre);
  const height = strip.heights[page] ?? 1;
  return { page, offset: Math.min(1, Math.max(0, (centre - (strip.tops[page] ?? 0)) / height)) };
}

/** The scrollTop that puts the anchor back at the viewport's centre in another layout. */
export function scrollTopFor(strip: Strip, anchor: Anchor, viewportHeight: number): number {
  const top = (strip.tops[anchor.page] ?? 0) + anchor.offset * (strip.heights[anchor.page] ?? 0) - viewportHeight / 2;
  return Math.max(0, Math.min(top, Math.max(0, strip.total - viewportHeight)));
}

/** The pages that intersect [top, bottom] widened by `margin` pixels: those get an image, the rest stay empty boxes. */
export function pagesInRange(strip: Strip, top: number, bottom: number, margin: number): number[] {
  if (strip.tops.length === 0) return [];
  const first = pageAt(strip, Math.max(0, top - margin));
  const last = pageAt(strip, bottom + margin);
  const out: number[] = [];
  for (let i = first; i <= last; i++) out.push(i);
  return out;
}

/** The widest a webtoon column is drawn unless the fit asks for the width: a reading column, not the whole window. */
export const COLUMN_MAX = 800;
/** The widest the strip is drawn at all (fit width on a very wide screen). */
export const STRIP_MAX = 1600;

/**
 * The pages' own width: the median of the widths the API gives (a stray double-wide page does not widen the
 * column), null when none is known.
 */
export function typicalWidth(pages: readonly PageSize[]): number | null {
  const widths = pages
    .map((p) => p.width)
    .filter((w): w is number => w !== null && w > 0)
    .sort((a, b) => a - b);
  return widths.length === 0 ? null : widths[Math.floor((widths.length - 1) / 2)]!;
}

/**
 * The CSS width of the webtoon column in `available` pixels (the window less the side padding). Fit width fills
 * them (up to STRIP_MAX); the other fits draw the pages at their own width, at most COLUMN_MAX (original size:
 * no maximum), centred: 400-pixel pages are not blown up to a desktop window's width. Unknown sizes count as
 * COLUMN_MAX wide.
 */
export function columnWidth(ownWidth: number | null, available: number, fit: Fit): number {
  const room = Math.max(1, available);
  if (fit === 'width') return Math.round(Math.min(room, STRIP_MAX));
  const own = ownWidth ?? COLUMN_MAX;
  return Math.round(Math.min(room, fit === 'original' ? own : Math.min(own, COLUMN_MAX)));
}
