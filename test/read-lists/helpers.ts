import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Headers } from '../helpers/auth.js';
import { api, scannedLibrary, type CatalogTestApp, type Paged, type ScannedLibrary } from '../helpers/catalog.js';
import { makeCbz, type ComicInfoFields } from '../media/fixtures.js';

/** The real reading list of test/fixtures/cbl (SOURCES.md there). */
export const KLAUS_CBL = readFileSync(path.join(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/cbl/[Boom!] Klaus.cbl'));

const small = { pages: 2, pageSize: { width: 40, height: 60 } };

export const cbz = (dir: string, folder: string, name: string, comicInfo?: ComicInfoFields) =>
  makeCbz(path.join(dir, folder), name, { ...small, ...(comicInfo ? { comicInfo } : {}) });

/** ComicVine's page of "Klaus and the Crying Snowman" #1 (issue 695563 in the fixture). */
export const SNOWMAN_WEB = 'https://comicvine.gamespot.com/klaus-and-the-crying-snowman-1/4000-695563/';

export interface KlausCatalog {
  a: ScannedLibrary;
  b: ScannedLibrary;
  /** Book ids by "<library letter>:<path relative to the library>". */
  books: Record<string, string>;
}

/**
 * Two libraries named the usual way ("Series (Year)/Series 001 (Year).cbz") for the Klaus reading list:
 *
 * A: Klaus (2015) #1, 2, 4–7 (no #3: missing), Witch of Winter #1 (no year), Crisis In Xmasville (2017) #1 (folder
 *    year), Crying Snowman #1 named by ComicInfo in a folder "Snowman" with its ComicVine link, and Life and Times
 *    of Joe Christmas (2019) ("and" where the list has "&").
 * B: Klaus (2020) #1 (another Klaus: excluded by the start year), Witch of Winter #1 (no year: with A's, ambiguous),
 *    Crying Snowman #1 without a link (A's linked copy wins by the ComicVine id).
 */
export async function klausCatalog(t: CatalogTestApp): Promise<KlausCatalog> {
  const a = await scannedLibrary(t, async (dir) => {
    for (const n of [1, 2, 4, 5, 6, 7]) await cbz(dir, 'Klaus (2015)', `Klaus ${String(n).padStart(3, '0')} (${n < 3 ? 2015 : 2016}).cbz`);
    await cbz(dir, 'Klaus and the Witch of Winter', 'Klaus and the Witch of Winter 001.cbz');
    await cbz(dir, 'Klaus and the Crisis In Xmasville (2017)', 'Klaus and the Crisis in Xmasville 001 (2017).cbz');
    await cbz(dir, 'Snowman', 'Snowman 1.cbz', {
      Series: 'Klaus and the Crying Snowman',
      Number: 1,
      Volume: 2018,
      Year: 2018,
      Web: SNOWMAN_WEB,
    });
    await cbz(dir, 'Klaus and the Life and Times of Joe Christmas (2019)', 'Klaus and the Life and Times of Joe Christmas 001 (2019).cbz');
  });
  const b = await scannedLibrary(t, async (dir) => {
    await cbz(dir, 'Klaus (2020)', 'Klaus 001 (2020).cbz');
    await cbz(dir, 'Klaus and the Witch of Winter', 'Klaus and the Witch of Winter 001.cbz');
    await cbz(dir, 'Klaus and the Crying Snowman', 'Klaus and the Crying Snowman 001.cbz');
  });
  return { a, b, books: await bookIds(t, { a, b }) };
}

export async function bookIds(t: CatalogTestApp, libraries: Record<string, ScannedLibrary>): Promise<Record<string, string>> {
  const all = await api<Paged<{ id: string; library_id: string; path: string }>>(t, 'GET', '/api/v1/books?pageSize=500');
  const letter = new Map(Object.entries(libraries).map(([k, l]) => [l.id, k]));
  return Object.fromEntries(all.body.data.map((b) => [`${letter.get(b.library_id)}:${b.path}`, b.id]));
}

/** A multipart/form-data body as a browser sends it: the file in `file` (or another field) and text fields. */
export async function formBody(
  fields: Record<string, string>,
  file?: { data: Buffer | string; name?: string; field?: string },
): Promise<{ payload: Buffer; headers: Headers }> {
  const form = new FormData();
  if (file) {
    const bytes = typeof file.data === 'string' ? Buffer.from(file.data) : file.data;
    form.append(file.field ?? 'file', new Blob([new Uint8Array(bytes)]), file.name ?? 'list.cbl');
  }
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return { payload: Buffer.from(await request.arrayBuffer()), headers: { 'content-type': request.headers.get('content-type')! } };
}

/** POST /read-lists/import with a form. */
export async function importCbl<T = Record<string, unknown>>(
  t: CatalogTestApp,
  headers: Headers,
  fields: Record<string, string>,
  file?: { data: Buffer | string; name?: string; field?: string },
  query = '',
) {
  const body = await formBody(fields, file);
  const res = await t.app.inject({
    method: 'POST',
    url: `/api/v1/read-lists/import${query}`,
    headers: { ...headers, ...body.headers },
    payload: body.payload,
  });
  return { status: res.statusCode, body: res.json<T>() };
}
