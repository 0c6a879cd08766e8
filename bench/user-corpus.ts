/**
 * The library shape of issue 22, the one real libraries have: `series` folders × `perSeries` books; 95% CBZ of
 * 20 stored JPEG pages of 1000×1500 px (~60 KB each), ComicInfo.xml in every other CBZ, the other 5% EPUB and
 * PDF. Written once under the temp folder, in a directory named after the shape, and reused while complete.
 * Pages are a few shared scan-like images (every book still hashes differently: each CBZ has its own zip
 * comment). Beside the library, `floor/page-N.jpg` are the distinct first pages, for the bare page server.
 */
import { createWriteStream, existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import sharp from 'sharp';
import yazl from 'yazl';
import { makeEpub, makePdf, makeScanLikePage } from '../test/media/fixtures.js';

export interface UserCorpusShape {
  series: number;
  perSeries: number;
  pages: number;
  width: number;
  height: number;
}

export interface UserCorpus {
  /** The library folder (what `POST /libraries` gets). */
  library: string;
  /** Distinct first pages of the CBZ, as plain files (`page-0.jpg` …). */
  floorPages: string[];
  books: number;
  cbz: number;
  epub: number;
  pdf: number;
  bytes: number;
  pageBytes: number;
}

export const ISSUE_SHAPE: UserCorpusShape = { series: 200, perSeries: 10, pages: 20, width: 1000, height: 1500 };
/** Distinct page images the CBZ are made of (page p of book b is image (b + p) mod this). */
const DISTINCT_PAGES = 24;

export function corpusDir(shape: UserCorpusShape): string {
  return path.join(
    os.tmpdir(),
    `colophon-bench-corpus-s${shape.series}x${shape.perSeries}-p${shape.pages}-${shape.width}x${shape.height}-v1`,
  );
}

/** Every 20th book is an EPUB or a PDF (alternately): 5% of the library. */
function formatOf(index: number): 'cbz' | 'epub' | 'pdf' {
  if (index % 20 !== 19) return 'cbz';
  return Math.floor(index / 20) % 2 === 0 ? 'epub' : 'pdf';
}

async function writeCbz(
  file: string,
  pages: readonly Buffer[],
  first: number,
  count: number,
  info: string | null,
  unique: string,
): Promise<void> {
  const zip = new yazl.ZipFile();
  for (let p = 0; p < count; p++) {
    zip.addBuffer(pages[(first + p) % pages.length]!, `page${String(p + 1).padStart(3, '0')}.jpg`, { compress: false, mtime: new Date(0) });
  }
  if (info) zip.addBuffer(Buffer.from(info), 'ComicInfo.xml', { compress: true, mtime: new Date(0) });
  zip.end({ comment: unique, forceZip64Format: false });
  await pipeline(zip.outputStream, createWriteStream(file));
}

export async function ensureUserCorpus(
  shape: UserCorpusShape = ISSUE_SHAPE,
  log: (line: string) => void = () => undefined,
): Promise<UserCorpus> {
  const root = corpusDir(shape);
  const marker = path.join(root, 'complete.json');
  if (existsSync(marker)) return JSON.parse(await readFile(marker, 'utf8')) as UserCorpus;
  const started = Date.now();
  log(`writing the corpus (${shape.series} × ${shape.perSeries} books) to ${root} …`);
  await rm(root, { recursive: true, force: true });
  const library = path.join(root, 'library');
  const floor = path.join(root, 'floor');
  await mkdir(floor, { recursive: true });
  const pages = await Promise.all(
    Array.from({ length: DISTINCT_PAGES }, async (_, i) =>
      sharp(await makeScanLikePage(shape.width, shape.height, i + 1))
        .jpeg({ quality: 80 })
        .toBuffer(),
    ),
  );
  const floorPages: string[] = [];
  for (let i = 0; i < pages.length; i++) {
    const file = path.join(floor, `page-${i}.jpg`);
    await writeFile(file, pages[i]!);
    floorPages.push(file);
  }
  const counts = { cbz: 0, epub: 0, pdf: 0 };
  let bytes = 0;
  let index = 0;
  for (let s = 0; s < shape.series; s++) {
    const name = `Series ${String(s + 1).padStart(5, '0')}`;
    const dir = path.join(library, name);
    await mkdir(dir, { recursive: true });
    const jobs: Array<Promise<unknown>> = [];
    for (let b = 1; b <= shape.perSeries; b++, index++) {
      const base = path.join(dir, `${name} ${String(b).padStart(3, '0')}`);
      const format = formatOf(index);
      counts[format]++;
      if (format === 'cbz') {
        const info =
          index % 2 === 0
            ? `<?xml version="1.0"?>\n<ComicInfo><Series>${name}</Series><Number>${b}</Number><Title>${name} #${b}</Title><Writer>Bench Writer</Writer><Publisher>Bench</Publisher><Year>2020</Year><Summary>Book ${b} of ${name}.</Summary></ComicInfo>`
            : null;
        jobs.push(writeCbz(`${base}.cbz`, pages, index, shape.pages, info, `bench ${index}`));
      } else if (format === 'epub') {
        jobs.push(
          makeEpub(dir, `${name} ${String(b).padStart(3, '0')}.epub`, { pages: 5, metadata: { title: `${name} #${b} (${index})` } }),
        );
      } else {
        jobs.push(makePdf(dir, `${name} ${String(b).padStart(3, '0')}.pdf`, { pages: 5, info: { Title: `${name} #${b} (${index})` } }));
      }
      if (jobs.length >= 16) await Promise.all(jobs.splice(0));
    }
    await Promise.all(jobs);
  }
  const { readdir, stat } = await import('node:fs/promises');
  for (const entry of await readdir(library, { recursive: true, withFileTypes: true })) {
    if (entry.isFile()) bytes += (await stat(path.join(entry.parentPath, entry.name))).size;
  }
  const corpus: UserCorpus = {
    library,
    floorPages,
    books: index,
    ...counts,
    bytes,
    pageBytes: Math.round(pages.reduce((n, p) => n + p.length, 0) / pages.length),
  };
  await writeFile(marker, JSON.stringify(corpus));
  log(`corpus written in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return corpus;
}
