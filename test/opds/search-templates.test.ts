import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import { makeCbz } from '../media/fixtures.js';
import { get, parseFeed, parseXml } from './helpers.js';

interface OpenSearchUrl {
  '@type': string;
  '@template': string;
}
const ATOM = 'application/atom+xml';

/** The `Url` elements of an OpenSearch description, in document order. */
function templatesOf(xml: string): OpenSearchUrl[] {
  const desc = parseXml(xml).OpenSearchDescription as { Url: OpenSearchUrl | OpenSearchUrl[] };
  return Array.isArray(desc.Url) ? desc.Url : [desc.Url];
}

async function openSearch(t: CatalogTestApp, prefix: string, headers: Headers): Promise<OpenSearchUrl[]> {
  const res = await get(t, `${prefix}/opensearch.xml`, headers);
  expect(res.status, res.body).toBe(200);
  return templatesOf(res.body);
}

async function opds2SearchHref(t: CatalogTestApp, headers: Headers): Promise<string> {
  const res = await get(t, '/opds/v2', headers);
  expect(res.status, res.body).toBe(200);
  return (JSON.parse(res.body) as { links: Array<{ rel: string; href: string }> }).links.find((l) => l.rel === 'search')!.href;
}

describe('OPDS search as KOReader and other OpenSearch clients send it', () => {
  let t: CatalogTestApp;
  let reader: Headers;

  beforeAll(async () => {
    t = await createCatalogApp();
    await scannedLibrary(t, async (dir) => {
      for (let n = 1; n <= 3; n++)
        await makeCbz(dir, `Hellboy/Hellboy ${n}.cbz`, {
          pages: 1,
          comicInfo: { Series: 'Hellboy', Number: n, Title: `Hellboy: Seed ${n}` },
        });
      await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 1, comicInfo: { Series: 'Saga', Number: 1 } });
    });
    const user = await createUser(t, 'reader');
    reader = basic(user.username, user.password);
  });
  afterAll(() => t.close());

  it("KOReader's exact request: the first Atom template with only {searchTerms} filled finds the books (both prefixes)", async () => {
    for (const prefix of ['/opds/v1.2', '/opds/v1']) {
      const first = (await openSearch(t, prefix, reader)).find((u) => u['@type'].startsWith(ATOM))!;
      expect(first['@template']).toBe(`http://localhost:80${prefix}/search?q={searchTerms}&page={startPage?}`);
      const url = first['@template'].replace('{searchTerms}', 'Hellboy');
      const res = await get(t, url, reader);
      expect(res.status, `${url}: ${res.body}`).toBe(200);
      expect(String(res.headers['content-type'])).toContain(ATOM);
      const feed = parseFeed(res.body);
      expect(feed.entry!.map((e) => String(e.title)).sort()).toEqual(['Hellboy', 'Hellboy: Seed 1', 'Hellboy: Seed 2', 'Hellboy: Seed 3']);
      expect(feed['opensearch:startIndex']).toBe(1);
    }
  });

  it('an empty or unfilled optional parameter is absent on the OPDS 1.2 search, at both prefixes', async () => {
    for (const prefix of ['/opds/v1', '/opds/v1.2']) {
      for (const query of [
        'q=Hellboy&page=',
        'q=Hellboy&page=%7BstartPage%3F%7D',
        'q=Hellboy&page=&pageSize=',
        'q=Hellboy&pageSize={count?}&page={startPage?}',
      ]) {
        const res = await get(t, `${prefix}/search?${query}`, reader);
        expect(res.status, `${prefix}/search?${query}: ${res.body}`).toBe(200);
        expect(parseFeed(res.body)['opensearch:totalResults']).toBe(4);
      }
      // An unfilled {searchTerms} is a search for nothing, not an error.
      const empty = await get(t, `${prefix}/search?q={searchTerms}&page=`, reader);
      expect(empty.status).toBe(200);
      expect(parseFeed(empty.body)['opensearch:totalResults']).toBe(0);
    }
  });

  it('the same on OPDS 2.0 and on the other paginated feeds', async () => {
    for (const url of [
      '/opds/v2/search?query=Hellboy&page=',
      '/opds/v2/search?query=Hellboy&page={page}&pageSize=',
      '/opds/v2/series?page=',
      '/opds/v1/series?page=&pageSize=',
      '/opds/v1.2/books/recently-added?page={startPage?}',
    ]) {
      const res = await get(t, url, reader);
      expect(res.status, `${url}: ${res.body.slice(0, 200)}`).toBe(200);
    }
    const search = JSON.parse((await get(t, '/opds/v2/search?query=Hellboy&page=', reader)).body) as {
      metadata: { numberOfItems: number; currentPage: number };
    };
    expect(search.metadata).toMatchObject({ numberOfItems: 4, currentPage: 1 });
  });

  it('a filled but wrong value is still a 400 with the error body', async () => {
    for (const url of [
      '/opds/v1/search?q=Hellboy&page=0',
      '/opds/v1.2/search?q=Hellboy&page=abc',
      '/opds/v2/search?query=Hellboy&page=-1',
    ]) {
      const res = await get(t, url, reader);
      expect(res.status, url).toBe(400);
      expect(Object.keys(JSON.parse(res.body) as object).sort()).toEqual(['details', 'error', 'message']);
    }
  });

  it('templates are absolute on the host the client used; X-Forwarded-* are ignored without trust_proxy', async () => {
    const headers = { ...reader, host: 'books.lan:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' };
    for (const u of await openSearch(t, '/opds/v1', headers))
      expect(u['@template']).toMatch(/^http:\/\/books\.lan:8080\/opds\/v1\/search\?q=\{searchTerms\}/);
    expect(await opds2SearchHref(t, headers)).toBe('http://books.lan:8080/opds/v2/search{?query}');
  });
});

describe('Absolute search templates behind a proxy and with server.public_url', () => {
  it('with trust_proxy, X-Forwarded-Proto and X-Forwarded-Host give the scheme and host', async () => {
    const t = await createCatalogApp({ server: { trust_proxy: true } }, { start: false });
    try {
      const headers = { ...t.headers, host: 'internal:8080', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'comics.example.org' };
      const templates = await openSearch(t, '/opds/v1.2', headers);
      expect(templates.map((u) => u['@template'])).toEqual([
        'https://comics.example.org/opds/v1.2/search?q={searchTerms}&page={startPage?}',
        'https://comics.example.org/opds/v1.2/search?q={searchTerms}',
      ]);
      expect(await opds2SearchHref(t, headers)).toBe('https://comics.example.org/opds/v2/search{?query}');
      // Without forwarded headers: the request's own host.
      expect(await opds2SearchHref(t, { ...t.headers, host: 'internal:8080' })).toBe('http://internal:8080/opds/v2/search{?query}');
    } finally {
      await t.close();
    }
  });

  it('server.public_url wins over the request and the forwarded headers (a path prefix kept, no double slash)', async () => {
    const t = await createCatalogApp(
      { server: { trust_proxy: true, public_url: 'https://library.example.net/colophon/' } },
      { start: false },
    );
    try {
      const headers = { ...t.headers, host: 'internal:8080', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'other.example' };
      const [first] = await openSearch(t, '/opds/v1', headers);
      expect(first!['@template']).toBe('https://library.example.net/colophon/opds/v1/search?q={searchTerms}&page={startPage?}');
      expect(await opds2SearchHref(t, headers)).toBe('https://library.example.net/colophon/opds/v2/search{?query}');
    } finally {
      await t.close();
    }
  });
});
