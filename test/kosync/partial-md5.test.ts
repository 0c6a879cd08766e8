import { createHash, randomBytes } from 'node:crypto';
import { closeSync, openSync, readSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub, makePdf } from '../media/fixtures.js';
import { createCatalogApp, scan, type CatalogTestApp } from '../helpers/catalog.js';
import { createLibrary, libraryDir } from '../scanner/helpers.js';

/**
 * KOReader's util.partialMD5 written again from its Lua source, independently of src/media/analysis/koreader-md5.ts:
 *   for i = -1, 10 do file:seek("set", bit.lshift(step, 2*i)); sample = file:read(size); if not sample then break end; md5:update(sample) end
 * with LuaJIT's bit.lshift (shift count taken mod 32, result a signed 32-bit integer).
 */
function luaLshift(value: number, count: number): number {
  return Number(BigInt.asIntN(32, BigInt(value) << BigInt(((count % 32) + 32) % 32)));
}
function referencePartialMd5(file: string): string {
  const md5 = createHash('md5');
  const fd = openSync(file, 'r');
  try {
    for (let i = -1; i <= 10; i++) {
      const sample = Buffer.alloc(1024);
      const read = readSync(fd, sample, 0, 1024, luaLshift(1024, 2 * i));
      if (read === 0) break;
      md5.update(sample.subarray(0, read));
    }
  } finally {
    closeSync(fd);
  }
  return md5.digest('hex');
}

describe('KOReader partial MD5 at scan time', () => {
  let t: CatalogTestApp;
  let dir: string;
  let libraryId: string;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    t = await createCatalogApp();
    dir = libraryDir();
    files.epub = await makeEpub(dir, 'Novel/novel.epub', { kind: 'image', pages: 4, metadata: { title: 'Novel' } });
    files.cbz = await makeCbz(dir, 'Comic/comic 1.cbz', { pages: 3, noise: true });
    files.pdf = await makePdf(dir, 'Paper/paper.pdf', { pages: 2 });
    // Larger than the whole-file read (16 MiB): analysed from the file, not from memory.
    files.large = await makeCbz(dir, 'Comic/comic 2.cbz', {
      pages: 2,
      store: true,
      extra: [{ name: 'padding.bin', data: randomBytes(17 * 1024 * 1024), store: true }],
    });
    // Not a readable archive: the scan still identifies it for KOReader.
    files.broken = path.join(dir, 'Comic/comic 3.cbz');
    writeFileSync(files.broken, randomBytes(5000));
    libraryId = (await createLibrary(t, dir)).id;
    await scan(t, libraryId);
  }, 60_000);

  afterAll(async () => {
    await t?.close();
  });

  async function stored(): Promise<Map<string, string | null>> {
    const rows = await t.database.db.selectFrom('books').select(['path', 'koreader_md5']).where('library_id', '=', libraryId).execute();
    return new Map(rows.map((r) => [r.path, r.koreader_md5]));
  }
  const rel = (file: string) => path.relative(dir, file).split(path.sep).join('/');

  it('stores the value KOReader computes for EPUB, CBZ (in memory and streamed), PDF and an unreadable file', async () => {
    const byPath = await stored();
    expect(byPath.size).toBe(5);
    for (const file of Object.values(files)) {
      expect(byPath.get(rel(file)), rel(file)).toBe(referencePartialMd5(file));
    }
    // The samples reach past the first KiB: a book of 17 MiB hashes 11 samples, not one.
    expect(referencePartialMd5(files.large!)).not.toBe(createHash('md5').update(Buffer.alloc(0)).digest('hex'));
  });

  it('fills it in on the next normal scan for books analysed before it existed, and again on a deep scan', async () => {
    await t.database.db.updateTable('books').set({ koreader_md5: null }).where('library_id', '=', libraryId).execute();
    await scan(t, libraryId);
    let byPath = await stored();
    for (const file of Object.values(files)) expect(byPath.get(rel(file))).toBe(referencePartialMd5(file));

    await t.database.db.updateTable('books').set({ koreader_md5: null }).where('library_id', '=', libraryId).execute();
    await scan(t, libraryId, 'deep');
    byPath = await stored();
    for (const file of Object.values(files)) expect(byPath.get(rel(file))).toBe(referencePartialMd5(file));
  }, 60_000);

  it('is indexed', async () => {
    const indexes =
      t.database.dialect === 'sqlite'
        ? (
            await t.database.db
              .selectFrom('sqlite_master' as never)
              .select('name' as never)
              .where('type' as never, '=', 'index' as never)
              .execute()
          ).map((r) => (r as { name: string }).name)
        : (
            await t.database.db
              .selectFrom('pg_indexes' as never)
              .select('indexname' as never)
              .execute()
          ).map((r) => (r as { indexname: string }).indexname);
    expect(indexes).toContain('books_koreader_md5');
  });
});
