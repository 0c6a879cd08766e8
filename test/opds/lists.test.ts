import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { basic, createUser, type Headers } from '../helpers/auth.js';
import { api, call, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { get, parseFeed, validateOpds1, writeOpdsCorpus } from './helpers.js';
import { loadOpds2Schemas, schemaErrors } from './opds2-schemas.js';

/**
 * Collections, read lists and the want-to-read shelf in both OPDS feeds: reachable from the root, valid
 * (OPDS 1.2 RELAX NG, OPDS 2.0 JSON Schemas), in the list's order; a restricted user does not see what it may not.
 */

interface Link {
  href: string;
  title?: string;
  type?: string;
}
interface Feed2 {
  metadata: { title: string; numberOfItems?: number };
  navigation?: Link[];
  publications?: Array<{ metadata: { title: string; identifier: string } }>;
}

let t: CatalogTestApp;
let h: Headers;
let hidden: Headers;
const series: Record<string, string> = {};
const books: Record<string, string> = {};
let collectionId: string;
let readListId: string;

beforeAll(async () => {
  t = await createCatalogApp();
  await scannedLibrary(t, async (dir) => void (await writeOpdsCorpus(dir)));
  for (const s of (await api<Paged<{ id: string; name: string }>>(t, 'GET', '/api/v1/series?pageSize=50')).body.data) series[s.name] = s.id;
  for (const b of (await api<Paged<{ id: string; title: string }>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data) books[b.title] = b.id;
  const c = await api<{ id: string }>(t, 'POST', '/api/v1/collections', {
    name: 'Picks & <more>',
    ordered: true,
    shared: true,
    series_ids: [series['Filler 3'], series['Filler 1'], series['Known Pages']],
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  collectionId = c.body.id;
  const l = await api<{ id: string }>(t, 'POST', '/api/v1/read-lists', {
    name: 'Reading order',
    shared: true,
    book_ids: [books['Astérix & Co. 3'], books['Known pages'], books['Astérix & Co. 1']],
  });
  expect(l.status, JSON.stringify(l.body)).toBe(201);
  readListId = l.body.id;
  const user = await createUser(t, 'reader');
  h = basic(user.username, user.password);
  for (const name of ['Filler 2', 'Filler 5'])
    expect((await call(t, user.headers, 'PUT', `/api/v1/me/want-to-read/${series[name]}`)).status).toBeLessThan(300);
  // Nothing in the corpus is rated: a user who may see rated series only sees none of them.
  const restricted = await createUser(t, 'reader');
  const patched = await api(t, 'PATCH', `/api/v1/users/${restricted.id}`, { age_restriction: { max_age: 18, include_unrated: false } });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  hidden = basic(restricted.username, restricted.password);
});
afterAll(() => t.close());

async function xml(url: string, headers = h): Promise<string> {
  const res = await get(t, url, headers);
  expect(res.status, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return res.body;
}
async function json(url: string, headers = h): Promise<Feed2> {
  const res = await get(t, url, headers);
  expect(res.status, `${url}: ${res.body.slice(0, 300)}`).toBe(200);
  return JSON.parse(res.body) as Feed2;
}
const titles = (doc: string) => (parseFeed(doc).entry ?? []).map((e) => String(e.title));

describe('OPDS 1.2: collections, read lists, want to read', () => {
  it('are linked from the root and valid, in the lists’ order', async () => {
    const root = parseFeed(await xml('/opds/v1/catalog'));
    const hrefOf = (title: string) => {
      const entry = (root.entry ?? []).find((e) => e.title === title);
      expect(entry, title).toBeDefined();
      return String(entry!.link!.find((l) => String(l['@rel']) === 'subsection')!['@href']);
    };
    const collections = await xml(hrefOf('Collections'));
    expect(titles(collections)).toEqual(['Picks & <more>']);
    const collection = await xml(`/opds/v1/collections/${collectionId}`);
    expect(titles(collection)).toEqual(['Filler 3', 'Filler 1', 'Known Pages']);
    const lists = await xml(hrefOf('Read lists'));
    expect(titles(lists)).toEqual(['Reading order']);
    const list = await xml(`/opds/v1/readlists/${readListId}`);
    expect(titles(list)).toEqual(['Astérix & Co. 3', 'Known pages', 'Astérix & Co. 1']);
    const shelf = await xml(hrefOf('Want to read'));
    expect(titles(shelf)).toEqual(['Filler 5', 'Filler 2']);
    const problems = await validateOpds1([collections, collection, lists, list, shelf].map((doc, i) => ({ url: `doc${i}`, xml: doc })));
    expect(problems).toEqual([]);
  });

  it('hide what a restricted user may not see', async () => {
    expect(titles(await xml('/opds/v1/collections', hidden))).toEqual([]);
    expect(titles(await xml('/opds/v1/readlists', hidden))).toEqual([]);
    expect((await get(t, `/opds/v1/collections/${collectionId}`, hidden)).status).toBe(404);
    expect((await get(t, `/opds/v1/readlists/${readListId}`, hidden)).status).toBe(404);
  });
});

describe('OPDS 2.0: collections, read lists, want to read', () => {
  it('are linked from the root and valid against the OPDS 2.0 schemas, in the lists’ order', async () => {
    const schemas = loadOpds2Schemas();
    const root = await json('/opds/v2');
    const hrefOf = (title: string) => root.navigation!.find((n) => n.title === title)!.href;
    const docs: Array<[string, Feed2]> = [];
    const load = async (url: string) => {
      const doc = await json(url);
      docs.push([url, doc]);
      return doc;
    };
    expect((await load(hrefOf('Collections'))).navigation!.map((n) => n.title)).toEqual(['Picks & <more>']);
    expect((await load(`/opds/v2/collections/${collectionId}`)).navigation!.map((n) => n.title)).toEqual([
      'Filler 3',
      'Filler 1',
      'Known Pages',
    ]);
    expect((await load(hrefOf('Read lists'))).navigation!.map((n) => n.title)).toEqual(['Reading order']);
    expect((await load(`/opds/v2/readlists/${readListId}`)).publications!.map((p) => p.metadata.title)).toEqual([
      'Astérix & Co. 3',
      'Known pages',
      'Astérix & Co. 1',
    ]);
    expect((await load(hrefOf('Want to read'))).navigation!.map((n) => n.title)).toEqual(['Filler 5', 'Filler 2']);
    docs.push(['/opds/v2/collections (restricted)', await json('/opds/v2/collections', hidden)]);
    for (const [url, doc] of docs) expect(schemaErrors(schemas.feed, doc), url).toEqual([]);
    expect((await get(t, `/opds/v2/readlists/${readListId}`, hidden)).status).toBe(404);
  });
});
