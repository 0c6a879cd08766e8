import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../src/media/analysis/analysis-pool.js';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { hashFile } from '../../src/media/analysis/hash.js';
import { makeCbz, makeImage, makePdf, writeZip } from './fixtures.js';

let dir: string;
let pool: AnalysisPool;
let small: string;
let big: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-pool-'));
  pool = new AnalysisPool({ threads: 2, timeoutMs: 30_000, maxOldGenerationSizeMb: 256 });
  small = await makeCbz(join(dir, 'lib'), 'Saga/Saga 002 (2012).cbz', { pages: 3, comicInfo: { Writer: 'Brian K. Vaughan' } });
  // Thousands of GIF pages: GIF sizes are left to sharp (the plain-JS header parser reads JPEG, PNG and WebP),
  // one libvips call per page, so analysis takes seconds.
  const page = await makeImage({ width: 64, height: 64, format: 'gif' });
  big = await writeZip(
    join(dir, 'big.cbz'),
    Array.from({ length: 4000 }, (_, i) => ({ name: `p${String(i).padStart(5, '0')}.gif`, data: page })),
  );
});

afterAll(async () => {
  await pool.destroy();
  await rm(dir, { recursive: true, force: true });
});

describe('hashing', () => {
  it('streams SHA-256 of the whole file', async () => {
    const expected = createHash('sha256')
      .update(await readFile(small))
      .digest('hex');
    expect(await hashFile(small)).toBe(expected);
    expect(await pool.hash(small)).toBe(expected);
  });

  it('stops when cancelled', async () => {
    await expect(hashFile(small, AbortSignal.abort())).rejects.toMatchObject({ kind: 'aborted' });
  });
});

describe('analysis in worker threads', () => {
  it('gives the same analysis as the calling thread: pages, metadata, hash, cover', async () => {
    const root = join(dir, 'lib');
    const isolated = await pool.analyze(small, { libraryRoot: root });
    const local = await analyzeFile(small, { libraryRoot: root });
    expect(isolated).toEqual(local);
    expect(isolated).toMatchObject({
      format: 'cbz',
      hash: await hashFile(small),
      cover: { pageNumber: 1, fileName: 'page001.jpg' },
      metadata: { series: 'Saga', number: '2', year: 2012, authors: [{ name: 'Brian K. Vaughan', role: 'writer' }] },
    });
    expect(isolated.pages).toHaveLength(3);
  });

  it('returns the cover bytes when asked', async () => {
    const analysis = await pool.analyze(small, { withCover: true });
    expect(Buffer.isBuffer(analysis.coverImage?.data)).toBe(true);
    expect(analysis.coverImage?.mediaType).toBe('image/jpeg');
  });

  it('carries MediaError kinds across the thread boundary', async () => {
    const empty = await writeZip(join(dir, 'empty.cbz'), [{ name: 'a.txt', data: 'x' }]);
    await expect(pool.analyze(empty)).rejects.toMatchObject({ name: 'MediaError', kind: 'no_pages' });
    await expect(pool.analyze(join(dir, 'missing.cbz'))).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('renders pages and covers in a worker', async () => {
    const pdf = await makePdf(dir, 'pool.pdf', { pageSize: { width: 600, height: 800 } });
    const page = await pool.renderPage(pdf, 'pdf', 2, { width: 300, format: 'png' });
    expect(page.mediaType).toBe('image/png');
    expect((await sharp(page.data).metadata()).width).toBe(300);
    const cover = await pool.cover(small, 'cbz');
    expect(cover).toMatchObject({ pageNumber: 1, mediaType: 'image/jpeg' });
  });

  it('a timed-out file kills only its worker; other work goes on and the pool keeps working', async () => {
    // Both threads up first, so the deadline cuts the analysis itself rather than a worker's start.
    await Promise.all([pool.hash(small), pool.hash(small)]);
    const started = Date.now();
    const [slow, meanwhile] = await Promise.allSettled([pool.analyze(big, { timeoutMs: 400 }), pool.analyze(small)]);
    expect(slow).toMatchObject({ status: 'rejected', reason: { name: 'MediaError', kind: 'timeout' } });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(meanwhile.status).toBe('fulfilled');
    const after = await Promise.all([pool.analyze(small), pool.analyze(small)]);
    expect(after.map((analysis) => analysis.pages.length)).toEqual([3, 3]);
  });

  it('accepts an AbortSignal per task (a cancelled scan)', async () => {
    const controller = new AbortController();
    const pending = pool.analyze(big, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    expect((await pool.analyze(small)).pages).toHaveLength(3);
  });

  it("a worker's late answer to an aborted task does not throw out of the pool", async () => {
    // piscina reports such an answer (a cancelled scan racing its workers' last results) as an 'error' event
    // on the pool; an EventEmitter with no 'error' listener throws, which would crash the process.
    const local = new AnalysisPool({ threads: 1 });
    try {
      // piscina is loaded with the first task: the pool exists once one has run.
      expect((await local.analyze(small)).pages).toHaveLength(3);
      const inner = await (local as unknown as { pool: Promise<{ emit(event: string, err: Error): boolean }> }).pool;
      expect(() => inner.emit('error', new Error('Unexpected message from Worker: { taskId: 1 }'))).not.toThrow();
      expect((await local.analyze(small)).pages).toHaveLength(3);
    } finally {
      await local.destroy();
    }
  });
});

describe('several books in one task (analyzeManyForCatalog)', () => {
  it('gives each book the same result as a task of its own, in order; an unreadable book is its own MediaError', async () => {
    const broken = join(dir, 'broken.cbz');
    await writeFile(broken, 'not a zip at all');
    const results = await pool.analyzeManyForCatalog([small, broken, small], { libraryRoot: join(dir, 'lib') });
    const alone = await pool.analyzeForCatalog(small, { libraryRoot: join(dir, 'lib') });
    expect(results).toHaveLength(3);
    expect(results[0]).toEqual(alone);
    expect(results[2]).toEqual(alone);
    expect(results[1]).toMatchObject({ name: 'MediaError', kind: 'corrupt' });
  });

  it('a task cut at its time limit is done again book by book: only the slow book fails', async () => {
    await Promise.all([pool.hash(small), pool.hash(small)]);
    const results = await pool.analyzeManyForCatalog([small, big, small], { timeoutMs: 400 });
    expect(results[0]).toMatchObject({ hash: expect.stringMatching(/^[0-9a-f]{64}$/), pageCount: 3 });
    expect(results[1]).toMatchObject({ name: 'MediaError', kind: 'timeout' });
    expect(results[2]).toMatchObject({ pageCount: 3 });
  });

  it('a book that kills its worker fails alone; cancellation rejects the whole call', async () => {
    const tight = new AnalysisPool({
      threads: 1,
      maxOldGenerationSizeMb: 64,
      timeoutMs: 60_000,
      limits: { maxXmlBytes: 256 * 1024 * 1024 },
    });
    try {
      const hog = await hogCbz();
      const results = await tight.analyzeManyForCatalog([small, hog, small]);
      expect(results.map((r) => (r instanceof Error ? (r as { kind?: string }).kind : 'ok'))).toEqual(['ok', 'too_large', 'ok']);
    } finally {
      await tight.destroy();
    }
    const controller = new AbortController();
    const pending = pool.analyzeManyForCatalog([big, small], { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
  });
});

/** A ComicInfo.xml of a million page records: tens of MB of XML, hundreds of MB of parsed objects. */
async function hogCbz(): Promise<string> {
  const pages = Array.from({ length: 1_000_000 }, (_, i) => `<Page Image="${i}" Type="Story"/>`).join('');
  return makeCbz(dir, 'hog.cbz', { pages: 1, comicInfo: `<ComicInfo><Title>x</Title><Pages>${pages}</Pages></ComicInfo>` });
}

describe('memory isolation', () => {
  it('a file that blows the worker heap kills only its worker: too_large, and the pool goes on', async () => {
    const tight = new AnalysisPool({
      threads: 1,
      maxOldGenerationSizeMb: 64,
      timeoutMs: 60_000,
      limits: { maxXmlBytes: 256 * 1024 * 1024 },
    });
    try {
      const hog = await hogCbz();
      await expect(tight.analyze(hog)).rejects.toMatchObject({
        name: 'MediaError',
        kind: 'too_large',
        message: expect.stringMatching(/out of memory/),
      });
      expect((await tight.analyze(small)).pages).toHaveLength(3);
    } finally {
      await tight.destroy();
    }
  });
});
