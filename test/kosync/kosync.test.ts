import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub, makePdf } from '../media/fixtures.js';
import { createApiKey, createUser } from '../helpers/auth.js';
import { api, call, createCatalogApp, scan, scannedLibrary, type CatalogTestApp, type Paged } from '../helpers/catalog.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { koreaderPartialMd5 as partialMd5, md5 } from '../helpers/koreader.js';

interface Book {
  id: string;
  title: string;
  page_count: number;
  format: string;
}

/** KOReader's kosync client: its media type, its auth headers (user name field, MD5 of the password field), JSON bodies. */
function koreader(t: CatalogTestApp, user: string | undefined, base = '/koreader') {
  const headers: Record<string, string> = { accept: 'application/vnd.koreader.v1+json', 'x-auth-key': md5('typed password') };
  if (user !== undefined) headers['x-auth-user'] = user;
  return async (method: 'GET' | 'PUT' | 'POST', url: string, body?: unknown) => {
    const res = await t.app.inject({
      method,
      url: `${base}${url}`,
      headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return {
      status: res.statusCode,
      body: res.body ? (JSON.parse(res.body) as Record<string, unknown>) : null,
      type: res.headers['content-type'],
    };
  };
}

describe('KOReader sync server (kosync)', () => {
  let t: CatalogTestApp;
  let lib: { id: string; dir: string };
  let books: Book[];
  const files: Record<string, string> = {};
  const byTitle = (title: string) => books.find((b) => b.title === title)!;

  beforeAll(async () => {
    t = await createCatalogApp();
    lib = await scannedLibrary(t, async (dir) => {
      files.epub = await makeEpub(dir, 'Novel/novel.epub', { pages: 4, metadata: { title: 'Novel' } });
      files.cbz = await makeCbz(dir, 'Comic/comic.cbz', { pages: 5, pageSize: { width: 40, height: 60 }, comicInfo: { Title: 'Comic' } });
      files.pdf = await makePdf(dir, 'Paper/paper.pdf', { pages: 3, info: { Title: 'Paper' } });
    });
    books = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data;
  }, 60_000);
  afterAll(() => t?.close());

  it('healthcheck answers without credentials', async () => {
    expect(await koreader(t, undefined)('GET', '/healthcheck')).toMatchObject({ status: 200, body: { state: 'OK' } });
  });

  it('authenticates by an API key as the user name or in the path, and answers 2001 otherwise', async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers, { name: 'Kobo' });
    expect(await koreader(t, key)('GET', '/users/auth')).toMatchObject({ status: 200, body: { authorized: 'OK' } });
    expect(await koreader(t, 'anything', `/koreader/${key}`)('GET', '/users/auth')).toMatchObject({
      status: 200,
      body: { authorized: 'OK' },
    });
    const unauthorized = { status: 401, body: { code: 2001, message: 'Unauthorized' } };
    expect(await koreader(t, reader.username)('GET', '/users/auth')).toMatchObject(unauthorized);
    expect(await koreader(t, `${key.slice(0, -2)}xx`)('GET', '/users/auth')).toMatchObject(unauthorized);
    expect(await koreader(t, undefined)('GET', '/users/auth')).toMatchObject(unauthorized);
    expect(await koreader(t, undefined)('GET', '/syncs/progress/abc')).toMatchObject(unauthorized);
    expect(
      await koreader(t, undefined)('PUT', '/syncs/progress', { document: 'abc', progress: '1', percentage: 0.1, device: 'Kobo' }),
    ).toMatchObject(unauthorized);
  });

  it('a key without progress-write may read but not write; one without progress-read neither', async () => {
    const reader = await createUser(t, 'reader');
    const readOnly = (await createApiKey(t, reader.headers, { name: 'read only', permissions: ['progress-read'] })).key;
    const document = partialMd5(files.pdf!);
    const write = { document, progress: '1', percentage: 0.34, device: 'Kobo' };
    expect(await koreader(t, readOnly)('PUT', '/syncs/progress', write)).toMatchObject({ status: 401, body: { code: 2001 } });
    expect(await koreader(t, readOnly)('GET', `/syncs/progress/${document}`)).toMatchObject({ status: 200, body: {} });
    const browseOnly = (await createApiKey(t, reader.headers, { name: 'browse', permissions: ['libraries-read'] })).key;
    expect(await koreader(t, browseOnly)('GET', `/syncs/progress/${document}`)).toMatchObject({ status: 401, body: { code: 2001 } });
  });

  it('registration is refused with the protocol errors: 2005 when self-registration is off, 2002 for an existing account', async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers, { name: 'Kobo' });
    expect(await koreader(t, undefined)('POST', '/users/create', { username: 'someone', password: md5('pw') })).toMatchObject({
      status: 402,
      body: { code: 2005 },
    });
    expect(await koreader(t, key)('POST', '/users/create', { username: key, password: md5('pw') })).toMatchObject({
      status: 402,
      body: { code: 2002, message: 'Username is already registered.' },
    });
    const users = await t.database.db.selectFrom('users').select('username').execute();
    expect(users.map((u) => u.username)).not.toContain('someone');
  });

  it("a body that is not JSON is the protocol's 2003, in KOReader's media type or as application/json", async () => {
    const reader = await createUser(t, 'reader');
    const { key } = await createApiKey(t, reader.headers);
    for (const type of ['application/vnd.koreader.v1+json', 'application/json']) {
      const res = await t.app.inject({
        method: 'PUT',
        url: `/koreader/${key}/syncs/progress`,
        headers: { 'content-type': type, accept: 'application/vnd.koreader.v1+json' },
        payload: 'garbage',
      });
      expect({ type, status: res.statusCode, body: res.json() as unknown }).toEqual({
        type,
        status: 403,
        body: { code: 2003, message: 'Invalid request' },
      });
    }
  });

  it('refuses a PUT without document (2004) or without percentage, progress or device (2003)', async () => {
    const reader = await createUser(t, 'reader');
    const sync = koreader(t, (await createApiKey(t, reader.headers)).key);
    expect(await sync('PUT', '/syncs/progress', { progress: '1', percentage: 0.1, device: 'Kobo' })).toMatchObject({
      status: 403,
      body: { code: 2004, message: "Field 'document' not provided." },
    });
    expect(await sync('PUT', '/syncs/progress', { document: 'abc', progress: '1', device: 'Kobo' })).toMatchObject({
      status: 403,
      body: { code: 2003 },
    });
    expect(await sync('PUT', '/syncs/progress', { document: 'abc', percentage: 0.1, device: 'Kobo' })).toMatchObject({
      status: 403,
      body: { code: 2003 },
    });
    expect(await sync('PUT', '/syncs/progress', { document: 'abc', progress: '1', percentage: 0.1 })).toMatchObject({
      status: 403,
      body: { code: 2003 },
    });
  });

  it('round trip on a CBZ: KOReader PUT -> native GET shows the page -> native PUT -> KOReader GET gives the page as progress', async () => {
    const reader = await createUser(t, 'reader');
    const { key, id: keyId } = await createApiKey(t, reader.headers, { name: 'Kobo' });
    const sync = koreader(t, key);
    const document = partialMd5(files.cbz!);
    const comic = byTitle('Comic');

    const put = await sync('PUT', '/syncs/progress', {
      document,
      progress: '3',
      percentage: 0.6,
      device: 'Kobo Libra',
      device_id: 'KOBO-1',
    });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ document, timestamp: expect.any(Number) });
    expect(Math.abs((put.body!.timestamp as number) - Date.now() / 1000)).toBeLessThan(5);

    const native = await call<{ current_page: number; progress: number; device_id: string }>(
      t,
      reader.headers,
      'GET',
      `/api/v1/books/${comic.id}/progress`,
    );
    expect(native.body).toMatchObject({ current_page: 3, progress: 0.6, device_id: `key:${keyId}` });
    const event = await t.database.db
      .selectFrom('progress_events')
      .selectAll()
      .where('user_id', '=', reader.id)
      .where('book_id', '=', comic.id)
      .executeTakeFirstOrThrow();
    expect(event).toMatchObject({ protocol: 'koreader', device_id: `key:${keyId}` });
    expect(JSON.parse(event.position)).toEqual({ document, progress: '3', percentage: 0.6, device: 'Kobo Libra', device_id: 'KOBO-1' });

    expect(await sync('GET', `/syncs/progress/${document}`)).toMatchObject({
      status: 200,
      body: { document, progress: '3', percentage: 0.6, device: 'Kobo Libra', device_id: 'KOBO-1', timestamp: expect.any(Number) },
    });

    expect((await call(t, reader.headers, 'PUT', `/api/v1/books/${comic.id}/progress`, { current_page: 4 })).status).toBe(200);
    const back = await sync('GET', `/syncs/progress/${document}`);
    expect(back.status).toBe(200);
    expect(back.body).toMatchObject({ document, progress: '4', percentage: 0.8, timestamp: expect.any(Number) });
    expect(typeof back.body!.device).toBe('string');
  });

  it("an EPUB keeps KOReader's xpointer; a position from elsewhere comes back as the start of that spine document", async () => {
    const reader = await createUser(t, 'reader');
    const sync = koreader(t, (await createApiKey(t, reader.headers)).key);
    const document = partialMd5(files.epub!);
    const novel = byTitle('Novel');
    const xpointer = '/body/DocFragment[3]/body/p[2]/text().17';
    expect(
      (await sync('PUT', '/syncs/progress', { document, progress: xpointer, percentage: 0.55, device: 'Kindle', device_id: 'K-9' })).status,
    ).toBe(200);
    expect((await call<{ current_page: number }>(t, reader.headers, 'GET', `/api/v1/books/${novel.id}/progress`)).body.current_page).toBe(
      3,
    );
    expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({ progress: xpointer, percentage: 0.55 });

    await call(t, reader.headers, 'PUT', `/api/v1/books/${novel.id}/progress`, { current_page: 2 });
    expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({
      document,
      progress: '/body/DocFragment[2]/body',
      percentage: 0.5,
    });
  });

  it('matches a document by the MD5 of its file name (KOReader\'s "filename" method)', async () => {
    const reader = await createUser(t, 'reader');
    const sync = koreader(t, (await createApiKey(t, reader.headers)).key);
    const document = md5('paper.pdf');
    expect((await sync('PUT', '/syncs/progress', { document, progress: '2', percentage: 0.6667, device: 'Kobo' })).status).toBe(200);
    expect(
      (await call<{ current_page: number }>(t, reader.headers, 'GET', `/api/v1/books/${byTitle('Paper').id}/progress`)).body.current_page,
    ).toBe(2);
  });

  it('an unknown document is kept, and attached to its book once a scan finds the file', async () => {
    const reader = await createUser(t, 'reader');
    const sync = koreader(t, (await createApiKey(t, reader.headers)).key);
    expect(await sync('GET', '/syncs/progress/0123456789abcdef0123456789abcdef')).toEqual({
      status: 200,
      body: {},
      type: expect.any(String),
    });

    const outside = await makeCbz(makeTempDir('kosync-'), 'later.cbz', {
      pages: 4,
      pageSize: { width: 30, height: 40 },
      comicInfo: { Title: 'Later' },
    });
    const document = partialMd5(outside);
    expect(
      (await sync('PUT', '/syncs/progress', { document, progress: '2', percentage: 0.5, device: 'Kobo', device_id: 'KOBO-2' })).status,
    ).toBe(200);
    expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({
      document,
      progress: '2',
      percentage: 0.5,
      device: 'Kobo',
    });

    // Among other new books, so that the scan's events come as a batch.
    await copyFile(outside, path.join(lib.dir, 'Comic', 'later.cbz'));
    for (const n of [1, 2, 3]) {
      await makeCbz(path.join(lib.dir, 'Comic'), `also ${n}.cbz`, {
        pages: 2,
        pageSize: { width: 30, height: 40 },
        comicInfo: { Title: `Also ${n}` },
      });
    }
    await scan(t, lib.id);
    const later = (await api<Paged<Book>>(t, 'GET', '/api/v1/books?pageSize=50')).body.data.find((b) => b.title === 'Later')!;
    expect(later).toBeDefined();
    // Attached by the scan's event, before KOReader asks again (a sync would attach it too).
    await expect
      .poll(
        async () =>
          (await call<{ current_page?: number }>(t, reader.headers, 'GET', `/api/v1/books/${later.id}/progress`)).body.current_page,
      )
      .toBe(2);
    expect((await sync('GET', `/syncs/progress/${document}`)).body).toMatchObject({ document, progress: '2', percentage: 0.5 });
  }, 60_000);
});

describe('kosync configuration', () => {
  it('serves under koreader.prefix, and not at all when koreader.enabled is false', async () => {
    const moved = await createCatalogApp({ koreader: { prefix: '/sync/ko' } }, { start: false });
    try {
      expect((await moved.app.inject({ method: 'GET', url: '/sync/ko/healthcheck' })).statusCode).toBe(200);
      expect((await moved.app.inject({ method: 'GET', url: '/koreader/healthcheck' })).statusCode).toBe(404);
    } finally {
      await moved.close();
    }
    const off = await createCatalogApp({ koreader: { enabled: false } }, { start: false });
    try {
      expect((await off.app.inject({ method: 'GET', url: '/koreader/healthcheck' })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
