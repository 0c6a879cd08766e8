import { copyFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../helpers/auth.js';
import { call, createCatalogApp, scannedLibrary, type CatalogTestApp, type ScannedLibrary } from '../helpers/catalog.js';
import { createHouseholdUser, setAccess, type HouseholdUser } from '../helpers/household.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { makeProseEpub } from './kepub-fixture.js';

const KOBO_PERMISSIONS = ['kobo-sync', 'books-read', 'pages-read', 'progress-read', 'progress-write'];

interface Setup {
  devices: Array<{ api_key_id: string; delivery_problem: { book_id: string; book_title: string; message: string; at: string } | null }>;
}

// A KEPUB conversion that falls back to the plain EPUB says so on the device's card (GET /me/kobo), not only in
// the server's log (issue 48); the note names the file, never its server path, and goes when the book is hidden.
describe("A Kobo delivery that falls back is told on the device's card", () => {
  let t: CatalogTestApp;
  let library: ScannedLibrary;
  let reader: HouseholdUser;
  let key: { id: string; key: string };
  let bookId: string;
  const good = path.join(makeTempDir(), 'good.epub');

  beforeAll(async () => {
    t = await createCatalogApp();
    await makeProseEpub(path.dirname(good), path.basename(good));
    library = await scannedLibrary(t, async (dir) => {
      await makeProseEpub(dir, 'Prose/stormy.epub');
    });
    reader = await createHouseholdUser(t, { library_access: { all: true }, permissions: ['kobo-sync'] });
    key = await createApiKey(t, reader.jwt, { name: 'Kobo Clara', permissions: KOBO_PERMISSIONS });
    bookId = (await call<{ data: { id: string }[] }>(t, t.headers, 'GET', '/api/v1/books')).body.data[0]!.id;
  }, 60_000);
  afterAll(() => t?.close());

  const card = async () => (await call<Setup>(t, reader.jwt, 'GET', '/api/v1/me/kobo')).body.devices.find((d) => d.api_key_id === key.id)!;
  const download = () => t.app.inject({ method: 'GET', url: `/kobo/${key.key}/v1/books/${bookId}/file/kepub` });

  it('notes the fallback with the reason and the file name, and clears it once a conversion succeeds', async () => {
    expect((await card()).delivery_problem).toBeNull();
    const file = path.join(library.dir, 'Prose/stormy.epub');
    // Changed since the scan into something that is no EPUB: converted afresh, which fails; sent as it is.
    writeFileSync(file, 'this is not a zip archive at all');
    const fallen = await download();
    expect(fallen.statusCode).toBe(200);
    expect(fallen.body).toBe('this is not a zip archive at all');
    const problem = (await card()).delivery_problem;
    expect(problem).toMatchObject({ book_id: bookId, book_title: expect.any(String), message: expect.stringContaining('KEPUB') });
    expect(problem!.message).toContain('sent as the plain EPUB');
    expect(problem!.message).not.toContain(library.dir);
    // Hidden from the reader: the note is gone with the book.
    await setAccess(t, reader.id, { library_access: { all: false, library_ids: [] } });
    expect((await card()).delivery_problem).toBeNull();
    await setAccess(t, reader.id, { library_access: { all: true } });
    expect((await card()).delivery_problem).not.toBeNull();

    copyFileSync(good, file);
    const converted = await download();
    expect(converted.statusCode).toBe(200);
    expect(converted.headers['content-disposition']).toContain('.kepub.epub');
    expect((await card()).delivery_problem).toBeNull();
  });
});
