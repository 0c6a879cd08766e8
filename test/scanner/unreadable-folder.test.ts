import { chmodSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FoundFile, WalkOptions } from '../../src/libraries/scanning/scanner/walk.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from './helpers.js';
import { asRoot, notAsRoot } from '../helpers/temp-dir.js';

/**
 * Folders the walk is told it cannot read, by library root. Tests run as root here and in CI, where chmod 000
 * hides nothing, so the rescan's walk (walkLibraryOffThread) reports these folders the way the real walk reports
 * a readdir() failure: `onError(dir, err)` with the error's code, and none of the folder's files.
 */
const failing = new Map<string, { dir: string; code: string }>();

vi.mock('../../src/libraries/scanning/scanner/walk-thread.js', async (importOriginal) => {
  const real = await importOriginal<typeof import('../../src/libraries/scanning/scanner/walk-thread.js')>();
  async function* walkLibraryOffThread(root: string, options: Pick<WalkOptions, 'signal' | 'onError'> = {}): AsyncGenerator<FoundFile[]> {
    const fault = failing.get(root);
    if (fault) options.onError?.(fault.dir, Object.assign(new Error(`${fault.code}: cannot read ${fault.dir}`), { code: fault.code }));
    for await (const files of real.walkLibraryOffThread(root, options)) {
      const kept = fault ? files.filter((f) => !f.relPath.startsWith(`${fault.dir}/`)) : files;
      if (kept.length > 0) yield kept;
    }
  }
  return { ...real, walkLibraryOffThread };
});

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp();
});
afterAll(() => t.close());

async function presentPaths(libraryId: string): Promise<string[]> {
  const rows = await t.database.db
    .selectFrom('books')
    .select(['path', 'deleted_at'])
    .where('library_id', '=', libraryId)
    .orderBy('path')
    .execute();
  return rows.filter((r) => r.deleted_at === null).map((r) => r.path);
}

async function library(): Promise<{ dir: string; id: string }> {
  const dir = libraryDir();
  await makeCbz(dir, 'Locked/Locked 01.cbz', { pages: 2 });
  await makeCbz(dir, 'Locked/Locked 02.cbz', { pages: 2 });
  await makeCbz(dir, 'Open/Open 01.cbz', { pages: 2 });
  const { id } = await createLibrary(t, dir);
  await scan(t, id);
  expect(await presentPaths(id)).toEqual(['Locked/Locked 01.cbz', 'Locked/Locked 02.cbz', 'Open/Open 01.cbz']);
  return { dir, id };
}

describe('A folder that cannot be read during a rescan', () => {
  it('keeps its books and series as they are and counts an error; a folder removed during the walk is gone', async () => {
    const { dir, id } = await library();
    const booksBefore = await t.database.db.selectFrom('books').selectAll().where('library_id', '=', id).orderBy('path').execute();

    failing.set(dir, { dir: 'Locked', code: 'EACCES' });
    try {
      const done = await scan(t, id);
      expect(done.result).toMatchObject({ books_deleted: 0, errors: 1 });
    } finally {
      failing.delete(dir);
    }
    expect(await t.database.db.selectFrom('books').selectAll().where('library_id', '=', id).orderBy('path').execute()).toEqual(booksBefore);
    const series = await api<{ data: Array<{ name: string }> }>(t, 'GET', `/api/v1/series?library_id=${id}`);
    expect(series.body.data.map((s) => s.name).sort()).toEqual(['Locked', 'Open']);

    // ENOENT is a folder deleted between its parent's listing and its own: its books are missing, as without a fault.
    failing.set(dir, { dir: 'Locked', code: 'ENOENT' });
    try {
      const done = await scan(t, id);
      expect(done.result).toMatchObject({ books_deleted: 2, errors: 0 });
    } finally {
      failing.delete(dir);
    }
    expect(await presentPaths(id)).toEqual(['Open/Open 01.cbz']);
  });

  it.skipIf(asRoot)(notAsRoot('with real permissions (not as root): the same, through the real walk thread'), async () => {
    const { dir, id } = await library();
    chmodSync(path.join(dir, 'Locked'), 0o000);
    try {
      const done = await scan(t, id);
      expect(done.result).toMatchObject({ books_deleted: 0, errors: 1 });
    } finally {
      chmodSync(path.join(dir, 'Locked'), 0o755);
    }
    expect(await presentPaths(id)).toEqual(['Locked/Locked 01.cbz', 'Locked/Locked 02.cbz', 'Open/Open 01.cbz']);
  });
});
