import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withBook } from '../../src/media/formats/open-book.js';
import { makeBmp, writeZip } from './fixtures.js';
import type { ZipItem } from './fixtures.js';

/**
 * Opening a book must be linear in its size: the server reopens a book (with its stored page names) on the
 * event loop whenever the reader cache has dropped it. The old code copied the whole manifest for each stored
 * page name (about 5 s per open at 30,000 pages, 10 s for the two opens below), parsed a wrapper page again
 * for each spine item listing it (about 20 s below) and searched every <meta> and every author so far for each
 * creator (about 15 s below). Each test may use 5 s of CPU time: the linear code needs a fraction of that, the
 * old code's 10–20 s fail it. CPU time, not wall time: on a 2-core machine busy with other tests or a browser
 * run, the linear code took 5–9 s of wall time and failed the earlier wall-clock limits.
 */
const PAGES = 30_000;
/** Spine items that all show the same page. */
const REPEATS = 20_000;
/** Creators, each with a refining role, in one package document (about 5 MB; the limit is 8 MB). */
const CREATORS = 60_000;
/** Each test may use this much CPU time, fixtures excluded (they are built in beforeAll). */
const LIMIT_CPU_MS = 5_000;
/** The wall-clock timeout: generous, since a busy machine stretches wall time but not the CPU time checked. */
const LIMIT_MS = 60_000;

/**
 * Runs `work` and checks the CPU time it took (this process, all threads), which another program competing for the
 * cores does not inflate as it does wall time.
 */
async function withinCpuBudget(work: () => Promise<void>): Promise<void> {
  const start = process.cpuUsage();
  await work();
  const used = process.cpuUsage(start);
  expect((used.user + used.system) / 1000).toBeLessThan(LIMIT_CPU_MS);
}

let dir: string;
let manyPages: string;
let repeated: string;
let credited: string;
const names = Array.from({ length: PAGES }, (_, i) => `OEBPS/i/${i + 1}.bmp`);

/** A distinct 1×1 BMP per page (its colour encodes the page number), so that serving the wrong page shows. */
function pixel(n: number): Buffer {
  return makeBmp(1, 1, [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff]);
}

function colourOf(bmp: Buffer): number {
  // A 24-bit BMP stores its one pixel as blue, green, red at offset 54.
  return (bmp[56] ?? 0) | ((bmp[55] ?? 0) << 8) | ((bmp[54] ?? 0) << 16);
}

function epubItems(manifest: string[], spine: string[], files: ZipItem[], metadata = ''): ZipItem[] {
  return [
    { name: 'mimetype', data: 'application/epub+zip', store: true },
    {
      name: 'META-INF/container.xml',
      data: `<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>`,
    },
    {
      name: 'OEBPS/content.opf',
      store: false,
      data: `<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0" unique-identifier="uid">
  <metadata xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Many</dc:title><dc:identifier id="uid">urn:uuid:4b2a8c1e-0000-4000-8000-000000000002</dc:identifier>
    <meta property="rendition:layout">pre-paginated</meta>${metadata}</metadata>
  <manifest>
${manifest.join('\n')}
  </manifest>
  <spine>
${spine.join('\n')}
  </spine>
</package>`,
    },
    ...files,
  ];
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-epub-many-'));
  // A fixed-layout book whose spine lists its images directly (no wrapper documents), as the audit's 45,000-page
  // EPUB did. Stored but for the package document (deflating 30,000 entries takes yazl many seconds): about 6 MB.
  manyPages = await writeZip(
    join(dir, 'many.epub'),
    epubItems(
      names.map((name, i) => `<item id="p${i + 1}" href="${name.slice('OEBPS/'.length)}" media-type="image/bmp"/>`),
      names.map((_, i) => `<itemref idref="p${i + 1}"/>`),
      names.map((name, i) => ({ name, data: pixel(i + 1) })),
    ),
    true,
  );
  // One wrapper page of about 7 KB listed REPEATS times (the old code parsed it again for each: about 1 ms a time).
  const padding = '<div><span></span></div>'.repeat(300);
  repeated = await writeZip(
    join(dir, 'repeated.epub'),
    epubItems(
      ['<item id="page" href="page.xhtml" media-type="application/xhtml+xml"/>', '<item id="img" href="img.bmp" media-type="image/bmp"/>'],
      Array.from({ length: REPEATS }, () => '<itemref idref="page"/>'),
      [
        {
          name: 'OEBPS/page.xhtml',
          data: `<?xml version="1.0" encoding="utf-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Page</title></head>
<body>${padding}<div><img src="img.bmp" alt=""/></div></body></html>`,
        },
        { name: 'OEBPS/img.bmp', data: pixel(7) },
      ],
    ),
  );
  // Every creator named twice (the second is dropped as a duplicate), with roles refined by <meta> elements.
  const creators = Array.from(
    { length: CREATORS },
    (_, i) => `<dc:creator id="c${i}">A${i >> 1}</dc:creator><meta refines="#c${i}" property="role">${i % 4 < 2 ? 'art' : 'aut'}</meta>`,
  );
  credited = await writeZip(
    join(dir, 'credited.epub'),
    epubItems(
      ['<item id="img" href="img.bmp" media-type="image/bmp"/>'],
      ['<itemref idref="img"/>'],
      [{ name: 'OEBPS/img.bmp', data: pixel(3) }],
      creators.join('\n'),
    ),
  );
}, 120_000);

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('EPUB reader: opening is linear in the number of pages', () => {
  it(
    `a ${PAGES}-page image book opens from its spine and serves its first and last pages`,
    () =>
      withinCpuBudget(async () => {
        await withBook(manyPages, 'epub', {}, async (reader) => {
          const pages = reader.listPages();
          expect(pages).toHaveLength(PAGES);
          expect(pages[0]).toEqual({ number: 1, file_name: names[0], media_type: 'image/bmp', size: 58 });
          expect(pages.at(-1)).toEqual({ number: PAGES, file_name: names.at(-1), media_type: 'image/bmp', size: 58 });
          expect(colourOf((await reader.readPage(1)).data)).toBe(1);
          expect(colourOf((await reader.readPage(PAGES)).data)).toBe(PAGES);
        });
      }),
    LIMIT_MS,
  );

  it(
    `reopened with its ${PAGES} stored page names (as the server does), it serves the same pages`,
    () =>
      withinCpuBudget(async () => {
        // Twice: the reader cache reopens a book it dropped.
        for (let round = 0; round < 2; round++) {
          await withBook(manyPages, 'epub', { knownPages: names }, async (reader) => {
            const pages = reader.listPages();
            expect(pages).toHaveLength(PAGES);
            expect(pages.at(-1)).toEqual({ number: PAGES, file_name: names.at(-1), media_type: 'image/bmp', size: 58 });
            const first = await reader.readPage(1);
            expect(first.mediaType).toBe('image/bmp');
            expect(colourOf(first.data)).toBe(1);
            expect(colourOf((await reader.readPage(PAGES)).data)).toBe(PAGES);
            expect(colourOf((await reader.readPage(12_345)).data)).toBe(12_345);
          });
        }
      }),
    LIMIT_MS,
  );

  it(
    `a spine listing one wrapper page ${REPEATS} times parses that page once`,
    () =>
      withinCpuBudget(async () => {
        await withBook(repeated, 'epub', {}, async (reader) => {
          const pages = reader.listPages();
          expect(pages).toHaveLength(REPEATS);
          expect(pages.every((page) => page.file_name === 'OEBPS/img.bmp' && page.media_type === 'image/bmp')).toBe(true);
          expect(pages.at(-1)?.number).toBe(REPEATS);
          expect(colourOf((await reader.readPage(REPEATS)).data)).toBe(7);
        });
      }),
    LIMIT_MS,
  );
});

describe('EPUB metadata: reading the package document is linear in its size', () => {
  it(
    `${CREATORS} creators with refined roles are read without searching every <meta> for each`,
    () =>
      withinCpuBudget(async () => {
        await withBook(credited, 'epub', {}, async (reader) => {
          const authors = (await reader.metadata())?.fields.authors ?? [];
          // Creators 2k and 2k+1 share a name; the role refining 2k+1 repeats that of 2k, so it is a duplicate.
          expect(authors).toHaveLength(CREATORS / 2);
          expect(authors[0]).toEqual({ name: 'A0', role: 'penciller' });
          expect(authors[1]).toEqual({ name: 'A1', role: 'writer' });
          expect(authors.at(-1)).toEqual({ name: `A${CREATORS / 2 - 1}`, role: 'writer' });
          expect(colourOf((await reader.readPage(1)).data)).toBe(3);
        });
      }),
    LIMIT_MS,
  );
});
