import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookReaderCache } from '../../src/media/reader-cache.js';
import type { BookReader } from '../../src/media/types.js';
import { makeCbz } from './fixtures.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'bindery-readers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('open books kept for page serving', () => {
  it('reuses one open reader for consecutive pages of a book', async () => {
    const cache = new BookReaderCache({ maxOpen: 2 });
    const path = await makeCbz(dir, 'one.cbz', { pages: 3 });
    const seen = new Set<BookReader>();
    for (const n of [1, 2, 3]) {
      await cache.use({ path, format: 'cbz', version: 'h1' }, {}, async (reader) => {
        seen.add(reader);
        return reader.readPage(n);
      });
    }
    expect(seen.size).toBe(1);
    await cache.close();
  });

  it('opens a new reader when the version (content hash) changes', async () => {
    const cache = new BookReaderCache();
    const path = await makeCbz(dir, 'two.cbz', { pages: 1 });
    const a = await cache.use({ path, version: 'h1' }, {}, async (reader) => reader);
    const b = await cache.use({ path, version: 'h2' }, {}, async (reader) => reader);
    expect(a).not.toBe(b);
    await cache.close();
  });

  it('closes the least recently used books past its size, never one in use', async () => {
    const cache = new BookReaderCache({ maxOpen: 2 });
    const paths = await Promise.all([1, 2, 3].map((i) => makeCbz(dir, `lru${i}.cbz`, { pages: 1 })));
    await cache.use({ path: paths[0] ?? '' }, {}, async () => {
      await cache.use({ path: paths[1] ?? '' }, {}, async (reader) => reader.readPage(1));
      await cache.use({ path: paths[2] ?? '' }, {}, async (reader) => reader.readPage(1));
      expect(cache.size).toBe(2);
    });
    await cache.close();
  });

  it('does not keep a book that failed to open', async () => {
    const cache = new BookReaderCache();
    await expect(cache.use({ path: join(dir, 'missing.cbz'), format: 'cbz' }, {}, async () => 1)).rejects.toMatchObject({ kind: 'not_found' });
    expect(cache.size).toBe(0);
    await cache.close();
  });
});
