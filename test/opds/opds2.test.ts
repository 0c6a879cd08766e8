import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { call, createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { get, writeOpdsCorpus, type OpdsCorpus } from './helpers.js';
import { loadOpds2Schemas, schemaErrors, type Opds2Validators } from './opds2-schemas.js';

interface Link {
  href: string;
  type?: string;
  rel?: string | string[];
  title?: string;
  templated?: boolean;
  width?: number;
  height?: number;
  size?: number;
  properties?: Record<string, unknown>;
}
interface Publication {
  metadata: Record<string, unknown> & { title: string; identifier: string };
  links: Link[];
  images: Link[];
}
interface Feed {
  metadata: { title: string; numberOfItems?: number; itemsPerPage?: number; currentPage?: number };
  links: Link[];
  navigation?: Link[];
  publications?: Publication[];
  groups?: Array<{ metadata: { title: string }; links?: Link[]; navigation?: Link[]; publications?: Publication[] }>;
}

const OPDS = 'application/opds+json';
const ACQUISITION = 'http://opds-spec.org/acquisition';
const PROGRESSION = 'http://opds-spec.org/progression';

let t: CatalogTestApp;
let corpus: OpdsCorpus;
let libraryDir: string;
let schemas: Opds2Validators;
let user: { headers: Headers; username: string; password: string };
let h: Headers;

async function json<T = Feed>(url: string, headers: Headers = h): Promise<T> {
  const res = await get(t, url, headers);
  expect(res.status, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return JSON.parse(res.body) as T;
}

const rels = (l: Link) => (Array.isArray(l.rel) ? l.rel : l.rel ? [l.rel] : []);
const linkOf = (links: Link[], rel: string) => links.find((l) => rels(l).includes(rel));

async function publicationsOf(seriesTitle: string): Promise<Publication[]> {
  const all = await json('/opds/v2/series?pageSize=100');
  const nav = all.navigation!.find((n) => n.title === seriesTitle)!;
  return (await json(nav.href)).publications!;
}

beforeAll(async () => {
  schemas = loadOpds2Schemas();
  t = await createCatalogApp();
  const lib = await scannedLibrary(t, async (dir) => {
    corpus = await writeOpdsCorpus(dir);
  });
  libraryDir = lib.dir;
  user = await createUser(t, 'reader');
  h = basic(user.username, user.password);
});
afterAll(() => t.close());

describe('OPDS 2.0 documents validate against the OPDS 2.0 JSON Schemas (ajv)', () => {
  it('every feed, publication and DiViNa manifest reachable from /opds/v2 is valid', async () => {
    const seen = new Map<string, string>();
    const queue: Array<{ url: string; kind: 'feed' | 'publication' | 'manifest' }> = [
      { url: '/opds/v2', kind: 'feed' },
      { url: '/opds/v2/series?pageSize=3', kind: 'feed' },
      { url: '/opds/v2/search?query=asterix', kind: 'feed' },
      { url: '/opds/v2/search?query=nothing-matches', kind: 'feed' },
    ];
    const problems: string[] = [];
    const follow = (links: Link[] | undefined) => {
      for (const l of links ?? []) {
        if (l.templated) continue;
        if (l.type === OPDS) queue.push({ url: l.href, kind: 'feed' });
        if (l.type === 'application/opds-publication+json') queue.push({ url: l.href, kind: 'publication' });
        if (l.type === 'application/divina+json') queue.push({ url: l.href, kind: 'manifest' });
      }
    };
    while (queue.length) {
      const { url, kind } = queue.shift()!;
      if (seen.has(url)) continue;
      const res = await get(t, url, h);
      expect(res.status, url).toBe(200);
      seen.set(url, kind);
      const doc = JSON.parse(res.body) as Feed & Publication;
      problems.push(...schemaErrors(schemas[kind], doc).map((e) => `${url}: ${e}`));
      follow(doc.links);
      follow(doc.navigation);
      for (const g of doc.groups ?? []) {
        follow(g.links);
        follow(g.navigation);
        for (const p of g.publications ?? []) follow(p.links);
      }
      for (const p of doc.publications ?? []) follow(p.links);
    }
    expect(problems).toEqual([]);
    const kinds = [...seen.values()];
    expect(kinds.filter((k) => k === 'feed').length).toBeGreaterThan(10);
    expect(kinds.filter((k) => k === 'publication').length).toBe(13);
    expect(kinds.filter((k) => k === 'manifest').length).toBe(12);
  }, 120_000);

  it('the validator does reject a broken document (the check is live)', () => {
    expect(schemaErrors(schemas.feed, { metadata: {}, links: [] }).length).toBeGreaterThan(0);
    expect(schemaErrors(schemas.publication, { metadata: { title: 'x' }, links: [{ href: '/x', rel: 'self' }] }).length).toBeGreaterThan(0);
  });
});

describe('Root: metadata, links (self, start, templated search), navigation, groups', () => {
  it('has the navigation, a templated search link, and groups of publications', async () => {
    const before = await json('/opds/v2');
    expect(before.metadata.title).toBe('Colophon');
    expect(linkOf(before.links, 'self')).toMatchObject({ href: '/opds/v2', type: OPDS });
    expect(linkOf(before.links, 'start')).toMatchObject({ href: '/opds/v2', type: OPDS });
    expect(linkOf(before.links, 'search')).toMatchObject({
      href: 'http://localhost:80/opds/v2/search{?query}',
      type: OPDS,
      templated: true,
    });
    expect(before.navigation!.map((n) => n.title)).toEqual([
      'Keep reading',
      'On deck',
      'Recently added books',
      'All series',
      'Collections',
      'Read lists',
      'Want to read',
      'Libraries',
      'library',
    ]);
    // Nothing read yet: no group (an empty feed part is left out, not sent empty).
    expect(before.groups).toBeUndefined();
    const pub = (await json('/opds/v2/books/recently-added')).publications![0]!;
    const pse = linkOf(pub.links, 'http://vaemendis.net/opds-pse/stream')!;
    await get(t, pse.href.replace('{pageNumber}', '0').replace('{&maxWidth}', ''), h);
    const after = await json('/opds/v2');
    expect(after.groups!.map((g) => g.metadata.title)).toEqual(['Keep reading']);
    expect(after.groups![0]!.publications!.map((p) => p.metadata.identifier)).toEqual([pub.metadata.identifier]);
  });

  it('answers 401 with the Basic challenge without credentials, and accepts api:key', async () => {
    const res = await get(t, '/opds/v2', {});
    expect(res.status).toBe(401);
    expect(String(res.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
    const key = await createApiKey(t, user.headers, { name: 'thorium' });
    expect((await get(t, '/opds/v2', basic('api', key.key))).status).toBe(200);
    expect((await get(t, '/opds/v2', {}, 'HEAD')).status).toBe(401);
  });
});

describe('Pagination: numberOfItems, itemsPerPage, currentPage and first/previous/next/last', () => {
  it('a middle page of the series list', async () => {
    const page = await json('/opds/v2/series?pageSize=3&page=2');
    expect(page.metadata).toMatchObject({ title: 'All series', numberOfItems: 11, itemsPerPage: 3, currentPage: 2 });
    expect(page.navigation).toHaveLength(3);
    expect(linkOf(page.links, 'self')!.href).toBe('/opds/v2/series?page=2&pageSize=3');
    expect(linkOf(page.links, 'first')!.href).toBe('/opds/v2/series?page=1&pageSize=3');
    expect(linkOf(page.links, 'previous')!.href).toBe('/opds/v2/series?page=1&pageSize=3');
    expect(linkOf(page.links, 'next')!.href).toBe('/opds/v2/series?page=3&pageSize=3');
    expect(linkOf(page.links, 'last')!.href).toBe('/opds/v2/series?page=4&pageSize=3');
    const last = await json(linkOf(page.links, 'last')!.href);
    expect(linkOf(last.links, 'next')).toBeUndefined();
    expect(last.navigation).toHaveLength(2);
  });
});

describe('Publications', () => {
  it('carry title, author, identifier, language, modified, belongsTo.series with position, acquisition with type and length, cover and thumbnail with sizes', async () => {
    const pubs = await publicationsOf('Astérix & <Obélix>');
    expect(pubs.map((p) => p.metadata.title)).toEqual(['Astérix & Co. 1', 'Astérix & Co. 2', 'Astérix & Co. 3']);
    const p = pubs[1]!;
    expect(p.metadata).toMatchObject({
      identifier: expect.stringMatching(/^urn:uuid:/),
      language: 'fr',
      author: [{ name: 'René Goscinny' }],
      penciler: [{ name: 'Albert Uderzo' }],
      publisher: { name: 'Dargaud "Éditions"' },
      belongsTo: { series: [{ name: 'Astérix & <Obélix>', position: 2 }] },
      numberOfPages: 4,
    });
    expect(typeof p.metadata.modified).toBe('string');
    const file = await readFile(path.join(libraryDir, 'Asterix', 'Asterix 002.cbz'));
    const acquisition = p.links.find((l) => l.rel === ACQUISITION && l.type === 'application/vnd.comicbook+zip')!;
    expect(acquisition.size).toBe(file.length);
    const download = await get(t, acquisition.href, h);
    expect(download.raw.equals(file)).toBe(true);
    expect(download.headers['content-type']).toBe(acquisition.type);
    const [cover, thumb] = p.images;
    expect(cover).toMatchObject({ type: 'image/jpeg', width: 60, height: 90 });
    expect(thumb).toMatchObject({ type: 'image/jpeg', width: 60, height: 90 });
    for (const img of p.images) expect((await get(t, img.href, h)).headers['content-type']).toBe('image/jpeg');
    expect(linkOf(p.links, PROGRESSION)).toMatchObject({ type: 'application/opds-progression+json' });
  });

  it('page streaming: a DiViNa manifest lists the pages in order with their types; its links return those pages', async () => {
    const p = (await publicationsOf('Known Pages'))[0]!;
    const manifestLink = p.links.find((l) => l.type === 'application/divina+json')!;
    expect(rels(manifestLink)).toContain(ACQUISITION);
    const manifest = await json<{ readingOrder: Link[] }>(manifestLink.href);
    expect(manifest.readingOrder.map((l) => [l.type, l.width, l.height])).toEqual([
      ['image/jpeg', 800, 1200],
      ['image/png', 400, 600],
    ]);
    const first = await get(t, manifest.readingOrder[0]!.href, h);
    expect(first.raw.equals(corpus.page1)).toBe(true);
    const second = await get(t, manifest.readingOrder[1]!.href, h);
    expect(second.raw.equals(corpus.page2)).toBe(true);
    expect(second.headers['content-type']).toBe('image/png');
  });

  it('page streaming: the PSE-style templated link is 0-based and JPEG', async () => {
    const p = (await publicationsOf('Known Pages'))[0]!;
    const pse = linkOf(p.links, 'http://vaemendis.net/opds-pse/stream')!;
    expect(pse).toMatchObject({ templated: true, type: 'image/jpeg', properties: { numberOfItems: 2 } });
    const res = await get(t, pse.href.replace('{pageNumber}', '1').replace('{&maxWidth}', '&maxWidth=100'), h);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/jpeg');
  });

  it('search: the template finds series (navigation group) and books (publications group)', async () => {
    const root = await json('/opds/v2');
    const search = await json(linkOf(root.links, 'search')!.href.replace('{?query}', `?query=${encodeURIComponent('astérix')}`));
    expect(search.groups!.map((g) => g.metadata.title)).toEqual(['Series', 'Books']);
    expect(search.groups![0]!.navigation!.map((n) => n.title)).toEqual(['Astérix & <Obélix>']);
    expect(search.groups![1]!.publications!.length).toBe(3);
    expect(search.metadata.numberOfItems).toBe(4);
  });
});

describe('OPDS Progression: one progress record per user and book, whichever protocol wrote it', () => {
  it('GET is 404 before reading; PUT moves the native progress; native updates show in GET; older modified loses (409)', async () => {
    const reader = await createUser(t, 'reader');
    const rh = basic(reader.username, reader.password);
    const p = (await publicationsOf('Astérix & <Obélix>'))[2]!;
    const id = p.metadata.identifier.slice('urn:uuid:'.length);
    const href = linkOf(p.links, PROGRESSION)!.href;
    expect((await get(t, href, rh)).status).toBe(404);

    const put = async (body: unknown, contentType = 'application/opds-progression+json') =>
      t.app.inject({ method: 'PUT', url: href, headers: { ...rh, 'content-type': contentType }, payload: JSON.stringify(body) });
    const first = await put({ modified: new Date().toISOString(), device: { id: 'thorium-1', name: 'Thorium' }, progression: 0.4 });
    expect(first.statusCode, first.body).toBe(200);
    expect(String(first.headers['content-type'])).toMatch(/^application\/opds-progression\+json/);
    const native = await call<{ current_page: number; is_completed: boolean; device_id: string; updated_at: string }>(
      t,
      reader.headers,
      'GET',
      `/api/v1/books/${id}/progress`,
    );
    expect(native.body).toMatchObject({ current_page: 2, is_completed: false, device_id: 'hdr:thorium-1' });

    const got = JSON.parse((await get(t, href, rh)).body) as {
      modified: string;
      device: { id: string; name: string };
      progression: number;
    };
    expect(got).toMatchObject({ modified: native.body.updated_at, device: { id: 'thorium-1', name: 'thorium-1' }, progression: 0.4 });

    // The native API writes; OPDS Progression reads the same record.
    await new Promise((r) => setTimeout(r, 5));
    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${id}/progress`, { current_page: 4 })).status).toBe(200);
    const after = JSON.parse((await get(t, href, rh)).body) as { modified: string; progression: number };
    expect(after.progression).toBe(0.8);
    expect(Date.parse(after.modified)).toBeGreaterThan(Date.parse(got.modified));

    // A client with an older `modified` loses: 409, nothing changes.
    const stale = await put({ modified: got.modified, device: { id: 'thorium-1' }, progression: 0.2 }, 'application/json');
    expect(stale.statusCode).toBe(409);
    expect((await call<{ current_page: number }>(t, reader.headers, 'GET', `/api/v1/books/${id}/progress`)).body.current_page).toBe(4);

    // Progression 1 completes the book.
    const done = await put({ modified: new Date(Date.now() + 1000).toISOString(), device: { id: 'thorium-1' }, progression: 1 });
    expect(done.statusCode).toBe(200);
    expect((await call(t, reader.headers, 'GET', `/api/v1/books/${id}/progress`)).body).toMatchObject({
      current_page: 5,
      is_completed: true,
    });
  });

  it('an invalid body is a 400; without credentials a 401 with the Basic challenge', async () => {
    const p = (await publicationsOf('Known Pages'))[0]!;
    const href = linkOf(p.links, PROGRESSION)!.href;
    const bad = await t.app.inject({
      method: 'PUT',
      url: href,
      headers: { ...h, 'content-type': 'application/opds-progression+json' },
      payload: '{"progression": 3}',
    });
    expect(bad.statusCode).toBe(400);
    const anon = await t.app.inject({ method: 'PUT', url: href, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expect(anon.statusCode).toBe(401);
    expect(String(anon.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
  });
});

describe('KOReader-style caching on OPDS 2 too', () => {
  it('HEAD, ETag and Last-Modified, 304, and no forced compression', async () => {
    const url = '/opds/v2/series?pageSize=5';
    const res = await get(t, url, { ...h, 'accept-encoding': 'gzip' });
    expect(res.headers['content-encoding']).toBeUndefined();
    expect(String(res.headers['content-type'])).toMatch(/^application\/opds\+json/);
    const head = await get(t, url, h, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers.etag).toBe(res.headers.etag);
    expect(head.headers['last-modified']).toBe(res.headers['last-modified']);
    expect((await get(t, url, { ...h, 'if-none-match': String(res.headers.etag) })).status).toBe(304);
  });
});
