import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { enableKomga, send } from '../komga/helpers.js';
import { makeCbz, makeEpub } from '../media/fixtures.js';
import { get, linkOf, parseXml, type AtomEntry } from '../opds/helpers.js';

/**
 * Issue 16 (7): a book that cannot be read (its analysis failed, it has no page) still has a cover: a generated
 * placeholder naming its format and "unreadable", wherever a cover or thumbnail is linked (native, OPDS 1.2,
 * OPDS 2.0, Komga), instead of a 404 behind a link the feed itself advertised. On Deck never offers such a book.
 */

interface Book {
  id: string;
  title: string;
  analysis_error: string | null;
}

let t: CatalogTestApp;
let reader: Awaited<ReturnType<typeof createUser>>;
let auth: Headers;
const byTitle = new Map<string, Book>();
const book = (title: string) => {
  const found = byTitle.get(title);
  expect(found, title).toBeDefined();
  return found!;
};

beforeAll(async () => {
  t = await createCatalogApp(enableKomga);
  await scannedLibrary(t, async (dir) => {
    const small = { pages: 2, pageSize: { width: 60, height: 90 } };
    await makeCbz(path.join(dir, 'Mixed'), 'Mixed 001.cbz', { ...small, comicInfo: { Series: 'Mixed', Number: '1', Title: 'Mixed 1' } });
    await makeCbz(path.join(dir, 'Mixed'), 'Mixed 003.cbz', { ...small, comicInfo: { Series: 'Mixed', Number: '3', Title: 'Mixed 3' } });
    await writeFile(path.join(dir, 'Mixed', 'Mixed 002.cbz'), Buffer.from('this is not a zip archive at all'));
    await makeCbz(path.join(dir, 'Letters'), 'Letters A.cbz', { ...small, comicInfo: { Series: 'Letters', Title: 'Letters A' } });
    await writeFile(path.join(dir, 'Letters', 'Letters B.cbz'), Buffer.from('PK\u0003\u0004 cut short'));
    await makeCbz(path.join(dir, 'Letters'), 'Letters C.cbz', { ...small, comicInfo: { Series: 'Letters', Title: 'Letters C' } });
    await mkdir(path.join(dir, 'Zeta'), { recursive: true });
    await writeFile(path.join(dir, 'Zeta', 'Zeta A.cbz'), Buffer.from('not a zip'));
    await makeCbz(path.join(dir, 'Zeta'), 'Zeta B.cbz', { ...small, comicInfo: { Series: 'Zeta', Title: 'Zeta B' } });
    await mkdir(path.join(dir, 'Novels'), { recursive: true });
    await writeFile(path.join(dir, 'Novels', 'Broken Novel.epub'), Buffer.from('not an epub'));
    // Readable, but with no cover image at all.
    await makeEpub(path.join(dir, 'Plain'), 'Plain Text.epub', { cover: false, metadata: { title: 'Plain Text', language: 'en' } });
  });
  for (const b of (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=100')).body.data) byTitle.set(b.title, b);
  reader = await createUser(t, 'reader');
  auth = basic(reader.username, reader.password);
});
afterAll(() => t.close());

/** An image answer: its type and pixel size. */
async function cover(
  url: string,
  headers: Headers = auth,
): Promise<{ status: number; type: string; width?: number; height?: number; etag: string }> {
  const res = await get(t, url, headers);
  const meta: { width?: number; height?: number } = res.status === 200 ? await sharp(res.raw).metadata() : {};
  return {
    status: res.status,
    type: String(res.headers['content-type']),
    width: meta.width,
    height: meta.height,
    etag: String(res.headers.etag),
  };
}

describe('the library holds unreadable books', () => {
  it('the broken files were recorded with an analysis error', () => {
    for (const title of ['Mixed 002', 'Letters B', 'Zeta A', 'Broken Novel']) expect(book(title).analysis_error, title).not.toBeNull();
  });
});

describe('an unreadable book has a placeholder cover, not a 404', () => {
  it('native thumbnail: a 2:3 JPEG (WebP when accepted) at the thumbnail width, with an ETag and 304', async () => {
    const id = book('Mixed 002').id;
    const jpeg = await cover(`/api/v1/books/${id}/thumbnail`, t.headers);
    expect(jpeg).toMatchObject({ status: 200, type: 'image/jpeg', width: 400, height: 600 });
    const webp = await cover(`/api/v1/books/${id}/thumbnail`, { ...t.headers, accept: 'image/webp,*/*' });
    expect(webp).toMatchObject({ status: 200, type: 'image/webp' });
    expect(webp.etag).not.toBe(jpeg.etag);
    expect((await get(t, `/api/v1/books/${id}/thumbnail`, { ...t.headers, 'if-none-match': jpeg.etag })).status).toBe(304);
  });

  it('the placeholder names the format: a broken CBZ and a broken EPUB get different images', async () => {
    const cbz = await get(t, `/api/v1/books/${book('Mixed 002').id}/thumbnail`);
    const epub = await get(t, `/api/v1/books/${book('Broken Novel').id}/thumbnail`);
    expect(cbz.raw.equals(epub.raw)).toBe(false);
    expect(String(cbz.headers.etag)).toContain('cbz');
    expect(String(epub.headers.etag)).toContain('epub');
  });

  it("OPDS 1.2: the entry's image and thumbnail links answer 200 image/jpeg", async () => {
    for (const title of ['Mixed 002', 'Broken Novel']) {
      const res = await get(t, `/opds/v1.2/books/${book(title).id}`, auth);
      expect(res.status).toBe(200);
      const entry = (parseXml(res.body).entry as AtomEntry[])[0]!;
      for (const rel of ['http://opds-spec.org/image', 'http://opds-spec.org/image/thumbnail']) {
        const link = linkOf(entry.link, rel)!;
        expect(link['@type']).toBe('image/jpeg');
        expect(await cover(link['@href']), `${title} ${rel}`).toMatchObject({ status: 200, type: 'image/jpeg' });
      }
    }
  });

  it("OPDS 2.0: the publication's cover and thumbnail images answer 200 image/jpeg", async () => {
    const pub = await send<{ images: Array<{ href: string; type: string }> }>(t, 'GET', `/opds/v2/books/${book('Letters B').id}`, auth);
    expect(pub.status).toBe(200);
    expect(pub.body.images.length).toBe(2);
    for (const image of pub.body.images) expect(await cover(image.href), image.href).toMatchObject({ status: 200, type: image.type });
  });

  it('a readable book with no cover image (a text EPUB) gets the placeholder without "unreadable": 200, never 404', async () => {
    const plain = book('Plain Text');
    expect(plain.analysis_error).toBeNull();
    const detail = await api<{ series_id: string }>(t, 'GET', `/api/v1/books/${plain.id}`);
    for (const url of [
      `/api/v1/books/${plain.id}/thumbnail`,
      `/api/v1/series/${detail.body.series_id}/thumbnail`,
      `/komga/api/v1/books/${plain.id}/thumbnail`,
      `/komga/api/v1/series/${detail.body.series_id}/thumbnail`,
    ]) {
      expect(await cover(url), url).toMatchObject({ status: 200, type: 'image/jpeg', width: 400, height: 600 });
    }
    const own = await get(t, `/api/v1/books/${plain.id}/thumbnail`);
    const unreadable = await get(t, `/api/v1/books/${book('Broken Novel').id}/thumbnail`);
    expect(own.raw.equals(unreadable.raw)).toBe(false);
    expect((await get(t, `/api/v1/books/${plain.id}/thumbnail`, { ...t.headers, 'if-none-match': String(own.headers.etag) })).status).toBe(
      304,
    );
  });

  it('Komga: books/{id}/thumbnail answers 200 image/jpeg', async () => {
    const res = await cover(`/komga/api/v1/books/${book('Broken Novel').id}/thumbnail`);
    expect(res).toMatchObject({ status: 200, type: 'image/jpeg' });
    const dto = await send<{ media: { status: string } }>(t, 'GET', `/komga/api/v1/books/${book('Broken Novel').id}`, auth);
    expect(dto.body.media.status).toBe('ERROR');
  });

  it("a readable book's cover is its own, not the placeholder", async () => {
    const good = await get(t, `/api/v1/books/${book('Mixed 1').id}/thumbnail`);
    const broken = await get(t, `/api/v1/books/${book('Mixed 002').id}/thumbnail`);
    expect(good.status).toBe(200);
    expect(String(good.headers.etag)).not.toContain('unreadable');
    expect(good.raw.equals(broken.raw)).toBe(false);
  });
});

describe('a series cover comes from its first readable book', () => {
  it("a series whose first book is unreadable shows the next book's cover (native and the OPDS series thumbnail)", async () => {
    const series = (await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=100')).body.data.find(
      (s) => s.name === 'Zeta',
    )!;
    const seriesCover = await get(t, `/api/v1/series/${series.id}/thumbnail`);
    const bookCover = await get(t, `/api/v1/books/${book('Zeta B').id}/thumbnail`);
    expect(seriesCover.status).toBe(200);
    expect(seriesCover.headers.etag).toBe(bookCover.headers.etag);
    expect(await cover(`/opds/v1.2/series/${series.id}/thumbnail`)).toMatchObject({ status: 200, type: 'image/jpeg' });
  });
});

describe('On Deck passes over books whose analysis failed', () => {
  const nativeDeck = async () => (await call<Paged<Book>>(t, reader.headers, 'GET', '/api/v1/books/on-deck')).body.data.map((b) => b.title);
  const komgaDeck = async () =>
    (await send<{ content: Array<{ metadata: { title: string } }> }>(t, 'GET', '/komga/api/v1/books/ondeck', auth)).body.content.map(
      (b) => b.metadata.title,
    );
  const complete = async (title: string) => {
    const res = await call(t, reader.headers, 'PUT', `/api/v1/books/${book(title).id}/progress`, { is_completed: true });
    expect(res.status).toBe(200);
  };

  it('the next book after a finished one skips an unreadable one in between (native and Komga)', async () => {
    await complete('Letters A');
    expect(await nativeDeck()).toEqual(['Letters C']);
    expect(await komgaDeck()).toEqual(['Letters C']);
  });

  it('a series whose only unread book is unreadable has nothing on deck', async () => {
    await complete('Mixed 1');
    await complete('Mixed 3');
    expect(await nativeDeck()).toEqual(['Letters C']);
    expect(await komgaDeck()).toEqual(['Letters C']);
  });
});
