import { readFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { crc32 } from 'node:zlib';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../src/media/analysis/analysis-pool.js';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { MediaError } from '../../src/media/errors.js';
import { openBook, withBook } from '../../src/media/formats/open-book.js';
import { resolveLimits } from '../../src/media/limits.js';
import { renderPage } from '../../src/media/rendering/render-page.js';
import { getThumbnail } from '../../src/media/rendering/thumbnails.js';
import { ZipArchive } from '../../src/media/archives/zip-archive.js';
import {
  makeCbz,
  makeEncryptedCbz,
  makeEpub,
  makeImage,
  makePdf,
  makePixelBombPng,
  makeZeroByteFile,
  makeZipBomb,
  setDeclaredSizes,
  truncateCopy,
  writeZip,
} from './fixtures.js';
import { realFixture } from './real-fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-hostile-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Opens and fully analyses the file; every failure must be a MediaError of the given kind. */
async function expectKind(path: string, kind: MediaError['kind'], options: Parameters<typeof analyzeFile>[1] = {}): Promise<MediaError> {
  const error = await analyzeFile(path, options).then(
    () => null,
    (err: unknown) => err,
  );
  expect(error).toBeInstanceOf(MediaError);
  expect(error).toMatchObject({ kind });
  return error as MediaError;
}

describe('hostile input gives a typed MediaError, never a crash or a hang', () => {
  it('corrupt archive: random bytes behind a .cbz name', async () => {
    const path = join(dir, 'random.cbz');
    await writeFile(path, Buffer.alloc(4096, 0x5a));
    await expectKind(path, 'corrupt');
  });

  it('truncated archive: a CBZ cut in half', async () => {
    const full = await makeCbz(dir, 'full.cbz', { pages: 4, noise: true, pageSize: { width: 200, height: 300 } });
    const size = (await readFile(full)).length;
    await expectKind(await truncateCopy(full, join(dir, 'half.cbz'), Math.floor(size / 2)), 'corrupt');
  });

  it('zero-byte file', async () => {
    await expectKind(await makeZeroByteFile(dir, 'zero.cbz'), 'corrupt');
    await expectKind(await makeZeroByteFile(dir, 'zero.pdf'), 'corrupt');
  });

  it('archive with zero images', async () => {
    const path = await writeZip(join(dir, 'noimages.cbz'), [
      { name: 'ComicInfo.xml', data: '<ComicInfo><Title>x</Title></ComicInfo>' },
      { name: 'readme.txt', data: 'hello' },
    ]);
    await expectKind(path, 'no_pages');
  });

  it('encrypted entries', async () => {
    await expectKind(await makeEncryptedCbz(dir, 'encrypted.cbz'), 'encrypted');
  });

  it('zip bomb: an entry inflating 1000:1 past the size limit', async () => {
    const path = await makeZipBomb(dir, 'bomb.cbz', 32 * 1024 * 1024);
    const error = await expectKind(path, 'too_large');
    expect(error.message).toMatch(/ratio|limit/);
  });

  it('zip bomb: a huge declared uncompressed size', async () => {
    const honest = await makeCbz(dir, 'declared-src.cbz', { pages: 2 });
    const path = join(dir, 'declared.cbz');
    await writeFile(path, setDeclaredSizes(await readFile(honest), 0xfffffff0));
    await expectKind(path, 'too_large');
  });

  it('zip bomb: limits are configurable', async () => {
    const path = await makeCbz(dir, 'limits.cbz', { pages: 3, pageSize: { width: 300, height: 300 }, noise: true });
    await expectKind(path, 'too_large', { limits: { maxEntryBytes: 1000 } });
    await expectKind(path, 'too_large', { limits: { maxEntries: 2 } });
    await expectKind(path, 'too_large', { limits: { maxTotalBytes: 1000 } });
  });

  it('zip bomb: the limit holds while streaming, against an entry that lies about its size', async () => {
    const honest = await writeZip(join(dir, 'liar-src.cbz'), [{ name: 'page.png', data: Buffer.alloc(2 * 1024 * 1024) }]);
    const path = join(dir, 'liar.cbz');
    await writeFile(path, setDeclaredSizes(await readFile(honest), 100));
    await withBook(path, 'cbz', {}, async (reader) => {
      await expect(reader.readPage(1)).rejects.toMatchObject({ kind: 'too_large' });
    });
  });

  it('a small deflated entry read whole (ComicInfo.xml): too long, too short or damaged, each told apart', async () => {
    const text = `<ComicInfo><Summary>${'words '.repeat(400)}</Summary></ComicInfo>`;
    const zip = await readFile(await writeZip(join(dir, 'small-entry.cbz'), [{ name: 'ComicInfo.xml', data: text }]));
    const readWith = async (data: Buffer) => {
      const archive = await ZipArchive.open('small-entry.cbz', resolveLimits(), data);
      return archive.read(archive.members[0]!);
    };
    expect((await readWith(zip)).toString('utf8')).toBe(text);
    await expect(readWith(setDeclaredSizes(zip, 100))).rejects.toMatchObject({
      kind: 'too_large',
      message: expect.stringMatching(/inflates past its declared size/),
    });
    await expect(readWith(setDeclaredSizes(zip, text.length + 10))).rejects.toMatchObject({
      kind: 'corrupt',
      message: expect.stringMatching(/inflates to \d+ bytes, not the \d+ it declares/),
    });
    // Block type 3 does not exist in DEFLATE.
    const damaged = Buffer.from(zip);
    damaged[30 + 'ComicInfo.xml'.length] = 0xff;
    await expect(readWith(damaged)).rejects.toMatchObject({ kind: 'corrupt', message: expect.stringMatching(/is damaged/) });
  });

  it('the same in a media worker, where an entry under 1 KiB is inflated in one synchronous call: each told apart too', async () => {
    const text = `<ComicInfo><Title>One</Title><Summary>${'words '.repeat(400)}</Summary></ComicInfo>`;
    const zip = await readFile(
      await writeZip(join(dir, 'worker-entry.cbz'), [
        { name: 'page1.png', data: await makeImage({ width: 8, height: 8, format: 'png' }), store: true },
        { name: 'ComicInfo.xml', data: text },
      ]),
    );
    /** Offsets of ComicInfo.xml's central record, local header and data. */
    const where = (data: Buffer) => {
      let central = -1;
      for (let at = data.length - 22; at >= 0 && central < 0; at--)
        if (
          data.readUInt32LE(at) === 0x02014b50 &&
          data.toString('latin1', at + 46, at + 46 + data.readUInt16LE(at + 28)) === 'ComicInfo.xml'
        )
          central = at;
      const local = data.readUInt32LE(central + 42);
      return {
        central,
        local,
        start: local + 30 + data.readUInt16LE(local + 26) + data.readUInt16LE(local + 28),
        compressed: data.readUInt32LE(central + 20),
      };
    };
    const { central, local, start, compressed } = where(zip);
    expect(compressed).toBeLessThanOrEqual(1024);
    const variant = async (name: string, change: (data: Buffer) => void) => {
      const data = Buffer.from(zip);
      change(data);
      await writeFile(join(dir, name), data);
      return join(dir, name);
    };
    const declaring = (size: number) => (data: Buffer) => {
      data.writeUInt32LE(size, central + 24);
      data.writeUInt32LE(size, local + 22);
    };
    const pool = new AnalysisPool({ threads: 1 });
    try {
      const honest = await pool.analyze(await variant('w-honest.cbz', () => undefined));
      expect(honest.metadata.title).toBe('One');
      const tooLong = await pool.analyze(await variant('w-long.cbz', declaring(100)));
      expect(tooLong.warnings.join(' ')).toMatch(/inflates past its declared size/);
      const tooShort = await pool.analyze(await variant('w-short.cbz', declaring(text.length + 10)));
      expect(tooShort.warnings.join(' ')).toMatch(/inflates to \d+ bytes, not the \d+ it declares/);
      const damaged = await pool.analyze(await variant('w-damaged.cbz', (data) => (data[start] = 0xff)));
      expect(damaged.warnings.join(' ')).toMatch(/is damaged/);
      for (const book of [tooLong, tooShort, damaged]) expect(book.metadata.title).not.toBe('One');
    } finally {
      await pool.destroy();
    }
  });

  it('a tiny ComicInfo.xml of bogus Huffman tables is refused, not worked through', async () => {
    // 32 dynamic blocks of 285 one-bit codes: zlib refuses the first table. An inflater that builds such tables
    // (fflate, used here for small entries once) spent 5 M table writes on each: ~1 s for this 1 KiB, 48 s at 64 KiB.
    const block = Buffer.from('ecff0300000000002065dbb66ddbb66ddbb66ddbb66ddbb66de36cdbb6cd0300', 'hex');
    const tables = Buffer.concat(Array.from({ length: 32 }, () => block));
    tables[31 * block.length] = tables[31 * block.length]! | 1; // the last block is final
    const path = join(dir, 'huffman-tables.cbz');
    await writeFile(
      path,
      rawZip([
        { name: 'page1.png', method: 0, data: await makeImage({ width: 8, height: 8, format: 'png' }) },
        { name: 'ComicInfo.xml', method: 8, data: tables, size: 100 },
      ]),
    );
    const pool = new AnalysisPool({ threads: 1 });
    try {
      await pool.analyze(path); // starts the worker
      const started = performance.now();
      const analysis = await pool.analyze(path);
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(analysis.pages).toHaveLength(1);
      // Refused at its first table (zlib's own words), not inflated block by block until something else breaks.
      expect(analysis.warnings.join(' ')).toMatch(/metadata ignored: .*is damaged: too many length or distance symbols/);
    } finally {
      await pool.destroy();
    }
  });

  it('entries with ../ paths are never pages and do not break the listing', async () => {
    const image = await makeImage({ width: 10, height: 10 });
    const source = await writeZip(join(dir, 'dots-src.cbz'), [
      { name: 'xx/evil.jpg', data: image },
      { name: 'ok.jpg', data: image },
    ]);
    const path = join(dir, 'dots.cbz');
    const bytes = await readFile(source);
    await writeFile(path, Buffer.from(bytes.toString('latin1').replaceAll('xx/evil', '../evil'), 'latin1'));
    const analysis = await analyzeFile(path);
    expect(analysis.pages.map((p) => p.file_name)).toEqual(['ok.jpg']);

    const onlyEvil = join(dir, 'only-dots.cbz');
    const evilSource = await writeZip(join(dir, 'only-dots-src.cbz'), [{ name: 'xx/evil.jpg', data: image }]);
    await writeFile(onlyEvil, Buffer.from((await readFile(evilSource)).toString('latin1').replaceAll('xx/evil', '../evil'), 'latin1'));
    await expectKind(onlyEvil, 'no_pages');
  });

  it('ComicInfo.xml with a DOCTYPE and entities: parsed without expansion', async () => {
    const laughs = Array.from({ length: 9 }, (_, i) => `<!ENTITY l${i + 1} "${`&l${i};`.repeat(10)}">`).join('\n');
    const xml = `<?xml version="1.0"?>
<!DOCTYPE ComicInfo [
  <!ENTITY l0 "lol">
  ${laughs}
  <!ENTITY xxe SYSTEM "file:///etc/passwd">
]>
<ComicInfo><Title>&l9;</Title><Series>&xxe;</Series><Number>3</Number></ComicInfo>`;
    const path = await makeCbz(dir, 'laughs.cbz', { pages: 1, comicInfo: xml });
    const analysis = await analyzeFile(path);
    expect(analysis.metadata.title).toBe('&l9;');
    expect(analysis.metadata.series).toBe('&xxe;');
    expect(analysis.metadata.number).toBe('3');
  });

  it('ComicInfo.xml with a DOCTYPE crafted to make a pattern backtrack: read in linear time', async () => {
    // `[]]]` repeated in the internal subset took a regular expression exponential time (seconds at 15 repeats);
    // at 5,000 it never ends. In a worker with a time limit, so that a regression fails instead of hanging.
    const pool = new AnalysisPool({ threads: 1, timeoutMs: 5_000 });
    try {
      const xml = `<?xml version="1.0"?>\n<!DOCTYPE ComicInfo ${'[]]]'.repeat(5000)}[\n<ComicInfo><Title>t</Title></ComicInfo>`;
      const analysis = await pool.analyze(await makeCbz(dir, 'Backtrack 004.cbz', { pages: 1, comicInfo: xml }));
      // The declaration never ends (its last subset is open): not well-formed, so the metadata is ignored.
      expect(analysis.warnings.join()).toMatch(/metadata ignored/);
      expect(analysis.metadata).toMatchObject({ series: 'Backtrack', number: '4' });
      const closed = `<?xml version="1.0"?>\n<!DOCTYPE ComicInfo ${'[]]]'.repeat(5000)}>\n<ComicInfo><Title>Kept</Title></ComicInfo>`;
      const kept = await pool.analyze(await makeCbz(dir, 'Backtrack 005.cbz', { pages: 1, comicInfo: closed }));
      expect(kept.metadata.title).toBe('Kept');
    } finally {
      await pool.destroy();
    }
  }, 30_000);

  it('a ComicInfo.xml that is not XML costs the metadata, not the book', async () => {
    const path = await makeCbz(dir, 'Broken Info 012.cbz', { pages: 1, comicInfo: '<ComicInfo><Title>unclosed' });
    await withBook(path, 'cbz', {}, async (reader) => {
      await expect(reader.metadata()).rejects.toMatchObject({ kind: 'corrupt' });
    });
    const analysis = await analyzeFile(path);
    expect(analysis.warnings.join()).toMatch(/metadata ignored/);
    expect(analysis.metadata).toMatchObject({ series: 'Broken Info', number: '12' });
  });

  it('EPUB with a missing OPF', async () => {
    await expectKind(await makeEpub(dir, 'noopf.epub', { omitOpf: true }), 'corrupt');
  });

  it('EPUB without container.xml nor any OPF', async () => {
    const path = await writeZip(join(dir, 'bare.epub'), [
      { name: 'mimetype', data: 'application/epub+zip', store: true },
      { name: 'OEBPS/chapter1.xhtml', data: '<html/>' },
    ]);
    await expectKind(path, 'corrupt');
  });

  it('EPUB protected by DRM (encryption.xml over its content)', async () => {
    const source = await makeEpub(dir, 'drm-src.epub');
    const { default: yauzl } = await import('yauzl');
    const zip = await yauzl.openPromise(source, { lazyEntries: true });
    const items: Array<{ name: string; data: Buffer }> = [];
    for await (const entry of zip.eachEntry()) {
      const stream = await zip.openReadStreamPromise(entry);
      const chunks: Buffer[] = [];
      for await (const chunk of stream) chunks.push(chunk as Buffer);
      items.push({ name: entry.fileName, data: Buffer.concat(chunks) });
    }
    zip.close();
    items.push({
      name: 'META-INF/encryption.xml',
      data: Buffer.from(`<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/chapter1.xhtml"/></enc:CipherData></enc:EncryptedData>
</encryption>`),
    });
    await expectKind(await writeZip(join(dir, 'drm.epub'), items), 'encrypted');
  });

  it('EPUB whose encryption.xml names a file by a URI that is not valid percent-encoding: the book still reads', async () => {
    const path = await makeEpub(dir, 'percent-enc.epub', {
      pages: 2,
      extraFiles: [
        { name: 'OEBPS/100%.css', data: 'p { margin: 0 }' },
        {
          name: 'META-INF/encryption.xml',
          data: `<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc="http://www.w3.org/2001/04/xmlenc#">
  <enc:EncryptedData><enc:EncryptionMethod Algorithm="http://www.w3.org/2001/04/xmlenc#aes128-cbc"/>
  <enc:CipherData><enc:CipherReference URI="OEBPS/100%.css"/></enc:CipherData></enc:EncryptedData>
</encryption>`,
        },
      ],
    });
    const analysis = await analyzeFile(path);
    expect(analysis.format).toBe('epub');
    expect(analysis.pages).toHaveLength(2);
  });

  it('a PDF that throws', async () => {
    const path = join(dir, 'broken.pdf');
    await writeFile(path, '%PDF-1.7\n1 0 obj << /Type /Catalog /Pages 9 0 R >>\ngarbage garbage\n%%EOF\n');
    await expectKind(path, 'corrupt');
  });

  it('a truncated PDF', async () => {
    const full = await makePdf(dir, 'whole.pdf', { pages: 3 });
    const cut = await truncateCopy(full, join(dir, 'cut.pdf'), 40);
    await expectKind(cut, 'corrupt');
  });

  it('a 30000×30000 image: listed from its header, refused when decoded', async () => {
    const path = await makeCbz(dir, 'pixels.cbz', { pages: [{ name: 'huge.png', data: makePixelBombPng(30000, 30000) }] });
    const analysis = await analyzeFile(path);
    expect(analysis.pages[0]).toMatchObject({ width: 30000, height: 30000 });
    await withBook(path, 'cbz', {}, async (reader) => {
      await expect(renderPage(reader, 1, { width: 800 })).rejects.toMatchObject({ kind: 'too_large' });
    });
    await expect(getThumbnail({ cacheDir: join(dir, 'cache'), hash: analysis.hash, path })).rejects.toMatchObject({ kind: 'too_large' });
  });

  it('7z archives are detected and reported unsupported', async () => {
    const path = join(dir, 'book.cb7');
    await writeFile(path, Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, 0x00, 0x04, 1, 2, 3, 4]));
    await expectKind(path, 'unsupported');
  });

  it('a missing file', async () => {
    await expectKind(join(dir, 'gone.cbz'), 'not_found');
    await expect(openBook(join(dir, 'gone.cbz'), 'cbz')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('random bytes behind a .cbr name', async () => {
    const path = join(dir, 'random.cbr');
    await writeFile(path, Buffer.alloc(2048, 0x33));
    await expectKind(path, 'corrupt');
  });

  it('a truncated RAR', async () => {
    const cut = await truncateCopy(realFixture('test_comic_with_info.cbr'), join(dir, 'cut.cbr'), 200);
    const error = await analyzeFile(cut).then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(MediaError);
    expect(['corrupt', 'no_pages']).toContain((error as MediaError).kind);
  });
});

/** A zip of the given entries as they are (data already compressed for method 8), sizes as declared. */
function rawZip(entries: ReadonlyArray<{ name: string; method: 0 | 8; data: Buffer; size?: number }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const size = entry.size ?? entry.data.length;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(entry.method, 8);
    local.writeUInt32LE(crc32(entry.method === 0 ? entry.data : Buffer.alloc(0)), 14);
    local.writeUInt32LE(entry.data.length, 18);
    local.writeUInt32LE(size, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(entry.method, 10);
    central.writeUInt32LE(local.readUInt32LE(14), 16);
    central.writeUInt32LE(entry.data.length, 20);
    central.writeUInt32LE(size, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.data);
    centrals.push(central, name);
    offset += local.length + name.length + entry.data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}
