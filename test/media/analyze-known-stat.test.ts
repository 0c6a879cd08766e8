import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisPool } from '../../src/media/analysis/analysis-pool.js';
import { analyzeFile } from '../../src/media/analysis/analyze.js';
import { makeCbz } from './fixtures.js';

let dir: string;
let book: string;
let size: number;
let mtimeMs: number;
let sha256: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-known-stat-'));
  book = await makeCbz(dir, 'Saga/Saga 001.cbz', { pages: 3, comicInfo: { Title: 'One' } });
  const info = await stat(book);
  size = info.size;
  mtimeMs = Math.floor(info.mtimeMs);
  sha256 = createHash('sha256')
    .update(await readFile(book))
    .digest('hex');
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('analysis with the size and mtime the walk saw', () => {
  it('gives the same analysis as with its own stat()', async () => {
    const own = await analyzeFile(book);
    const known = await analyzeFile(book, { stat: { size, mtimeMs } });
    expect(known).toMatchObject({ size, mtimeMs, hash: sha256, pages: own.pages, metadata: own.metadata });
  });

  it('takes the file as it is when it changed since the walk (shorter or longer than seen)', async () => {
    for (const seen of [size + 100, size - 100, 0]) {
      const analysis = await analyzeFile(book, { stat: { size: seen, mtimeMs: 1 } });
      expect(analysis.size).toBe(size);
      expect(analysis.hash).toBe(sha256);
      expect(analysis.mtimeMs).not.toBe(1);
      expect(analysis.pages).toHaveLength(3);
    }
  });

  it("a file gone since the walk, or that cannot be stat()ed, fails as without the walk's stat: not_found", async () => {
    await expect(analyzeFile(join(dir, 'gone.cbz'), { stat: { size, mtimeMs } })).rejects.toMatchObject({ kind: 'not_found' });
    // A symbolic link loop (ELOOP): what a folder without permission gives too, where tests run as root.
    await symlink(join(dir, 'loop-b.cbz'), join(dir, 'loop-a.cbz'));
    await symlink(join(dir, 'loop-a.cbz'), join(dir, 'loop-b.cbz'));
    const own = await analyzeFile(join(dir, 'loop-a.cbz')).catch((err: unknown) => err);
    const known = await analyzeFile(join(dir, 'loop-a.cbz'), { stat: { size, mtimeMs } }).catch((err: unknown) => err);
    expect(own).toMatchObject({ kind: 'not_found' });
    expect(known).toMatchObject({ kind: 'not_found' });
  });

  it('reaches the workers with each book of a batch, and a batch redone book by book keeps them', async () => {
    const pool = new AnalysisPool({ threads: 1 });
    try {
      const other = await makeCbz(dir, 'Saga/Saga 002.cbz', { pages: 2 });
      const results = await pool.analyzeManyForCatalog([book, join(dir, 'gone.cbz'), other], {
        stats: [
          { size: size + 7, mtimeMs: 1 },
          { size: 10, mtimeMs: 1 },
          { size: (await stat(other)).size, mtimeMs: 12345 },
        ],
      });
      expect(results[0]).toMatchObject({ size, hash: sha256, pageCount: 3 });
      expect(results[1]).toMatchObject({ kind: 'not_found' });
      // Trusted as given: the size matched, so no stat() of its own.
      expect(results[2]).toMatchObject({ mtimeMs: 12345, pageCount: 2 });
    } finally {
      await pool.destroy();
    }
  });
});
