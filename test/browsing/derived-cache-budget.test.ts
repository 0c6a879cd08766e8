import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { derivedCacheDir } from '../../src/data-dir.js';
import { DerivedCacheBudget, isResizedPage } from '../../src/media/rendering/derived-cache-budget.js';
import { snapDown } from '../../src/media/rendering/page-sizes.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';

const BUDGET_MB = 1;

/** Every file under the cache folder: [name, bytes]. */
async function cachedFiles(dir: string): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => [])) {
    if (entry.isFile()) out.push([entry.name, (await stat(join(entry.parentPath, entry.name))).size]);
  }
  return out;
}

describe('resized pages on disk stay within cache.derived_max_mb', () => {
  let t: CatalogTestApp;
  let book: { id: string };
  beforeAll(async () => {
    t = await createCatalogApp({ cache: { derived_max_mb: BUDGET_MB } });
    await scannedLibrary(t, async (dir) => {
      // Noise does not compress: a resized variant of this page weighs tens to hundreds of kilobytes.
      await makeCbz(dir, 'Big 001.cbz', { pages: 2, pageSize: { width: 1400, height: 2000 }, noise: true });
    });
    book = (await api<Paged<{ id: string }>>(t, 'GET', '/api/v1/books')).body.data[0]!;
  });
  afterAll(() => t.close());

  it('many distinct requested sizes: every answer fits the request, and the cache never exceeds its budget', async () => {
    const cacheDir = derivedCacheDir(t.config);
    const thumb = await t.app.inject({ method: 'GET', url: `/api/v1/books/${book.id}/thumbnail`, headers: t.headers });
    expect(thumb.statusCode).toBe(200);
    const budget = BUDGET_MB * 1024 * 1024;
    let peak = 0;
    for (let width = 150; width <= 1400; width += 23) {
      for (const q of [`width=${width}`, `height=${width}&format=webp`]) {
        const res = await t.app.inject({ method: 'GET', url: `/api/v1/books/${book.id}/pages/1?${q}`, headers: t.headers });
        expect(res.statusCode, q).toBe(200);
        const meta = await sharp(res.rawPayload).metadata();
        if (q.startsWith('width')) expect(meta.width, q).toBeLessThanOrEqual(width);
        else expect(meta.height, q).toBeLessThanOrEqual(width);
        const pages = (await cachedFiles(cacheDir)).filter(([name]) => isResizedPage(name));
        peak = Math.max(
          peak,
          pages.reduce((sum, [, bytes]) => sum + bytes, 0),
        );
      }
    }
    expect(peak).toBeGreaterThan(budget / 2);
    expect(peak).toBeLessThanOrEqual(budget);
    // 110 distinct requests snapped to the steps: at most one variant per step and dimension was ever made.
    const names = new Set((await cachedFiles(cacheDir)).map(([name]) => name));
    expect([...names].filter((n) => n.startsWith('thumb-')).length, 'covers are not evicted').toBeGreaterThan(0);
    expect(names.size).toBeLessThan(30);
  });

  it('sizes snap down to a few steps, so nearby requests share one variant (same ETag), never larger than asked', async () => {
    const etag = async (q: string) =>
      (await t.app.inject({ method: 'GET', url: `/api/v1/books/${book.id}/pages/2?${q}`, headers: t.headers })).headers.etag;
    const first = await etag('width=1080');
    for (const w of [1081, 1150, 1279]) expect(await etag(`width=${w}`), `width=${w}`).toBe(first);
    expect(await etag('width=1280')).not.toBe(first);
    // At least the page's own width: the one original-size variant, whatever the number.
    expect(await etag('width=1400')).toBe(await etag('width=9000'));
    expect([snapDown(39), snapDown(40), snapDown(799), snapDown(800), snapDown(10_000)]).toEqual([39, 40, 640, 800, 7680]);
  });
});

describe('DerivedCacheBudget', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'colophon-budget-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('after a restart, what is on disk counts, and the least recently used (oldest mtime) goes first', async () => {
    const hashDir = join(dir, 'ab', 'ab'.repeat(32));
    await mkdir(hashDir, { recursive: true });
    const file = (name: string) => join(hashDir, name);
    for (const [i, name] of ['page-1-w320-h0-auto', 'page-2-w320-h0-auto', 'page-3-w320-h0-auto', 'thumb-w400-h0.webp'].entries()) {
      await writeFile(file(name), Buffer.alloc(400));
      await utimes(file(name), 1000 + (i === 0 ? 50 : i), 1000 + (i === 0 ? 50 : i));
    }
    const budget = new DerivedCacheBudget(dir, 1000, isResizedPage);
    await writeFile(file('page-4-w320-h0-auto'), Buffer.alloc(400));
    await budget.added(file('page-4-w320-h0-auto'));
    // 1,600 bytes of pages against 1,000: page 2 and 3 are the oldest (page 1 was used since), so they went.
    expect(
      ['page-1-w320-h0-auto', 'page-2-w320-h0-auto', 'page-3-w320-h0-auto', 'page-4-w320-h0-auto', 'thumb-w400-h0.webp'].map((n) =>
        existsSync(file(n)),
      ),
    ).toEqual([true, false, false, true, true]);
    expect(budget.usedBytes).toBe(800);
  });
});
