import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectFormat, detectFormatFromBytes, isBookFileName } from '../../src/media/formats/detect.js';
import { isPageEntryName, sniffImageType } from '../../src/media/images/image-types.js';
import { comparePageNames } from '../../src/media/formats/page-order.js';
import { makeBmp, makeCbz, makeEpub, makeImage, makePdf } from './fixtures.js';
import { realFixture } from './real-fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-detect-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const RAR4 = Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x00, 0xcf]);
const RAR5 = Buffer.from([0x52, 0x61, 0x72, 0x21, 0x1a, 0x07, 0x01, 0x00]);
const SEVEN_ZIP = Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0x00, 0x04]);

describe('format detection: magic bytes first, extension second', () => {
  it('recognises CBZ, EPUB and PDF files by content', async () => {
    expect(await detectFormat(await makeCbz(dir, 'a.cbz'))).toBe('cbz');
    expect(await detectFormat(await makeEpub(dir, 'b.epub'))).toBe('epub');
    expect(await detectFormat(await makePdf(dir, 'c.pdf'))).toBe('pdf');
  });

  it('trusts the bytes over a wrong extension', async () => {
    expect(await detectFormat(await makeCbz(dir, 'really-a-zip.cbr'))).toBe('cbz');
    expect(await detectFormat(await makeEpub(dir, 'epub-named.zip'))).toBe('epub');
    expect(await detectFormat(await makePdf(dir, 'pdf-named.cbz'))).toBe('pdf');
  });

  it('recognises RAR4 and RAR5 signatures as CBR', () => {
    expect(detectFormatFromBytes(RAR4, 'x.cbz')).toBe('cbr');
    expect(detectFormatFromBytes(RAR5, 'x.bin')).toBe('cbr');
  });

  it('detects the real RAR fixture', async () => {
    expect(await detectFormat(realFixture('test_comic.cbr'))).toBe('cbr');
  });

  it('reports 7z (CB7) as unsupported, by bytes or by extension', () => {
    expect(() => detectFormatFromBytes(SEVEN_ZIP, 'x.cb7')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
    expect(() => detectFormatFromBytes(Buffer.from('garbage'), 'x.cb7')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
  });

  it('falls back to the extension for unknown bytes, so the reader can name the damage', () => {
    expect(detectFormatFromBytes(Buffer.from('not a zip at all'), 'broken.cbz')).toBe('cbz');
    expect(() => detectFormatFromBytes(Buffer.from('hello'), 'notes.txt')).toThrow(expect.objectContaining({ kind: 'unsupported' }));
  });

  it('calls an empty file corrupt', async () => {
    const path = join(dir, 'empty.cbz');
    await writeFile(path, '');
    await expect(detectFormat(path)).rejects.toMatchObject({ kind: 'corrupt' });
  });

  it('says not_found for a missing file', async () => {
    await expect(detectFormat(join(dir, 'missing.cbz'))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('lists the book extensions the scanner picks up', () => {
    for (const name of ['a.cbz', 'b.CBR', 'c.epub', 'd.pdf', 'e.zip', 'f.rar', 'g.cb7']) expect(isBookFileName(name)).toBe(true);
    for (const name of ['cover.jpg', 'ComicInfo.xml', 'notes.txt']) expect(isBookFileName(name)).toBe(false);
  });
});

describe('image entries: JPEG, PNG, WebP, GIF, AVIF and BMP are pages', () => {
  it.each(['jpeg', 'png', 'webp', 'gif', 'avif'] as const)('sniffs %s from its bytes', async (format) => {
    const image = await makeImage({ width: 8, height: 8, format });
    expect(sniffImageType(image)).toBe(`image/${format}`);
  });

  it('sniffs BMP', () => {
    expect(sniffImageType(makeBmp(4, 4))).toBe('image/bmp');
  });

  it('skips ComicInfo.xml, thumbs.db, __MACOSX and hidden files or folders', () => {
    expect(isPageEntryName('page001.jpg')).toBe(true);
    expect(isPageEntryName('Chapter 1/page001.PNG')).toBe(true);
    expect(isPageEntryName('x.avif')).toBe(true);
    expect(isPageEntryName('x.bmp')).toBe(true);
    expect(isPageEntryName('ComicInfo.xml')).toBe(false);
    expect(isPageEntryName('thumbs.db')).toBe(false);
    expect(isPageEntryName('__MACOSX/._page001.jpg')).toBe(false);
    expect(isPageEntryName('.hidden.jpg')).toBe(false);
    expect(isPageEntryName('.thumbnails/page001.jpg')).toBe(false);
    expect(isPageEntryName('../escape.jpg')).toBe(false);
    expect(isPageEntryName('folder/')).toBe(false);
  });
});

describe('page order: natural, case-insensitive, folders flattened in order', () => {
  it('puts page2 before page10', () => {
    const names = ['page10.jpg', 'page2.jpg', 'Page1.jpg', 'page1b.jpg'];
    expect(names.sort(comparePageNames)).toEqual(['Page1.jpg', 'page1b.jpg', 'page2.jpg', 'page10.jpg']);
  });

  it('orders chapters folder by folder, with loose files first', () => {
    const names = ['ch10/01.jpg', 'ch2/02.jpg', 'cover.jpg', 'ch2/01.jpg', 'ch1/10.jpg', 'ch1/9.jpg'];
    expect(names.sort(comparePageNames)).toEqual(['cover.jpg', 'ch1/9.jpg', 'ch1/10.jpg', 'ch2/01.jpg', 'ch2/02.jpg', 'ch10/01.jpg']);
  });
});
