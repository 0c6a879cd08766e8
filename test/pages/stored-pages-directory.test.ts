import { mkdtempSync } from 'node:fs';
import { rename, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32, deflateRawSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { BookFile } from '../../src/catalog/books/files.js';
import { StoredPages, type PageFileSource } from '../../src/reading/pages/stored-pages.js';

// StoredPages learns where a CBZ's pages lie from the book's central directory (its last bytes), then reads a
// page like a plain file. Only the ordinary case is learnt; everything else must answer "undefined" (the archive
// reads it), never wrong bytes. The archives here are written byte by byte, to have what zip writers rarely make.

interface Item {
  name: string;
  data: Buffer;
  /** 8: deflated. */
  method?: 0 | 8;
  flags?: number;
  /** Extra field of the local header only. */
  localExtra?: Buffer;
}

/** A zip archive: local headers and data, the central directory, the end record and `comment`. */
function zip(items: readonly Item[], comment = Buffer.alloc(0)): Buffer {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const item of items) {
    const method = item.method ?? 0;
    const flags = (item.flags ?? 0) | 0x800;
    const name = Buffer.from(item.name, 'utf8');
    const body = method === 8 ? deflateRawSync(item.data) : item.data;
    const crc = crc32(item.data);
    const descriptor = (flags & 0x8) !== 0;
    const extra = item.localExtra ?? Buffer.alloc(0);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(descriptor ? 0 : crc, 14);
    local.writeUInt32LE(descriptor ? 0 : body.length, 18);
    local.writeUInt32LE(descriptor ? 0 : item.data.length, 22);
    local.writeUInt16LE(name.length, 26);
    local.writeUInt16LE(extra.length, 28);
    const trailer = Buffer.alloc(descriptor ? 16 : 0);
    if (descriptor) {
      trailer.writeUInt32LE(0x08074b50, 0);
      trailer.writeUInt32LE(crc, 4);
      trailer.writeUInt32LE(body.length, 8);
      trailer.writeUInt32LE(item.data.length, 12);
    }
    parts.push(local, name, extra, body, trailer);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(method, 10);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(body.length, 20);
    record.writeUInt32LE(item.data.length, 24);
    record.writeUInt16LE(name.length, 28);
    record.writeUInt32LE(offset, 42);
    central.push(record, name);
    offset += 30 + name.length + extra.length + body.length + trailer.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(items.length, 8);
  end.writeUInt16LE(items.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  end.writeUInt16LE(comment.length, 20);
  return Buffer.concat([...parts, directory, end, comment]);
}

const JPEG = (n: number, size = 3000) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(size - 4, n)]);
const PNG = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(500, 7)]);

const dir = mkdtempSync(path.join(os.tmpdir(), 'colophon-stored-pages-'));
let files = 0;

async function book(bytes: Buffer): Promise<string> {
  const file = path.join(dir, `book-${++files}.cbz`);
  await writeFile(file, bytes);
  return file;
}

/** What PagesService hands StoredPages: the resolved file (counted) and the stored page names. */
function sourceOf(file: string, names: readonly string[]): PageFileSource & { resolved: number } {
  const source = {
    resolved: 0,
    file: async (): Promise<BookFile> => {
      source.resolved += 1;
      const info = await stat(file);
      return { absolutePath: file, size: info.size, mtimeMs: info.mtimeMs };
    },
    pageNames: async () => names,
  };
  return source;
}

describe('StoredPages: places learnt from the central directory', () => {
  it('reads stored pages as they are, typed by their bytes, else by their name; the file is resolved once', async () => {
    const webp = Buffer.alloc(100, 1); // bytes no sniffer knows: typed by the name
    const file = await book(
      zip([
        { name: '001.jpg', data: JPEG(1) },
        { name: '002.png', data: PNG },
        { name: '003.webp', data: webp },
        { name: 'ComicInfo.xml', data: Buffer.from('<ComicInfo/>'), method: 8 },
      ]),
    );
    const pages = new StoredPages();
    const source = sourceOf(file, ['001.jpg', '002.png', '003.webp']);
    for (let round = 0; round < 2; round++) {
      expect(await pages.read('b', 1, source)).toEqual({ data: JPEG(1), mediaType: 'image/jpeg', release: expect.any(Function) });
      expect(await pages.read('b', 2, source)).toEqual({ data: PNG, mediaType: 'image/png', release: expect.any(Function) });
      expect(await pages.read('b', 3, source)).toEqual({ data: webp, mediaType: 'image/webp', release: expect.any(Function) });
      expect(await pages.read('b', 4, source)).toBeUndefined();
      expect(await pages.read('b', 0, source)).toBeUndefined();
    }
    expect(source.resolved).toBe(1);
  });

  it('leaves a compressed page to the archive, and reads the stored ones beside it', async () => {
    const file = await book(
      zip([
        { name: '001.jpg', data: JPEG(1) },
        { name: '002.jpg', data: JPEG(2), method: 8 },
      ]),
    );
    const pages = new StoredPages();
    const source = sourceOf(file, ['001.jpg', '002.jpg']);
    expect(await pages.read('b', 2, source)).toBeUndefined();
    expect((await pages.read('b', 1, source))?.data).toEqual(JPEG(1));
    expect(await pages.read('b', 2, source)).toBeUndefined();
  });

  it('learns nothing of an encrypted page, a page the directory lacks, a long comment or a file that is no zip', async () => {
    const cases: Array<{ bytes: Buffer; names: string[]; n: number }> = [
      { bytes: zip([{ name: '001.jpg', data: JPEG(1), flags: 0x1 }]), names: ['001.jpg'], n: 1 },
      { bytes: zip([{ name: '001.jpg', data: JPEG(1) }]), names: ['001.jpg', '002.jpg'], n: 1 },
      { bytes: zip([{ name: '001.jpg', data: JPEG(1) }], Buffer.alloc(20_000, 0x41)), names: ['001.jpg'], n: 1 },
      { bytes: Buffer.concat([JPEG(1), JPEG(2)]), names: ['001.jpg'], n: 1 },
      { bytes: Buffer.alloc(10), names: ['001.jpg'], n: 1 },
    ];
    for (const { bytes, names, n } of cases) {
      const pages = new StoredPages();
      const source = sourceOf(await book(bytes), names);
      expect(await pages.read('b', n, source)).toBeUndefined();
      // Not learnt is remembered: the next request goes to the archive without reading the directory again.
      expect(await pages.read('b', n, source)).toBeUndefined();
    }
  });

  it('reads a directory longer than the 16 KiB it reads first, and a local header longer than it reads with the page', async () => {
    const names = Array.from({ length: 400 }, (_, i) => `chapter-${String(i).padStart(3, '0')}/page-with-a-long-name-${i}.jpg`);
    const items = names.map((name, i) => ({ name, data: JPEG(i % 250, 200 + i), localExtra: i === 399 ? Buffer.alloc(2000) : undefined }));
    const file = await book(zip(items));
    const pages = new StoredPages();
    const source = sourceOf(file, names);
    expect((await pages.read('b', 400, source))?.data).toEqual(JPEG(399 % 250, 599));
    expect((await pages.read('b', 1, source))?.data).toEqual(JPEG(0, 200));
    expect((await pages.read('b', 250, source))?.data).toEqual(JPEG(249, 449));
  });

  it('notices a book rewritten in place (its header there is another or none), then learns it again', async () => {
    const file = await book(
      zip([
        { name: '001.jpg', data: JPEG(1) },
        { name: '002.jpg', data: JPEG(2) },
      ]),
    );
    const pages = new StoredPages();
    const source = sourceOf(file, ['001.jpg', '002.jpg']);
    expect((await pages.read('b', 2, source))?.data).toEqual(JPEG(2));
    // The same names and sizes, swapped: page 2's place now holds page 1's header.
    await writeFile(
      file,
      zip([
        { name: '002.jpg', data: JPEG(5) },
        { name: '001.jpg', data: JPEG(6) },
      ]),
    );
    expect(await pages.read('b', 2, source)).toBeUndefined();
    expect((await pages.read('b', 2, source))?.data).toEqual(JPEG(5));
    // Other sizes at the same places.
    await writeFile(
      file,
      zip([
        { name: '002.jpg', data: JPEG(7, 5000) },
        { name: '001.jpg', data: JPEG(8) },
      ]),
    );
    expect(await pages.read('b', 2, source)).toBeUndefined();
    expect((await pages.read('b', 2, source))?.data).toEqual(JPEG(7, 5000));
  });

  it('checks size and time on each read when the local headers cannot tell (sizes in data descriptors)', async () => {
    const file = await book(
      zip([
        { name: '001.jpg', data: JPEG(1), flags: 0x8 },
        { name: '002.jpg', data: JPEG(2), flags: 0x8 },
      ]),
    );
    const pages = new StoredPages();
    const source = sourceOf(file, ['001.jpg', '002.jpg']);
    expect((await pages.read('b', 1, source))?.data).toEqual(JPEG(1));
    await writeFile(
      file,
      zip([
        { name: '001.jpg', data: JPEG(9), flags: 0x8 },
        { name: '002.jpg', data: JPEG(2), flags: 0x8 },
      ]),
    );
    const later = new Date(Date.now() + 5000);
    await utimes(file, later, later);
    expect(await pages.read('b', 1, source)).toBeUndefined();
    expect((await pages.read('b', 1, source))?.data).toEqual(JPEG(9));
  });

  it('never follows a link put in place of the book: forgotten, and the path resolved again', async () => {
    const bytes = zip([{ name: '001.jpg', data: JPEG(1) }]);
    const file = await book(bytes);
    const elsewhere = await book(bytes);
    const pages = new StoredPages();
    const source = sourceOf(file, ['001.jpg']);
    expect((await pages.read('b', 1, source))?.data).toEqual(JPEG(1));
    await rename(file, `${file}.moved`);
    await symlink(elsewhere, file);
    expect(await pages.read('b', 1, source)).toBeUndefined();
    expect(source.resolved).toBe(1);
    // Learning again resolves the path (PagesService's resolver refuses a link out of the library).
    await pages.read('b', 1, source);
    expect(source.resolved).toBe(2);
  });
});
