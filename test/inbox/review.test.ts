import { copyFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/auth.js';
import { connect, until } from '../helpers/sse-client.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { setAccess } from '../helpers/household.js';
import { addInbox, inboxDir, sagaLibrary, waitForItems, type Item } from './helpers.js';

/** The inbox's folder rules, the template preview, the events, and a replacement that keeps the book and its progress. */
describe('inbox review', { timeout: 120_000 }, () => {
  let t: CatalogTestApp;
  let base: string;
  let lib: string;
  let libraryId: string;
  let page: Buffer;

  beforeAll(async () => {
    ({ t, base, lib, libraryId, page } = await sagaLibrary(0.3));
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  it('a folder inside a library (or holding one) is refused; a template with a mistake says where', async () => {
    const inside = await api<{ message: string }>(t, 'POST', '/api/v1/inbox/folders', {
      path: path.join(lib, 'Saga'),
      library_id: libraryId,
    });
    expect(inside.status).toBe(409);
    const holding = await api(t, 'POST', '/api/v1/inbox/folders', { path: path.dirname(lib), library_id: libraryId });
    expect(holding.status).toBe(409);
    const bad = await api<{ message: string; details: { field: string; at: number } }>(t, 'POST', '/api/v1/inbox/folders', {
      path: inboxDir(),
      library_id: libraryId,
      template: '{series}/{sries} #{number}.{ext}',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.details).toMatchObject({ field: 'template', at: 9 });
    expect(bad.body.message).toContain('Unknown field {sries}');
    // The same mistake in French, from the server's catalogue.
    const fr = await t.app.inject({
      method: 'POST',
      url: '/api/v1/inbox/template-preview',
      headers: { ...t.headers, 'accept-language': 'fr' },
      payload: { template: '{series}/{sries}.{ext}' },
    });
    expect(fr.statusCode).toBe(400);
    expect((JSON.parse(fr.body) as { message: string }).message).not.toContain('Unknown field');
    const preview = await api<{ examples: Array<{ path: string | null }> }>(t, 'POST', '/api/v1/inbox/template-preview', {
      template: '{series}/{series}[ v{volume:02}][ #{number:03}][ ({year})].{ext}',
    });
    expect(preview.status).toBe(200);
    expect(preview.body.examples.map((e) => e.path)).toEqual([
      'Saga/Saga v02 #007 (2013).cbz',
      'One Piece/One Piece v101 #1015 (2022).cbz',
      'Dune/Dune (1965).epub',
    ]);
  });

  it('inbox_item_added and inbox_item_filed reach a filer, not a reader; a replacement keeps the book, its id and its progress', async () => {
    const inbox = inboxDir();
    await addInbox(t, inbox, libraryId);
    const reader = await createUser(t, 'reader');
    const filer = connect(base, '/api/v1/events/stream', t.headers, ['inbox_item_added', 'inbox_item_filed', 'book_updated']);
    const other = connect(base, '/api/v1/events/stream', reader.headers, ['inbox_item_added', 'inbox_item_filed']);
    await Promise.all([filer.opened, other.opened]);
    const old = await t.database.db.selectFrom('books').select('id').where('path', '=', 'Saga/Saga #001.cbz').executeTakeFirstOrThrow();
    expect((await api(t, 'PUT', `/api/v1/books/${old.id}/progress`, { current_page: 1 })).status).toBeLessThan(300);

    // A better scan of #1: same series and number, other bytes.
    await makeCbz(inbox, 'Saga 001 (HQ).cbz', {
      pages: [
        { name: 'p.png', data: page },
        { name: 'q.png', data: page },
      ],
      comicInfo: { Series: 'Saga', Number: 1 },
    });
    const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'Saga 001 (HQ).cbz'), 'the upgrade')).filter(
      (i) => i.file_name === 'Saga 001 (HQ).cbz',
    );
    expect(item).toMatchObject({ status: 'duplicate', duplicate_of: old.id });
    await until(() => filer.frames.some((f) => f.event === 'inbox_item_added' && f.data.item_id === item!.id));
    const accepted = await api<Item>(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`, { duplicate: 'replace' });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.filed_path).toBe('Saga/Saga #001.cbz');
    await until(() => filer.frames.some((f) => f.event === 'inbox_item_filed' && f.data.item_id === item!.id), 30_000);
    const filed = filer.frames.find((f) => f.event === 'inbox_item_filed')!;
    expect(filed.data).toMatchObject({ book_id: old.id, library_id: libraryId, status: 'filed' });
    // The same book, now two pages, its progress kept; the older file in the rejected folder.
    const book = await t.database.db
      .selectFrom('books')
      .select(['id', 'page_count'])
      .where('path', '=', 'Saga/Saga #001.cbz')
      .executeTakeFirstOrThrow();
    expect(book).toEqual({ id: old.id, page_count: 2 });
    expect((await api<{ current_page: number }>(t, 'GET', `/api/v1/books/${old.id}/progress`)).body.current_page).toBe(1);
    expect(readdirSync(path.join(inbox, 'rejected'))).toEqual(['replaced - Saga #001.cbz']);
    expect(existsSync(path.join(inbox, 'Saga 001 (HQ).cbz'))).toBe(false);
    expect(other.frames).toEqual([]);
    filer.source.close();
    other.source.close();
  });

  it("a filer kept out of another library is not told of that library's copy: no id, no path", async () => {
    const other = libraryDir();
    mkdirSync(path.join(other, 'Secret Shelf'));
    const secret = await makeCbz(path.join(other, 'Secret Shelf'), 'Secret Shelf 001.cbz', { pages: 4 });
    const otherId = (await createLibrary(t, other)).id;
    await scan(t, otherId);
    const filer = await createUser(t, 'maintainer');
    await setAccess(t, filer.id, { library_access: { all: false, library_ids: [libraryId] } });
    const inbox = inboxDir();
    await addInbox(t, inbox, libraryId);
    copyFileSync(secret, path.join(inbox, 'copy of something.cbz'));
    const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'copy of something.cbz'), 'the copy')).filter(
      (i) => i.file_name === 'copy of something.cbz',
    );
    expect(item!.status).toBe('duplicate');
    expect(item!.duplicate_of).not.toBeNull();
    const seen = await t.app.inject({ method: 'GET', url: `/api/v1/inbox/items/${item!.id}`, headers: filer.headers });
    expect(seen.statusCode).toBe(200);
    const body = seen.json<Item>();
    expect(body.duplicate_of).toBeNull();
    expect(JSON.stringify(body)).not.toContain('Secret Shelf');
    expect(body.reasons.join(' ')).toContain('a library you do not see');
  });
});
