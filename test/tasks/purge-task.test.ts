import { rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  t = await createCatalogApp();
});
afterAll(() => t.close());

describe('DELETE /libraries/{id}/purge-deleted?background=true', () => {
  it('queues a purge_deleted task that purges the soft-deleted books and reports the counts as its result', async () => {
    const dir = libraryDir();
    await makeCbz(dir, 'Kept/Kept 01.cbz', { pages: 2 });
    await makeCbz(dir, 'Gone/Gone 01.cbz', { pages: 2 });
    const { id } = await createLibrary(t, dir);
    await scan(t, id);
    await rm(path.join(dir, 'Gone'), { recursive: true });
    await scan(t, id);
    const goneBook = await t.database.db
      .selectFrom('books')
      .select(['id', 'deleted_at'])
      .where('library_id', '=', id)
      .where('path', '=', 'Gone/Gone 01.cbz')
      .executeTakeFirstOrThrow();
    expect(goneBook.deleted_at).not.toBeNull();

    const queued = await api<TaskBody>(t, 'DELETE', `/api/v1/libraries/${id}/purge-deleted?background=true`);
    expect(queued.status).toBe(202);
    expect(queued.body).toMatchObject({ task_type: 'purge_deleted', library_id: id });
    const done = await waitForTask(t, queued.body.id);
    expect(done.status, done.error ?? '').toBe('completed');
    expect(done.result).toMatchObject({ library_id: id, books_purged: 1, series_purged: 1 });
    const left = await t.database.db.selectFrom('books').select('path').where('library_id', '=', id).execute();
    expect(left.map((b) => b.path)).toEqual(['Kept/Kept 01.cbz']);

    const listed = await api<{ data: TaskBody[] }>(t, 'GET', '/api/v1/tasks?type=purge_deleted');
    expect(listed.body.data.map((task) => task.id)).toContain(queued.body.id);

    // Without the flag: done in the request, 200 with the counts (nothing left to purge now).
    const inline = await api(t, 'DELETE', `/api/v1/libraries/${id}/purge-deleted`);
    expect(inline.status).toBe(200);
    expect(inline.body).toEqual({ library_id: id, books_purged: 0, series_purged: 0 });
  });

  it('404 for an unknown library, 400 for a flag that is not true or false', async () => {
    const missing = await api<{ error: string }>(
      t,
      'DELETE',
      '/api/v1/libraries/00000000-0000-4000-8000-000000000000/purge-deleted?background=true',
    );
    expect(missing.status).toBe(404);
    expect(missing.body.error).toBe('NotFound');
    const { id } = await createLibrary(t, libraryDir());
    const bad = await api<{ error: string; message: string; details: unknown }>(
      t,
      'DELETE',
      `/api/v1/libraries/${id}/purge-deleted?background=yes`,
    );
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body).sort()).toEqual(['details', 'error', 'message']);
  });
});
