import { readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createApiKey, createUser, type Headers } from '../helpers/auth.js';
import { call, createCatalogApp, scannedLibrary, type CatalogTestApp } from '../helpers/catalog.js';
import {
  get,
  linkOf,
  parseFeed,
  parseXml,
  PSE_REL,
  validateOpds1,
  writeOpdsCorpus,
  type AtomEntry,
  type AtomFeed,
  type OpdsCorpus,
} from './helpers.js';

let t: CatalogTestApp;
let corpus: OpdsCorpus;
let libraryDir: string;
let reader: { username: string; password: string; headers: Headers };
let readerBasic: Headers;
let apiKeyBasic: Headers;

const ATOM = 'application/atom+xml';
const ACQUISITION = 'http://opds-spec.org/acquisition';

async function feed(url: string, headers: Headers = readerBasic): Promise<AtomFeed> {
  const res = await get(t, url, headers);
  expect(res.status, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  expect(String(res.headers['content-type'])).toContain(ATOM);
  return parseFeed(res.body);
}

/** Every feed reachable from the root by following Atom links (navigation, acquisition, pagination, entries). */
async function crawl(start: string, headers: Headers): Promise<Map<string, string>> {
  const seen = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const url = queue.shift()!;
    if (seen.has(url)) continue;
    const res = await get(t, url, headers);
    expect(res.status, url).toBe(200);
    seen.set(url, res.body);
    const links = [...res.body.matchAll(/<link [^>]*>/g)].map((m) => m[0]);
    for (const l of links) {
      const href = /href="([^"]+)"/.exec(l)?.[1]?.replace(/&amp;/g, '&');
      const type = /type="([^"]+)"/.exec(l)?.[1] ?? '';
      if (href && type.startsWith(ATOM) && !seen.has(href)) queue.push(href);
    }
  }
  return seen;
}

function entryTitled(f: AtomFeed, title: string): AtomEntry {
  const e = f.entry?.find((x) => String(x.title) === title);
  expect(e, `entry "${title}" in ${f.title}`).toBeDefined();
  return e!;
}

const text = (v: { '#text': string } | string | undefined) => (typeof v === 'object' ? v['#text'] : v);
const pseLink = (e: AtomEntry) => linkOf(e.link, PSE_REL);
const fill = (template: string, page: number, width: string) => template.replace('{pageNumber}', String(page)).replace('{maxWidth}', width);

async function seriesFeed(name: string): Promise<AtomFeed> {
  const all = await feed('/opds/v1.2/series?pageSize=100');
  const entry = entryTitled(all, name);
  return feed(linkOf(entry.link, 'subsection')!['@href']);
}

beforeAll(async () => {
  t = await createCatalogApp();
  const lib = await scannedLibrary(t, async (dir) => {
    corpus = await writeOpdsCorpus(dir);
  });
  libraryDir = lib.dir;
  const user = await createUser(t, 'reader');
  reader = user;
  readerBasic = basic(user.username, user.password);
  const key = await createApiKey(t, user.headers, { name: 'koreader' });
  apiKeyBasic = basic('api', key.key);
});
afterAll(() => t.close());

describe('OPDS 1.2 documents validate against the OPDS 1.2 RELAX NG schema (opds.fixed.rnc, libxml2 via xmllint-wasm)', () => {
  it('every feed reachable from the root, at both prefixes, with pagination links, is valid (only the PSE {pageNumber} href waived)', async () => {
    const docs = new Map<string, string>();
    for (const start of [
      '/opds/v1/catalog',
      '/opds/v1.2/catalog',
      '/opds/v1/series?pageSize=3',
      '/opds/v1/search?q=asterix',
      '/opds/v1/search?q=nothing-matches-this',
    ]) {
      for (const [url, xml] of await crawl(start, readerBasic)) docs.set(url, xml);
    }
    // Feeds with progress attributes (pse:lastRead) too.
    const books = parseFeed((await get(t, '/opds/v1/books/recently-added', readerBasic)).body).entry!;
    await get(t, fill(pseLink(books[0]!)!['@href'], 0, '100'), readerBasic);
    docs.set('/opds/v1/books/keep-reading#after-reading', (await get(t, '/opds/v1/books/keep-reading', readerBasic)).body);
    expect(docs.size).toBeGreaterThan(20);
    const kinds = [...docs.keys()];
    for (const part of [
      '/catalog',
      '/libraries',
      '/series/',
      '/books/recently-added',
      '/books/keep-reading',
      '/books/on-deck',
      '/search?q=',
      '/books/',
    ]) {
      expect(
        kinds.some((u) => u.includes(part)),
        `crawled a ${part} document`,
      ).toBe(true);
    }
    const problems = await validateOpds1([...docs].map(([url, xml]) => ({ url, xml })));
    expect(problems).toEqual([]);
  }, 120_000);

  it('the validator does report a broken document (the check is live)', async () => {
    const problems = await validateOpds1([{ url: 'broken', xml: '<feed xmlns="http://www.w3.org/2005/Atom"><title>x</title></feed>' }]);
    expect(problems.length).toBeGreaterThan(0);
  });
});

describe('Auth: Basic (password or api:key), Bearer, X-API-Key; 401 with WWW-Authenticate, never 403 or a redirect', () => {
  const urls = ['/opds/v1/catalog', '/opds/v1.2/catalog', '/opds/v1/series', '/opds/v1/opensearch.xml', '/opds/v2', '/opds/v2/series'];

  it('an unauthenticated request gets 401 with WWW-Authenticate: Basic realm="Colophon"', async () => {
    for (const url of urls) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await get(t, url, {}, method);
        expect(res.status, `${method} ${url}`).toBe(401);
        expect(String(res.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
        expect(res.headers.location).toBeUndefined();
      }
    }
  });

  it('wrong credentials (bad password, bad api key, malformed key) are 401 with the challenge too', async () => {
    for (const headers of [basic(reader.username, 'wrong'), basic('api', 'colophon_zzzzzzzz_nope'), basic('api', 'not-a-key')]) {
      const res = await get(t, '/opds/v1.2/catalog', headers);
      expect(res.status).toBe(401);
      expect(String(res.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
    }
  });

  it('the PSE page, download and cover routes challenge the same way', async () => {
    const book = (await feed('/opds/v1/books/recently-added')).entry![0]!;
    for (const href of [
      fill(pseLink(book)!['@href'], 0, '100'),
      linkOf(book.link, ACQUISITION)!['@href'],
      linkOf(book.link, 'http://opds-spec.org/image/thumbnail')!['@href'],
    ]) {
      const res = await get(t, href, {});
      expect(res.status, href).toBe(401);
      expect(String(res.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
    }
  });

  it('Basic username:password, Basic api:key, Bearer JWT and X-API-Key all open the catalog', async () => {
    const key = await createApiKey(t, reader.headers, { name: 'header key' });
    for (const headers of [readerBasic, apiKeyBasic, reader.headers, { 'x-api-key': key.key }, { authorization: `Bearer ${key.key}` }]) {
      const res = await get(t, '/opds/v1.2/catalog', headers);
      expect(res.status, JSON.stringify(Object.keys(headers))).toBe(200);
    }
  });
});

describe('Root navigation feed', () => {
  it('lists keep reading, on deck, recently added, all series, libraries and each library', async () => {
    const root = await feed('/opds/v1/catalog');
    expect(root.entry!.map((e) => String(e.title))).toEqual([
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
    expect(linkOf(root.link, 'self')!['@type']).toBe('application/atom+xml;profile=opds-catalog;kind=navigation');
    expect(linkOf(root.link, 'search')).toMatchObject({
      '@href': '/opds/v1/opensearch.xml',
      '@type': 'application/opensearchdescription+xml',
    });
    const lib = entryTitled(root, 'library');
    const series = await feed(linkOf(lib.link, 'subsection')!['@href']);
    expect(series['opensearch:totalResults']).toBe(11);
  });

  it('links keep the prefix the client came in by', async () => {
    const root = (await get(t, '/opds/v1.2/catalog', readerBasic)).body;
    const hrefs = [...root.matchAll(/href="([^"]+)"/g)].map((m) => m[1]!);
    expect(hrefs.length).toBeGreaterThan(5);
    expect(hrefs.every((h) => h.startsWith('/opds/v1.2/'))).toBe(true);
  });
});

describe('Pagination: first/previous/next/last links and OpenSearch totals', () => {
  it('a middle page links all four ways and reports totalResults, itemsPerPage and startIndex', async () => {
    const page2 = await feed('/opds/v1/series?pageSize=3&page=2');
    expect(page2['opensearch:totalResults']).toBe(11);
    expect(page2['opensearch:itemsPerPage']).toBe(3);
    expect(page2['opensearch:startIndex']).toBe(4);
    expect(page2.entry).toHaveLength(3);
    expect(linkOf(page2.link, 'first')!['@href']).toBe('/opds/v1/series?page=1&pageSize=3');
    expect(linkOf(page2.link, 'previous')!['@href']).toBe('/opds/v1/series?page=1&pageSize=3');
    expect(linkOf(page2.link, 'next')!['@href']).toBe('/opds/v1/series?page=3&pageSize=3');
    expect(linkOf(page2.link, 'last')!['@href']).toBe('/opds/v1/series?page=4&pageSize=3');
  });

  it('following next from the first page visits every series once; the last page has no next', async () => {
    let url: string | undefined = '/opds/v1/series?pageSize=4';
    const ids: string[] = [];
    let last: AtomFeed | undefined;
    while (url) {
      last = await feed(url);
      ids.push(...(last.entry ?? []).map((e) => e.id));
      url = linkOf(last.link, 'next')?.['@href'];
    }
    expect(ids).toHaveLength(11);
    expect(new Set(ids).size).toBe(11);
    expect(linkOf(last!.link, 'previous')).toBeDefined();
    const first = await feed('/opds/v1/series?pageSize=4');
    expect(linkOf(first.link, 'previous')).toBeUndefined();
  });
});

describe('Book entries', () => {
  it('carry urn:uuid id, title, authors, summary, language, publisher, issued, categories, cover and thumbnail, acquisition with type and length', async () => {
    const series = await seriesFeed('Astérix & <Obélix>');
    expect(series.entry!.map((e) => String(e.title))).toEqual(['Astérix & Co. 1', 'Astérix & Co. 2', 'Astérix & Co. 3']);
    const e = series.entry![0]!;
    expect(e.id).toMatch(/^urn:uuid:[0-9a-f-]{36}$/);
    expect(e.author!.map((a) => a.name)).toEqual(['René Goscinny']);
    expect(e.contributor!.map((a) => a.name)).toEqual(['Albert Uderzo (penciller)']);
    expect(text(e.summary)).toBe('Gauls & Romans: <b>"by Toutatis!"</b> — it\'s 50 BC.');
    expect(e['dc:language']).toBe('fr');
    expect(e['dc:publisher']).toBe('Dargaud "Éditions"');
    expect(String(e['dc:issued'])).toBe('1961');
    expect(e.category!.map((c) => c['@term']).sort()).toEqual(['Adventure', 'Humor', 'classic']);
    const bookId = e.id.slice('urn:uuid:'.length);
    expect(linkOf(e.link, 'http://opds-spec.org/image')).toMatchObject({
      '@href': `/opds/v1.2/books/${bookId}/cover`,
      '@type': 'image/jpeg',
    });
    expect(linkOf(e.link, 'http://opds-spec.org/image/thumbnail')).toMatchObject({
      '@href': `/opds/v1.2/books/${bookId}/thumbnail`,
      '@type': 'image/jpeg',
    });
    const file = await readFile(path.join(libraryDir, 'Asterix', 'Asterix 001.cbz'));
    expect(linkOf(e.link, ACQUISITION)).toMatchObject({ '@type': 'application/vnd.comicbook+zip', '@length': String(file.length) });
    for (const rel of ['http://opds-spec.org/image', 'http://opds-spec.org/image/thumbnail']) {
      const img = await get(t, linkOf(e.link, rel)!['@href'], readerBasic);
      expect(img.status).toBe(200);
      expect(img.headers['content-type']).toBe('image/jpeg');
    }
  });

  it('a language that is not a language tag is left out rather than breaking the feed', async () => {
    const e = (await seriesFeed('Known Pages')).entry![0]!;
    expect(e['dc:language']).toBeUndefined();
  });

  it('the alternate link is a single entry document with its namespaces declared', async () => {
    const e = (await seriesFeed('Known Pages')).entry![0]!;
    const res = await get(t, linkOf(e.link, 'alternate')!['@href'], readerBasic);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/atom+xml;type=entry;profile=opds-catalog');
    expect((parseXml(res.body).entry as AtomEntry[])[0]!.id).toBe(e.id);
    expect(await validateOpds1([{ url: 'entry', xml: res.body }])).toEqual([]);
  });
});

describe('OPDS-PSE page streaming', () => {
  it('every image book carries a PSE link with pse:count; EPUB (XHTML pages) has none', async () => {
    const books = (await feed('/opds/v1/books/recently-added')).entry!;
    expect(books).toHaveLength(13);
    for (const e of books) {
      const acquisition = linkOf(e.link, ACQUISITION)!;
      const pse = pseLink(e);
      if (acquisition['@type'] === 'application/epub+zip') {
        expect(pse).toBeUndefined();
        continue;
      }
      expect(pse, String(e.title)).toBeDefined();
      expect(Number(pse!['@pse:count'])).toBeGreaterThan(0);
      expect(pse!['@href']).toContain('{pageNumber}');
      expect(pse!['@href']).toContain('{maxWidth}');
      expect(['image/jpeg', 'image/png', 'image/gif']).toContain(pse!['@type']);
      // What the page route sends is what the link declares (PDF pages are rendered, CBZ pages stored).
      const page = await get(t, fill(pse!['@href'], 0, '300'), readerBasic);
      expect(page.headers['content-type'], String(e.title)).toBe(pse!['@type']);
    }
  });

  it('{pageNumber} is 0-based: the filled template returns that page; {maxWidth} scales it down; a mixed-type book is converted to JPEG', async () => {
    const e = (await seriesFeed('Known Pages')).entry![0]!;
    const pse = pseLink(e)!;
    expect(pse['@pse:count']).toBe('2');
    expect(pse['@type']).toBe('image/jpeg');
    const admin = t.headers;
    const first = await get(t, fill(pse['@href'], 0, '2000'), admin);
    expect(first.status).toBe(200);
    expect(first.headers['content-type']).toBe('image/jpeg');
    expect(first.raw.equals(corpus.page1)).toBe(true);
    const second = await get(t, fill(pse['@href'], 1, '2000'), admin);
    expect(second.headers['content-type']).toBe('image/jpeg');
    expect(await sharp(second.raw).metadata()).toMatchObject({ format: 'jpeg', width: 400, height: 600 });
    const small = await get(t, fill(pse['@href'], 0, '200'), admin);
    expect(await sharp(small.raw).metadata()).toMatchObject({ format: 'jpeg', width: 200, height: 300 });
    // A client that does not substitute {maxWidth} still gets the page.
    const literal = await get(t, pse['@href'].replace('{pageNumber}', '0'), admin);
    expect(literal.status).toBe(200);
    expect(literal.raw.equals(corpus.page1)).toBe(true);
    expect((await get(t, fill(pse['@href'], 2, '100'), admin)).status).toBe(404);
  });

  it('a single-type JPEG book declares image/jpeg and streams the stored bytes', async () => {
    const e = (await seriesFeed('Astérix & <Obélix>')).entry![0]!;
    const res = await get(t, fill(pseLink(e)!['@href'], 0, '1000'), t.headers);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(pseLink(e)!['@type']);
  });

  it('streaming moves progress forward only, completes at the last page, and shows as pse:lastRead / pse:lastReadDate', async () => {
    const user = await createUser(t, 'reader');
    const h = basic(user.username, user.password);
    const progressOf = async (id: string) =>
      (
        await call<{ current_page: number; is_completed: boolean; updated_at: string }>(
          t,
          user.headers,
          'GET',
          `/api/v1/books/${id}/progress`,
        )
      ).body;
    const entryOf = async (id: string) => (parseXml((await get(t, `/opds/v1/books/${id}`, h)).body).entry as AtomEntry[])[0]!;
    const book3 = (await seriesFeed('Astérix & <Obélix>')).entry![2]!;
    const id = book3.id.slice('urn:uuid:'.length);
    expect(pseLink(await entryOf(id))!['@pse:lastRead']).toBeUndefined();
    const template = pseLink(book3)!['@href'];
    expect((await get(t, fill(template, 2, '100'), h)).status).toBe(200);
    expect(await progressOf(id)).toMatchObject({ current_page: 3, is_completed: false });
    // Paging back (or re-reading an earlier page) does not move progress back.
    expect((await get(t, fill(template, 0, '100'), h)).status).toBe(200);
    const progress = await progressOf(id);
    expect(progress.current_page).toBe(3);
    const pse = pseLink(await entryOf(id))!;
    expect(pse['@pse:lastRead']).toBe('3');
    expect(pse['@pse:lastReadDate']).toBe(progress.updated_at);
    // HEAD does not count as reading.
    expect((await get(t, fill(template, 3, '100'), h, 'HEAD')).status).toBe(200);
    expect((await progressOf(id)).current_page).toBe(3);
    // The last page completes the book; keep reading no longer lists it.
    expect((await get(t, fill(template, 4, '100'), h)).status).toBe(200);
    expect(await progressOf(id)).toMatchObject({ current_page: 5, is_completed: true });
    expect(pseLink(await entryOf(id))!['@pse:lastRead']).toBe('5');
    const keep = await feed('/opds/v1/books/keep-reading', h);
    expect((keep.entry ?? []).map((x) => x.id)).not.toContain(book3.id);
  });

  it('a caller without progress-write still streams pages; progress is left alone', async () => {
    const user = await createUser(t, 'reader');
    const key = await createApiKey(t, user.headers, {
      name: 'read only',
      permissions: ['books-read', 'series-read', 'pages-read', 'progress-read'],
    });
    const h = basic('api', key.key);
    const e = (await seriesFeed('Known Pages')).entry![0]!;
    expect((await get(t, fill(pseLink(e)!['@href'], 0, '100'), h)).status).toBe(200);
    expect((await call(t, user.headers, 'GET', `/api/v1/books/${e.id.slice(9)}/progress`)).status).toBe(404);
  });
});

describe('OpenSearch description and search feed', () => {
  it('the description holds a {searchTerms} template; the filled template finds series and books', async () => {
    const res = await get(t, '/opds/v1/opensearch.xml', readerBasic);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/opensearchdescription+xml');
    const desc = parseXml(res.body).OpenSearchDescription as { Url: Array<{ '@type': string; '@template': string }> };
    const url = desc.Url.find((u) => u['@type'].includes('kind=acquisition'))!;
    expect(url['@template']).toContain('{searchTerms}');
    const search = await feed(url['@template'].replace('{searchTerms}', encodeURIComponent('astérix')).replace('{startPage?}', '1'));
    const titles = search.entry!.map((e) => String(e.title));
    expect(titles[0]).toBe('Astérix & <Obélix>');
    expect(titles.slice(1).sort()).toEqual(['Astérix & Co. 1', 'Astérix & Co. 2', 'Astérix & Co. 3']);
    expect(search['opensearch:totalResults']).toBe(4);
    expect(linkOf(search.entry![0]!.link, 'subsection')!['@type']).toContain('kind=acquisition');
  });

  it('finds books by author and returns an empty, valid feed for no match', async () => {
    const byWord = await feed('/opds/v1/search?q=known');
    expect(byWord.entry!.map((e) => String(e.title))).toEqual(['Known Pages', 'Known pages']);
    const none = await feed('/opds/v1/search?q=zzzzzz');
    expect(none.entry).toBeUndefined();
    expect(none['opensearch:totalResults']).toBe(0);
  });
});

describe('Downloads: Content-Disposition, Content-Length, Range (206), ETag', () => {
  it('serves the exact file with its headers; a Range gives exactly those bytes; If-None-Match gives 304', async () => {
    const e = (await seriesFeed('Known Pages')).entry![0]!;
    const href = linkOf(e.link, ACQUISITION)!['@href'];
    const file = await readFile(path.join(libraryDir, 'Known Pages', 'Known Pages 001.cbz'));
    const full = await get(t, href, apiKeyBasic);
    expect(full.status).toBe(200);
    expect(full.headers['content-length']).toBe(String(file.length));
    expect(full.headers['content-disposition']).toContain('attachment; filename="Known Pages 001.cbz"');
    expect(full.headers['content-type']).toBe(linkOf(e.link, ACQUISITION)!['@type']);
    expect(full.headers['accept-ranges']).toBe('bytes');
    expect(full.raw.equals(file)).toBe(true);
    const etag = String(full.headers.etag);
    expect(etag).toMatch(/^".+"$/);
    const partial = await get(t, href, { ...apiKeyBasic, range: 'bytes=100-1099' });
    expect(partial.status).toBe(206);
    expect(partial.headers['content-range']).toBe(`bytes 100-1099/${file.length}`);
    expect(partial.headers['content-length']).toBe('1000');
    expect(partial.raw.equals(file.subarray(100, 1100))).toBe(true);
    const tail = await get(t, href, { ...apiKeyBasic, range: 'bytes=-10' });
    expect(tail.raw.equals(file.subarray(file.length - 10))).toBe(true);
    expect((await get(t, href, { ...apiKeyBasic, 'if-none-match': etag })).status).toBe(304);
    const head = await get(t, href, apiKeyBasic, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-length']).toBe(String(file.length));
    expect(head.raw.length).toBe(0);
  });

  it('declared acquisition media types match what the download sends, per format (table in docs/opds.md)', async () => {
    const books = (await feed('/opds/v1/books/recently-added')).entry!;
    const types = new Map<string, string>();
    for (const e of books) {
      const link = linkOf(e.link, ACQUISITION)!;
      const res = await get(t, link['@href'], readerBasic, 'HEAD');
      expect(res.headers['content-type']).toBe(link['@type']);
      types.set(
        String((link as { '@title'?: string })['@title'])
          .split('.')
          .pop()!
          .toLowerCase(),
        link['@type']!,
      );
    }
    expect(Object.fromEntries(types)).toEqual({
      cbz: 'application/vnd.comicbook+zip',
      epub: 'application/epub+zip',
      pdf: 'application/pdf',
    });
  });
});

describe('Real-client quirks', () => {
  it('KOReader: HEAD answers every feed with the same ETag and Last-Modified as GET, and no body', async () => {
    const docs = await crawl('/opds/v1/catalog', readerBasic);
    for (const url of docs.keys()) {
      const [head, body] = [await get(t, url, readerBasic, 'HEAD'), await get(t, url, readerBasic)];
      expect(head.status, url).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers.etag, url).toBe(body.headers.etag);
      expect(head.headers['last-modified'], url).toBe(body.headers['last-modified']);
      expect(head.headers['content-type']).toBe(body.headers['content-type']);
    }
  });

  it('KOReader: Last-Modified and ETag validate (304), and Last-Modified moves when the content changes', async () => {
    const user = await createUser(t, 'reader');
    const h = basic(user.username, user.password);
    const url = '/opds/v1/books/keep-reading';
    const first = await get(t, url, h);
    const lm = String(first.headers['last-modified']);
    expect(lm).toMatch(/GMT$/);
    expect((await get(t, url, { ...h, 'if-none-match': String(first.headers.etag) })).status).toBe(304);
    expect((await get(t, url, { ...h, 'if-modified-since': lm })).status).toBe(304);
    expect((await get(t, url, h)).headers['last-modified']).toBe(lm);
    // Reading a page puts a book in "keep reading": new body, new ETag, later Last-Modified.
    const e = (await seriesFeed('Astérix & <Obélix>')).entry![1]!;
    await get(t, fill(pseLink(e)!['@href'], 0, '100'), h);
    const second = await get(t, url, h);
    expect(second.headers.etag).not.toBe(first.headers.etag);
    expect(Date.parse(String(second.headers['last-modified']))).toBeGreaterThan(Date.parse(lm));
    expect((await get(t, url, { ...h, 'if-modified-since': lm })).status).toBe(200);
  });

  it('KOReader: never forces compression (Accept-Encoding: identity or gzip both get plain bytes)', async () => {
    for (const enc of ['identity', 'gzip, deflate, br']) {
      const res = await get(t, '/opds/v1/catalog', { ...readerBasic, 'accept-encoding': enc });
      expect(res.status).toBe(200);
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.startsWith('<?xml')).toBe(true);
    }
  });

  it('KOReader: the roots answer with and without a trailing slash, without redirecting', async () => {
    for (const url of [
      '/opds/v1/catalog',
      '/opds/v1/catalog/',
      '/opds/v1.2/catalog',
      '/opds/v1.2/catalog/',
      '/opds/v1',
      '/opds/v1/',
      '/opds/v1.2',
      '/opds/v1.2/',
      '/opds/v2',
      '/opds/v2/',
      '/opds/v2/catalog',
    ]) {
      for (const method of ['GET', 'HEAD'] as const) {
        const res = await get(t, url, readerBasic, method);
        expect(res.status, `${method} ${url}`).toBe(200);
        expect(res.headers.location).toBeUndefined();
      }
    }
  });

  it('Moon+ Reader: every namespace prefix used in any feed is declared on the root element', async () => {
    const docs = await crawl('/opds/v1/catalog', readerBasic);
    for (const [url, xml] of docs) {
      const rootTag = /<(feed|entry) [^>]*>/.exec(xml)![0];
      const declared = new Set([...rootTag.matchAll(/xmlns:([\w-]+)=/g)].map((m) => m[1]));
      for (const p of ['atom', 'opds', 'dc', 'opensearch', 'pse', 'thr']) expect(declared.has(p), `${url} declares ${p}`).toBe(true);
      const used = new Set(
        [...xml.matchAll(/<\/?([\w-]+):[\w-]+/g), ...xml.matchAll(/\s([\w-]+):[\w-]+=/g)].map((m) => m[1]).filter((p) => p !== 'xmlns'),
      );
      for (const p of used) expect(declared.has(p), `${url} uses undeclared prefix ${p}`).toBe(true);
    }
  });

  it('KOReader / Chunky: every comic entry in every acquisition feed carries pse:count at feed time', async () => {
    const docs = await crawl('/opds/v1/catalog', readerBasic);
    let checked = 0;
    for (const xml of docs.values()) {
      for (const e of parseFeed(xml)?.entry ?? []) {
        const acquisition = linkOf(e.link, ACQUISITION);
        if (!acquisition || acquisition['@type'] === 'application/epub+zip') continue;
        expect(pseLink(e)?.['@pse:count'], String(e.title)).toMatch(/^[1-9]\d*$/);
        checked += 1;
      }
    }
    expect(checked).toBeGreaterThan(10);
  });

  it('Panels: an authenticated caller without the permission gets 403, but an anonymous one always gets the 401 challenge', async () => {
    const user = await createUser(t, 'reader');
    const key = await createApiKey(t, user.headers, { name: 'pages only', permissions: ['pages-read'] });
    expect((await get(t, '/opds/v1/catalog', basic('api', key.key))).status).toBe(403);
    const anonymous = await get(t, '/opds/v1/catalog', {});
    expect(anonymous.status).toBe(401);
    expect(String(anonymous.headers['www-authenticate'])).toMatch(/^Basic realm="Colophon"/);
  });
});
