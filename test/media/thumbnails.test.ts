import { mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as derived from '../../src/media/rendering/derived-cache.js';
import { hashFile } from '../../src/media/analysis/hash.js';
import { getThumbnail, readThumbnail, thumbnailFormatFor } from '../../src/media/rendering/thumbnails.js';
import { makeCbz, makeEpub, makePdf } from './fixtures.js';

let dir: string;
let cacheDir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'colophon-thumbs-'));
  cacheDir = join(dir, 'cache');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('thumbnails: the cover at 400 px wide, cached on disk by content hash', () => {
  it('makes a 400 px WebP of the first page, then serves it from the cache', async () => {
    const path = await makeCbz(dir, 'thumb.cbz', { pages: 2, pageSize: { width: 1000, height: 1500 } });
    const hash = await hashFile(path);
    const first = await getThumbnail({ cacheDir, hash, path });
    expect(first.generated).toBe(true);
    expect(first.mediaType).toBe('image/webp');
    const meta = await sharp(await readFile(first.path)).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(['webp', 400, 600]);
    const before = (await stat(first.path)).mtimeMs;
    const second = await getThumbnail({ cacheDir, hash, path });
    expect(second).toEqual({ ...first, generated: false });
    expect((await stat(second.path)).mtimeMs).toBe(before);
  });

  it('gives JPEG to clients that do not accept WebP', async () => {
    expect(thumbnailFormatFor('image/avif,image/webp,*/*')).toBe('webp');
    expect(thumbnailFormatFor('*/*')).toBe('jpeg');
    expect(thumbnailFormatFor(undefined)).toBe('jpeg');
    const path = await makeCbz(dir, 'jpeg.cbz', { pages: 1 });
    const thumb = await readThumbnail({ cacheDir, hash: await hashFile(path), path, imageFormat: thumbnailFormatFor('image/png') });
    expect(thumb.mediaType).toBe('image/jpeg');
    expect(thumb.data.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
  });

  it('uses the EPUB cover image and PDF page 1', async () => {
    const epub = await makeEpub(dir, 'cover.epub');
    const fromEpub = await readThumbnail({ cacheDir, hash: await hashFile(epub), path: epub, width: 100 });
    expect((await sharp(fromEpub.data).metadata()).height).toBe(150);
    const pdf = await makePdf(dir, 'cover.pdf', { pageSize: { width: 600, height: 800 } });
    const fromPdf = await readThumbnail({ cacheDir, hash: await hashFile(pdf), path: pdf, width: 150 });
    expect((await sharp(fromPdf.data).metadata()).height).toBe(200);
  });

  it('generates a missing thumbnail once for concurrent requests', async () => {
    const path = await makeCbz(dir, 'concurrent.cbz', { pages: 1 });
    const hash = await hashFile(path);
    const results = await Promise.all(Array.from({ length: 8 }, () => getThumbnail({ cacheDir, hash, path, width: 123 })));
    expect(results.filter((r) => r.generated)).toHaveLength(1);
    expect(new Set(results.map((r) => r.path)).size).toBe(1);
  });

  it('runs the producer of a cached image once however many ask at the same time', async () => {
    let calls = 0;
    const produce = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 20));
      return Buffer.from('image');
    };
    const hash = 'ab'.repeat(32);
    const results = await Promise.all(Array.from({ length: 10 }, () => derived.getOrCreateCached(cacheDir, hash, 'v1.bin', produce)));
    expect(calls).toBe(1);
    expect(results.filter((r) => r.generated)).toHaveLength(1);
    await derived.getOrCreateCached(cacheDir, hash, 'v1.bin', produce);
    expect(calls).toBe(1);
  });

  it('never leaves partial files: only final names in the hash folder', async () => {
    const path = await makeCbz(dir, 'atomic.cbz', { pages: 1, pageSize: { width: 321, height: 456 } });
    const hash = await hashFile(path);
    await Promise.all([getThumbnail({ cacheDir, hash, path }), getThumbnail({ cacheDir, hash, path, width: 200 })]);
    const files = await readdir(join(cacheDir, hash.slice(0, 2), hash));
    expect(files.sort()).toEqual(['thumb-w200-h0.webp', 'thumb-w400-h0.webp']);
  });

  it('lists and removes cached images by hash (orphan cleanup)', async () => {
    const own = join(dir, 'cleanup-cache');
    const a = await makeCbz(dir, 'a.cbz', { pages: 1 });
    const b = await makeCbz(dir, 'b.cbz', { pages: 2 });
    const [hashA, hashB] = await Promise.all([hashFile(a), hashFile(b)]);
    await getThumbnail({ cacheDir: own, hash: hashA, path: a });
    await getThumbnail({ cacheDir: own, hash: hashB, path: b });
    expect(await derived.listCachedHashes(own)).toEqual([hashA, hashB].sort());
    expect(await derived.removeCachedForHash(own, hashA)).toBe(1);
    expect(await derived.listCachedHashes(own)).toEqual([hashB]);
    expect(await derived.listCachedHashes(join(dir, 'no-such-cache'))).toEqual([]);
  });

  it('refuses a cache key that is not a content hash', async () => {
    await expect(getThumbnail({ cacheDir, hash: '../../etc', path: '/nope' })).rejects.toMatchObject({ kind: 'not_found' });
  });
});
