/**
 * Synthetic library for the scan benchmark: `npm run bench:corpus -- --series S --books B --pages P [--out DIR]
 * [--width W --height H]` writes B CBZ books (in total) spread over S series folders, each with P JPEG pages
 * (stored, as most CBZ are) and a small ComicInfo.xml. Pages are generated once and shared, and every book gets
 * a unique entry, so all books have distinct hashes. Re-running with the same parameters reuses the corpus.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import sharp from 'sharp';
import yazl from 'yazl';

export interface CorpusOptions {
  out: string;
  series: number;
  books: number;
  pages: number;
  width?: number;
  height?: number;
}

export interface Corpus {
  root: string;
  files: number;
}

async function makePage(i: number, width: number, height: number): Promise<Buffer> {
  return sharp({
    create: {
      width,
      height,
      channels: 3,
      background: `hsl(${(i * 47) % 360}, 55%, 50%)`,
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .jpeg({ quality: 80 })
    .toBuffer();
}

async function writeBook(file: string, pages: readonly Buffer[], series: string, number: number, unique: string): Promise<void> {
  const zip = new yazl.ZipFile();
  pages.forEach((data, i) => zip.addBuffer(data, `page${String(i + 1).padStart(3, '0')}.jpg`, { compress: false, mtime: new Date(0) }));
  const info = `<?xml version="1.0"?>\n<ComicInfo><Series>${series}</Series><Number>${number}</Number><Notes>${unique}</Notes></ComicInfo>`;
  zip.addBuffer(Buffer.from(info), 'ComicInfo.xml', { compress: true, mtime: new Date(0) });
  zip.end();
  await pipeline(zip.outputStream, createWriteStream(file));
}

/** Writes the corpus unless a complete one with the same parameters exists; returns its root. */
export async function ensureCorpus(options: CorpusOptions): Promise<Corpus> {
  const { out, series, books, pages } = options;
  const width = options.width ?? 320;
  const height = options.height ?? 480;
  const marker = path.join(out, '.complete');
  const signature = JSON.stringify({ series, books, pages, width, height });
  if (existsSync(marker)) {
    const { readFile } = await import('node:fs/promises');
    if ((await readFile(marker, 'utf8')) === signature) return { root: out, files: books };
  }
  await rm(out, { recursive: true, force: true });
  await mkdir(out, { recursive: true });
  const images = await Promise.all(Array.from({ length: pages }, (_, i) => makePage(i, width, height)));
  const perSeries = Math.ceil(books / series);
  let written = 0;
  for (let s = 0; s < series && written < books; s++) {
    const name = `Series ${String(s + 1).padStart(4, '0')}`;
    const dir = path.join(out, name);
    await mkdir(dir, { recursive: true });
    const jobs: Promise<void>[] = [];
    for (let b = 0; b < perSeries && written < books; b++, written++) {
      jobs.push(writeBook(path.join(dir, `${name} ${String(b + 1).padStart(3, '0')}.cbz`), images, name, b + 1, `${s}-${b}`));
      if (jobs.length >= 16) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);
  }
  await writeFile(marker, signature);
  return { root: out, files: books };
}

const isMain = process.argv[1] && path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname);
if (isMain) {
  const { values } = parseArgs({
    options: {
      series: { type: 'string', default: '100' },
      books: { type: 'string', default: '2000' },
      pages: { type: 'string', default: '20' },
      width: { type: 'string', default: '320' },
      height: { type: 'string', default: '480' },
      out: { type: 'string' },
    },
  });
  const series = Number(values.series);
  const books = Number(values.books);
  const pages = Number(values.pages);
  const out = path.resolve(values.out ?? `.bench/corpus-s${series}-b${books}-p${pages}`);
  const started = Date.now();
  const corpus = await ensureCorpus({ out, series, books, pages, width: Number(values.width), height: Number(values.height) });
  console.log(
    `corpus: ${corpus.files} books in ${series} series, ${pages} pages each, at ${corpus.root} (${((Date.now() - started) / 1000).toFixed(1)} s)`,
  );
}
