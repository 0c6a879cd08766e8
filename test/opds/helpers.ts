import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { XMLParser } from 'fast-xml-parser';
import { makeTempDir } from '../helpers/config.js';
import type { Headers } from '../helpers/auth.js';
import type { CatalogTestApp } from '../helpers/catalog.js';
import { makeCbz, makeEpub, makeImage, makePdf } from '../media/fixtures.js';

const run = promisify(execFile);

export const REFERENCE = path.resolve(process.env.BINDERY_REFERENCE_DIR ?? '../shared/reference');
export const OPDS1_SCHEMA = path.join(REFERENCE, 'opds1', 'opds.fixed.rnc');
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
 * Validates documents against the OPDS 1.2 RELAX NG schema with jing. Errors on PSE stream links' `href`
 * (the literal `{pageNumber}` the schema's URI rule rejects) are waived, and nothing else: each waived error
 * must sit on a line holding a PSE stream link, and be the URI datatype error on `href`.
 */
export async function validateOpds1(documents: ReadonlyArray<{ url: string; xml: string }>): Promise<string[]> {
  const dir = makeTempDir('bindery-opds-');
  const files = documents.map((d, i) => {
    // One element per line, so jing's line numbers point at the element that failed.
    const file = path.join(dir, `doc${i}.xml`);
    writeFileSync(file, d.xml.replace(/></g, '>\n<'));
    return { ...d, file, lines: d.xml.replace(/></g, '>\n<').split('\n') };
  });
  const out = await run('jing', ['-c', OPDS1_SCHEMA, ...files.map((f) => f.file)], { maxBuffer: 64 * 1024 * 1024 }).then(
    (r) => r.stdout + r.stderr,
    (e: { stdout: string; stderr: string }) => e.stdout + e.stderr,
  );
  const problems: string[] = [];
  for (const line of out.split('\n')) {
    const m = /^(.*?):(\d+):(\d+): (error|fatal): (.*)$/.exec(line.trim());
    if (!m) continue;
    const file = files.find((f) => f.file === m[1]);
    const source = file?.lines[Number(m[2]) - 1] ?? '';
    const isPseHref =
      source.includes(`rel="${PSE_REL}"`) && /value of attribute "href" is invalid/.test(m[5]!) && source.includes('{pageNumber}');
    if (!isPseHref) problems.push(`${file?.url ?? m[1]}:${m[2]}: ${m[5]}\n    ${source.trim().slice(0, 300)}`);
  }
  return problems;
}
