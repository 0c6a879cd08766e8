import { createHash, randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import * as tus from 'tus-js-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser } from '../helpers/auth.js';
import { asRoot, makeTempDir } from '../helpers/temp-dir.js';
import { makeCbz, writeZip } from '../media/fixtures.js';
import { api, createLibrary, type CatalogTestApp } from '../scanner/helpers.js';
import { addInbox, inboxDir, sagaLibrary, waitForItems, type Item } from './helpers.js';

const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

/** A folder on a filesystem of its own: a fresh tmpfs when root may mount one, else /dev/shm when /tmp is not on it. */
function otherFilesystem(): { dir: string; unmount?: () => void } | null {
  if (asRoot) {
    const dir = makeTempDir('colophon-tmpfs-');
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64m', 'tmpfs', dir]);
      return { dir, unmount: () => execFileSync('umount', ['-l', dir]) };
    } catch {
      // no mount in this container: try /dev/shm below
    }
  }
  if (existsSync('/dev/shm') && statSync('/dev/shm').dev !== statSync(makeTempDir()).dev) return { dir: makeTempDir('/dev/shm/colophon-') };
  return null;
}

/** A library folder the server cannot write: a read-only tmpfs as root (root writes through modes), mode 0555 otherwise. */
function readOnlyLibrary(): { dir: string; undo: () => void } | null {
  const dir = path.join(makeTempDir('colophon-ro-'), 'library');
  mkdirSync(dir);
  if (!asRoot) {
    chmodSync(dir, 0o555);
    return { dir, undo: () => chmodSync(dir, 0o755) };
  }
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=1m', 'tmpfs', dir]);
    return { dir, undo: () => execFileSync('umount', ['-l', dir]) };
  } catch {
    return null;
  }
}

const tmpfs = otherFilesystem();
const readOnly = readOnlyLibrary();

describe('filing from the inbox', { timeout: 240_000 }, () => {
  let t: CatalogTestApp;
  let base: string;
  let lib: string;
  let libraryId: string;
  let page: Buffer;

  beforeAll(async () => {
    ({ t, base, lib, libraryId, page } = await sagaLibrary(1));
  }, 60_000);

  afterAll(async () => {
    await t?.close();
    tmpfs?.unmount?.();
    readOnly?.undo();
  });

  it('a copy written slowly over 5 s is taken once, complete, and (certain, auto_file) filed once', async () => {
    const inbox = inboxDir();
    await addInbox(t, inbox, libraryId, { auto_file: true });
    const source = await makeCbz(makeTempDir(), 'Saga 002.cbz', {
      pages: [
        { name: 'p.png', data: page },
        { name: 'filler.png', data: Buffer.concat([page, randomBytes(400_000)]) },
      ],
      store: true,
      comicInfo: { Series: 'Saga', Number: 2 },
    });
    const bytes = readFileSync(source);
    const target = await open(path.join(inbox, 'Saga 002.cbz'), 'w');
    const pieces = 20;
    for (let i = 0; i < pieces; i++) {
      await target.write(bytes.subarray(Math.floor((bytes.length * i) / pieces), Math.floor((bytes.length * (i + 1)) / pieces)));
      await target.sync();
      await new Promise((r) => setTimeout(r, 250));
    }
    await target.close();
    const items = await waitForItems(
      t,
      (all) => all.some((i) => i.file_name === 'Saga 002.cbz' && i.book_id !== null),
      'the slow copy filed',
      60_000,
    );
    const mine = items.filter((i) => i.file_name === 'Saga 002.cbz');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ status: 'filed', proposed_path: 'Saga/Saga #002.cbz' });
    expect(mine[0]!.reasons.join(' ')).toContain('Filed without review');
    expect(sha256(path.join(lib, 'Saga', 'Saga #002.cbz'))).toBe(sha256(source));
    const books = await t.database.db
      .selectFrom('books')
      .select(['path', 'size'])
      .where('library_id', '=', libraryId)
      .where('path', 'like', 'Saga/Saga #002%')
      .execute();
    expect(books).toEqual([{ path: 'Saga/Saga #002.cbz', size: expect.anything() }]);
    expect(Number(books[0]!.size)).toBe(bytes.length);
  });

  it.skipIf(tmpfs === null)(
    `across filesystems (an inbox on a tmpfs): copied, flushed, checked by hash, then the source removed${tmpfs === null ? ' (skipped: no second filesystem; run as root, or with /dev/shm on a tmpfs)' : ''}`,
    async () => {
      const inbox = path.join(tmpfs!.dir, 'inbox');
      mkdirSync(inbox, { recursive: true });
      await addInbox(t, inbox, libraryId);
      const file = await makeCbz(inbox, 'Saga 003.cbz', {
        pages: [{ name: 'p.png', data: page }],
        comicInfo: { Series: 'Saga', Number: 3 },
      });
      const before = sha256(file);
      const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'Saga 003.cbz'), 'the tmpfs item')).filter(
        (i) => i.file_name === 'Saga 003.cbz',
      );
      const res = await api<Item>(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const filed = path.join(lib, 'Saga', 'Saga #003.cbz');
      expect(sha256(filed)).toBe(before);
      expect(existsSync(file)).toBe(false);
      expect(readdirSync(path.join(lib, 'Saga')).filter((n) => n.startsWith('.'))).toEqual([]);
      await waitForItems(t, (all) => all.some((i) => i.id === item!.id && i.book_id !== null), 'the tmpfs book');
    },
  );

  it.skipIf(readOnly === null)(
    `a library the server cannot write: 409 with the reason, the file stays in the inbox${readOnly === null ? ' (skipped: cannot make a read-only folder here)' : ''}`,
    async () => {
      const roLibrary = (await createLibrary(t, readOnly!.dir)).id;
      const inbox = inboxDir();
      await addInbox(t, inbox, roLibrary);
      const file = await makeCbz(inbox, 'Stranded 001.cbz', { pages: [{ name: 'p.png', data: page }] });
      const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'Stranded 001.cbz'), 'the stranded item')).filter(
        (i) => i.file_name === 'Stranded 001.cbz',
      );
      const res = await api<{ message: string; details: { problem: string } }>(t, 'POST', `/api/v1/inbox/items/${item!.id}/accept`);
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body.message).toContain('stays in the inbox');
      expect(res.body.details.problem, JSON.stringify(res.body)).toMatch(/EROFS|EACCES/);
      expect(existsSync(file)).toBe(true);
      expect((await api<Item>(t, 'GET', `/api/v1/inbox/items/${item!.id}`)).body).toMatchObject({ status: 'failed' });
    },
  );

  it('a reader without books-write gets 403 everywhere in the inbox, and no file lands', async () => {
    const inbox = inboxDir();
    const folder = await addInbox(t, inbox, libraryId);
    await makeCbz(inbox, 'Saga 010.cbz', { pages: [{ name: 'p.png', data: page }] });
    const [item] = (await waitForItems(t, (all) => all.some((i) => i.file_name === 'Saga 010.cbz'), 'the item')).filter(
      (i) => i.file_name === 'Saga 010.cbz',
    );
    const reader = await createUser(t, 'reader');
    const as = (method: 'GET' | 'POST' | 'PATCH', url: string, payload?: object, headers: Record<string, string> = {}) =>
      t.app.inject({ method, url, headers: { ...reader.headers, ...headers }, ...(payload ? { payload } : {}) });
    expect((await as('GET', '/api/v1/inbox/items')).statusCode).toBe(403);
    expect((await as('POST', `/api/v1/inbox/items/${item!.id}/accept`)).statusCode).toBe(403);
    expect((await as('PATCH', `/api/v1/inbox/items/${item!.id}`, { series_name: 'Mine' })).statusCode).toBe(403);
    expect((await as('POST', `/api/v1/inbox/items/${item!.id}/reject`)).statusCode).toBe(403);
    expect((await as('GET', '/api/v1/inbox/folders')).statusCode).toBe(403);
    const upload = await fetch(`${base}/api/v1/inbox/uploads`, {
      method: 'POST',
      headers: {
        ...reader.headers,
        'tus-resumable': '1.0.0',
        'upload-length': '10',
        'upload-metadata': `filename ${Buffer.from('x.cbz').toString('base64')},folder_id ${Buffer.from(folder.id).toString('base64')}`,
      },
    });
    expect(upload.status).toBe(403);
    expect(existsSync(path.join(lib, 'Saga', 'Saga #010.cbz'))).toBe(false);
    expect(readdirSync(inbox)).toEqual(['Saga 010.cbz']);
  });

  it('an upload of 200 MB cut at half resumes from where it stopped, lands in the inbox and is proposed', async () => {
    const inbox = inboxDir();
    const folder = await addInbox(t, inbox, libraryId);
    const file = await writeZip(
      path.join(makeTempDir(), 'Big Upload 001.cbz'),
      [
        { name: 'p.png', data: page },
        { name: 'scans/extra.bin', data: randomBytes(200 * 1024 * 1024) },
      ],
      true,
    );
    const bytes = readFileSync(file);
    const options = (extra: Partial<tus.UploadOptions>): tus.UploadOptions => ({
      endpoint: `${base}/api/v1/inbox/uploads`,
      headers: t.headers,
      metadata: { filename: 'Big Upload 001.cbz', folder_id: folder.id },
      retryDelays: [],
      ...extra,
    });
    // First attempt: the connection is cut once half the bytes are out.
    const url = await new Promise<string>((resolve, reject) => {
      const upload = new tus.Upload(
        bytes,
        options({
          onProgress: (sent) => {
            if (sent >= bytes.length / 2 && upload.url) {
              const at = upload.url;
              void upload.abort(false).then(() => resolve(at));
            }
          },
          onSuccess: () => reject(new Error('the first attempt should have been cut')),
          onError: reject,
        }),
      );
      upload.start();
    });
    await new Promise((r) => setTimeout(r, 300));
    const head = await fetch(url, { method: 'HEAD', headers: { ...t.headers, 'tus-resumable': '1.0.0' } });
    expect(head.status).toBe(200);
    const offset = Number(head.headers.get('upload-offset'));
    expect(offset).toBeGreaterThan(0);
    expect(offset).toBeLessThan(bytes.length);
    expect(readdirSync(inbox)).toEqual([]);
    // Someone else cannot see or continue it.
    const stranger = await createUser(t, 'admin');
    expect((await fetch(url, { method: 'HEAD', headers: { ...stranger.headers, 'tus-resumable': '1.0.0' } })).status).toBe(404);
    // Second attempt at the same address: only the rest is sent.
    let firstSent = -1;
    let itemId: string | null = null;
    await new Promise<void>((resolve, reject) => {
      const upload = new tus.Upload(
        bytes,
        options({
          uploadUrl: url,
          onProgress: (sent) => {
            if (firstSent < 0) firstSent = sent;
          },
          onAfterResponse: (_req, res) => {
            itemId = res.getHeader('Inbox-Item-Id') ?? itemId;
          },
          onSuccess: () => resolve(),
          onError: reject,
        }),
      );
      upload.start();
    });
    expect(firstSent).toBeGreaterThanOrEqual(offset);
    expect(itemId).toBeTruthy();
    const landed = path.join(inbox, 'Big Upload 001.cbz');
    expect(sha256(landed)).toBe(sha256(file));
    const item = await api<Item>(t, 'GET', `/api/v1/inbox/items/${itemId}`);
    expect(item.body).toMatchObject({ file_name: 'Big Upload 001.cbz', status: 'review', proposed_series: 'Big Upload' });
  });

  it('an upload is refused before a byte is sent: over the size setting (413), not a book (400), a folder one may not see (404)', async () => {
    const inbox = inboxDir();
    const folder = await addInbox(t, inbox, libraryId);
    const set = await api(t, 'PUT', '/api/v1/admin/settings/inbox_upload_max_mb', { value: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const create = (name: string, length: number, folderId = folder.id) =>
      fetch(`${base}/api/v1/inbox/uploads`, {
        method: 'POST',
        headers: {
          ...t.headers,
          'tus-resumable': '1.0.0',
          'upload-length': String(length),
          'upload-metadata': `filename ${Buffer.from(name).toString('base64')},folder_id ${Buffer.from(folderId).toString('base64')}`,
        },
      });
    const big = await create('big.cbz', 2 * 1024 * 1024);
    expect(big.status).toBe(413);
    expect(((await big.json()) as { message: string }).message).toContain('inbox_upload_max_mb');
    expect((await create('notes.txt', 10)).status).toBe(400);
    expect((await create('ok.cbz', 10, '00000000-0000-4000-8000-000000000000')).status).toBe(404);
    await api(t, 'PUT', '/api/v1/admin/settings/inbox_upload_max_mb', { value: 4096 });
    writeFileSync(path.join(inbox, '.keep'), '');
  });
});
