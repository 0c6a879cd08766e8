import type { ImageFormat } from '../types.js';

/** The size and format a client asks a page in (all optional: the original bytes). */
export interface PageRequestOptions {
  width?: number;
  height?: number;
  format?: ImageFormat;
  /** Shades of grey (for e-ink readers); cached like a resize. */
  grayscale?: boolean;
}

/**
 * The sizes a resized page is made at. A requested width or height is a maximum (the spec's "Maximum width
 * for resizing"), so it snaps *down* to the nearest step: the image never exceeds what was asked, and one
 * reader cannot mint a cached variant per pixel. Requests under the smallest step are kept as they are (few
 * and tiny). Steps cover phone, tablet and desktop screens at 1x to 3x; 300 is the width of Komga page thumbnails.
 */
export const PAGE_SIZE_STEPS = [
  40, 80, 120, 160, 200, 240, 300, 320, 400, 480, 640, 800, 1080, 1280, 1600, 2048, 2560, 3200, 3840, 5120, 7680,
] as const;

/** The largest step not above `requested` (or `requested` itself below the smallest step). */
export function snapDown(requested: number): number {
  let snapped: number = requested;
  for (const step of PAGE_SIZE_STEPS) {
    if (step > requested) break;
    snapped = step;
  }
  return snapped;
}

/**
 * The bound actually applied to one dimension: snapped down, or none (undefined) when the page is known to be
 * no larger than the request, since a page is never enlarged — every such request gets the one original-size
 * variant. A `drawn` page (PDF) is rendered at the size asked: its stored size is only the default rendering
 * (1600 px long edge), not a limit, so its bound is snapped but kept.
 */
export function effectiveBound(requested: number | undefined, pageSize: number | null | undefined, drawn = false): number | undefined {
  if (requested === undefined) return undefined;
  if (!drawn && pageSize && pageSize <= requested) return undefined;
  return snapDown(requested);
}
