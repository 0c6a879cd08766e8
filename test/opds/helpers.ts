import { readFileSync } from 'node:fs';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import { memoryPages, validateXML } from 'xmllint-wasm';
import type { Headers } from '../helpers/auth.js';
import type { CatalogTestApp } from '../helpers/catalog.js';
import { makeCbz, makeEpub, makeImage, makePdf } from '../media/fixtures.js';

/** Upstream schemas and API descriptions, copied into the repository with their sources (`SOURCES.md` there). */
export const REFERENCE = path.resolve(import.meta.dirname, '../reference');
const OPDS1_RNG = path.join(REFERENCE, 'opds1', 'rng', 'opds.rng');
export const PSE_REL = 'http://vaemendis.net/opds-pse/stream';

/** Known page bytes of the "Known Pages" book: JPEG 800×1200 then PNG 400×600 (so PSE converts to JPEG). */
export interface OpdsCorpus {
  page1: Buffer;
  page2: Buffer;
}

/**
 * A library that exercises every entry shape: comics with full ComicInfo (authors of several roles, genres,
 * a summary full of markup characters), a book with mixed page types, an EPUB, a PDF, a loose file with a
 * unicode name, and enough series to paginate.
 */
export async function writeOpdsCorpus(dir: string): Promise<OpdsCorpus> {
  const info = {
    Series: 'Astérix & <Obélix>',
    Publisher: 'Dargaud "Éditions"',
    LanguageISO: 'fr',
    Genre: 'Humor, Adventure',
    Tags: 'classic',
    Year: 1961,
    Writer: 'René Goscinny',
    Penciller: 'Albert Uderzo',
    Summary: 'Gauls & Romans: <b>"by Toutatis!"</b> — it\'s 50 BC.',
  };
  for (let n = 1; n <= 3; n++) {
    await makeCbz(path.join(dir, 'Asterix'), `Asterix ${String(n).padStart(3, '0')}.cbz`, {
      pages: n + 2,
      pageSize: { width: 60, height: 90 },
      comicInfo: { ...info, Number: String(n), Title: `Astérix & Co. ${n}` },
    });
  }
  const page1 = await makeImage({ width: 800, height: 1200, format: 'jpeg', noise: true });
  const page2 = await makeImage({ width: 400, height: 600, format: 'png' });
  await makeCbz(path.join(dir, 'Known Pages'), 'Known Pages 001.cbz', {
    pages: [
      { name: '001.jpg', data: page1 },
      { name: '002.png', data: page2 },
    ],
    comicInfo: { Series: 'Known Pages', Number: '1', Title: 'Known pages', LanguageISO: 'not a language!' },
  });
  await makeEpub(path.join(dir, 'Novels'), 'A Novel.epub', {
    metadata: {
      title: 'A Novel',
      creators: [{ name: 'Jane Author', role: 'aut' }],
      language: 'en',
      publisher: 'Books Ltd',
      description: 'A story.',
      subjects: ['Fiction'],
    },
  });
  await makePdf(path.join(dir, 'Papers'), 'Paper 1.pdf', { pages: 2, info: { Title: 'A Paper', Author: 'Dr. PDF' } });
  await makeCbz(dir, 'Ünïcode lone book.cbz', { pages: 2, pageSize: { width: 60, height: 90 } });
  for (let s = 1; s <= 6; s++) {
    await makeCbz(path.join(dir, `Filler ${s}`), `Filler ${s} 001.cbz`, {
      pages: 2,
      pageSize: { width: 40, height: 60 },
      comicInfo: { Series: `Filler ${s}`, Number: '1' },
    });
  }
  return { page1, page2 };
}

export interface FetchResult {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
  raw: Buffer;
}

export async function get(
  t: CatalogTestApp,
  url: string,
  headers: Headers = t.headers,
  method: 'GET' | 'HEAD' = 'GET',
): Promise<FetchResult> {
  const res = await t.app.inject({ method, url, headers });
  return { status: res.statusCode, headers: res.headers, body: res.body, raw: res.rawPayload };
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@',
  isArray: (name) => ['entry', 'link', 'author', 'category', 'contributor'].includes(name),
  processEntities: true,
  htmlEntities: false,
});

export interface AtomLink {
  '@rel'?: string;
  '@href': string;
  '@type'?: string;
  '@length'?: string;
  '@pse:count'?: string;
  '@pse:lastRead'?: string;
  '@pse:lastReadDate'?: string;
  '@thr:count'?: string;
}
export interface AtomEntry {
  id: string;
  title: string;
  updated: string;
  link: AtomLink[];
  author?: Array<{ name: string }>;
  contributor?: Array<{ name: string }>;
  category?: Array<{ '@term': string }>;
  summary?: { '#text': string } | string;
  content?: { '#text': string } | string;
  'dc:language'?: string;
  'dc:publisher'?: string;
  'dc:issued'?: string | number;
}
export interface AtomFeed {
  id: string;
  title: string;
  link: AtomLink[];
  entry?: AtomEntry[];
  'opensearch:totalResults'?: number;
  'opensearch:itemsPerPage'?: number;
  'opensearch:startIndex'?: number;
  [attr: `@${string}`]: string;
}

export function parseFeed(xml: string): AtomFeed {
  return (parser.parse(xml) as { feed: AtomFeed }).feed;
}
export function parseXml(xml: string): Record<string, unknown> {
  return parser.parse(xml) as Record<string, unknown>;
}

export const linkOf = (links: AtomLink[] | undefined, rel: string) => links?.find((l) => l['@rel'] === rel);

/**
 * Validates documents against the OPDS 1.2 RELAX NG schema (`opds.fixed.rnc` in its XML form, `rng/opds.rng`)
 * with libxml2 compiled to WebAssembly (npm `xmllint-wasm`), so the check runs wherever `npm ci` ran. The one
 * waiver: the schema's URI datatype rejects `{` and `}`, which OPDS-PSE stream links must carry (`{pageNumber}`,
 * `{maxWidth}`), so in those links only, the templates are filled with a number before validating; everything
 * else on those links is still checked.
 */
export async function validateOpds1(documents: ReadonlyArray<{ url: string; xml: string }>): Promise<string[]> {
  const files = documents.map((d, i) => {
    // One element per line, so libxml2's line numbers point at the element that failed.
    const lines = d.xml.replace(/></g, '>\n<').split('\n');
    const validated = lines.map((line) => (line.includes(`rel="${PSE_REL}"`) ? line.replace(/\{(pageNumber|maxWidth)\}/g, '0') : line));
    return { url: d.url, fileName: `doc${i}.xml`, lines, contents: validated.join('\n') };
  });
  const result = await validateXML({
    xml: files.map(({ fileName, contents }) => ({ fileName, contents })),
    schema: [{ fileName: 'opds.rng', contents: readFileSync(OPDS1_RNG, 'utf8') }],
    preload: [{ fileName: 'atom.rng', contents: readFileSync(path.join(path.dirname(OPDS1_RNG), 'atom.rng'), 'utf8') }],
    extension: 'relaxng',
    maxMemoryPages: 16 * memoryPages.MiB,
  });
  if (result.valid) return [];
  const problems = result.errors.map((e) => {
    const file = files.find((f) => f.fileName === e.loc?.fileName);
    const source = file && e.loc ? (file.lines[e.loc.lineNumber - 1] ?? '') : '';
    return `${file?.url ?? '(document)'}:${e.loc?.lineNumber ?? '?'}: ${e.message}\n    ${source.trim().slice(0, 300)}`;
  });
  // A document the validator calls invalid always yields at least one problem, even if libxml2 gave no message.
  return problems.length > 0 ? problems : [result.rawOutput || 'invalid (no message from the validator)'];
}
