import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import type { Paged } from '../helpers/catalog.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

interface Explanation {
  status: string;
  sentences: string[];
  file: { exists: boolean; is_folder: boolean; size: number | null; mtime_ms: number | null };
}

// A symbolic link inside a library that resolves outside it (a file or a folder) is not part of the library:
// scans skip it, and the explainer says so without telling anything of the target (issue 48).
describe('symbolic links out of the library', () => {
  let t: CatalogTestApp;
  let dir: string;
  let outside: string;
  let libraryId: string;
  const explain = (p: string) => api<Explanation>(t, 'GET', `/api/v1/libraries/${libraryId}/explain?path=${encodeURIComponent(p)}`);

  beforeAll(async () => {
    t = await createCatalogApp();
    dir = libraryDir();
    outside = makeTempDir('colophon-outside-');
    await makeCbz(path.join(dir, 'Inside'), 'inside 01.cbz', { pages: 1, comicInfo: { Series: 'Inside', Number: 1 } });
    await makeCbz(outside, 'secret 01.cbz', { pages: 3, comicInfo: { Series: 'Secret', Number: 1 } });
    mkdirSync(path.join(outside, 'Folder'));
    await makeCbz(path.join(outside, 'Folder'), 'secret 02.cbz', { pages: 1 });
    symlinkSync(path.join(outside, 'secret 01.cbz'), path.join(dir, 'Inside', 'escape.cbz'));
    symlinkSync(path.join(outside, 'Folder'), path.join(dir, 'Linked'));
    symlinkSync(path.join(dir, 'Inside', 'inside 01.cbz'), path.join(dir, 'Inside', 'alias 02.cbz'));
    ({ id: libraryId } = await createLibrary(t, dir));
    await scan(t, libraryId);
  }, 60_000);
  afterAll(() => t?.close());

  it('scans skip the links that lead out (a file, a folder) and keep a link to a file inside', async () => {
    const books = await api<Paged<{ path: string }>>(t, 'GET', `/api/v1/books?library_id=${libraryId}&pageSize=50`);
    expect(books.body.data.map((b) => b.path).sort()).toEqual(['Inside/alias 02.cbz', 'Inside/inside 01.cbz']);
  });

  it('the explainer calls them outside the library and tells nothing of their targets', async () => {
    for (const p of ['Inside/escape.cbz', 'Linked', 'Linked/secret 02.cbz']) {
      const res = await explain(p);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.status, p).toBe('outside');
      expect(res.body.file).toEqual({ exists: false, is_folder: false, size: null, mtime_ms: null });
      const text = JSON.stringify(res.body);
      expect(text).not.toContain(outside);
      expect(text).not.toContain('secret 01');
    }
    const alias = await explain('Inside/alias 02.cbz');
    expect(alias.body.status).toBe('book');
    expect(alias.body.file.size).toBeGreaterThan(0);
  });
});
