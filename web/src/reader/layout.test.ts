import { describe, expect, it } from 'vitest';
import { arrowAction, fitSize, onScreenOrder, requestWidth, spreads, tapAction, viewOf } from './layout';

const portrait = { width: 600, height: 900 };
const wide = { width: 1200, height: 900 };
const book = (...pages: Array<typeof portrait>) => pages;

describe('spreads: which pages are shown together', () => {
  it('one page per view without double pages', () => {
    expect(spreads(book(portrait, portrait, portrait), false)).toEqual([[0], [1], [2]]);
  });

  it('the cover is alone, then pages pair up; an odd last page is alone', () => {
    expect(spreads(book(portrait, portrait, portrait, portrait, portrait, portrait), true)).toEqual([[0], [1, 2], [3, 4], [5]]);
  });

  it('a wide page is always alone, and the pairing starts again after it', () => {
    expect(spreads(book(portrait, portrait, wide, portrait, portrait), true)).toEqual([[0], [1], [2], [3, 4]]);
    expect(spreads(book(portrait, portrait, portrait, wide, portrait, portrait), true)).toEqual([[0], [1, 2], [3], [4, 5]]);
  });

  it('shift by one moves every pair one page later', () => {
    expect(spreads(book(portrait, portrait, portrait, portrait, portrait), true, true)).toEqual([[0], [1], [2, 3], [4]]);
    expect(spreads(book(portrait, portrait, portrait, portrait, portrait), true, false)).toEqual([[0], [1, 2], [3, 4]]);
  });

  it('a page of unknown size pairs like a portrait page', () => {
    expect(spreads([portrait, { width: null, height: null }, portrait], true)).toEqual([[0], [1, 2]]);
  });

  it('viewOf finds the view holding a page', () => {
    const views = spreads(book(portrait, portrait, portrait, portrait), true);
    expect(viewOf(views, 2)).toBe(1);
    expect(viewOf(views, 3)).toBe(2);
  });
});

describe('right to left', () => {
  it('a pair is laid out with its first page on the right (manga order)', () => {
    expect(onScreenOrder([1, 2], 'rtl')).toEqual([2, 1]);
    expect(onScreenOrder([1, 2], 'ltr')).toEqual([1, 2]);
  });

  it('tap zones are mirrored: the left side goes forward', () => {
    expect(tapAction(10, 900, 'rtl')).toBe('next');
    expect(tapAction(890, 900, 'rtl')).toBe('previous');
    expect(tapAction(10, 900, 'ltr')).toBe('previous');
    expect(tapAction(890, 900, 'ltr')).toBe('next');
    expect(tapAction(450, 900, 'rtl')).toBe('menu');
  });

  it('edges zones leave a wider middle for the menu; off opens the menu everywhere', () => {
    expect(tapAction(280, 900, 'ltr', 'thirds')).toBe('previous');
    expect(tapAction(280, 900, 'ltr', 'edges')).toBe('menu');
    expect(tapAction(10, 900, 'ltr', 'off')).toBe('menu');
  });

  it('arrow keys follow the direction; vertical modes use up and down', () => {
    expect(arrowAction('ArrowLeft', 'rtl')).toBe('next');
    expect(arrowAction('ArrowRight', 'rtl')).toBe('previous');
    expect(arrowAction('ArrowRight', 'ltr')).toBe('next');
    expect(arrowAction('ArrowDown', 'vertical')).toBe('next');
    expect(arrowAction('ArrowDown', 'ltr')).toBeNull();
  });
});

describe('image sizes', () => {
  it('asks for the box in device pixels, rounded up to a server resize step', () => {
    expect(requestWidth(390, 3)).toBe(1280);
    expect(requestWidth(640, 1)).toBe(640);
    expect(requestWidth(641, 1)).toBe(800);
    expect(requestWidth(5000, 2)).toBe(3840);
  });

  it('fits a page to the box', () => {
    expect(fitSize(portrait, { width: 1000, height: 600 }, 'screen')).toEqual({ width: 400, height: 600 });
    expect(fitSize(portrait, { width: 1000, height: 600 }, 'width')).toEqual({ width: 1000, height: 1500 });
    expect(fitSize(portrait, { width: 1000, height: 600 }, 'height')).toEqual({ width: 400, height: 600 });
    expect(fitSize(portrait, { width: 1000, height: 600 }, 'original')).toEqual({ width: 600, height: 900 });
  });
});
