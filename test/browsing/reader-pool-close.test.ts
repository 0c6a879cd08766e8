import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReaderPool } from '../../src/reading/pages/reader-pool.js';
import { makeCbz } from '../media/fixtures.js';

/** Review 13: a request waiting for room in the reader pool when the server closes it opens no book afterwards. */

let dir: string;
let books: Array<{ absolutePath: string; size: number; mtimeMs: number }>;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'colophon-pool-close-'));
  books = [];
  for (const name of ['First 001.cbz', 'Second 001.cbz']) {
    const absolutePath = await makeCbz(dir, name);
    const info = await stat(absolutePath);
    books.push({ absolutePath, size: info.size, mtimeMs: info.mtimeMs });
  }
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('ReaderPool.close()', () => {
  it('a request waiting for room when the pool closes is refused (unavailable) instead of opening its book', async () => {
    const pool = new ReaderPool({ maxOpen: 1, maxInUse: 1 });
    let finishFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => (finishFirst = resolve));
    let firstOpen!: () => void;
    const firstStarted = new Promise<void>((resolve) => (firstOpen = resolve));
    const first = pool.use(books[0]!, 'cbz', [], async (reader) => {
      firstOpen();
      await firstHeld;
      return reader.listPages().length;
    });
    await firstStarted;
    let secondOpened = false;
    const second = pool.use(books[1]!, 'cbz', [], async () => {
      secondOpened = true;
    });
    const secondOutcome = second.then(
      () => 'opened',
      (err: unknown) => (err as { kind?: string }).kind,
    );
    await pool.close();
    finishFirst();
    expect(await first).toBeGreaterThan(0);
    expect(await secondOutcome).toBe('unavailable');
    expect(secondOpened).toBe(false);
    expect(pool.openBooks).toBe(0);
  });

  it('a request after close is refused too', async () => {
    const pool = new ReaderPool();
    await pool.close();
    await expect(pool.use(books[0]!, 'cbz', [], async () => 1)).rejects.toMatchObject({ kind: 'unavailable' });
  });
});
