import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz, makeEpub, makeImage, makePdf } from '../media/fixtures.js';

interface Book {
  id: string;
  title: string;
  format: string | null;
  page_count: number;
}
interface Resource {
  path: string;
  media_type: string;
  size: number;
}
interface LocatorProgress {
  book_id: string;
  locator: { href: string; cfi?: string; progression?: number } | null;
  percentage: number;
  current_page: number;
  page_count: number;
  is_completed: boolean;
}

let t: CatalogTestApp;
let all: Book[];
const book = (title: string) => all.find((b) => b.title === title)!;
const get = (url: string, headers: Record<string, string> = {}) =>
  t.app.inject({ method: 'GET', url, headers: { ...t.headers, ...headers } });

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => {
    await makeEpub(path.join(dir, 'Novels'), 'Novel.epub', {
      pages: 4,
      metadata: { title: 'A novel', series: 'Novels', seriesIndex: '1', language: 'en' },
      extraFiles: [
        { name: 'OEBPS/100%.css', data: 'p { margin: 0 }' },
        { name: 'OEBPS/a%20b.css', data: 'p { margin: 1em }' },
      ],
    });
    await makeEpub(path.join(dir, 'Picture books'), 'Pictures.epub', {
      kind: 'image',
      fixedLayout: true,
      pages: 2,
      metadata: { title: 'Pictures', series: 'Picture books' },
    });
    await makeCbz(path.join(dir, 'Colours'), 'Colours 1.cbz', {
      pages: [{ name: '001.jpg', data: await makeImage({ width: 120, height: 180, format: 'jpeg', color: '#d02020' }) }],
      comicInfo: { Series: 'Colours', Number: '1', Title: 'Red' },
    });
    await makePdf(path.join(dir, 'Papers'), 'Paper.pdf', { pages: 2 });
  });
  all = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=500')).body.data;
});
afterAll(() => t.close());

describe('GET /books/{id}/resources and /resource/{path}', () => {
  it('lists the files of an EPUB with the media types its package document declares', async () => {
    const res = await get(`/api/v1/books/${book('A novel').id}/resources`);
    expect(res.statusCode).toBe(200);
    const list = res.json<Resource[]>();
    expect(list).toEqual(
      expect.arrayContaining([
        { path: 'OEBPS/content.opf', media_type: 'application/oebps-package+xml', size: expect.any(Number) },
        { path: 'OEBPS/chapter1.xhtml', media_type: 'application/xhtml+xml', size: expect.any(Number) },
        { path: 'OEBPS/images/cover.jpg', media_type: 'image/jpeg', size: expect.any(Number) },
        { path: 'META-INF/container.xml', media_type: 'application/xml', size: expect.any(Number) },
      ]),
    );
  });

  it('serves a file by its path with its media type, an ETag that gives 304, and a sandbox policy', async () => {
    const url = `/api/v1/books/${book('A novel').id}/resource/OEBPS/chapter2.xhtml`;
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/xhtml+xml');
    expect(res.headers['content-security-policy']).toBe('sandbox');
    expect(res.body).toContain('Chapter 2');
    const again = await get(url, { 'if-none-match': String(res.headers.etag) });
    expect(again.statusCode).toBe(304);
    const image = await get(`/api/v1/books/${book('A novel').id}/resource/OEBPS/images/cover.jpg`);
    expect(image.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(image.rawPayload).metadata()).width).toBe(500);
  });

  it('a path the archive does not hold is a 404; a path climbing out is just a missing name', async () => {
    for (const p of ['OEBPS/nothing.xhtml', '..%2F..%2Fetc%2Fpasswd', 'OEBPS/../../x']) {
      const res = await get(`/api/v1/books/${book('A novel').id}/resource/${p}`);
      expect(res.statusCode, p).toBe(404);
      expect(res.json()).toMatchObject({ error: 'NotFound' });
    }
  });

  it('a file whose name holds a percent sign is asked by its URL-encoded name, decoded once', async () => {
    const id = book('A novel').id;
    const percent = await get(`/api/v1/books/${id}/resource/OEBPS/100%25.css`);
    expect(percent.statusCode).toBe(200);
    expect(percent.body).toBe('p { margin: 0 }');
    // `%2520` is the name `a%20b.css` itself, not `a b.css`.
    const literal = await get(`/api/v1/books/${id}/resource/OEBPS/a%2520b.css`);
    expect(literal.statusCode).toBe(200);
    expect(literal.body).toBe('p { margin: 1em }');
    for (const p of ['%25', 'OEBPS/%25zz', 'OEBPS/a%20b.css']) {
      const res = await get(`/api/v1/books/${id}/resource/${p}`);
      expect(res.statusCode, p).toBe(404);
      expect(res.json()).toMatchObject({ error: 'NotFound' });
    }
  });

  it('a PDF has no files to serve (400); an unknown book is a 404', async () => {
    expect((await get(`/api/v1/books/${book('Paper').id}/resources`)).statusCode).toBe(400);
    expect((await get('/api/v1/books/00000000-0000-4000-8000-000000000000/resource/a.xhtml')).statusCode).toBe(404);
  });

  it('needs the permission pages need: an API key without it is refused', async () => {
    const key = await createApiKey(t, t.headers, { name: 'progress only', permissions: ['progress-read'] });
    const res = await t.app.inject({
      method: 'GET',
      url: `/api/v1/books/${book('A novel').id}/resource/OEBPS/chapter1.xhtml`,
      headers: { authorization: `Bearer ${key.key}` },
    });
    expect(res.statusCode).toBe(403);
  });
});

describe('GET /books/{id}/manifest', () => {
  it('is a Readium Web Publication Manifest whose reading order links the resource endpoint', async () => {
    const res = await get(`/api/v1/books/${book('A novel').id}/manifest`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/webpub+json');
    const manifest = res.json<{
      metadata: { title: string; language: string };
      readingOrder: Array<{ href: string; type: string }>;
      resources: Array<{ href: string }>;
    }>();
    expect(manifest.metadata).toMatchObject({ title: 'A novel', language: 'en' });
    expect(manifest.readingOrder.map((l) => l.href)).toEqual(
      [1, 2, 3, 4].map((n) => `/api/v1/books/${book('A novel').id}/resource/OEBPS/chapter${n}.xhtml`),
    );
    const first = await get(manifest.readingOrder[0]!.href);
    expect(first.body).toContain('Chapter 1');
    expect(manifest.resources.map((l) => l.href)).toContain(`/api/v1/books/${book('A novel').id}/resource/OEBPS/images/cover.jpg`);
  });

  it('a CBZ has none (400)', async () => {
    expect((await get(`/api/v1/books/${book('Red').id}/manifest`)).statusCode).toBe(400);
  });
});

describe('PUT and GET /books/{id}/progress/locator', () => {
  it('keeps the locator and share read; the page-based progress is the section; other devices read it back', async () => {
    const reader = await createUser(t, 'reader');
    const id = book('A novel').id;
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${id}/progress/locator`)).status).toBe(404);
    const locator = { href: 'OEBPS/chapter3.xhtml', cfi: 'epubcfi(/6/8!/4/2/1:10)', progression: 0.5 };
    const saved = await call<LocatorProgress>(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, {
      locator,
      percentage: 0.62,
    });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ locator, percentage: 0.62, current_page: 3, page_count: 4, is_completed: false });
    expect((await call<LocatorProgress>(t, reader.headers, 'GET', `/api/v1/books/${id}/progress/locator`)).body).toEqual(saved.body);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${id}/progress`)).body).toMatchObject({
      current_page: 3,
      is_completed: false,
    });
  });

  it('entering the last section does not finish the book; the end of it does', async () => {
    const reader = await createUser(t, 'reader');
    const id = book('A novel').id;
    const last = await call<LocatorProgress>(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, {
      locator: { href: 'OEBPS/chapter4.xhtml', progression: 0 },
      percentage: 0.8,
    });
    expect(last.body).toMatchObject({ current_page: 4, is_completed: false });
    const end = await call<LocatorProgress>(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, {
      locator: { href: 'OEBPS/chapter4.xhtml', progression: 1 },
      percentage: 1,
    });
    expect(end.body).toMatchObject({ current_page: 4, is_completed: true, percentage: 1 });
  });

  it('a page saved by another client leaves no locator', async () => {
    const reader = await createUser(t, 'reader');
    const id = book('A novel').id;
    await call(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress`, { current_page: 2 });
    expect((await call<LocatorProgress>(t, reader.headers, 'GET', `/api/v1/books/${id}/progress/locator`)).body).toMatchObject({
      locator: null,
      current_page: 2,
    });
  });

  it('a position sent late (recorded_at) that is older than the current one goes to the history only; a newer one moves it', async () => {
    const reader = await createUser(t, 'reader');
    const id = book('A novel').id;
    const put = (body: object) => call<LocatorProgress>(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, body);
    const now = await put({ locator: { href: 'OEBPS/chapter3.xhtml' }, percentage: 0.6 });
    expect(now.body).toMatchObject({ current_page: 3, locator: { href: 'OEBPS/chapter3.xhtml' } });
    // Another device, offline an hour ago at chapter 1, sends its position once back online.
    const hourAgo = new Date(Date.now() - 3_600_000).toISOString();
    const late = await put({ locator: { href: 'OEBPS/chapter1.xhtml' }, percentage: 0.1, recorded_at: hourAgo });
    expect(late.status).toBe(200);
    expect(late.body).toMatchObject({ current_page: 3, locator: { href: 'OEBPS/chapter3.xhtml' }, percentage: 0.6 });
    const history = await call<Paged<{ position: { locator?: { href: string } }; applied: boolean }>>(
      t,
      reader.headers,
      'GET',
      `/api/v1/books/${id}/progress/history`,
    );
    expect(history.body.data.find((e) => e.position.locator?.href === 'OEBPS/chapter1.xhtml')).toMatchObject({ applied: false });
    // Recorded after the current position: it becomes the position, as a live save would.
    const later = await put({
      locator: { href: 'OEBPS/chapter4.xhtml' },
      percentage: 0.8,
      recorded_at: new Date(Date.now() + 60_000).toISOString(),
    });
    expect(later.body).toMatchObject({ current_page: 4, locator: { href: 'OEBPS/chapter4.xhtml' } });
    const bad = await call<{ error: string }>(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, {
      locator: { href: 'OEBPS/chapter1.xhtml' },
      percentage: 0.1,
      recorded_at: 'yesterday',
    });
    expect(bad.status).toBe(400);
  });

  it('a share outside 0..1 or a missing href is a 400', async () => {
    const id = book('A novel').id;
    for (const body of [
      { locator: { href: 'OEBPS/chapter1.xhtml' }, percentage: 2 },
      { locator: {}, percentage: 0.1 },
    ]) {
      const res = await call<{ error: string }>(t, t.headers, 'PUT', `/api/v1/books/${id}/progress/locator`, body);
      expect(res.status).toBe(400);
    }
  });
});

describe('GET /books/{id}/pages/{n}?grayscale=true', () => {
  it('serves the page in shades of grey, cached with its own ETag', async () => {
    const id = book('Red').id;
    const colour = await get(`/api/v1/books/${id}/pages/1?width=60`);
    const grey = await get(`/api/v1/books/${id}/pages/1?width=60&grayscale=true`);
    expect(grey.statusCode).toBe(200);
    expect(grey.headers['content-type']).toBe('image/jpeg');
    expect(grey.headers.etag).not.toBe(colour.headers.etag);
    const stats = await sharp(grey.rawPayload).stats();
    const [r, g, b] = stats.channels.map((c) => c.mean);
    expect(Math.abs(r! - g!)).toBeLessThan(3);
    expect(Math.abs(g! - b!)).toBeLessThan(3);
    const colourStats = await sharp(colour.rawPayload).stats();
    expect(colourStats.channels[0]!.mean - colourStats.channels[1]!.mean).toBeGreaterThan(100);
    expect((await sharp(grey.rawPayload).metadata()).width).toBeLessThanOrEqual(60);
    expect(
      (await get(`/api/v1/books/${id}/pages/1?width=60&grayscale=true`, { 'if-none-match': String(grey.headers.etag) })).statusCode,
    ).toBe(304);
  });

  it('works without a size too, and on a PDF page', async () => {
    const plain = await get(`/api/v1/books/${book('Red').id}/pages/1?grayscale=1`);
    expect(plain.statusCode).toBe(200);
    expect((await sharp(plain.rawPayload).metadata()).width).toBe(120);
    const pdf = await get(`/api/v1/books/${book('Paper').id}/pages/1?grayscale=true&width=100`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toMatch(/^image\//);
  });

  it('a value other than true/false/1/0 is a 400', async () => {
    expect((await get(`/api/v1/books/${book('Red').id}/pages/1?grayscale=yes`)).statusCode).toBe(400);
  });
});

describe('Fixed-layout image EPUB', () => {
  it('lists image pages (the web app opens it in the comic reader)', async () => {
    const res = await get(`/api/v1/books/${book('Pictures').id}/pages`);
    expect(res.json<Array<{ media_type: string }>>().map((p) => p.media_type)).toEqual(['image/png', 'image/png']);
  });
});

describe('The reader_settings preference', () => {
  it('keeps settings by device class for all series and by series, and validates their fields', async () => {
    const reader = await createUser(t, 'reader');
    const seriesId = '4b2a8c1e-0000-4000-8000-0000000000aa';
    const value = {
      all_series: { phone: { mode: 'webtoon', preload: 5 }, eink: { eink: true, grayscale: true } },
      series: { [seriesId]: { desktop: { mode: 'rtl', spread: 'double', shift: true } } },
    };
    const set = await call(t, reader.headers, 'PUT', '/api/v1/user/preferences/reader_settings', { value });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ key: 'reader_settings', value, is_default: false });
    for (const bad of [
      { all_series: { phone: { preload: 11 } } },
      { all_series: { watch: {} } },
      { series: { 'not-a-uuid': {} } },
      { all_series: { phone: { colour: 'red' } } },
    ]) {
      expect(
        (await call(t, reader.headers, 'PUT', '/api/v1/user/preferences/reader_settings', { value: bad })).status,
        JSON.stringify(bad),
      ).toBe(400);
    }
  });
});
