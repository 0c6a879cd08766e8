import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, waitForTask, type CatalogTestApp, type TaskBody } from './helpers.js';

let t: CatalogTestApp;
beforeAll(async () => {
  t = await createCatalogApp({ tasks: { concurrency: 2 }, thumbnails: { pregenerate: false } });
});
afterAll(() => t.close());

async function library(count: number): Promise<string> {
  const dir = libraryDir();
  const source = await makeCbz(path.dirname(dir), 'source.cbz', { pages: 2, pageSize: { width: 64, height: 96 } });
  await mkdir(path.join(dir, 'Series'), { recursive: true });
  for (let i = 0; i < count; i++) await copyFile(source, path.join(dir, 'Series', `Book ${String(i).padStart(3, '0')}.cbz`));
  return dir;
}

async function threadsWithin(ms: number): Promise<number> {
  const until = Date.now() + ms;
  while (t.app.background.scanner.analysisThreads > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
  return t.app.background.scanner.analysisThreads;
}

describe('The analysis workers leave when the last running scan ends', () => {
  it('a finished scan leaves no analysis thread behind (the cover task that follows must not stack on them)', async () => {
    const lib = await createLibrary(t, await library(6));
    const done = await scan(t, lib.id);
    expect(done.status).toBe('completed');
    expect(done.result?.books_added).toBe(6);
    // Their idle timeout is 5 s; released, they are gone well before.
    expect(await threadsWithin(1500)).toBe(0);
  });

  it('a scan ending while another runs leaves that one its workers; the next scan starts new ones', async () => {
    const big = await createLibrary(t, await library(60));
    const small = await createLibrary(t, await library(1));
    const bigTask = (await api<TaskBody>(t, 'POST', `/api/v1/libraries/${big.id}/scan`)).body;
    const smallTask = (await api<TaskBody>(t, 'POST', `/api/v1/libraries/${small.id}/scan`)).body;
    const [bigDone, smallDone] = await Promise.all([waitForTask(t, bigTask.id), waitForTask(t, smallTask.id)]);
    expect(smallDone.status).toBe('completed');
    expect(bigDone.status).toBe('completed');
    expect(bigDone.result).toMatchObject({ books_added: 60, errors: 0 });
    const books = await api<{ data: Array<{ analysis_error: string | null; page_count: number }> }>(
      t,
      'GET',
      `/api/v1/books?library_id=${big.id}&pageSize=100`,
    );
    expect(books.body.data).toHaveLength(60);
    expect(books.body.data.every((b) => b.analysis_error === null && b.page_count === 2)).toBe(true);
    expect(await threadsWithin(1500)).toBe(0);

    const again = await createLibrary(t, await library(3));
    expect((await scan(t, again.id)).result).toMatchObject({ books_added: 3, errors: 0 });
  });
});
