import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EntityEvent, EntityEventName } from '../../src/events/types.js';
import { ENTITY_EVENTS } from '../../src/events/types.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';

let t: CatalogTestApp;
const seen: EntityEvent[] = [];
beforeAll(async () => {
  t = await createCatalogApp();
  for (const name of ENTITY_EVENTS) t.app.events.on(name, (e) => seen.push(e));
});
afterAll(() => t.close());

const since = (mark: number, type: EntityEventName) => seen.slice(mark).filter((e) => e.type === type);

describe('which operation emits which entity event (each with type, ids and timestamp)', () => {
  it('create, scan, add a book, change a book, remove a book, update and delete the library', async () => {
    const root = libraryDir();
    const dir = path.join(root, 'Series A');
    mkdirSync(dir);
    await makeCbz(dir, 'Series A 001.cbz', { pages: 1 });
    let mark = seen.length;
    const library = await createLibrary(t, root);
    expect(since(mark, 'library_created')).toEqual([{ type: 'library_created', library_id: library.id, timestamp: expect.any(String) }]);

    mark = seen.length;
    await scan(t, library.id);
    const [seriesCreated] = since(mark, 'series_created');
    expect(seriesCreated).toMatchObject({ library_id: library.id, series_id: expect.any(String) });
    expect(since(mark, 'book_created')).toHaveLength(1);

    mark = seen.length;
    await makeCbz(dir, 'Series A 002.cbz', { pages: 2 });
    await scan(t, library.id);
    expect(since(mark, 'book_created')).toHaveLength(1);
    expect(since(mark, 'series_updated')).toEqual([
      expect.objectContaining({ series_id: seriesCreated!.series_id, library_id: library.id }),
    ]);

    mark = seen.length;
    await new Promise((r) => setTimeout(r, 20));
    await makeCbz(dir, 'Series A 002.cbz', { pages: 3 });
    await scan(t, library.id);
    const updated = since(mark, 'book_updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]).toMatchObject({ book_id: expect.any(String), series_id: seriesCreated!.series_id });
    expect(since(mark, 'cover_updated')).toHaveLength(1);

    mark = seen.length;
    rmSync(path.join(dir, 'Series A 002.cbz'));
    await scan(t, library.id);
    expect(since(mark, 'book_deleted')).toHaveLength(1);

    mark = seen.length;
    expect((await api(t, 'PATCH', `/api/v1/libraries/${library.id}`, { name: 'Renamed' })).status).toBe(200);
    expect(since(mark, 'library_updated')).toHaveLength(1);

    mark = seen.length;
    expect((await api(t, 'DELETE', `/api/v1/libraries/${library.id}`)).status).toBe(204);
    expect(since(mark, 'series_deleted')).toHaveLength(1);
    expect(since(mark, 'library_deleted')).toHaveLength(1);
    for (const e of seen) expect(new Date(e.timestamp).toISOString()).toBe(e.timestamp);
  });
});
