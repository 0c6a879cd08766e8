import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub } from '../media/fixtures.js';
import { basic, createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { get, linkOf, parseXml, PSE_REL, type AtomEntry } from './helpers.js';
import { loadOpds2Schemas, schemaErrors, type Opds2Validators } from './opds2-schemas.js';

interface Book {
  id: string;
  title: string;
  page_count: number;
}
interface HistoryEvent {
  device_id: string;
  protocol: string;
  page: number;
  position: Record<string, unknown>;
}
interface Link {
  href: string;
  rel?: string | string[];
  type?: string;
  properties?: Record<string, unknown>;
}
interface Publication {
  metadata: Record<string, unknown>;
  links: Link[];
}

const PROGRESSION = 'http://opds-spec.org/progression';
const fill = (template: string, page: number) => template.replace('{pageNumber}', String(page)).replace('{maxWidth}', '100');
const opds2Link = (p: Publication, rel: string) => p.links.find((l) => l.rel === rel);

describe('OPDS positions come from the one progress record, and page streaming writes it', () => {
  let t: CatalogTestApp;
  let comic: Book;
  let novel: Book;
  let schemas: Opds2Validators;

  beforeAll(async () => {
    schemas = loadOpds2Schemas();
    t = await createCatalogApp();
    await scannedLibrary(t, async (dir) => {
      await makeCbz(dir, 'Comic/comic.cbz', { pages: 6, pageSize: { width: 40, height: 60 }, comicInfo: { Title: 'Comic' } });
      await makeEpub(dir, 'Novel/novel.epub', { pages: 4, metadata: { title: 'Novel' } });
    });
    const books = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data;
    comic = books.find((b) => b.title === 'Comic')!;
    novel = books.find((b) => b.title === 'Novel')!;
  }, 60_000);
  afterAll(() => t?.close());

  const entryOf = async (id: string, headers: Record<string, string>) =>
    (parseXml((await get(t, `/opds/v1.2/books/${id}`, headers)).body).entry as AtomEntry[])[0]!;
  const publicationOf = async (id: string, headers: Record<string, string>) =>
    JSON.parse((await get(t, `/opds/v2/books/${id}`, headers)).body) as Publication;
  const historyOf = async (headers: Record<string, string>, id: string) =>
    (await call<Paged<HistoryEvent>>(t, headers, 'GET', `/api/v1/books/${id}/progress/history`)).body.data;

  it('a position written elsewhere (the native API) is pse:lastRead / pse:lastReadDate in OPDS 1.2 and link properties in OPDS 2.0', async () => {
    const reader = await createUser(t, 'reader');
    const h = basic(reader.username, reader.password);
    expect(linkOf((await entryOf(comic.id, h)).link, PSE_REL)!['@pse:lastRead']).toBeUndefined();
    const before = await publicationOf(comic.id, h);
    expect(opds2Link(before, PSE_REL)!.properties).toEqual({ numberOfItems: 6 });
    expect(opds2Link(before, PROGRESSION)!.properties).toBeUndefined();

    const written = await call<{ updated_at: string }>(t, reader.headers, 'PUT', `/api/v1/books/${comic.id}/progress`, { current_page: 4 });
    const pse = linkOf((await entryOf(comic.id, h)).link, PSE_REL)!;
    expect(pse['@pse:lastRead']).toBe('4');
    expect(pse['@pse:lastReadDate']).toBe(written.body.updated_at);

    const pub = await publicationOf(comic.id, h);
    expect(schemaErrors(schemas.publication, pub)).toEqual([]);
    expect(opds2Link(pub, PSE_REL)!.properties).toEqual({ numberOfItems: 6, lastRead: 4, lastReadDate: written.body.updated_at });
    expect(opds2Link(pub, PROGRESSION)!.properties).toEqual({ progression: 0.6667, modified: written.body.updated_at });

    // A book without page streaming (an EPUB) still shows its position on the progression link.
    await call(t, reader.headers, 'PUT', `/api/v1/books/${novel.id}/progress`, { current_page: 2 });
    const epub = await publicationOf(novel.id, h);
    expect(schemaErrors(schemas.publication, epub)).toEqual([]);
    expect(opds2Link(epub, PROGRESSION)!.properties).toMatchObject({ progression: 0.5 });
    expect(opds2Link(epub, PSE_REL)).toBeUndefined();
  });

  it('reading a page through OPDS 1.2 PSE records it in the ledger as opds-pse, with the device of the request', async () => {
    const reader = await createUser(t, 'reader');
    const { key, id: keyId } = await createApiKey(t, reader.headers, { name: 'Chunky' });
    const template = linkOf((await entryOf(comic.id, basic(reader.username, reader.password))).link, PSE_REL)!['@href'];
    // By the User-Agent (Basic credentials), then by the API key.
    expect((await get(t, fill(template, 1), { ...basic(reader.username, reader.password), 'user-agent': 'Panels/2.1' })).status).toBe(200);
    expect((await get(t, fill(template, 2), { 'x-api-key': key })).status).toBe(200);
    const history = await historyOf(reader.headers, comic.id);
    expect(history.map((e) => [e.protocol, e.page, e.position])).toEqual([
      ['opds-pse', 3, { page: 3, page_stream: true }],
      ['opds-pse', 2, { page: 2, page_stream: true }],
    ]);
    expect(history[0]!.device_id).toBe(`key:${keyId}`);
    expect(history[1]!.device_id).toMatch(/^ua:[0-9a-f]{16}$/);
  });

  it('only the page-streaming routes count: covers, thumbnails, downloads and DiViNa page links do not move the position', async () => {
    const reader = await createUser(t, 'reader');
    const h = basic(reader.username, reader.password);
    for (const url of [
      `/opds/v1.2/books/${comic.id}/thumbnail`,
      `/opds/v1.2/books/${comic.id}/cover`,
      `/opds/v1.2/books/${comic.id}/file`,
      `/opds/v2/books/${comic.id}/pages/5`,
      `/opds/v2/books/${comic.id}/thumbnail`,
    ]) {
      expect((await get(t, url, h)).status, url).toBe(200);
    }
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${comic.id}/progress`)).status).toBe(404);
    expect(await historyOf(reader.headers, comic.id)).toEqual([]);

    // OPDS 2's PSE-style template (pse=1, 0-based) counts, as protocol opds2.
    const template = opds2Link(await publicationOf(comic.id, h), PSE_REL)!.href;
    expect((await get(t, template.replace('{pageNumber}', '1').replace('{&maxWidth}', ''), h)).status).toBe(200);
    expect((await historyOf(reader.headers, comic.id)).map((e) => [e.protocol, e.page])).toEqual([['opds2', 2]]);
  });
});
