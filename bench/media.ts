/**
 * Media engine benchmark: `npx tsx bench/media.ts`. Generates its corpus (a 200-page CBZ, stored and
 * deflated) in a temp folder, then measures page listing, page reads, resizing, and the cost of reading a page
 * out of a stored CBZ against reading the same bytes from a plain file (target: under 2×).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { openBook } from '../src/media/formats/open-book.js';
import { renderPage } from '../src/media/rendering/render-page.js';
import { makeScanLikePage, writeZip } from '../test/media/fixtures.js';

export interface MediaBenchRow {
  name: string;
  value: number;
  unit: string;
  note?: string;
}

export interface MediaBenchOptions {
  pages?: number;
  /** Seconds spent on each measurement. */
  seconds?: number;
}

async function measure(seconds: number, work: () => Promise<unknown>): Promise<{ perSecond: number; meanMs: number }> {
  // Warm-up: first calls pay for lazy loading (sharp, yauzl) and a cold page cache.
  for (let i = 0; i < 3; i++) await work();
  const deadline = performance.now() + seconds * 1000;
  const start = performance.now();
  let runs = 0;
  while (performance.now() < deadline) {
    await work();
    runs++;
  }
  const elapsed = performance.now() - start;
  return { perSecond: (runs * 1000) / elapsed, meanMs: elapsed / runs };
}

export async function runMediaBench(options: MediaBenchOptions = {}): Promise<MediaBenchRow[]> {
  const pageCount = options.pages ?? 200;
  const seconds = options.seconds ?? 1.5;
  const dir = await mkdtemp(join(tmpdir(), 'colophon-media-bench-'));
  try {
    // Ten distinct scan-like pages cycled through the book: realistic sizes without minutes of encoding.
    const scans = await Promise.all(Array.from({ length: 10 }, (_, i) => makeScanLikePage(1400, 2100, i + 1)));
    const items = Array.from({ length: pageCount }, (_, i) => ({
      name: `Chapter ${1 + Math.floor(i / 20)}/page${i + 1}.jpg`,
      data: scans[i % scans.length] as Buffer,
    }));
    const stored = await writeZip(join(dir, 'stored.cbz'), items, true);
    const deflated = await writeZip(join(dir, 'deflated.cbz'), items, false);
    const rows: MediaBenchRow[] = [];

    const listing = await measure(seconds, async () => {
      const reader = await openBook(stored, 'cbz');
      reader.listPages();
      await reader.close();
    });
    rows.push({
      name: 'pages listed (open + central directory + sort)',
      value: listing.perSecond * pageCount,
      unit: 'pages/s',
      note: `${listing.meanMs.toFixed(2)} ms per ${pageCount}-page book`,
    });

    for (const [label, path] of [
      ['stored', stored],
      ['deflated', deflated],
    ] as const) {
      const analysed = await measure(seconds, async () => {
        const reader = await openBook(path, 'cbz');
        await reader.pages();
        await reader.close();
      });
      rows.push({ name: `pages listed with dimensions (${label})`, value: analysed.perSecond * pageCount, unit: 'pages/s' });
    }

    const reader = await openBook(stored, 'cbz');
    let n = 0;
    const reads = await measure(seconds, async () => {
      n = (n % pageCount) + 1;
      await reader.readPage(n);
    });
    rows.push({
      name: 'page reads (stored CBZ, open reader)',
      value: reads.perSecond,
      unit: 'pages/s',
      note: `${reads.meanMs.toFixed(3)} ms each`,
    });

    const resized = await measure(seconds, async () => {
      n = (n % pageCount) + 1;
      await renderPage(reader, n, { width: 800, format: 'webp' });
    });
    rows.push({ name: 'resized pages (1400×2100 JPEG → 800 px WebP)', value: resized.perSecond, unit: 'pages/s' });

    const page = await reader.readPage(1);
    const plain = join(dir, 'page.jpg');
    await writeFile(plain, page.data);
    const fromZip = await measure(seconds, () => reader.readPage(1));
    const fromFile = await measure(seconds, () => readFile(plain));
    await reader.close();
    const openAndRead = await measure(seconds, async () => {
      const once = await openBook(stored, 'cbz', { knownPages: [items[0]?.name ?? ''] });
      await once.readPage(1);
      await once.close();
    });
    rows.push({
      name: 'stored CBZ page read ÷ plain file read',
      value: fromZip.meanMs / fromFile.meanMs,
      unit: '×',
      note: `${fromZip.meanMs.toFixed(3)} ms vs ${fromFile.meanMs.toFixed(3)} ms for ${(page.data.length / 1024).toFixed(0)} KiB (target < 2×)`,
    });
    rows.push({
      name: 'same, including opening the archive',
      value: openAndRead.meanMs / fromFile.meanMs,
      unit: '×',
      note: `${openAndRead.meanMs.toFixed(3)} ms per open + read`,
    });
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export function formatMediaBench(rows: readonly MediaBenchRow[]): string {
  const width = Math.max(...rows.map((row) => row.name.length));
  return rows
    .map((row) => {
      const value = row.unit === '×' ? row.value.toFixed(2) : Math.round(row.value).toLocaleString('en-US');
      return `${row.name.padEnd(width)}  ${value.padStart(10)} ${row.unit.padEnd(7)} ${row.note ?? ''}`.trimEnd();
    })
    .join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const rows = await runMediaBench();
  console.log(formatMediaBench(rows));
}
