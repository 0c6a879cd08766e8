import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { makeEpub, makeImage, writeZip, type ZipItem } from '../media/fixtures.js';
import { enableKomga, expectKomga, send } from './helpers.js';

/**
 * Issue 16 (2): Komga marks an EPUB `epubDivinaCompatible` only when every item of its reading order is a single
 * image (a fixed-layout, image-only book); Mihon hides an EPUB without the flag and reads the flagged ones as
 * image chapters. A novel (here laid out the way pandoc writes one) is not flagged, lists no image pages, and its
 * chapters are never sent as pictures, converted or not.
 */

const BASE = '/komga/api/v1';
const UA = { 'user-agent': 'TachiyomiKomga/1.4.60' };

const xhtml = (title: string, body: string) => `<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE html>
<html xmlns="http://www.w3.org/1999/xhtml" xmlns:epub="http://www.idpf.org/2007/ops" xml:lang="en" lang="en">
<head><meta charset="utf-8" /><title>${title}</title><link rel="stylesheet" type="text/css" href="../styles/stylesheet1.css" /></head>
<body epub:type="bodymatter">${body}</body>
</html>`;

/**
 * What `pandoc novel.md --epub-cover-image=cover.png -o novel.epub` writes: EPUB/ with text/, media/, styles/,
 * a cover page wrapping the cover in SVG, a title page, the nav document and one XHTML file per chapter.
 */
async function writePandocNovel(file: string): Promise<void> {
  const cover = await makeImage({ width: 500, height: 750, format: 'png', color: '#224488' });
  const chapter = (n: number) =>
    xhtml(
      `Chapter ${n}`,
      `<section id="chapter-${n}" class="level1"><h1>Chapter ${n}</h1>` +
        Array.from(
          { length: 12 },
          (_, i) => `<p>It was the ${i + 1}th hour of the night, and the lamps of chapter ${n} burned low.</p>`,
        ).join('') +
        '</section>',
    );
  const items: ZipItem[] = [
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0" encoding="UTF-8"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="EPUB/content.opf" media-type="application/oebps-package+xml" /></rootfiles></container>',
    },
    {
      name: 'META-INF/com.apple.ibooks.display-options.xml',
      data: '<?xml version="1.0" encoding="UTF-8"?><display_options><platform name="*"><option name="specified-fonts">true</option></platform></display_options>',
    },
    { name: 'EPUB/media/file0.png', data: cover },
    { name: 'EPUB/styles/stylesheet1.css', data: 'body { margin: 5%; }' },
    {
      name: 'EPUB/text/cover.xhtml',
      data: xhtml(
        'A Pandoc Novel',
        '<section epub:type="cover"><svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1" width="100%" height="100%" viewBox="0 0 500 750" preserveAspectRatio="xMidYMid"><image width="500" height="750" xlink:href="../media/file0.png" /></svg></section>',
      ),
    },
    {
      name: 'EPUB/text/title_page.xhtml',
      data: xhtml(
        'A Pandoc Novel',
        '<section epub:type="titlepage" class="titlepage"><h1 class="title">A Pandoc Novel</h1><p class="author">Jane Writer</p></section>',
      ),
    },
    { name: 'EPUB/text/ch001.xhtml', data: chapter(1) },
    { name: 'EPUB/text/ch002.xhtml', data: chapter(2) },
    {
      name: 'EPUB/nav.xhtml',
      data: xhtml(
        'A Pandoc Novel',
        '<nav epub:type="toc" id="toc"><h1 id="toc-title">A Pandoc Novel</h1><ol class="toc"><li><a href="text/ch001.xhtml">Chapter 1</a></li><li><a href="text/ch002.xhtml">Chapter 2</a></li></ol></nav>',
      ),
    },
    {
      name: 'EPUB/content.opf',
      data: `<?xml version="1.0" encoding="UTF-8"?>
<package version="3.0" xmlns="http://www.idpf.org/2007/opf" unique-identifier="epub-id-1" prefix="ibooks: http://vocabulary.itunes.apple.com/rdf/ibooks/vocabulary-extensions-1.0/">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:opf="http://www.idpf.org/2007/opf">
    <dc:identifier id="epub-id-1">urn:uuid:6f1c2a4e-8d55-4b0e-9d0a-2b8f0c7e1a11</dc:identifier>
    <dc:title id="epub-title-1">A Pandoc Novel</dc:title>
    <dc:date id="epub-date">2024-03-01T00:00:00Z</dc:date>
    <dc:language>en-US</dc:language>
    <dc:creator id="epub-creator-1">Jane Writer</dc:creator>
    <meta refines="#epub-creator-1" property="role" scheme="marc:relators">aut</meta>
    <meta name="cover" content="file0_png" />
    <meta property="dcterms:modified">2024-03-01T00:00:00Z</meta>
    <meta property="ibooks:specified-fonts">true</meta>
  </metadata>
  <manifest>
    <item id="ncx" href="toc.ncx" media-type="application/x-dtbncx+xml" />
    <item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" properties="nav" />
    <item id="stylesheet1" href="styles/stylesheet1.css" media-type="text/css" />
    <item id="cover_xhtml" href="text/cover.xhtml" media-type="application/xhtml+xml" properties="svg" />
    <item id="title_page_xhtml" href="text/title_page.xhtml" media-type="application/xhtml+xml" />
    <item id="ch001_xhtml" href="text/ch001.xhtml" media-type="application/xhtml+xml" />
    <item id="ch002_xhtml" href="text/ch002.xhtml" media-type="application/xhtml+xml" />
    <item properties="cover-image" id="file0_png" href="media/file0.png" media-type="image/png" />
  </manifest>
  <spine toc="ncx">
    <itemref idref="cover_xhtml" linear="no" />
    <itemref idref="title_page_xhtml" linear="yes" />
    <itemref idref="nav" />
    <itemref idref="ch001_xhtml" />
    <itemref idref="ch002_xhtml" />
  </spine>
  <guide><reference type="toc" title="A Pandoc Novel" href="nav.xhtml" /><reference type="cover" title="Cover" href="text/cover.xhtml" /></guide>
</package>`,
    },
  ];
  await writeZip(file, items);
}

/** A fixed-layout art book whose last page is a text colophon: not every reading-order item is an image. */
async function writeFixedLayoutWithText(file: string): Promise<void> {
  const page = (n: number) => xhtml(`Plate ${n}`, `<div><img src="../images/plate${n}.jpg" alt="" /></div>`);
  await writeZip(file, [
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data: '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles><rootfile full-path="OPS/book.opf" media-type="application/oebps-package+xml"/></rootfiles></container>',
    },
    { name: 'OPS/images/plate1.jpg', data: await makeImage({ width: 600, height: 900 }) },
    { name: 'OPS/images/plate2.jpg', data: await makeImage({ width: 600, height: 900, color: '#884422' }) },
    { name: 'OPS/text/p1.xhtml', data: page(1) },
    { name: 'OPS/text/p2.xhtml', data: page(2) },
    {
      name: 'OPS/text/colophon.xhtml',
      data: xhtml('Colophon', '<p>Printed in 2021. Plates photographed by the author; all rights reserved.</p>'),
    },
    {
      name: 'OPS/book.opf',
      data: `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:identifier id="uid">urn:uuid:0d2f7a3c-1111-4c2e-8f00-000000000002</dc:identifier><dc:title>Plates</dc:title><dc:language>en</dc:language>
    <meta property="rendition:layout">pre-paginated</meta><meta property="dcterms:modified">2021-01-01T00:00:00Z</meta></metadata>
  <manifest>
    <item id="i1" href="images/plate1.jpg" media-type="image/jpeg"/><item id="i2" href="images/plate2.jpg" media-type="image/jpeg"/>
    <item id="p1" href="text/p1.xhtml" media-type="application/xhtml+xml"/><item id="p2" href="text/p2.xhtml" media-type="application/xhtml+xml"/>
    <item id="c" href="text/colophon.xhtml" media-type="application/xhtml+xml"/>
  </manifest>
  <spine><itemref idref="p1"/><itemref idref="p2"/><itemref idref="c"/></spine>
</package>`,
    },
  ]);
}

interface MediaDto {
  status: string;
  mediaType: string;
  pagesCount: number;
  mediaProfile: string;
  epubDivinaCompatible: boolean;
}
interface BookDto {
  id: string;
  name: string;
  media: MediaDto;
}
interface PageDto {
  number: number;
  fileName: string;
  mediaType: string;
  width?: number;
  height?: number;
}

let t: CatalogTestApp;
let auth: Headers;
const books = new Map<string, BookDto>();
const book = (name: string) => {
  const found = books.get(name);
  expect(found, name).toBeDefined();
  return found!;
};

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  await scannedLibrary(t, async (dir) => {
    await writePandocNovel(path.join(dir, 'Novels', 'A Pandoc Novel.epub'));
    await makeEpub(path.join(dir, 'Comics'), 'Fixed Layout Comic.epub', {
      kind: 'image',
      fixedLayout: true,
      pages: 3,
      pageSize: { width: 600, height: 900 },
      metadata: { title: 'Fixed Layout Comic' },
    });
    await writeFixedLayoutWithText(path.join(dir, 'Art', 'Plates.epub'));
  });
  const reader = await createUser(t, 'reader');
  auth = { ...UA, ...basic(reader.username, reader.password) };
  const list = await send<{ content: BookDto[] }>(t, 'GET', `${BASE}/books?unpaged=true`, auth);
  expect(list.status).toBe(200);
  for (const b of list.body.content) books.set(b.name, b);
});
afterAll(() => t.close());

async function imageOf(url: string): Promise<{ status: number; type: string; format?: string; width?: number }> {
  const res = await send(t, 'GET', url, auth);
  if (res.status !== 200) return { status: res.status, type: String(res.headers['content-type']) };
  const meta = await sharp(res.raw).metadata();
  return { status: res.status, type: String(res.headers['content-type']), format: meta.format, width: meta.width };
}

describe('a text EPUB (pandoc novel) is not DiViNa-compatible', () => {
  it('BookDto: mediaProfile EPUB, epubDivinaCompatible false, Komga schema', async () => {
    const dto = await send<BookDto>(t, 'GET', `${BASE}/books/${book('A Pandoc Novel').id}`, auth);
    expectKomga(dto.body, 'BookDto');
    expect(dto.body.media).toMatchObject({
      status: 'READY',
      mediaType: 'application/epub+zip',
      mediaProfile: 'EPUB',
      epubDivinaCompatible: false,
    });
    // The book lists (what Mihon's chapter list reads) carry the same flag.
    expect(book('A Pandoc Novel').media.epubDivinaCompatible).toBe(false);
  });

  it('its Komga page list is empty: no chapter is offered as an image page', async () => {
    const pages = await send<PageDto[]>(t, 'GET', `${BASE}/books/${book('A Pandoc Novel').id}/pages`, auth);
    expect(pages.status).toBe(200);
    expect(pages.body).toEqual([]);
  });

  it('a page image, converted or not, and its thumbnail are a clean 400, never XHTML as octet-stream', async () => {
    const id = book('A Pandoc Novel').id;
    for (const url of [
      `${BASE}/books/${id}/pages/2?convert=png`,
      `${BASE}/books/${id}/pages/2?convert=jpeg`,
      `${BASE}/books/${id}/pages/2`,
      `${BASE}/books/${id}/pages/1/thumbnail`,
      `${BASE}/books/${id}/pages/1?zero_based=true&convert=png`,
    ]) {
      const res = await send<{ error: string; message: string; details: { media_type: string } }>(t, 'GET', url, auth);
      expect(res.status, url).toBe(400);
      expect(String(res.headers['content-type'])).toContain('application/json');
      expect(res.body).toMatchObject({ error: 'BadRequest', details: { media_type: 'application/xhtml+xml' } });
    }
  });

  it('the native page route still serves the chapter itself, and refuses to resize or convert it', async () => {
    const id = book('A Pandoc Novel').id;
    const pages = (await t.app.inject({ method: 'GET', url: `/api/v1/books/${id}/pages`, headers: t.headers })).json<
      Array<{ file_name: string; media_type: string }>
    >();
    expect(pages.map((p) => p.file_name)).toEqual([
      'EPUB/text/cover.xhtml',
      'EPUB/text/title_page.xhtml',
      'EPUB/nav.xhtml',
      'EPUB/text/ch001.xhtml',
      'EPUB/text/ch002.xhtml',
    ]);
    expect(new Set(pages.map((p) => p.media_type))).toEqual(new Set(['application/xhtml+xml']));
    const chapter = await t.app.inject({ method: 'GET', url: `/api/v1/books/${id}/pages/4`, headers: t.headers });
    expect(chapter.statusCode).toBe(200);
    expect(chapter.headers['content-type']).toBe('application/xhtml+xml');
    expect(chapter.body).toContain('lamps of chapter 1');
    const converted = await t.app.inject({ method: 'GET', url: `/api/v1/books/${id}/pages/4?format=png`, headers: t.headers });
    expect(converted.statusCode).toBe(400);
    expect(converted.json()).toMatchObject({ error: 'BadRequest' });
  });
});

describe('a fixed-layout image-only EPUB is DiViNa-compatible', () => {
  it('BookDto: epubDivinaCompatible true, one page per image', async () => {
    const dto = await send<BookDto>(t, 'GET', `${BASE}/books/${book('Fixed Layout Comic').id}`, auth);
    expectKomga(dto.body, 'BookDto');
    expect(dto.body.media).toMatchObject({ status: 'READY', mediaProfile: 'EPUB', epubDivinaCompatible: true, pagesCount: 3 });
  });

  it('its page list is the images, with their media types and dimensions (Komga PageDto)', async () => {
    const pages = await send<PageDto[]>(t, 'GET', `${BASE}/books/${book('Fixed Layout Comic').id}/pages`, auth);
    expectKomga(pages.body, 'array:PageDto');
    expect(pages.body.map((p) => [p.number, p.fileName, p.mediaType, p.width, p.height])).toEqual([
      [1, 'OEBPS/images/img1.png', 'image/png', 600, 900],
      [2, 'OEBPS/images/img2.png', 'image/png', 600, 900],
      [3, 'OEBPS/images/img3.png', 'image/png', 600, 900],
    ]);
  });

  it('pages answer as images and honour convert=png|jpeg; zero_based and the page thumbnail work', async () => {
    const id = book('Fixed Layout Comic').id;
    expect(await imageOf(`${BASE}/books/${id}/pages/1`)).toEqual({ status: 200, type: 'image/png', format: 'png', width: 600 });
    expect(await imageOf(`${BASE}/books/${id}/pages/2?convert=jpeg`)).toEqual({
      status: 200,
      type: 'image/jpeg',
      format: 'jpeg',
      width: 600,
    });
    expect(await imageOf(`${BASE}/books/${id}/pages/3?convert=png`)).toEqual({ status: 200, type: 'image/png', format: 'png', width: 600 });
    expect(await imageOf(`${BASE}/books/${id}/pages/0?zero_based=true&convert=jpeg`)).toMatchObject({ status: 200, type: 'image/jpeg' });
    expect(await imageOf(`${BASE}/books/${id}/pages/1/thumbnail`)).toMatchObject({ status: 200, type: 'image/jpeg', width: 300 });
  });
});

describe('a fixed-layout EPUB with a text page is not DiViNa-compatible', () => {
  it('epubDivinaCompatible false and no image pages listed', async () => {
    const id = book('Plates').id;
    expect((await send<BookDto>(t, 'GET', `${BASE}/books/${id}`, auth)).body.media).toMatchObject({
      mediaProfile: 'EPUB',
      epubDivinaCompatible: false,
    });
    expect((await send<PageDto[]>(t, 'GET', `${BASE}/books/${id}/pages`, auth)).body).toEqual([]);
  });
});
