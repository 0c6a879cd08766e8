/**
 * A household catalog for the access-rule tests (issue 36): real files in two libraries, series that a restricted
 * reader may and may not see, each with distinctive names, titles and metadata, so that a leak is found by looking
 * for those strings in whatever the server answers. Also: a user created with access fields, an HTTP client over a
 * real port that reads event streams for a moment only, and the search for secrets in an answer.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { RouteEntry } from '../../src/http/route-table.js';
import { comicInfoXml, makeCbz, makeEpub } from '../media/fixtures.js';
import { api, createLibrary, libraryDir, scan, waitForTask, type CatalogTestApp } from '../scanner/helpers.js';
import { createApiKey, type Headers } from './auth.js';
import { koreaderPartialMd5 } from './koreader.js';

/** The word every hidden name and title carries: searching for it finds them all (as the admin). */
export const HIDDEN_WORD = 'Hidden';

export interface HouseholdBook {
  id: string;
  title: string;
  /** False for a byte copy of a visible book: its title is the visible one's. */
  titleIsSecret: boolean;
  file: string;
  /** KOReader's partial MD5 of the file (its document id). */
  document: string;
}

export interface HouseholdSeries {
  key: string;
  id: string;
  name: string;
  hidden: boolean;
  /** Why the restricted reader may not see it. */
  why: string;
  books: HouseholdBook[];
  /** Metadata only this series has (authors, publisher, genre, tag): facet lists must not offer it either. */
  metadata: Record<string, string>;
}

export interface HouseholdCatalog {
  visibleLibrary: { id: string; name: string; dir: string };
  hiddenLibrary: { id: string; name: string; dir: string };
  series: HouseholdSeries[];
  visible: HouseholdSeries;
  /** The label the restricted reader excludes. */
  label: string;
}

interface SeriesSpec {
  key: string;
  name: string;
  library: 'visible' | 'hidden';
  why: string;
  /** One rating per book (undefined: no AgeRating). */
  ratings: Array<string | undefined>;
  titleStem: string;
  labels?: string[];
  epub?: boolean;
  /** Its one book is a byte copy of the first book of this series (a duplicate group with it). */
  copyOf?: string;
  /** Also a byte copy of its first book in the same folder (a duplicate group of hidden books only). */
  duplicateFirst?: boolean;
  /** The first book's ComicInfo has no Series: the folder names the series (so that a copy elsewhere is named by its own folder). */
  seriesFromFolder?: boolean;
}

const SPECS: SeriesSpec[] = [
  {
    key: 'visible',
    name: 'Visible Vale',
    library: 'visible',
    why: '',
    ratings: ['Everyone', 'Everyone'],
    titleStem: 'Vale Open Chapter',
    seriesFromFolder: true,
  },
  // As old as its oldest-rated book: one book is for everyone, the other Mature 17+.
  {
    key: 'mature',
    name: 'Hidden Mature Moor',
    library: 'visible',
    why: 'rated Mature 17+ (one book Everyone)',
    ratings: ['Everyone', 'Mature 17+'],
    titleStem: 'Moor Hidden Chapter',
    duplicateFirst: true,
  },
  // Its name is the visible series' with a year: the two are a series title duplicate.
  {
    key: 'year',
    name: 'Visible Vale (2019)',
    library: 'visible',
    why: 'rated Mature 17+, a title duplicate of Visible Vale',
    ratings: ['Mature 17+'],
    titleStem: 'Vale Year Hidden Chapter',
  },
  {
    key: 'teen',
    name: 'Hidden Teen Tarn',
    library: 'visible',
    why: 'rated Teen (13)',
    ratings: ['Teen'],
    titleStem: 'Tarn Hidden Chapter',
  },
  {
    key: 'unrated',
    name: 'Hidden Unrated Umber',
    library: 'visible',
    why: 'unrated',
    ratings: [undefined],
    titleStem: 'Umber Hidden Chapter',
  },
  {
    key: 'labelled',
    name: 'Hidden Labelled Larch',
    library: 'visible',
    why: 'labelled "secret"',
    ratings: ['Everyone'],
    titleStem: 'Larch Hidden Chapter',
    labels: ['Secret'],
  },
  {
    key: 'novel',
    name: 'Hidden Unrated Novels',
    library: 'visible',
    why: 'an unrated EPUB',
    ratings: [undefined],
    titleStem: 'Novel Hidden Quill',
    epub: true,
  },
  {
    key: 'other',
    name: 'Hidden Other Library Oak',
    library: 'hidden',
    why: 'in the other library',
    ratings: ['Everyone'],
    titleStem: 'Oak Hidden Chapter',
  },
  {
    key: 'copy',
    name: 'Hidden Copies Cove',
    library: 'hidden',
    why: 'in the other library, a byte copy of Visible Vale 1',
    ratings: [],
    titleStem: '',
    copyOf: 'visible',
  },
];

const capitalized = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

function metadataOf(spec: SeriesSpec): Record<string, string> {
  const stem = capitalized(spec.key);
  return {
    writer: `${stem} Writer ${spec.key === 'visible' ? 'Openson' : 'Hiddenson'}`,
    publisher: `${stem} Publisher ${spec.key === 'visible' ? 'Openhaus' : 'Hiddenhaus'}`,
    genre: `${stem} Genre ${spec.key === 'visible' ? 'Openia' : 'Hiddenia'}`,
    tag: `${spec.key}-tag-${spec.key === 'visible' ? 'openia' : 'hiddenia'}`,
  };
}

type Written = Array<{ title: string; file: string; titleIsSecret: boolean }>;

async function writeSeries(dir: string, spec: SeriesSpec, written: ReadonlyMap<string, Written>): Promise<Written> {
  const meta = metadataOf(spec);
  const out: Written = [];
  if (spec.copyOf) {
    const source = written.get(spec.copyOf)![0]!;
    const file = path.join(dir, spec.name, `${spec.name} 001.cbz`);
    await mkdir(path.dirname(file), { recursive: true });
    await copyFile(source.file, file);
    return [{ title: source.title, file, titleIsSecret: false }];
  }
  for (const [i, rating] of spec.ratings.entries()) {
    const n = i + 1;
    const title = `${spec.titleStem} ${n}`;
    if (spec.epub) {
      const file = await makeEpub(path.join(dir, spec.name), `${spec.name} ${n}.epub`, {
        pages: 1,
        metadata: {
          title,
          creators: [{ name: meta.writer!, role: 'aut' }],
          publisher: meta.publisher,
          subjects: [meta.genre!],
          series: spec.name,
          seriesIndex: String(n),
          uuid: randomUUID(),
        },
      });
      out.push({ title, file, titleIsSecret: true });
      continue;
    }
    const comicInfo = comicInfoXml({
      ...(spec.seriesFromFolder && n === 1 ? {} : { Series: spec.name }),
      Number: String(n),
      Title: title,
      Writer: meta.writer!,
      Publisher: meta.publisher!,
      Genre: meta.genre!,
      Tags: meta.tag!,
      ...(rating ? { AgeRating: rating } : {}),
    });
    const file = await makeCbz(path.join(dir, spec.name), `${spec.name} ${String(n).padStart(3, '0')}.cbz`, {
      pages: 2,
      pageSize: { width: 40, height: 60 },
      comicInfo,
    });
    out.push({ title, file, titleIsSecret: true });
  }
  if (spec.duplicateFirst) {
    const file = path.join(dir, spec.name, `${spec.name} 001 again.cbz`);
    await copyFile(out[0]!.file, file);
    out.push({ title: out[0]!.title, file, titleIsSecret: true });
  }
  return out;
}

interface BookRow {
  id: string;
  series_id: string;
  title: string | null;
  path: string;
}

/**
 * Two libraries scanned to completion, and duplicates detected. Library A ("Visible Shelf Aster"): Visible Vale
 * (Everyone, two books) and the series a reader limited to 12 without unrated series and without "secret" may not
 * see: Hidden Mature Moor (one book Everyone, one Mature 17+: as old as its oldest; plus a byte copy of its first
 * book), Hidden Teen Tarn (Teen), Hidden Unrated Umber (no rating), Hidden Labelled Larch (Everyone, labelled
 * "Secret" with PATCH /series/{id}), Hidden Unrated Novels (an EPUB), Visible Vale (2019) (Mature 17+, a series
 * title duplicate of Visible Vale). Library B ("Hidden Shelf Borealis"): Hidden Other Library Oak (Everyone) and
 * Hidden Copies Cove (a byte copy of Visible Vale's first book: a duplicate group across the libraries).
 */
export async function buildHouseholdCatalog(t: CatalogTestApp): Promise<HouseholdCatalog> {
  const libraries = {
    visible: { name: 'Visible Shelf Aster', dir: libraryDir(), id: '' },
    hidden: { name: 'Hidden Shelf Borealis', dir: libraryDir(), id: '' },
  };
  const files = new Map<string, Written>();
  for (const spec of SPECS) files.set(spec.key, await writeSeries(libraries[spec.library].dir, spec, files));
  for (const lib of Object.values(libraries)) {
    lib.id = (await createLibrary(t, lib.dir, { name: lib.name })).id;
    await scan(t, lib.id);
  }
  // Duplicate groups (book copies, series titles) for the duplicates routes.
  const detect = await api<{ id: string }>(t, 'POST', '/api/v1/duplicates/scan');
  if (detect.status !== 202) throw new Error(`duplicate scan: ${detect.status} ${JSON.stringify(detect.body)}`);
  await waitForTask(t, detect.body.id);
  const books = await api<{ data: BookRow[] }>(t, 'GET', '/api/v1/books?pageSize=500');
  if (books.status !== 200) throw new Error(`listing books failed: ${books.status}`);
  const series: HouseholdSeries[] = [];
  for (const spec of SPECS) {
    const lib = libraries[spec.library];
    const mine = files.get(spec.key)!.map(({ title, file, titleIsSecret }) => {
      const relative = path.relative(lib.dir, file);
      const row = books.body.data.find((b) => b.path === relative);
      if (!row) throw new Error(`the scan did not add ${relative}`);
      return { row, title, file, titleIsSecret };
    });
    const seriesId = mine[0]!.row.series_id;
    if (mine.some((b) => b.row.series_id !== seriesId)) throw new Error(`the books of ${spec.name} are in several series`);
    if (spec.labels) {
      const res = await api(t, 'PATCH', `/api/v1/series/${seriesId}`, { sharing_labels: spec.labels });
      if (res.status !== 200) throw new Error(`PATCH /series/${seriesId} failed: ${res.status} ${JSON.stringify(res.body)}`);
    }
    series.push({
      key: spec.key,
      id: seriesId,
      name: spec.name,
      hidden: spec.key !== 'visible',
      why: spec.why,
      metadata: metadataOf(spec),
      books: mine.map(({ row, title, file, titleIsSecret }) => ({
        id: row.id,
        title,
        file,
        titleIsSecret,
        document: koreaderPartialMd5(file),
      })),
    });
  }
  const names = await api<{ data: Array<{ id: string; name: string }> }>(t, 'GET', '/api/v1/series?pageSize=500');
  for (const s of series) {
    const found = names.body.data.find((x) => x.id === s.id)?.name;
    if (found !== s.name) throw new Error(`series ${s.id} is named ${String(found)}, not ${s.name}`);
  }
  return {
    visibleLibrary: libraries.visible,
    hiddenLibrary: libraries.hidden,
    series,
    visible: series.find((s) => s.key === 'visible')!,
    label: 'secret',
  };
}

/** The access of the household's restricted reader: library A only, up to 12 without unrated series, never "secret". */
export const restrictedAccess = (catalog: HouseholdCatalog) => ({
  library_access: { all: false, library_ids: [catalog.visibleLibrary.id] },
  age_restriction: { max_age: 12, include_unrated: false },
  labels_allow: [] as string[],
  labels_exclude: [catalog.label],
});

export interface HouseholdUser {
  id: string;
  username: string;
  password: string;
  /** Bearer JWT. */
  jwt: Headers;
  apiKey: string;
}

let counter = 0;

/** A reader (or maintainer) created through POST /users with the given access fields (none: the default), logged in, with an API key. */
export async function createHouseholdUser(
  t: CatalogTestApp,
  access: Record<string, unknown> = {},
  role: 'reader' | 'maintainer' = 'reader',
): Promise<HouseholdUser> {
  counter += 1;
  const username = `household${counter}_${randomBytes(3).toString('hex')}`;
  const password = 'password-for-household';
  const created = await api<{ id: string }>(t, 'POST', '/api/v1/users', {
    username,
    email: `${username}@example.org`,
    password,
    role,
    ...access,
  });
  if (created.status !== 201) throw new Error(`create user failed: ${created.status} ${JSON.stringify(created.body)}`);
  const login = await t.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password } });
  if (login.statusCode !== 200) throw new Error(`login failed: ${login.statusCode} ${login.body}`);
  const jwt = { authorization: `Bearer ${login.json<{ access_token: string }>().access_token}` };
  const key = await createApiKey(t, jwt, { name: 'household reader app' });
  return { id: created.body.id, username, password, jwt, apiKey: key.key };
}

/** Changes a user's access with PATCH /users/{id}, as an administrator; throws unless it is accepted. */
export async function setAccess(t: CatalogTestApp, userId: string, access: Record<string, unknown>): Promise<void> {
  const res = await api(t, 'PATCH', `/api/v1/users/${userId}`, access);
  if (res.status !== 200) throw new Error(`PATCH /users/${userId} failed: ${res.status} ${JSON.stringify(res.body)}`);
}

// ---------------------------------------------------------------------------------------------------------------
// Secrets and where they show

export interface Secret {
  /** What it is, for the report: `series "Hidden Mature Moor" (rated Mature 17+): name`. */
  what: string;
  value: string;
  kind: 'core' | 'metadata';
}

/**
 * What the restricted reader must never be told: the id, name and title of every hidden series and book, the id and
 * name of the hidden library (kind `core`), and the metadata only hidden series carry (kind `metadata`: authors,
 * publisher, genre, tag).
 */
export function secretsOf(catalog: HouseholdCatalog): Secret[] {
  const out: Secret[] = [
    { what: `library "${catalog.hiddenLibrary.name}": id`, value: catalog.hiddenLibrary.id, kind: 'core' },
    { what: `library "${catalog.hiddenLibrary.name}": name`, value: catalog.hiddenLibrary.name, kind: 'core' },
  ];
  for (const s of catalog.series.filter((x) => x.hidden)) {
    const label = `series "${s.name}" (${s.why})`;
    out.push({ what: `${label}: id`, value: s.id, kind: 'core' }, { what: `${label}: name`, value: s.name, kind: 'core' });
    for (const b of s.books) {
      const book = `book "${b.title}" (${path.basename(b.file)}) of ${label}`;
      out.push({ what: `${book}: id`, value: b.id, kind: 'core' });
      if (b.titleIsSecret && !out.some((x) => x.value === b.title)) out.push({ what: `${book}: title`, value: b.title, kind: 'core' });
    }
    if (s.key !== 'copy')
      for (const [field, value] of Object.entries(s.metadata)) out.push({ what: `${label}: ${field} "${value}"`, value, kind: 'metadata' });
  }
  return out;
}

export interface Reply {
  status: number;
  headers: Record<string, string>;
  /** The body as latin1 text (binary bodies too: the secrets are ASCII). */
  text: string;
}

/** The forms a value may take in an answer: as is, URL-encoded (links), with `+` for spaces (query strings). */
function formsOf(value: string): string[] {
  return [...new Set([value, encodeURIComponent(value), encodeURIComponent(value).replace(/%20/g, '+')].map((v) => v.toLowerCase()))];
}

/** The secrets an answer names, in its body or its headers (Content-Disposition, Location, Link...), ignoring case. */
export function secretsIn(reply: Reply, secrets: readonly Secret[], except: ReadonlySet<string> = new Set()): Secret[] {
  const haystack = `${Object.entries(reply.headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\n')}\n${reply.text}`.toLowerCase();
  return secrets.filter((s) => !except.has(s.value) && formsOf(s.value).some((f) => haystack.includes(f)));
}

// ---------------------------------------------------------------------------------------------------------------
// HTTP over a real port

/** How long an event stream is listened to in a walk (it never ends by itself). */
const STREAM_MS = 400;

/**
 * One GET over real HTTP (what a client sees, headers included). An event stream is read for a moment and
 * closed; every other body is read to its end.
 */
export async function httpGet(base: string, url: string, headers: Headers): Promise<Reply> {
  const controller = new AbortController();
  const res = await fetch(`${base}${url}`, { headers, redirect: 'manual', signal: controller.signal });
  const replyHeaders = Object.fromEntries(res.headers.entries());
  if (!(replyHeaders['content-type'] ?? '').includes('text/event-stream')) {
    return { status: res.status, headers: replyHeaders, text: Buffer.from(await res.arrayBuffer()).toString('latin1') };
  }
  const chunks: Buffer[] = [];
  const timer = setTimeout(() => controller.abort(), STREAM_MS);
  try {
    for await (const chunk of (res.body ?? []) as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  return { status: res.status, headers: replyHeaders, text: Buffer.concat(chunks).toString('latin1') };
}

/** Runs `work` over `items`, `width` at a time, keeping the order of the results. */
export async function pool<T, R>(items: readonly T[], width: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  });
  await Promise.all(lanes);
  return out;
}

// ---------------------------------------------------------------------------------------------------------------
// Routes

/** The GET operations of an OpenAPI document, as route-table entries (`{id}` → `:id`, `{*}` → `*`), with their query parameters. */
export function openApiGets(doc: {
  paths: Record<string, Record<string, { parameters?: Array<{ in: string; name: string }> }>>;
}): Array<RouteEntry & { query: string[] }> {
  return Object.entries(doc.paths)
    .filter(([, ops]) => ops.get)
    .map(([p, ops]) => ({
      method: 'GET',
      url: p.replace(/\{\*\}/g, '*').replace(/\{([^}]+)\}/g, ':$1'),
      query: (ops.get!.parameters ?? []).filter((x) => x.in === 'query').map((x) => x.name),
    }));
}

/** Finds which registered route a URL is (the one with the fewest parameters that matches its path). */
export function routeMatcher(table: readonly RouteEntry[]): (url: string) => string {
  const patterns = [...new Set(table.filter((r) => r.method === 'GET').map((r) => r.url))]
    .map((route) => {
      const params = route.split('/').filter((s) => s.startsWith(':') || s === '*').length;
      const source = route
        .split('/')
        .map((s) => (s === '*' ? '.*' : s.startsWith(':') ? '[^/]+' : s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/');
      return { route, params, re: new RegExp(`^${source}/?$`) };
    })
    .sort((a, b) => a.params - b.params);
  return (url: string) => {
    const pathname = url.split('?')[0]!;
    return patterns.find((p) => p.re.test(pathname))?.route ?? `(no route) ${pathname}`;
  };
}

/** A value of the shape KOReader uses for a document id that names no book. */
export const unknownDocument = (): string => randomBytes(16).toString('hex');

// ---------------------------------------------------------------------------------------------------------------
// Feeds

const SEARCH_VARIABLES = new Set(['searchTerms', 'query', 'q', 'term']);

/** Fills a link template (OpenSearch `{searchTerms}`, `{startPage?}`; RFC 6570 `{?query}`, `{&maxWidth}`) with `words`. */
export function fillTemplate(template: string, words: string): string {
  return template.replace(/\{([?&]?)([^}]+)\}/g, (_, operator: string, body: string) => {
    const names = body.split(',').map((n) => n.replace(/\?$/, '').trim());
    if (operator === '?' || operator === '&') {
      const pairs = names.filter((n) => SEARCH_VARIABLES.has(n)).map((n) => `${n}=${encodeURIComponent(words)}`);
      if (pairs.length === 0) return '';
      return `${operator}${pairs.join('&')}`;
    }
    const name = names[0]!;
    if (SEARCH_VARIABLES.has(name)) return encodeURIComponent(words);
    if (/^page_?number$/i.test(name)) return '0';
    return '';
  });
}

const decodeXml = (s: string) =>
  s
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/** Every link of a feed answer (Atom `href`, OpenSearch `template`, OPDS 2 `href`), templates filled, as paths. */
export function linksOf(reply: Reply, words: string): string[] {
  const type = reply.headers['content-type'] ?? '';
  const raw: string[] = [];
  if (type.includes('xml')) {
    for (const m of reply.text.matchAll(/\b(?:href|template)="([^"]*)"/g)) raw.push(decodeXml(m[1]!));
  } else if (type.includes('json')) {
    const walk = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(walk);
      else if (node && typeof node === 'object') {
        for (const [k, v] of Object.entries(node)) {
          if (k === 'href' && typeof v === 'string') raw.push(v);
          else walk(v);
        }
      }
    };
    try {
      walk(JSON.parse(Buffer.from(reply.text, 'latin1').toString('utf8')));
    } catch {
      // not JSON after all: no links
    }
  }
  return raw.map((href) => {
    const filled = fillTemplate(href, words);
    if (/^https?:\/\//.test(filled)) {
      const u = new URL(filled);
      return `${u.pathname}${u.search}`;
    }
    return filled;
  });
}

/**
 * Follows every link below `/opds/` from the roots, breadth first, at most `max` URLs: navigation, acquisition
 * and search feeds (search templates filled with `words`), covers, thumbnails, pages, manifests, downloads.
 */
export async function crawlFeeds(
  base: string,
  roots: readonly string[],
  headers: Headers,
  words: string,
  max = 400,
): Promise<{ visited: Array<{ url: string; reply: Reply }>; truncated: boolean }> {
  const seen = new Set<string>(roots);
  let queue = [...roots];
  const visited: Array<{ url: string; reply: Reply }> = [];
  while (queue.length > 0 && visited.length < max) {
    const batch = queue.slice(0, max - visited.length);
    queue = queue.slice(batch.length);
    const replies = await pool(batch, 3, (url) => httpGet(base, url, headers));
    batch.forEach((url, i) => {
      const reply = replies[i]!;
      visited.push({ url, reply });
      for (const link of linksOf(reply, words)) {
        if (!link.startsWith('/opds/') || seen.has(link)) continue;
        seen.add(link);
        queue.push(link);
      }
    });
  }
  return { visited, truncated: queue.length > 0 };
}
