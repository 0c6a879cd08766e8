import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relativeToLibrary } from '../../src/identity/access/server-paths.js';
import { type Headers, userHeaders } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';

interface Book {
  id: string;
  title: string;
  path: string;
  analysis_error: string | null;
}

let t: CatalogTestApp;
let dir: string;
let reader: Headers;
let broken: Book;
let good: Book;

const get = (url: string, headers: Headers) => t.app.inject({ method: 'GET', url, headers });

beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true } });
  const lib = await scannedLibrary(t, async (d) => {
    await mkdir(path.join(d, 'Private'), { recursive: true });
    // Whatever lies in the folder and is named like a book: not an archive, so its analysis fails.
    await writeFile(path.join(d, 'Private', 'backup.cbz'), Buffer.from('secret: not a zip archive at all'));
    await mkdir(path.join(d, 'Good'), { recursive: true });
    await makeCbz(path.join(d, 'Good'), 'Good 001.cbz', { pages: 1, pageSize: { width: 20, height: 30 } });
  });
  dir = lib.dir;
  const list = (await get('/api/v1/books?pageSize=50', t.headers)).json<Paged<Book>>().data;
  broken = list.find((b) => b.path === 'Private/backup.cbz')!;
  good = list.find((b) => b.path === 'Good/Good 001.cbz')!;
  reader = await userHeaders(t, 'reader');
});
afterAll(() => t.close());

describe('analysis errors name files relative to their library below admin', () => {
  it('the admin sees the stored message with the server path (the scanner names the absolute file)', () => {
    expect(broken.analysis_error).toContain(path.join(dir, 'Private', 'backup.cbz'));
  });

  it('a reader sees the same message with the path relative to the library, in lists, details and the Komga comment', async () => {
    const expected = broken.analysis_error!.split(`${dir}/`).join('');
    expect(expected).toContain('Private/backup.cbz');
    const listed = (await get('/api/v1/books?pageSize=50', reader)).json<Paged<Book>>().data.find((b) => b.id === broken.id)!;
    const detail = (await get(`/api/v1/books/${broken.id}`, reader)).json<Book>();
    const komga = (await get(`/komga/api/v1/books/${broken.id}`, reader)).json<{ media: { status: string; comment: string } }>();
    for (const message of [listed.analysis_error, detail.analysis_error, komga.media.comment]) {
      expect(message).toBe(expected);
      expect(message).not.toContain(dir);
    }
    expect(komga.media.status).toBe('ERROR');
  });

  it('relativeToLibrary: the root itself becomes `.`, files below it lose the root, other text is untouched', () => {
    expect(relativeToLibrary('cannot open /srv/comics/a/b.cbz (in /srv/comics)', '/srv/comics')).toBe('cannot open a/b.cbz (in .)');
    expect(relativeToLibrary('no path here', '/srv/comics')).toBe('no path here');
    expect(relativeToLibrary('cannot open /srv/comics/a.cbz', '/srv/comics/')).toBe('cannot open a.cbz');
    expect(relativeToLibrary('cannot open /a/b.cbz', '/')).toBe('cannot open /a/b.cbz');
  });
});

describe('a file that failed analysis is not downloadable below admin', () => {
  const downloads = (id: string) => [
    `/api/v1/books/${id}/file`,
    `/opds/v1.2/books/${id}/file`,
    `/opds/v2/books/${id}/file`,
    `/komga/api/v1/books/${id}/file`,
  ];

  it('a reader gets 403 on every download route (native, OPDS 1.2, OPDS 2, Komga)', async () => {
    for (const url of downloads(broken.id)) {
      const res = await get(url, reader);
      expect(res.statusCode, url).toBe(403);
      expect(res.json(), url).toMatchObject({ error: 'Forbidden', message: expect.stringMatching(/could not be analysed/) });
      expect(res.body).not.toContain('secret');
    }
  });

  it('the reader still downloads books that were analysed; the admin downloads both', async () => {
    for (const url of downloads(good.id)) expect((await get(url, reader)).statusCode, url).toBe(200);
    for (const url of downloads(broken.id)) {
      const res = await get(url, t.headers);
      expect(res.statusCode, url).toBe(200);
      expect(res.body).toContain('secret');
    }
  });
});
