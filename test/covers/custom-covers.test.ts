import { rmSync } from 'node:fs';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, type Headers } from '../helpers/auth.js';
import { api, scannedLibrary, type CatalogTestApp, type ScannedLibrary } from '../helpers/catalog.js';
import { createHouseholdUser } from '../helpers/household.js';
import { makeCbz } from '../media/fixtures.js';
import { removeCachedForHash } from '../../src/media/rendering/derived-cache.js';
import { createCatalogApp } from '../scanner/helpers.js';
import { formBody } from '../read-lists/helpers.js';

let t: CatalogTestApp;
let visible: ScannedLibrary;
let hidden: ScannedLibrary;
const ids = { series: '', book: '', second: '', hiddenSeries: '', hiddenBook: '' };

const small = { pageSize: { width: 60, height: 90 } };

beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true } });
  visible = await scannedLibrary(t, async (dir) => {
    await makeCbz(`${dir}/Saga`, 'Saga 001.cbz', { pages: 3, ...small });
    await makeCbz(`${dir}/Saga`, 'Saga 002.cbz', { pages: 3, ...small });
  });
  hidden = await scannedLibrary(t, async (dir) => {
    await makeCbz(`${dir}/Private`, 'Private 001.cbz', { pages: 2, ...small });
  });
  const books = await t.database.db.selectFrom('books').select(['id', 'series_id', 'library_id', 'path']).orderBy('path').execute();
  const saga = books.filter((b) => b.library_id === visible.id);
  ids.book = saga[0]!.id;
  ids.second = saga[1]!.id;
  ids.series = saga[0]!.series_id;
  const other = books.find((b) => b.library_id === hidden.id)!;
  ids.hiddenBook = other.id;
  ids.hiddenSeries = other.series_id;
});
afterAll(() => t.close());

async function get(url: string, headers: Headers = t.headers) {
  const res = await t.app.inject({ method: 'GET', url, headers: { ...headers, accept: 'image/webp' } });
  return { status: res.statusCode, etag: String(res.headers.etag), type: String(res.headers['content-type']), data: res.rawPayload };
}

/** The mean colour of an image, to tell which picture a cover shows. */
async function colour(data: Buffer): Promise<number[]> {
  const stats = await sharp(data).stats();
  return stats.channels.slice(0, 3).map((c) => Math.round(c.mean));
}

function near(a: number[], b: number[]): boolean {
  return a.every((v, i) => Math.abs(v - b[i]!) < 12);
}

async function upload(url: string, data: Buffer, headers: Headers = t.headers, name = 'cover.png') {
  const form = await formBody({}, { data, name });
  const res = await t.app.inject({ method: 'PUT', url, payload: form.payload, headers: { ...headers, ...form.headers } });
  return { status: res.statusCode, body: res.json<Record<string, unknown>>() };
}

const solid = (r: number, g: number, b: number, format: 'png' | 'jpeg' | 'webp' = 'png') =>
  sharp({ create: { width: 200, height: 300, channels: 3, background: { r, g, b } } })
    .toFormat(format)
    .toBuffer();

/** A real PNG whose header claims `size`² pixels: decoding it would take gigabytes. */
async function pixelBomb(size: number): Promise<Buffer> {
  const png = Buffer.from(await solid(0, 0, 0));
  // IHDR: length (4) + type (4) at offset 8, width and height at 16 and 20, CRC over type + data at 29.
  png.writeUInt32BE(size, 16);
  png.writeUInt32BE(size, 20);
  png.writeUInt32BE(crc32(png.subarray(12, 29)) >>> 0, 29);
  return png;
}

describe('covers chosen by a person (PUT/DELETE /series|books/{id}/cover)', () => {
  it('an uploaded image becomes the book cover everywhere, re-encoded; DELETE gives the generated one back', async () => {
    const generated = await get(`/api/v1/books/${ids.book}/thumbnail`);
    expect(generated.status).toBe(200);
    const red = await solid(220, 20, 30);

    const put = await upload(`/api/v1/books/${ids.book}/cover`, red);
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ source: 'upload', book_id: null, page: null, width: 200, height: 300 });
    expect((await api(t, 'GET', `/api/v1/books/${ids.book}/cover`)).body).toMatchObject({ source: 'upload' });

    const thumb = await get(`/api/v1/books/${ids.book}/thumbnail`);
    expect(thumb.etag).not.toBe(generated.etag);
    expect(thumb.type).toBe('image/webp');
    expect(thumb.data.equals(red)).toBe(false);
    expect(near(await colour(thumb.data), [220, 20, 30])).toBe(true);
    // The series shows its first book's cover, chosen or not; OPDS (thumbnail and full size) and Komga follow.
    expect(near(await colour((await get(`/api/v1/series/${ids.series}/thumbnail`)).data), [220, 20, 30])).toBe(true);
    const full = await get(`/opds/v1/books/${ids.book}/cover`);
    expect(full.type).toBe('image/jpeg');
    expect(near(await colour(full.data), [220, 20, 30])).toBe(true);
    expect(near(await colour((await get(`/opds/v1/books/${ids.book}/thumbnail`)).data), [220, 20, 30])).toBe(true);
    expect(near(await colour((await get(`/komga/api/v1/books/${ids.book}/thumbnail`)).data), [220, 20, 30])).toBe(true);

    const removed = await api(t, 'DELETE', `/api/v1/books/${ids.book}/cover`);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ source: 'generated' });
    expect((await get(`/api/v1/books/${ids.book}/thumbnail`)).etag).toBe(generated.etag);
  });

  it('a page of a book becomes the series cover (JSON {book_id, page}); another choice replaces it', async () => {
    const page = await t.app.inject({ method: 'GET', url: `/api/v1/books/${ids.second}/pages/3`, headers: t.headers });
    const pageColour = await colour(page.rawPayload);
    const put = await api(t, 'PUT', `/api/v1/series/${ids.series}/cover`, { book_id: ids.second, page: 3 });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({ source: 'page', book_id: ids.second, page: 3 });
    const series = await get(`/api/v1/series/${ids.series}/thumbnail`);
    expect(near(await colour(series.data), pageColour)).toBe(true);
    expect(near(await colour((await get(`/opds/v1/series/${ids.series}/thumbnail`)).data), pageColour)).toBe(true);
    expect(near(await colour((await get(`/komga/api/v1/series/${ids.series}/thumbnail`)).data), pageColour)).toBe(true);

    const blue = await upload(`/api/v1/series/${ids.series}/cover`, await solid(20, 40, 230, 'jpeg'), t.headers, 'c.jpg');
    expect(blue.status).toBe(200);
    expect(near(await colour((await get(`/api/v1/series/${ids.series}/thumbnail`)).data), [20, 40, 230])).toBe(true);
    expect((await api(t, 'DELETE', `/api/v1/series/${ids.series}/cover`)).status).toBe(200);
    expect((await api(t, 'GET', `/api/v1/series/${ids.series}/cover`)).body).toMatchObject({ source: 'generated' });
  });

  it('a chosen cover whose image is gone from the data folder falls back to the generated one, never a 500', async () => {
    const generated = await get(`/api/v1/series/${ids.series}/thumbnail`);
    const put = await upload(`/api/v1/series/${ids.series}/cover`, await solid(200, 200, 20));
    expect(put.status).toBe(200);
    const coversDir = path.join(path.resolve(t.config.data_dir), 'covers');
    // As after a restore or a move of the data folder without its covers: the stored image and its sizes gone.
    rmSync(coversDir, { recursive: true, force: true });
    for (const url of [
      `/api/v1/series/${ids.series}/thumbnail`,
      `/opds/v1/series/${ids.series}/thumbnail`,
      `/komga/api/v1/series/${ids.series}/thumbnail`,
    ]) {
      const res = await t.app.inject({ method: 'GET', url, headers: t.headers });
      expect(res.statusCode, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
    }
    expect((await get(`/api/v1/series/${ids.series}/thumbnail`)).etag).toBe(generated.etag);
    expect((await api(t, 'DELETE', `/api/v1/series/${ids.series}/cover`)).status).toBe(200);
  });

  it('what is no usable image is a clean 4xx: not an image, too many bytes, a pixel bomb, a broken file, a bad page', async () => {
    const url = `/api/v1/books/${ids.book}/cover`;
    expect((await upload(url, Buffer.from('%PDF-1.4 not a picture'), t.headers, 'x.pdf')).status).toBe(415);
    expect(
      (
        await upload(
          url,
          await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
            .gif()
            .toBuffer(),
        )
      ).status,
    ).toBe(415);
    const tooBig = Buffer.concat([await solid(1, 2, 3), Buffer.alloc(11 * 1024 * 1024)]);
    expect((await upload(url, tooBig)).status).toBe(413);
    const bomb = await upload(url, await pixelBomb(60_000));
    expect(bomb.status).toBe(413);
    expect(bomb.body).toMatchObject({ error: 'PayloadTooLarge' });
    const broken = Buffer.from(await solid(9, 9, 9, 'jpeg')).subarray(0, 200);
    expect((await upload(url, broken)).status).toBe(422);
    expect((await api(t, 'PUT', url, { book_id: ids.second, page: 9 })).status).toBe(400);
    expect((await api(t, 'PUT', url, { book_id: 'nope', page: 1 })).status).toBe(400);
    expect((await api(t, 'PUT', url)).status).toBe(400);
    expect((await api(t, 'GET', url)).body).toMatchObject({ source: 'generated' });
  });

  it('a reader gets 403; a series, book or page hidden from the editor is 404', async () => {
    const reader = await createUser(t, 'reader');
    for (const [method, url] of [
      ['PUT', `/api/v1/series/${ids.series}/cover`],
      ['DELETE', `/api/v1/series/${ids.series}/cover`],
      ['PUT', `/api/v1/books/${ids.book}/cover`],
      ['DELETE', `/api/v1/books/${ids.book}/cover`],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: reader.headers, payload: { book_id: ids.book, page: 1 } });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    const editor = await createHouseholdUser(t, { library_access: { all: false, library_ids: [visible.id] } }, 'maintainer');
    const as = (method: 'PUT' | 'DELETE' | 'GET', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: editor.jwt, ...(payload ? { payload } : {}) }).then((r) => r.statusCode);
    expect(await as('PUT', `/api/v1/series/${ids.hiddenSeries}/cover`, { book_id: ids.book, page: 1 })).toBe(404);
    expect(await as('DELETE', `/api/v1/books/${ids.hiddenBook}/cover`)).toBe(404);
    expect(await as('GET', `/api/v1/books/${ids.hiddenBook}/cover`)).toBe(404);
    expect((await upload(`/api/v1/books/${ids.hiddenBook}/cover`, await solid(1, 1, 1), editor.jwt)).status).toBe(404);
    expect(await as('PUT', `/api/v1/series/${ids.series}/cover`, { book_id: ids.hiddenBook, page: 1 })).toBe(404);
    expect(await as('PUT', `/api/v1/books/${ids.book}/cover`, { book_id: ids.book, page: 2 })).toBe(200);
    expect(await as('DELETE', `/api/v1/books/${ids.book}/cover`)).toBe(200);
  });

  describe('cover changes are in the history and undone like any change', () => {
    interface Entry {
      id: string;
      field: string;
      before: Record<string, unknown>;
      after: Record<string, unknown>;
      username: string | null;
      source: string;
    }
    const latest = async (kind: 'series' | 'books', id: string) =>
      (await api<{ data: Entry[] }>(t, 'GET', `/api/v1/${kind}/${id}/history`)).body.data[0]!;

    it('a page chosen as the series cover, then undone: the generated cover is back everywhere', async () => {
      const generated = await get(`/api/v1/series/${ids.series}/thumbnail`);
      const komga = await get(`/komga/api/v1/series/${ids.series}/thumbnail`);
      expect((await api(t, 'PUT', `/api/v1/series/${ids.series}/cover`, { book_id: ids.second, page: 2 })).status).toBe(200);
      const entry = await latest('series', ids.series);
      expect(entry).toMatchObject({ field: 'cover', before: { source: 'generated' }, source: 'person', username: 'admin' });
      expect(entry.after).toMatchObject({ source: 'page', book_id: ids.second, page: 2 });
      expect((await get(`/api/v1/series/${ids.series}/thumbnail`)).etag).not.toBe(generated.etag);

      const undo = await api(t, 'POST', `/api/v1/history/${entry.id}/undo`);
      expect(undo.status, JSON.stringify(undo.body)).toBe(200);
      expect((await api(t, 'GET', `/api/v1/series/${ids.series}/cover`)).body).toMatchObject({ source: 'generated' });
      expect((await get(`/api/v1/series/${ids.series}/thumbnail`)).etag).toBe(generated.etag);
      expect((await get(`/komga/api/v1/series/${ids.series}/thumbnail`)).etag).toBe(komga.etag);
      const back = await latest('series', ids.series);
      expect(back).toMatchObject({ field: 'cover', after: { source: 'generated' }, before: { source: 'page' } });
      expect((await api(t, 'POST', `/api/v1/history/${entry.id}/undo`)).status).toBe(409);
    });

    it('an upload replaced by a page, then undone: the upload is back (its image kept); a lost image is a 409', async () => {
      const url = `/api/v1/books/${ids.book}/cover`;
      expect((await upload(url, await solid(30, 200, 40))).status).toBe(200);
      const uploaded = await latest('books', ids.book);
      expect((await api(t, 'PUT', url, { book_id: ids.book, page: 3 })).status).toBe(200);
      const replaced = await latest('books', ids.book);
      expect(replaced.before).toMatchObject({ source: 'upload', image_hash: uploaded.after.image_hash });

      expect((await api(t, 'POST', `/api/v1/history/${replaced.id}/undo`)).status).toBe(200);
      expect((await api(t, 'GET', url)).body).toMatchObject({ source: 'upload', width: 200, height: 300 });
      expect(near(await colour((await get(`/api/v1/books/${ids.book}/thumbnail`)).data), [30, 200, 40])).toBe(true);
      expect(near(await colour((await get(`/opds/v1/books/${ids.book}/cover`)).data), [30, 200, 40])).toBe(true);

      // Only a lost image (history pruned, files gone) cannot come back: said plainly, nothing changed.
      expect((await api(t, 'DELETE', url)).status).toBe(200);
      const removed = await latest('books', ids.book);
      await removeCachedForHash(path.join(path.resolve(t.config.data_dir), 'covers'), String(uploaded.after.image_hash));
      const lost = await api<{ message: string }>(t, 'POST', `/api/v1/history/${removed.id}/undo`);
      expect(lost.status).toBe(409);
      expect(lost.body.message).toMatch(/no longer exists/);
      expect((await api(t, 'GET', url)).body).toMatchObject({ source: 'generated' });
    });
  });
});
