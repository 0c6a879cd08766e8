import { describe, expect, it } from 'vitest';
import { opensAsStored, pageUrl } from './data';

describe('opensAsStored: the page the book opens on comes as its stored bytes when they are sent at once and fit', () => {
  const jpeg = { media_type: 'image/jpeg', width: 1000 };
  const plain = { formatChosen: false, grayscale: false };

  it('a JPEG, PNG, WebP or GIF page at most twice the device width needed', () => {
    expect(opensAsStored(jpeg, 'cbz', 533, plain)).toBe(true);
    expect(opensAsStored({ media_type: 'image/png', width: 1000 }, 'cbr', 500, plain)).toBe(true);
    expect(opensAsStored({ media_type: 'image/webp', width: 800 }, 'epub', 1200, plain)).toBe(true);
    expect(opensAsStored(jpeg, 'cbz', null, plain)).toBe(true);
  });

  it('not a page more than twice as wide as needed: that one is resized for the screen', () => {
    expect(opensAsStored({ media_type: 'image/jpeg', width: 2500 }, 'cbz', 700, plain)).toBe(false);
    expect(opensAsStored({ media_type: 'image/jpeg', width: null }, 'cbz', 700, plain)).toBe(false);
  });

  it('not a format browsers do not show, a PDF page, grey pages or a format the account chose', () => {
    expect(opensAsStored({ media_type: 'image/avif', width: 500 }, 'cbz', 700, plain)).toBe(false);
    expect(opensAsStored({ media_type: 'image/bmp', width: 500 }, 'cbz', 700, plain)).toBe(false);
    expect(opensAsStored(jpeg, 'pdf', 700, plain)).toBe(false);
    expect(opensAsStored(jpeg, 'cbz', 700, { formatChosen: false, grayscale: true })).toBe(false);
    expect(opensAsStored(jpeg, 'cbz', 700, { formatChosen: true, grayscale: false })).toBe(false);
  });
});

describe('pageUrl', () => {
  it('without options asks the stored bytes; with them, the size and format', () => {
    expect(pageUrl('b', 1, null)).toBe('/api/v1/books/b/pages/1');
    expect(pageUrl('b', 2, { width: 640, imageFormat: 'jpeg', formatChosen: true, grayscale: true })).toBe(
      '/api/v1/books/b/pages/2?width=640&format=jpeg&grayscale=true',
    );
  });
});
