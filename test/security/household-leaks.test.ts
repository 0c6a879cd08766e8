import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { openDatabase } from '../../src/db/connection.js';
import type { RouteEntry } from '../../src/http/route-table.js';
import type { App } from '../../src/http/types.js';
import { basic, type Headers } from '../helpers/auth.js';
import { api, createCatalogApp, scan, type CatalogTestApp } from '../helpers/catalog.js';
import {
  HIDDEN_WORD,
  buildHouseholdCatalog,
  crawlFeeds,
  createHouseholdUser,
  httpGet,
  openApiGets,
  pool,
  restrictedAccess,
  routeMatcher,
  secretsIn,
  secretsOf,
  setAccess,
  unknownDocument,
  type HouseholdCatalog,
  type HouseholdSeries,
  type HouseholdUser,
  type Reply,
  type Secret,
} from '../helpers/household.js';
import { md5 } from '../helpers/koreader.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { getRoutes, type RouteIds } from '../helpers/route-table.js';
import { comicInfoXml, makeCbz } from '../media/fixtures.js';

/**
 * Household access (issue 36): what a user may not see is absent everywhere, and asking for it by id is the same
 * answer as asking for an id that does not exist. The routes are not listed here: every GET operation of the
 * OpenAPI document and every GET route of the app's route table (OPDS aliases, Komga, KOReader, the web app) is
 * called as a restricted reader, and as a maintainer restricted the same way (duplicates, tasks and scans are
 * theirs), with visible ids, with each hidden id and with an id that does not exist; list routes also with filters
 * naming hidden things and searches for their names. The OPDS feeds are crawled from their roots; Mihon's Komga
 * calls, the POST searches, KOReader sync and the event streams are checked too. A new route is covered without
 * editing this file (a parameter of a new kind fails the walk in test/helpers/route-table.ts, which names it).
 *
 * The catalog and what is secret: test/helpers/household.ts. Failures list each leak on one line,
 * `<persona>: GET <route> [how it was called] <status>: <what leaked> — <url>`, and each hidden id answered
 * otherwise than an id that does not exist, so that the report is the list of routes to fix.
 */

let t: CatalogTestApp;
let base: string;
let catalog: HouseholdCatalog;
let secrets: Secret[];
let core: Secret[];
let reader: HouseholdUser;
/** Library A only, up to 12 without unrated, never "secret", like the reader, with a maintainer's permissions (duplicates, tasks). */
let maintainer: HouseholdUser;
interface Persona {
  name: string;
  user: HouseholdUser;
  /** The hidden series whose ids (and their first book's) are put in every route's parameters. */
  sample: HouseholdSeries[];
}
let personas: Persona[];
/** OpenAPI GET operations plus the route table's GET routes. */
let table: RouteEntry[];
let documented: Map<string, string[]>;
let routeOf: (url: string) => string;

const hiddenSeries = () => catalog.series.filter((s) => s.hidden);
const hiddenBooks = () => hiddenSeries().flatMap((s) => s.books.map((b) => ({ ...b, series: s })));
/** The first book of each series (of the Mature series: the one rated Everyone; of the copies: the copy of a visible book). */
const firstBooks = (series: readonly HouseholdSeries[]) => series.map((s) => ({ ...s.books[0]!, series: s }));
/** Hidden books whose KOReader document is theirs alone (a byte copy of a visible book has the visible book's). */
const hiddenDocuments = () => {
  const visible = new Set(catalog.series.filter((s) => !s.hidden).flatMap((s) => s.books.map((b) => b.document)));
  const seen = new Set<string>();
  return hiddenBooks().filter((b) => !visible.has(b.document) && !seen.has(b.document) && seen.add(b.document));
};

/** The credentials a client of each protocol uses: the web app a JWT, apps an API key (Basic `api:key`, KOReader's user field). */
function headersFor(url: string, user: HouseholdUser, how: 'jwt' | 'key' = 'jwt'): Headers {
  if (url.startsWith('/api/')) return how === 'jwt' ? user.jwt : { 'x-api-key': user.apiKey };
  if (url.startsWith('/koreader'))
    return { accept: 'application/vnd.koreader.v1+json', 'x-auth-user': user.apiKey, 'x-auth-key': md5('anything') };
  if (url.startsWith('/opds') || url.startsWith('/komga')) return basic('api', user.apiKey);
  // A Kobo sends no credential of its own: the key is in the path.
  if (url.startsWith('/kobo/')) return {};
  return user.jwt;
}

beforeAll(async () => {
  t = await createCatalogApp({ komga_api: { enabled: true }, inbox: { quiet_seconds: 0.2, check_seconds: 1 } });
  catalog = await buildHouseholdCatalog(t);
  secrets = secretsOf(catalog);
  // A file waiting in the inbox of each library: the hidden one's is as hidden as its books.
  inboxItems = {
    visible: await inboxItemIn(catalog.visibleLibrary.id, 'Visible Inbox Arrival 001.cbz'),
    hidden: await inboxItemIn(catalog.hiddenLibrary.id, `${HIDDEN_WORD} Inbox Arrival 001.cbz`),
  };
  inboxSecrets.push(
    { what: 'inbox item of the hidden library: id', value: inboxItems.hidden, kind: 'core' },
    { what: 'inbox item of the hidden library: file name', value: `${HIDDEN_WORD} Inbox Arrival`, kind: 'core' },
  );
  core = secrets.filter((s) => s.kind === 'core');

  // The reader first sees everything and reads: progress, On Deck and reading history then hold hidden books too.
  // Granted kobo-sync (no role but admin holds it), so that the Kobo routes are walked with a key that syncs.
  reader = await createHouseholdUser(t, { permissions: ['kobo-sync'] });
  const progress = async (bookId: string, body: Record<string, unknown>) => {
    const put = await t.app.inject({ method: 'PUT', url: `/api/v1/books/${bookId}/progress`, headers: reader.jwt, payload: body });
    if (put.statusCode !== 200) throw new Error(`progress of ${bookId}: ${put.statusCode} ${put.body}`);
  };
  const byKey = (key: string) => catalog.series.find((s) => s.key === key)!;
  await progress(byKey('visible').books[0]!.id, { is_completed: true });
  await progress(byKey('mature').books[0]!.id, { is_completed: true });
  for (const key of ['teen', 'labelled', 'other', 'novel']) await progress(byKey(key).books[0]!.id, { current_page: 1 });
  await setAccess(t, reader.id, restrictedAccess(catalog));
  maintainer = await createHouseholdUser(t, { ...restrictedAccess(catalog), permissions: ['kobo-sync'] }, 'maintainer');
  personas = [
    { name: 'reader', user: reader, sample: hiddenSeries() },
    // The same rules, so one series per reason (rating, label, library) for the by-id routes; every route all the same.
    { name: 'maintainer', user: maintainer, sample: hiddenSeries().filter((s) => ['mature', 'labelled', 'other'].includes(s.key)) },
  ];

  const doc = t.app.swagger() as Parameters<typeof openApiGets>[0];
  const gets = openApiGets(doc);
  documented = new Map(gets.map((g) => [g.url, g.query]));
  table = [...gets.map(({ method, url }) => ({ method, url })), ...t.app.routeTable];
  routeOf = routeMatcher(table);
  base = await t.app.listen({ host: '127.0.0.1', port: 0 });
});
afterAll(() => t.close());

let inboxItems: { visible: string; hidden: string };
/** What the inbox holds of the hidden library: as secret as its books (not in the catalog, so apart from `core`). */
const inboxSecrets: Secret[] = [];

/** An inbox folder for the library with one book dropped in; the id of its review item. */
async function inboxItemIn(libraryId: string, fileName: string): Promise<string> {
  const dir = path.join(makeTempDir('colophon-inbox-'), 'inbox');
  await mkdir(dir, { recursive: true });
  const folder = await api(t, 'POST', '/api/v1/inbox/folders', { path: dir, library_id: libraryId });
  if (folder.status !== 201) throw new Error(`inbox folder: ${folder.status} ${JSON.stringify(folder.body)}`);
  await makeCbz(dir, fileName, { pages: 1 });
  const deadline = Date.now() + 60_000;
  for (;;) {
    const items = await api<{ data: Array<{ id: string; file_name: string }> }>(t, 'GET', '/api/v1/inbox/items?pageSize=500');
    const item = items.body.data.find((i) => i.file_name === fileName);
    if (item) return item.id;
    if (Date.now() > deadline) throw new Error(`no inbox item for ${fileName}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The walk: every call is made once, the checks below read the answers.

interface Call {
  route: string;
  url: string;
  headers: Headers;
  /** How the route was called, for the report. */
  how: string;
  /** For a call with a hidden id: the id (its echo is judged by comparison with an id that does not exist). */
  hidden?: { value: string; what: string; kind: string };
  /** For a call with an id that does not exist: the id and the kind of id. */
  missing?: { value: string; kind: string };
  /** Hidden ids the call itself sends in its query or body: an answer may echo them (a self link), never add them. */
  sent?: string[];
  method?: 'GET' | 'POST';
  body?: unknown;
}

interface Answered extends Call {
  reply: Reply;
}

const visibleIds = (user: HouseholdUser): RouteIds => ({
  library: catalog.visibleLibrary.id,
  series: catalog.visible.id,
  book: catalog.visible.books[0]!.id,
  resource: 'OEBPS/chapter1.xhtml',
  user: user.id,
  komgaPrefix: 'komga',
  koreaderDocument: catalog.visible.books[0]!.document,
  koreaderKey: user.apiKey,
  koboKey: user.apiKey,
  inboxItem: inboxItems.visible,
});

/** The kinds of id a route parameter takes, each with the hidden values and one that exists nowhere. */
function idKinds(
  series: readonly HouseholdSeries[],
): Array<{ kind: keyof RouteIds; values: Array<{ value: string; what: string }>; missing: string }> {
  const documents = new Set(hiddenDocuments().map((b) => b.document));
  return [
    {
      kind: 'book',
      values: firstBooks(series).map((b) => ({ value: b.id, what: `book "${b.title}" (${b.series.why})` })),
      missing: randomUUID(),
    },
    { kind: 'series', values: series.map((s) => ({ value: s.id, what: `series "${s.name}" (${s.why})` })), missing: randomUUID() },
    {
      kind: 'library',
      values: [{ value: catalog.hiddenLibrary.id, what: `library "${catalog.hiddenLibrary.name}"` }],
      missing: randomUUID(),
    },
    { kind: 'inboxItem', values: [{ value: inboxItems.hidden, what: 'inbox item of the hidden library' }], missing: randomUUID() },
    {
      kind: 'koreaderDocument',
      values: firstBooks(series)
        .filter((b) => documents.has(b.document))
        .map((b) => ({ value: b.document, what: `KOReader document of book "${b.title}" (${b.series.why})` })),
      missing: unknownDocument(),
    },
  ];
}

/** Query strings naming hidden things, from the parameters an operation documents (or the usual names, for routes outside the document). */
function queryVariants(route: string): Array<{ how: string; query: string; sent: string[] }> {
  const last = route.split('/').pop() ?? '';
  if (last.includes('.')) return []; // static files (the web app, opensearch.xml): no query changes them
  const declared = documented.get(route);
  const names = declared ?? ['search', 'q', 'query', 'library_id', 'series_id'];
  // Every hidden series for the parameters an operation documents; one hidden by its library and one by its rating otherwise.
  const series = declared ? hiddenSeries() : hiddenSeries().filter((s) => ['other', 'mature'].includes(s.key));
  const out: Array<{ how: string; query: string; sent: string[] }> = [];
  const words = names.filter((n) => /^(q|query|search|term|searchTerms)$/i.test(n));
  if (words.length > 0) out.push({ how: `searching "${HIDDEN_WORD}"`, query: words.map((n) => `${n}=${HIDDEN_WORD}`).join('&'), sent: [] });
  for (const n of names.filter((x) => /^library_?id$/i.test(x)))
    out.push({ how: `${n} of the hidden library`, query: `${n}=${catalog.hiddenLibrary.id}`, sent: [catalog.hiddenLibrary.id] });
  for (const n of names.filter((x) => /^series_?id$/i.test(x)))
    for (const s of series) out.push({ how: `${n} of hidden series "${s.name}"`, query: `${n}=${s.id}`, sent: [s.id] });
  return out;
}

/** What Mihon's Komga extension asks (test/komga/mihon.test.ts), `{series}`/`{book}`/`{library}` filled like the walk. */
const MIHON = [
  '/komga/api/v1/libraries',
  '/komga/api/v1/collections?unpaged=true',
  '/komga/api/v1/genres',
  '/komga/api/v1/tags',
  '/komga/api/v1/publishers',
  '/komga/api/v1/authors',
  '/komga/api/v1/series?search=&page=0&deleted=false&sort=metadata.titleSort%2Casc&size=50',
  '/komga/api/v1/series?search=&page=0&deleted=false&sort=lastModifiedDate%2Cdesc',
  `/komga/api/v1/series?search=${HIDDEN_WORD}&page=0&deleted=false`,
  '/komga/api/v1/series?read_status=IN_PROGRESS&deleted=false',
  '/komga/api/v1/series?search=&page=0&deleted=false&sort=metadata.titleSort%2Casc&library_id={library}',
  '/komga/api/v1/series/{series}',
  '/komga/api/v1/series/{series}/books?unpaged=true&media_status=READY&deleted=false',
  '/komga/api/v1/series/{series}/thumbnail',
  '/komga/api/v2/series/{series}/read-progress/tachiyomi',
  '/komga/api/v1/books/{book}',
  '/komga/api/v1/books/{book}/pages',
  '/komga/api/v1/books/{book}/pages/1',
  '/komga/api/v1/books/{book}/pages/1?convert=png',
  '/komga/api/v1/books/{book}/pages/1/thumbnail',
  '/komga/api/v1/books/{book}/thumbnail',
  '/komga/api/v1/books/{book}/file',
];

/** Read-only searches that are POSTs: native full-text and filters, Komga's lists. */
function searches(): Array<{ url: string; body: unknown; how: string }> {
  const lib = catalog.hiddenLibrary.id;
  const out: Array<{ url: string; body: unknown; how: string }> = [
    { url: '/api/v1/series/search?pageSize=500', body: { query: HIDDEN_WORD }, how: `query "${HIDDEN_WORD}"` },
    { url: '/api/v1/series/search?pageSize=500', body: { query: HIDDEN_WORD, library_id: lib }, how: 'query in the hidden library' },
    { url: '/api/v1/series/list?pageSize=500', body: { fullTextSearch: HIDDEN_WORD }, how: `fullTextSearch "${HIDDEN_WORD}"` },
    { url: '/api/v1/series/list?pageSize=500', body: {}, how: 'no condition' },
    {
      url: '/api/v1/series/list?pageSize=500',
      body: { condition: { libraryId: { operator: 'is', value: lib } } },
      how: 'libraryId hidden',
    },
    { url: '/api/v1/books/list?pageSize=500', body: { fullTextSearch: HIDDEN_WORD }, how: `fullTextSearch "${HIDDEN_WORD}"` },
    { url: '/api/v1/books/list?pageSize=500', body: {}, how: 'no condition' },
    { url: '/api/v1/books/list?pageSize=500', body: { condition: { libraryId: { operator: 'is', value: lib } } }, how: 'libraryId hidden' },
    { url: '/komga/api/v1/series/list?size=500', body: { fullTextSearch: HIDDEN_WORD }, how: `fullTextSearch "${HIDDEN_WORD}"` },
    { url: '/komga/api/v1/series/list?size=500', body: {}, how: 'no condition' },
    {
      url: '/komga/api/v1/series/list?size=500',
      body: { condition: { libraryId: { operator: 'is', value: lib } } },
      how: 'libraryId hidden',
    },
    { url: '/komga/api/v1/books/list?size=500', body: { fullTextSearch: HIDDEN_WORD }, how: `fullTextSearch "${HIDDEN_WORD}"` },
    { url: '/komga/api/v1/books/list?size=500', body: {}, how: 'no condition' },
  ];
  for (const s of hiddenSeries()) {
    out.push(
      {
        url: '/api/v1/books/list?pageSize=500',
        body: { condition: { seriesId: { operator: 'is', value: s.id } } },
        how: `seriesId of hidden "${s.name}"`,
      },
      {
        url: '/komga/api/v1/books/list?size=500',
        body: { condition: { seriesId: { operator: 'is', value: s.id } } },
        how: `seriesId of hidden "${s.name}"`,
      },
    );
  }
  return out;
}

function buildCalls({ user, sample }: Persona): Call[] {
  const ids = visibleIds(user);
  const calls: Call[] = [];
  const visible = getRoutes(table, ids);
  const visibleUrl = new Map(visible.map((c) => [c.route, c.url]));
  for (const c of visible) {
    calls.push({ route: c.route, url: c.url, headers: headersFor(c.url, user), how: 'visible ids' });
    const parameterless = !c.route.includes(':') && !c.route.includes('*');
    if (parameterless && c.url.startsWith('/api/'))
      calls.push({ route: c.route, url: c.url, headers: headersFor(c.url, user, 'key'), how: 'API key' });
    if (parameterless)
      for (const v of queryVariants(c.route))
        calls.push({ route: c.route, url: `${c.url}?${v.query}`, headers: headersFor(c.url, user), how: v.how, sent: v.sent });
  }
  for (const { kind, values, missing } of idKinds(sample)) {
    const changed = (value: string) => getRoutes(table, { ...ids, [kind]: value }).filter((c) => c.url !== visibleUrl.get(c.route));
    for (const c of changed(missing))
      calls.push({
        route: c.route,
        url: c.url,
        headers: headersFor(c.url, user),
        how: `a ${kind} id that does not exist`,
        missing: { value: missing, kind },
      });
    for (const { value, what } of values)
      for (const c of changed(value))
        calls.push({
          route: c.route,
          url: c.url,
          headers: headersFor(c.url, user),
          how: `the id of ${what}`,
          hidden: { value, what, kind },
        });
  }
  // Mihon's calls, with their query strings.
  const missingSeries = randomUUID();
  const missingBook = randomUUID();
  for (const template of MIHON) {
    const route = `Mihon ${template}`;
    const headers = basic('api', user.apiKey);
    if (template.includes('{series}')) {
      calls.push({ route, url: template.replace('{series}', catalog.visible.id), headers, how: 'visible ids' });
      calls.push({
        route,
        url: template.replace('{series}', missingSeries),
        headers,
        how: 'a series id that does not exist',
        missing: { value: missingSeries, kind: 'series' },
      });
      for (const s of sample)
        calls.push({
          route,
          url: template.replace('{series}', s.id),
          headers,
          how: `the id of series "${s.name}" (${s.why})`,
          hidden: { value: s.id, what: `series "${s.name}" (${s.why})`, kind: 'series' },
        });
    } else if (template.includes('{book}')) {
      calls.push({ route, url: template.replace('{book}', catalog.visible.books[0]!.id), headers, how: 'visible ids' });
      calls.push({
        route,
        url: template.replace('{book}', missingBook),
        headers,
        how: 'a book id that does not exist',
        missing: { value: missingBook, kind: 'book' },
      });
      for (const b of firstBooks(sample))
        calls.push({
          route,
          url: template.replace('{book}', b.id),
          headers,
          how: `the id of book "${b.title}" (${b.series.why})`,
          hidden: { value: b.id, what: `book "${b.title}" (${b.series.why})`, kind: 'book' },
        });
    } else if (template.includes('{library}')) {
      calls.push({
        route,
        url: template.replace('{library}', catalog.hiddenLibrary.id),
        headers,
        how: 'library_id of the hidden library',
        sent: [catalog.hiddenLibrary.id],
      });
    } else calls.push({ route, url: template, headers, how: 'as Mihon asks' });
  }
  // Mihon's filters by the metadata only hidden series have.
  for (const s of hiddenSeries().filter((x) => x.key !== 'copy')) {
    const m = s.metadata;
    const url = `/komga/api/v1/series?search=&page=0&deleted=false&genre=${encodeURIComponent(m.genre!)}&publisher=${encodeURIComponent(m.publisher!)}&tag=${encodeURIComponent(m.tag!)}`;
    calls.push({
      route: 'Mihon /komga/api/v1/series',
      url,
      headers: basic('api', user.apiKey),
      how: `filters naming "${s.name}"'s metadata`,
    });
  }
  for (const s of searches()) {
    const headers = s.url.startsWith('/komga') ? basic('api', user.apiKey) : user.jwt;
    const sent = [catalog.hiddenLibrary.id, ...hiddenSeries().map((x) => x.id)].filter((id) => JSON.stringify(s.body).includes(id));
    calls.push({ route: `POST ${s.url.split('?')[0]!}`, url: s.url, headers, how: s.how, method: 'POST', body: s.body, sent });
  }
  return calls;
}

async function perform(call: Call): Promise<Answered> {
  if (call.method === 'POST') {
    const res = await fetch(`${base}${call.url}`, {
      method: 'POST',
      headers: { ...call.headers, 'content-type': 'application/json' },
      body: JSON.stringify(call.body),
    });
    const reply: Reply = {
      status: res.status,
      headers: Object.fromEntries(res.headers.entries()),
      text: Buffer.from(await res.arrayBuffer()).toString('latin1'),
    };
    return { ...call, reply };
  }
  return { ...call, reply: await httpGet(base, call.url, call.headers) };
}

const walks = new Map<string, Promise<Answered[]>>();
/** A persona's walk, made once for the tests that read it. */
function walk(persona: Persona): Promise<Answered[]> {
  let w = walks.get(persona.name);
  if (!w) {
    w = pool(buildCalls(persona), 4, perform);
    walks.set(persona.name, w);
  }
  return w;
}

const shortUrl = (url: string) => (url.length > 160 ? `${url.slice(0, 157)}...` : url);
const label = (a: { route: string; method?: string }) =>
  a.route.startsWith('POST ') || a.route.startsWith('Mihon ') ? a.route : `GET ${a.route}`;

/** One line per route, way of calling it and thing leaked. */
function leakReport(answers: readonly Answered[], which: readonly Secret[]): string[] {
  const lines = new Set<string>();
  for (const a of answers) {
    const except = new Set([...(a.hidden ? [a.hidden.value] : []), ...(a.sent ?? [])]);
    for (const s of secretsIn(a.reply, which, except))
      lines.add(`${label(a)} [${a.how}] ${a.reply.status}: ${s.what} — ${shortUrl(a.url)}`);
  }
  return [...lines].sort();
}

// ---------------------------------------------------------------------------------------------------------------

/** Every persona's walk (in turn: two cores), each report line prefixed with the persona. */
async function everyWalk(report: (persona: Persona, answers: readonly Answered[]) => string[]): Promise<string[]> {
  const lines: string[] = [];
  for (const persona of personas) lines.push(...report(persona, await walk(persona)).map((line) => `${persona.name}: ${line}`));
  return lines;
}

/** Hidden ids answered otherwise than ids that do not exist (status, or body with the id left out). */
function differences(answers: readonly Answered[]): { compared: number; report: string[] } {
  const missing = new Map<string, Answered>();
  for (const a of answers) if (a.missing) missing.set(`${a.route} ${a.missing.kind}`, a);
  const normalized = (a: Answered, id: string) => a.reply.text.split(id).join('<id>');
  const report: string[] = [];
  let compared = 0;
  for (const a of answers.filter((x) => x.hidden)) {
    const other = missing.get(`${a.route} ${a.hidden!.kind}`);
    if (!other) {
      report.push(`${label(a)}: no call with a ${a.hidden!.kind} id that does not exist to compare with`);
      continue;
    }
    compared += 1;
    if (a.reply.status !== other.reply.status)
      report.push(`${label(a)} with the id of ${a.hidden!.what}: ${a.reply.status}, an id that does not exist: ${other.reply.status}`);
    else if (normalized(a, a.hidden!.value) !== normalized(other, other.missing!.value))
      report.push(
        `${label(a)} with the id of ${a.hidden!.what}: ${a.reply.status} like an id that does not exist, but a different body: ` +
          `${JSON.stringify(normalized(a, a.hidden!.value).slice(0, 120))} vs ${JSON.stringify(normalized(other, other.missing!.value).slice(0, 120))}`,
      );
  }
  return { compared, report };
}

describe('A restricted reader (and a restricted maintainer) is told nothing about what it may not see', () => {
  it('the catalog is as meant: the admin sees every hidden series and book, the reader only "Visible Vale"', async () => {
    const adminSeries = await httpGet(base, '/api/v1/series?pageSize=500', t.headers);
    const adminBooks = await httpGet(base, '/api/v1/books?pageSize=500', t.headers);
    const adminLibraries = await httpGet(base, '/api/v1/libraries', t.headers);
    const seen = new Set([adminSeries, adminBooks, adminLibraries].flatMap((r) => secretsIn(r, core).map((s) => s.value)));
    expect(core.filter((s) => !seen.has(s.value)).map((s) => s.what)).toEqual([]);
    for (const persona of personas) {
      const series = JSON.parse((await httpGet(base, '/api/v1/series?pageSize=500', persona.user.jwt)).text) as {
        data: Array<{ name: string }>;
      };
      expect(
        series.data.map((s) => s.name),
        persona.name,
      ).toEqual(['Visible Vale']);
    }
    const ages = JSON.parse(adminSeries.text) as {
      data: Array<{ name: string; metadata: { age: number | null }; sharing_labels: string[] }>;
    };
    expect(Object.fromEntries(ages.data.map((s) => [s.name, s.metadata.age]))).toMatchObject({
      'Visible Vale': 0,
      'Visible Vale (2019)': 17,
      'Hidden Mature Moor': 17,
      'Hidden Teen Tarn': 13,
      'Hidden Unrated Umber': null,
      'Hidden Unrated Novels': null,
      'Hidden Labelled Larch': 0,
      'Hidden Other Library Oak': 0,
      'Hidden Copies Cove': 0,
    });
    expect(ages.data.find((s) => s.name === 'Hidden Labelled Larch')!.sharing_labels).toEqual(['secret']);
    // The duplicates routes have something to show: a copy of a visible book, copies of a hidden one, a title duplicate.
    const duplicates = await httpGet(base, '/api/v1/duplicates?pageSize=500', t.headers);
    expect(JSON.parse(duplicates.text)).toMatchObject({ total: 2 });
    const titles = await httpGet(base, '/api/v1/duplicates/series?matchType=title&pageSize=500', t.headers);
    expect(titles.text).toContain('Visible Vale (2019)');
  });

  it('the walk covers every GET operation of the OpenAPI document and every GET route (native, OPDS, Komga, KOReader)', async () => {
    const expected = [...documented.keys(), ...t.app.routeTable.filter((r) => r.method === 'GET').map((r) => r.url)];
    for (const persona of personas) {
      const answers = await walk(persona);
      const routes = new Set(answers.map((a) => a.route));
      expect(expected.filter((r) => !routes.has(r))).toEqual([]);
      for (const part of [
        '/api/v1/books/:id',
        '/opds/v1.2/',
        '/opds/v2/',
        ':komgaPrefix/api/v1/series/:seriesId',
        '/koreader/:key/syncs/progress/:document',
      ])
        expect(
          [...routes].some((r) => r.includes(part)),
          part,
        ).toBe(true);
      // Live: real answers with visible ids (a walk of 401s would find nothing).
      const ok = answers.filter((a) => a.how === 'visible ids' && a.reply.status === 200);
      expect(ok.length, persona.name).toBeGreaterThan(80);
      for (const route of [
        '/api/v1/books/:id',
        '/opds/v2/series/:id',
        '/:komgaPrefix/api/v1/books/:bookId',
        '/koreader/:key/syncs/progress/:document',
      ])
        expect(
          ok.some((a) => a.route === route),
          `${persona.name} ${route}`,
        ).toBe(true);
    }
    // The maintainer reaches the routes a reader may not call.
    const maintainerOk = new Set((await walk(personas[1]!)).filter((a) => a.reply.status === 200).map((a) => a.route));
    for (const route of ['/api/v1/duplicates', '/api/v1/duplicates/series', '/api/v1/tasks'])
      expect(maintainerOk.has(route), route).toBe(true);
  }, 120_000); // the walk itself: about 2000 requests (20 s on SQLite, 40 s on PostgreSQL on two idle cores)

  it("no answer names a hidden series, book or library (id, name, title): visible ids, hidden ids, filters and searches naming them, Mihon's calls", async () => {
    const report = await everyWalk((_, answers) => leakReport(answers, [...core, ...inboxSecrets]));
    expect(report, `${report.length} leaks:\n${report.join('\n')}`).toEqual([]);
  }, 60_000);

  it('every route taking a book, series or library id (or a KOReader document) answers a hidden one as one that does not exist', async () => {
    const report = await everyWalk((persona, answers) => {
      const { compared, report: lines } = differences(answers);
      expect(compared, persona.name).toBeGreaterThan(200);
      return lines;
    });
    expect(report, `${report.length} differences:\n${report.join('\n')}`).toEqual([]);
  }, 60_000);

  it('no answer offers the metadata only hidden series have (authors, publisher, genre, tag) in lists or facets', async () => {
    const metadata = secrets.filter((s) => s.kind === 'metadata');
    const report = await everyWalk((_, answers) => leakReport(answers, metadata));
    expect(report, `${report.length} leaks:\n${report.join('\n')}`).toEqual([]);
  }, 60_000);

  it(`the OPDS 1.2 and 2.0 feeds reachable from the roots (searches for "${HIDDEN_WORD}" included) name no hidden series, book or library`, async () => {
    const roots = ['/opds/v1.2/catalog', '/opds/v1/catalog', '/opds/v1.2', '/opds/v1', '/opds/v2', '/opds/v2/catalog'];
    const report: string[] = [];
    for (const persona of personas) {
      const { visited, truncated } = await crawlFeeds(base, roots, basic('api', persona.user.apiKey), HIDDEN_WORD, 500);
      expect(truncated).toBe(false);
      const urls = visited.map((v) => v.url);
      // The crawl went through searches and down to the visible books (live).
      expect(urls.some((u) => u.includes(`q=${HIDDEN_WORD}`))).toBe(true);
      expect(urls.some((u) => u.includes(`query=${HIDDEN_WORD}`))).toBe(true);
      expect(urls.some((u) => u.includes(catalog.visible.books[1]!.id))).toBe(true);
      expect(visited.filter((v) => v.reply.status !== 200).map((v) => `${v.reply.status} ${v.url}`)).toEqual([]);
      const answers: Answered[] = visited.map((v) => ({ route: routeOf(v.url), url: v.url, headers: {}, how: 'crawled', reply: v.reply }));
      report.push(...leakReport(answers, secrets).map((line) => `${persona.name}: ${line}`));
    }
    expect(report, `${report.length} leaks:\n${report.join('\n')}`).toEqual([]);
  }, 60_000);

  it("KOReader sync: a hidden book's document is answered as one that names no book, and a position sent for it reaches no book", async () => {
    const client = (user: HouseholdUser) => async (method: 'GET' | 'PUT', url: string, body?: unknown) => {
      const res = await t.app.inject({
        method,
        url: `/koreader/${user.apiKey}${url}`,
        headers: { accept: 'application/vnd.koreader.v1+json', 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
      });
      return { status: res.statusCode, body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : null };
    };
    /** An answer with its document id and time left out, to compare two documents' answers. */
    const shape = (reply: { status: number; body: Record<string, unknown> | null }, document: string) =>
      `${reply.status} ${JSON.stringify(reply.body)
        .split(document)
        .join('<document>')
        .replace(/"timestamp":\d+/, '"timestamp":0')}`;
    const position = { progress: '/body/DocFragment[2]/body', percentage: 0.42, device: 'Kobo', device_id: 'KOBO1' };
    const report: string[] = [];

    // The restricted reader, for every hidden book: asked, then sent a position, then asked again.
    const sync = client(reader);
    const progressOf = (bookId: string) =>
      t.database.db.selectFrom('read_progress').selectAll().where('user_id', '=', reader.id).where('book_id', '=', bookId).execute();
    for (const b of hiddenDocuments()) {
      const nowhere = unknownDocument();
      const asked = [await sync('GET', `/syncs/progress/${b.document}`), await sync('GET', `/syncs/progress/${nowhere}`)] as const;
      if (shape(asked[0], b.document) !== shape(asked[1], nowhere))
        report.push(
          `GET /syncs/progress/{document} of "${b.title}" (${b.series.why}): ${shape(asked[0], b.document)}; a document naming no book: ${shape(asked[1], nowhere)}`,
        );
      const before = JSON.stringify(await progressOf(b.id));
      const put = [
        await sync('PUT', '/syncs/progress', { ...position, document: b.document }),
        await sync('PUT', '/syncs/progress', { ...position, document: nowhere }),
      ] as const;
      if (shape(put[0], b.document) !== shape(put[1], nowhere))
        report.push(
          `PUT /syncs/progress of "${b.title}" (${b.series.why}): ${shape(put[0], b.document)}; a document naming no book: ${shape(put[1], nowhere)}`,
        );
      const after = JSON.stringify(await progressOf(b.id));
      if (after !== before)
        report.push(`PUT /syncs/progress of "${b.title}" (${b.series.why}) moved the hidden book's progress: ${before} → ${after}`);
      const again = [await sync('GET', `/syncs/progress/${b.document}`), await sync('GET', `/syncs/progress/${nowhere}`)] as const;
      if (shape(again[0], b.document) !== shape(again[1], nowhere))
        report.push(
          `GET /syncs/progress/{document} of "${b.title}" after a PUT: ${shape(again[0], b.document)}; a document naming no book: ${shape(again[1], nowhere)}`,
        );
      const text = JSON.stringify([asked[0].body, put[0].body, again[0].body]);
      for (const leak of secretsIn({ status: 200, headers: {}, text }, core))
        report.push(`KOReader's answers for "${b.title}" name ${leak.what}`);
    }
    const rows = await t.database.db
      .selectFrom('kosync_documents')
      .select(['document', 'book_id'])
      .where('user_id', '=', reader.id)
      .execute();
    for (const r of rows) {
      const b = hiddenDocuments().find((x) => x.document === r.document);
      if (b && r.book_id !== null)
        report.push(`kosync_documents: the position sent for "${b.title}" (${b.series.why}) was attached to book ${r.book_id}`);
    }
    expect(rows.length).toBe(hiddenDocuments().length * 2);

    // A reader who synced a book while it was visible, then lost sight of it: answered like a document that named no book then either.
    const earlier = await createHouseholdUser(t);
    const teen = hiddenBooks().find((b) => b.series.key === 'teen')!;
    const nowhere = unknownDocument();
    for (const document of [teen.document, nowhere])
      expect((await client(earlier)('PUT', '/syncs/progress', { ...position, document })).status).toBe(200);
    await setAccess(t, earlier.id, restrictedAccess(catalog));
    const asked = [
      await client(earlier)('GET', `/syncs/progress/${teen.document}`),
      await client(earlier)('GET', `/syncs/progress/${nowhere}`),
    ] as const;
    if (shape(asked[0], teen.document) !== shape(asked[1], nowhere))
      report.push(
        `GET /syncs/progress/{document} of "${teen.title}" synced while visible: ${shape(asked[0], teen.document)}; a document naming no book synced then: ${shape(asked[1], nowhere)}`,
      );
    expect(report, report.join('\n')).toEqual([]);
  });

  it('the entity and scan event streams say nothing about hidden libraries, series and books', async () => {
    const streams = personas.flatMap((persona) =>
      ['/api/v1/events/stream', '/api/v1/scans/stream', '/api/v1/tasks/stream'].map((url) => listen(url, persona.user.jwt, persona.name)),
    );
    // The administrator listens too: what it hears shows that the events about hidden things were sent.
    const admin = listen('/api/v1/events/stream', t.headers);
    const statuses = await Promise.all(streams.map((s) => s.opened));
    expect(await admin.opened).toBe(200);
    try {
      // New books in a hidden series of the visible library, in the hidden library, and in the visible series (live).
      const mature = catalog.series.find((s) => s.key === 'mature')!;
      const other = catalog.series.find((s) => s.key === 'other')!;
      const add = (dir: string, series: string, n: number, title: string, rating: string) =>
        makeCbz(path.join(dir, series), `${series} ${String(n).padStart(3, '0')}.cbz`, {
          pages: 1,
          pageSize: { width: 40, height: 60 },
          comicInfo: comicInfoXml({ Series: series, Number: String(n), Title: title, AgeRating: rating }),
        });
      await add(catalog.visibleLibrary.dir, mature.name, 3, 'Moor Hidden Chapter 3', 'Mature 17+');
      await add(catalog.hiddenLibrary.dir, other.name, 2, 'Oak Hidden Chapter 2', 'Everyone');
      await add(catalog.visibleLibrary.dir, catalog.visible.name, 3, 'Vale Open Chapter 3', 'Everyone');
      await scan(t, catalog.hiddenLibrary.id);
      await scan(t, catalog.visibleLibrary.id);
      // Sharing labels changed on a hidden series.
      const labelled = catalog.series.find((s) => s.key === 'labelled')!;
      expect((await api(t, 'PATCH', `/api/v1/series/${labelled.id}`, { sharing_labels: ['Secret', 'Grown-ups'] })).status).toBe(200);
      const deadline = Date.now() + 10_000;
      const entity = streams.filter((s) => s.url === '/api/v1/events/stream');
      const heard = () => entity.every((s) => s.text().includes(catalog.visible.id)) && admin.text().includes(other.id);
      while (!heard() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    } finally {
      for (const s of [...streams, admin]) s.close();
    }
    const books = await api<{ data: Array<{ id: string; title: string }> }>(t, 'GET', '/api/v1/books?pageSize=500');
    const added = books.body.data
      .filter((b) => ['Moor Hidden Chapter 3', 'Oak Hidden Chapter 2'].includes(b.title))
      .map((b): Secret => ({ what: `new book "${b.title}": id`, value: b.id, kind: 'core' }));
    expect(added).toHaveLength(2);
    for (const id of [...added.map((a) => a.value), catalog.hiddenLibrary.id]) expect(admin.text()).toContain(id);
    const report: string[] = [];
    streams.forEach((s, i) => {
      const reply: Reply = { status: statuses[i]!, headers: {}, text: s.text() };
      for (const leak of secretsIn(reply, [...core, ...added])) report.push(`${s.who}: GET ${s.url} (${statuses[i]}): ${leak.what}`);
    });
    // Live: every entity stream heard about the visible series.
    for (const [i, s] of streams.entries())
      if (s.url === '/api/v1/events/stream') {
        expect(statuses[i], s.who).toBe(200);
        expect(s.text(), s.who).toContain(catalog.visible.id);
      }
    expect(report, `${report.length} leaks:\n${report.join('\n')}`).toEqual([]);
  }, 60_000);
});

/** An event stream read in the background until closed. */
function listen(url: string, headers: Headers, who = 'admin') {
  const controller = new AbortController();
  let text = '';
  const opened = (async () => {
    const res = await fetch(`${base}${url}`, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) text += decoder.decode(chunk, { stream: true });
      } catch {
        // closed
      }
    })();
    return res.status;
  })();
  return { url, who, opened, text: () => text, close: () => controller.abort() };
}

// ---------------------------------------------------------------------------------------------------------------

describe('A change of access holds on the very next request, on this instance and on another one sharing the database', () => {
  it("labels, age limit, libraries (PATCH /users/{id}) and a series' labels (PATCH /series/{id}), by JWT, API key, Komga and OPDS", async () => {
    const other = await buildApp({ config: t.config, database: openDatabase(t.config), logger: false });
    try {
      await other.ready();
      const instances: Array<{ name: string; app: App }> = [
        { name: 'this instance', app: t.app },
        { name: 'another instance', app: other },
      ];
      const user = await createHouseholdUser(t, restrictedAccess(catalog));
      const byKey = (key: string) => catalog.series.find((s) => s.key === key)!;

      /** Whether the user sees a series, asked every way a client asks; each answer on its own. */
      const probes = (seriesId: string): Array<{ how: string; ask: (app: App) => Promise<boolean> }> => {
        const status = async (app: App, url: string, headers: Headers) => (await app.inject({ method: 'GET', url, headers })).statusCode;
        const named = async (app: App, url: string, headers: Headers) =>
          (await app.inject({ method: 'GET', url, headers })).body.includes(seriesId);
        const key = { 'x-api-key': user.apiKey };
        const opds = basic('api', user.apiKey);
        const s404 = (code: number) => {
          if (code !== 200 && code !== 404) throw new Error(`unexpected ${code}`);
          return code === 200;
        };
        return [
          { how: 'GET /api/v1/series/{id} (JWT)', ask: async (app) => s404(await status(app, `/api/v1/series/${seriesId}`, user.jwt)) },
          { how: 'GET /api/v1/series (JWT)', ask: (app) => named(app, '/api/v1/series?pageSize=500', user.jwt) },
          { how: 'GET /api/v1/series/{id} (API key)', ask: async (app) => s404(await status(app, `/api/v1/series/${seriesId}`, key)) },
          { how: 'GET /api/v1/books (API key)', ask: (app) => named(app, '/api/v1/books?pageSize=500', key) },
          { how: 'GET /komga/api/v1/series/{id}', ask: async (app) => s404(await status(app, `/komga/api/v1/series/${seriesId}`, opds)) },
          { how: 'GET /komga/api/v1/series', ask: (app) => named(app, '/komga/api/v1/series?size=500', opds) },
          { how: 'GET /opds/v1.2/series/{id}', ask: async (app) => s404(await status(app, `/opds/v1.2/series/${seriesId}`, opds)) },
          { how: 'GET /opds/v2/series', ask: (app) => named(app, '/opds/v2/series?pageSize=500', opds) },
        ];
      };
      const failures: string[] = [];
      const expectSeen = async (step: string, seriesId: string, name: string, seen: boolean) => {
        for (const { name: where, app } of instances)
          for (const probe of probes(seriesId)) {
            let got: boolean | string;
            try {
              got = await probe.ask(app);
            } catch (err) {
              got = String(err);
            }
            if (got !== seen)
              failures.push(
                `${step}: ${where}, ${probe.how}: "${name}" ${got === true ? 'seen' : got === false ? 'not seen' : got} (expected ${seen ? 'seen' : 'not seen'})`,
              );
          }
      };
      // Warm whatever each instance remembers of the user.
      for (let i = 0; i < 2; i++) await expectSeen('before any change', byKey('labelled').id, 'Hidden Labelled Larch', false);
      await expectSeen('before any change', catalog.visible.id, 'Visible Vale', true);

      const patchUser = async (via: number, body: Record<string, unknown>) => {
        const res = await instances[via]!.app.inject({
          method: 'PATCH',
          url: `/api/v1/users/${user.id}`,
          headers: t.headers,
          payload: body,
        });
        expect(res.statusCode, res.body).toBe(200);
      };
      const patchSeries = async (via: number, id: string, labels: string[]) => {
        const res = await instances[via]!.app.inject({
          method: 'PATCH',
          url: `/api/v1/series/${id}`,
          headers: t.headers,
          payload: { sharing_labels: labels },
        });
        expect(res.statusCode, res.body).toBe(200);
      };
      const steps: Array<{ step: string; change: (via: number) => Promise<void>; series: string; seen: boolean }> = [
        { step: 'labels_exclude []', change: (via) => patchUser(via, { labels_exclude: [] }), series: 'labelled', seen: true },
        {
          step: 'labels_exclude ["secret"] again',
          change: (via) => patchUser(via, { labels_exclude: ['secret'] }),
          series: 'labelled',
          seen: false,
        },
        {
          step: "the series' labels removed (PATCH /series/{id})",
          change: (via) => patchSeries(via, byKey('labelled').id, []),
          series: 'labelled',
          seen: true,
        },
        {
          step: 'the series labelled "Secret" again',
          change: (via) => patchSeries(via, byKey('labelled').id, ['Secret']),
          series: 'labelled',
          seen: false,
        },
        {
          step: 'age_restriction up to 17',
          change: (via) => patchUser(via, { age_restriction: { max_age: 17, include_unrated: false } }),
          series: 'mature',
          seen: true,
        },
        {
          step: 'age_restriction up to 12 again',
          change: (via) => patchUser(via, { age_restriction: { max_age: 12, include_unrated: false } }),
          series: 'mature',
          seen: false,
        },
        {
          step: 'unrated series included',
          change: (via) => patchUser(via, { age_restriction: { max_age: 12, include_unrated: true } }),
          series: 'unrated',
          seen: true,
        },
        {
          step: 'unrated series excluded again',
          change: (via) => patchUser(via, { age_restriction: { max_age: 12, include_unrated: false } }),
          series: 'unrated',
          seen: false,
        },
        { step: 'library_access all', change: (via) => patchUser(via, { library_access: { all: true } }), series: 'other', seen: true },
        {
          step: 'library_access library A only again',
          change: (via) => patchUser(via, { library_access: { all: false, library_ids: [catalog.visibleLibrary.id] } }),
          series: 'other',
          seen: false,
        },
        {
          step: 'labels_allow ["grown-ups"] (Visible Vale has no label)',
          change: (via) => patchUser(via, { labels_allow: ['grown-ups'] }),
          series: 'visible',
          seen: false,
        },
        { step: 'labels_allow [] again', change: (via) => patchUser(via, { labels_allow: [] }), series: 'visible', seen: true },
      ];
      for (const [i, { step, change, series, seen }] of steps.entries()) {
        const via = i % 2;
        await change(via);
        await expectSeen(`after ${step} (changed on ${instances[via]!.name})`, byKey(series).id, byKey(series).name, seen);
      }
      expect(failures, failures.join('\n')).toEqual([]);
    } finally {
      await other.close();
    }
  }, 60_000);
});
