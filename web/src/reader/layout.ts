/**
 * The comic reader's pure rules: which pages are shown together, in which order on screen, what a tap does,
 * and the size a page image is asked at. No DOM here, so every rule has a unit test.
 */

export type ReadingMode = 'ltr' | 'rtl' | 'vertical' | 'webtoon';
export type Fit = 'screen' | 'width' | 'height' | 'original';
export type TapAction = 'previous' | 'next' | 'menu';

export interface PageSize {
  width: number | null;
  height: number | null;
}

/** A landscape page (a spread drawn as one image) is always shown alone. */
export const isWide = (page: PageSize | undefined): boolean =>
  !!page && page.width !== null && page.height !== null && page.width > page.height;

/**
 * The views of a book: groups of page indices (0-based) shown at once, in reading order. With `double`, the
 * cover is alone, a wide page is alone, and the other pages pair up; a wide page restarts the pairing after it
 * (the page after a spread begins a new pair, as printed books do). `shift` moves the pairing by one page for a
 * book whose pairs come out wrong (a missing or extra page before them): the cover then pairs with nothing and
 * the first pair starts one page later.
 */
export function spreads(pages: readonly PageSize[], double: boolean, shift = false): number[][] {
  if (!double) return pages.map((_, i) => [i]);
  const out: number[][] = [];
  let i = 0;
  if (pages.length > 0) {
    out.push([0]);
    i = 1;
  }
  if (shift && i < pages.length && !isWide(pages[i])) {
    out.push([i]);
    i += 1;
  }
  while (i < pages.length) {
    const next = i + 1;
    if (isWide(pages[i]) || next >= pages.length || isWide(pages[next])) {
      out.push([i]);
      i += 1;
    } else {
      out.push([i, next]);
      i += 2;
    }
  }
  return out;
}

/** The view holding page `index`. */
export function viewOf(views: readonly number[][], index: number): number {
  const found = views.findIndex((v) => v.includes(index));
  return found < 0 ? 0 : found;
}

/** A pair as laid out left to right on screen: right to left puts the first page on the right (manga order). */
export const onScreenOrder = (view: readonly number[], mode: ReadingMode): number[] => (mode === 'rtl' ? [...view].reverse() : [...view]);

/**
 * What a tap at `x` (0..width) does: the outer thirds (or quarters, `edges`) turn, the middle opens the menu.
 * In right-to-left the sides swap: the left side is the next page. Vertical modes turn on the top/bottom but
 * taps are read by x here too, like most readers.
 */
export function tapAction(x: number, width: number, mode: ReadingMode, zones: 'thirds' | 'edges' | 'off' = 'thirds'): TapAction {
  if (zones === 'off' || width <= 0) return 'menu';
  const edge = zones === 'edges' ? 0.25 : 1 / 3;
  const side = x < width * edge ? 'left' : x > width * (1 - edge) ? 'right' : 'middle';
  if (side === 'middle') return 'menu';
  const forward = mode === 'rtl' ? 'left' : 'right';
  return side === forward ? 'next' : 'previous';
}

/** The arrow key that goes forward: right in left-to-right, left in right-to-left, down in vertical modes. */
export function arrowAction(key: string, mode: ReadingMode): 'previous' | 'next' | null {
  if (mode === 'vertical' || mode === 'webtoon') {
    if (key === 'ArrowDown') return 'next';
    if (key === 'ArrowUp') return 'previous';
  }
  if (key === 'ArrowRight') return mode === 'rtl' ? 'previous' : 'next';
  if (key === 'ArrowLeft') return mode === 'rtl' ? 'next' : 'previous';
  return null;
}

/** The server's resize steps (src/reading/pages/page-sizes.ts): asking for one exactly avoids a resize per pixel. */
const STEPS = [320, 400, 480, 640, 800, 1080, 1280, 1600, 2048, 2560, 3200, 3840];

/** The width to ask a page at: what the box needs in device pixels, rounded up to a server step. */
export function requestWidth(boxCssWidth: number, devicePixelRatio: number): number {
  const needed = Math.ceil(boxCssWidth * Math.max(1, devicePixelRatio));
  return STEPS.find((s) => s >= needed) ?? STEPS[STEPS.length - 1]!;
}

/** The CSS size of a page drawn in a box by a fit; unknown page sizes count as portrait 2:3. */
export function fitSize(page: PageSize, box: { width: number; height: number }, fit: Fit): { width: number; height: number } {
  const w = page.width ?? 1000;
  const h = page.height ?? 1500;
  const byWidth = box.width / w;
  const byHeight = box.height / h;
  const scale = fit === 'width' ? byWidth : fit === 'height' ? byHeight : fit === 'original' ? 1 : Math.min(byWidth, byHeight);
  return { width: Math.round(w * scale), height: Math.round(h * scale) };
}
