import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCacheDir } from '../../src/data-dir.js';
import { cachedPath } from '../../src/media/rendering/derived-cache.js';
import { thumbnailVariant } from '../../src/media/rendering/thumbnails.js';
import type { EntityEvent } from '../../src/events/types.js';
import { makeCbz } from '../media/fixtures.js';
import {
  api,
  createCatalogApp,
  createLibrary,
  libraryDir,
  scan,
  waitForTask,
  type CatalogTestApp,
  type TaskBody,
} from '../scanner/helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp({ thumbnails: { pregenerate: true } });
});
afterAll(() => t.close());

describe('covers are made in the background after a scan (generate_thumbnails)', () => {
  it('queues one task per scan that added books, caches WebP and JPEG covers, and emits cover_updated', async () => {
    const covers: EntityEvent[] = [];
    t.app.events.on('cover_updated', (e) => covers.push(e));
    const dir = libraryDir();
    await makeCbz(dir, 'Alpha 001.cbz', { pages: 2 });
    await makeCbz(dir, 'Alpha 002.cbz', { pages: 2, pageSize: { width: 500, height: 800 } });
    await makeCbz(dir, 'broken.cbz', { pages: [{ name: 'p1.jpg', data: Buffer.from('not an image') }] });
    const library = await createLibrary(t, dir);
    await scan(t, library.id);

    let task: TaskBody | undefined;
    const deadline = Date.now() + 10_000;
    while (!task && Date.now() < deadline) {
      const list = await api<{ data: TaskBody[] }>(t, 'GET', `/api/v1/tasks?type=generate_thumbnails&library_id=${library.id}`);
      task = list.body.data[0];
      if (!task) await new Promise((r) => setTimeout(r, 25));
    }
    expect(task, 'a generate_thumbnails task was queued').toBeDefined();
    const done = await waitForTask(t, task!.id);
    expect(done.status).toBe('completed');
    expect(done.result).toMatchObject({ generated: 2, failed: 1 });

    const books = await t.database.db
      .selectFrom('books')
      .select(['id', 'hash'])
      .where('library_id', '=', library.id)
      .where('path', 'like', 'Alpha%')
      .execute();
    expect(books).toHaveLength(2);
    for (const book of books.filter((b) => b.hash)) {
      for (const format of ['webp', 'jpeg'] as const)
        expect(existsSync(cachedPath(derivedCacheDir(t.config), book.hash!, thumbnailVariant(400, undefined, format)))).toBe(true);
    }
    expect(covers.map((c) => c.library_id)).toEqual([library.id, library.id]);
    expect(covers[0]).toMatchObject({
      type: 'cover_updated',
      book_id: expect.any(String),
      series_id: expect.any(String),
      timestamp: expect.any(String),
    });

    // An unchanged rescan adds nothing, so nothing is queued.
    await scan(t, library.id);
    await new Promise((r) => setTimeout(r, 200));
    const after = await api<{ total: number }>(t, 'GET', `/api/v1/tasks?type=generate_thumbnails&library_id=${library.id}`);
    expect(after.body.total).toBe(1);
  });
});
