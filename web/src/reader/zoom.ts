/**
 * Zoom and pan of a page view as one transform: `scale` around the view's centre, then `x`/`y` in CSS pixels.
 * Pure, so the clamping rules (never pan a page out of sight, never zoom below fit) have unit tests.
 */
export interface ZoomState {
  scale: number;
  x: number;
  y: number;
}

export const NO_ZOOM: ZoomState = { scale: 1, x: 0, y: 0 };
export const MIN_SCALE = 1;
export const MAX_SCALE = 5;

/** Keeps the content covering the box: a zoomed page pans at most to its own edges. */
export function clampZoom(z: ZoomState, box: { width: number; height: number }): ZoomState {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, z.scale));
  const maxX = ((scale - 1) * box.width) / 2;
  const maxY = ((scale - 1) * box.height) / 2;
  return { scale, x: Math.max(-maxX, Math.min(maxX, z.x)), y: Math.max(-maxY, Math.min(maxY, z.y)) };
}

/** Zooms by `factor` keeping the point (px, py), relative to the box's centre, where it is on screen. */
export function zoomAt(z: ZoomState, factor: number, px: number, py: number, box: { width: number; height: number }): ZoomState {
  const scale = Math.min(MAX_SCALE, Math.max(MIN_SCALE, z.scale * factor));
  const k = scale / z.scale;
  return clampZoom({ scale, x: px - (px - z.x) * k, y: py - (py - z.y) * k }, box);
}

export const isZoomed = (z: ZoomState): boolean => z.scale > 1.001;
