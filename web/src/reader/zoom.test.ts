import { describe, expect, it } from 'vitest';
import { clampZoom, isZoomed, NO_ZOOM, zoomAt } from './zoom';

const box = { width: 400, height: 600 };

describe('zoom and pan', () => {
  it('zooming keeps the point under the fingers where it was', () => {
    const z = zoomAt(NO_ZOOM, 2, 100, 0, box);
    expect(z.scale).toBe(2);
    // The point 100 px right of the centre stays 100 px right of the centre: x = 100 - 100 × 2.
    expect(z.x).toBe(-100);
  });

  it('a zoomed page pans only to its own edges', () => {
    expect(clampZoom({ scale: 2, x: 1000, y: -1000 }, box)).toEqual({ scale: 2, x: 200, y: -300 });
  });

  it('never below the fit nor above 5×', () => {
    expect(zoomAt(NO_ZOOM, 0.5, 0, 0, box)).toEqual(NO_ZOOM);
    expect(zoomAt({ scale: 4, x: 0, y: 0 }, 3, 0, 0, box).scale).toBe(5);
    expect(isZoomed(NO_ZOOM)).toBe(false);
    expect(isZoomed(zoomAt(NO_ZOOM, 1.25, 0, 0, box))).toBe(true);
  });
});
