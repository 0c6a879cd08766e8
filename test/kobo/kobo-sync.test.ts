import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeCbz, makeEpub } from '../media/fixtures.js';
import { createApiKey } from '../helpers/auth.js';
import { derivedCacheStats } from '../../src/media/rendering/derived-cache.js';
import { call, createCatalogApp, scannedLibrary, type CatalogTestApp, type ScannedLibrary } from '../helpers/catalog.js';
import { makeTempDir } from '../helpers/temp-dir.js';
import { epubcheck, epubcheckTitle, noEpubcheck } from '../helpers/epubcheck.js';
import { createHouseholdUser, setAccess, type HouseholdUser } from '../helpers/household.js';
import { koreaderClient, koreaderPartialMd5 } from '../helpers/koreader.js';
import { CHAPTER_PATHS, makeProseEpub, unzip } from './kepub-fixture.js';

const KOBO_PERMISSIONS = ['kobo-sync', 'books-read', 'pages-read', 'progress-read', 'progress-write'];

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

interface KoboReply {
  status: number;
  headers: Headers;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  bytes: Buffer;
}

/**
 * A Kobo's requests over real HTTP (the firmware's headers, its unencoded `[` `]` in query strings), against the
 * `api_endpoint` pasted into its configuration. Request and response shapes follow Calibre-Web (cps/kobo.py) and
 * Komga (KoboController.kt).
 */
function koboDevice(endpoint: string) {
  let token: string | undefined;
  const request = async (method: string, url: string, body?: unknown, extra: Record<string, string> = {}): Promise<KoboReply> => {
    const headers: Record<string, string> = {
      'user-agent':
        'Mozilla/5.0 (Linux; U; Android 2.0; en-us;) AppleWebKit/538.1 (KHTML, like Gecko) Version/4.0 Mobile Safari/538.1 (Kobo Touch 0377/4.38.21908)',
      'x-kobo-deviceid': 'a1b2c3d4e5f60718',
      'x-kobo-userkey': 'kobo-user-key',
      ...extra,
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(url.startsWith('http') ? url : `${endpoint}${url}`, {
      method,
      headers,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const bytes = Buffer.from(await res.arrayBuffer());
    const type = res.headers.get('content-type') ?? '';
    return {
      status: res.status,
      headers: res.headers,
      bytes,
      body: type.includes('json') && bytes.length ? JSON.parse(bytes.toString()) : null,
    };
  };
  return {
    request,
    /** One library sync, echoing the token the previous one gave, as the firmware does. */
    async sync(): Promise<KoboReply> {
      const res = await request(
        'GET',
        '/v1/library/sync?Filter=ALL&DownloadUrlFilter=Generic,Android&PrioritizeRecentReads=true&Ids=[]',
        undefined,
        token ? { 'x-kobo-synctoken': token } : {},
      );
      if (res.status === 200) token = res.headers.get('x-kobo-synctoken') ?? undefined;
      return res;
    },
  };
}

const entitlementIds = (items: Json[]): string[] =>
  items.filter((i) => i.NewEntitlement).map((i) => i.NewEntitlement.BookEntitlement.Id as string);

describe('A Kobo syncs with Colophon', () => {
  let t: CatalogTestApp;
  let origin: string;
  let reader: HouseholdUser;
  let key: { id: string; key: string };
  let other: ScannedLibrary;
  const files: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    t = await createCatalogApp({ kobo: { sync_item_limit: 2 } });
    const shown = await scannedLibrary(t, async (dir) => {
      files.cbz = await makeCbz(dir, 'Comic/comic.cbz', {
        pages: 3,
        pageSize: { width: 300, height: 450 },
        comicInfo: { Title: 'Kobo Comic', Series: 'Comic', Number: '1' },
      });
      files.epub = await makeEpub(dir, 'Novel/novel.epub', { pages: 4, metadata: { title: 'Kobo Novel' } });
      await makeCbz(dir, 'Comic/comic2.cbz', {
        pages: 2,
        pageSize: { width: 30, height: 45 },
        comicInfo: { Title: 'Kobo Comic Two', Series: 'Comic', Number: '2' },
      });
      await makeCbz(dir, 'Grown/grown.cbz', {
        pages: 1,
        pageSize: { width: 30, height: 45 },
        comicInfo: { Title: 'Secret Grown-up Comic', Series: 'Grown', AgeRating: 'Mature 17+' },
      });
    });
    other = await scannedLibrary(t, async (dir) => {
      await makeCbz(dir, 'Other/other.cbz', {
        pages: 1,
        pageSize: { width: 30, height: 45 },
        comicInfo: { Title: 'Secret Other Library', Series: 'Other' },
      });
      // Prose for the KEPUB tests (an administrator's devices): "Stormy Night".
      await makeProseEpub(dir, 'Prose/stormy.epub');
    });
    // kobo-sync is no role's: an administrator grants it (docs/decisions/040).
    reader = await createHouseholdUser(t, {
      library_access: { all: false, library_ids: [shown.id] },
      age_restriction: { max_age: 12, include_unrated: true },
      permissions: ['kobo-sync'],
    });
    key = await createApiKey(t, reader.jwt, { name: 'Kobo Libra 2', permissions: KOBO_PERMISSIONS });
    const books = (await call<{ data: { id: string; title: string }[] }>(t, t.headers, 'GET', '/api/v1/books?pageSize=50')).body.data;
    for (const b of books) ids[b.title] = b.id;
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
  }, 60_000);
  afterAll(() => t?.close());

  it('replays a device: initialization, auth, paged sync, metadata, download, cover, reading state, KOReader, revocation', async () => {
    const endpoint = `${origin}/kobo/${key.key}`;
    const kobo = koboDevice(endpoint);

    // 1. The resource map points at Colophon; the firmware wants its api token header.
    const init = await kobo.request('GET', '/v1/initialization');
    expect(init.status).toBe(200);
    expect(init.headers.get('x-kobo-apitoken')).toBe('e30=');
    expect(init.body.Resources).toMatchObject({ library_sync: `${endpoint}/v1/library/sync`, image_host: origin });
    const imageTemplate: string = init.body.Resources.image_url_quality_template;
    expect(Object.values(init.body.Resources as Record<string, string>).every((v) => v === 'False' || v.startsWith(origin))).toBe(true);

    // 2. Device auth: tokens the device keeps (never checked: the key in the path is the credential).
    const auth = await kobo.request('POST', '/v1/auth/device', {
      AffiliateName: 'Kobo',
      AppVersion: '4.38.21908',
      ClientKey: 'x',
      DeviceId: 'a1b2c3d4e5f60718',
      PlatformId: '00000000-0000-0000-0000-000000000377',
      UserKey: 'kobo-user-key',
    });
    expect(auth.status).toBe(200);
    expect(auth.body).toMatchObject({
      TokenType: 'Bearer',
      UserKey: 'kobo-user-key',
      AccessToken: expect.any(String),
      RefreshToken: expect.any(String),
    });

    // 3. The library sync in pages of 2: the device echoes the token; `x-kobo-sync: continue` while more follow.
    const first = await kobo.sync();
    expect(first.status).toBe(200);
    expect(first.headers.get('x-kobo-sync')).toBe('continue');
    expect(first.body).toHaveLength(2);
    const second = await kobo.sync();
    expect(second.headers.get('x-kobo-sync')).toBeNull();
    const synced = [...entitlementIds(first.body), ...entitlementIds(second.body)];
    expect(synced.sort()).toEqual([ids['Kobo Comic']!, ids['Kobo Comic Two']!, ids['Kobo Novel']!].sort());
    const entry = [...first.body, ...second.body].find(
      (i: Json) => i.NewEntitlement?.BookEntitlement.Id === ids['Kobo Comic'],
    ).NewEntitlement;
    expect(entry.BookEntitlement).toMatchObject({ Accessibility: 'Full', IsRemoved: false, Status: 'Active' });
    expect(entry.BookMetadata).toMatchObject({
      Title: 'Kobo Comic',
      EntitlementId: ids['Kobo Comic'],
      Series: { Name: 'Comic', Number: '1' },
    });
    expect(entry.ReadingState.StatusInfo.Status).toBe('ReadyToRead');
    // A hidden book (another library, above the age limit) never appears, not even by its title.
    for (const reply of [first, second]) expect(reply.bytes.toString()).not.toContain('Secret');
    // Incremental: nothing changed, nothing sent.
    expect((await kobo.sync()).body).toEqual([]);

    // 4. Metadata: a comic is offered as fixed-layout EPUB; an EPUB as it is.
    const metadata = await kobo.request('GET', `/v1/library/${ids['Kobo Comic']}/metadata`);
    expect(metadata.body[0].DownloadUrls[0]).toMatchObject({
      Format: 'EPUB3FL',
      Platform: 'Generic',
      Url: `${endpoint}/v1/books/${ids['Kobo Comic']}/file/epub3fl`,
    });
    // An EPUB of text as KEPUB (the device's default).
    const novel = (await kobo.request('GET', `/v1/library/${ids['Kobo Novel']}/metadata`)).body[0];
    expect(novel.DownloadUrls[0]).toMatchObject({ Format: 'KEPUB', Url: `${endpoint}/v1/books/${ids['Kobo Novel']}/file/kepub` });

    // 5. Downloads.
    const comic = await kobo.request('GET', metadata.body[0].DownloadUrls[0].Url);
    expect(comic.status).toBe(200);
    expect(comic.headers.get('content-type')).toBe('application/epub+zip');
    expect(comic.bytes.subarray(30, 38).toString()).toBe('mimetype');
    const again = await kobo.request('GET', metadata.body[0].DownloadUrls[0].Url);
    expect(again.bytes.equals(comic.bytes)).toBe(true);
    const epub = await kobo.request('GET', novel.DownloadUrls[0].Url);
    expect(epub.status).toBe(200);
    expect(epub.headers.get('content-disposition')).toContain('novel.kepub.epub');
    expect(epub.bytes.subarray(30, 38).toString()).toBe('mimetype');
    // The EPUB as it is, for a device that takes no KEPUB.
    const plain = await kobo.request('GET', `/v1/books/${ids['Kobo Novel']}/file/epub`);
    expect(plain.bytes.length).toBe(novel.DownloadUrls[0].Size);

    // 6. The cover at the size the template asks, as JPEG.
    const coverUrl = imageTemplate
      .replace('{ImageId}', ids['Kobo Comic']!)
      .replace('{Width}', '100')
      .replace('{Height}', '150')
      .replace('{Quality}', '85')
      .replace('{IsGreyscale}', 'true');
    const cover = await kobo.request('GET', coverUrl);
    expect(cover.status).toBe(200);
    expect(cover.headers.get('content-type')).toBe('image/jpeg');
    const size = await sharp(cover.bytes).metadata();
    expect(size.width).toBeLessThanOrEqual(100);
    expect(size.height).toBeLessThanOrEqual(150);

    // 7. Reading state: the device on page 2 of the comic.
    const put = await kobo.request('PUT', `/v1/library/${ids['Kobo Comic']}/state`, {
      ReadingStates: [
        {
          EntitlementId: ids['Kobo Comic'],
          LastModified: new Date().toISOString(),
          StatusInfo: { Status: 'Reading', LastModified: new Date().toISOString() },
          Statistics: { SpentReadingMinutes: 3, RemainingTimeMinutes: 2 },
          CurrentBookmark: {
            ProgressPercent: 66,
            ContentSourceProgressPercent: 0,
            Location: { Source: 'OEBPS/page-0002.xhtml', Type: 'KoboSpan', Value: 'kobo.1.1' },
          },
        },
      ],
    });
    expect(put.status).toBe(200);
    expect(put.body).toMatchObject({
      RequestResult: 'Success',
      UpdateResults: [{ EntitlementId: ids['Kobo Comic'], CurrentBookmarkResult: { Result: 'Success' } }],
    });
    const state = await kobo.request('GET', `/v1/library/${ids['Kobo Comic']}/state`);
    expect(state.body[0]).toMatchObject({
      EntitlementId: ids['Kobo Comic'],
      StatusInfo: { Status: 'Reading' },
      CurrentBookmark: { Location: { Source: 'OEBPS/page-0002.xhtml', Type: 'KoboSpan', Value: 'kobo.1.1' } },
    });
    const native = await call<Json>(t, reader.jwt, 'GET', `/api/v1/books/${ids['Kobo Comic']}/progress`);
    expect(native.body).toMatchObject({ current_page: 2, page_count: 3, is_completed: false });
    const history = await call<{ data: Json[] }>(t, reader.jwt, 'GET', `/api/v1/books/${ids['Kobo Comic']}/progress/history`);
    expect(history.body.data[0]).toMatchObject({ protocol: 'kobo', page: 2, percentage: 0.66 });
    // The device's own write is not echoed back.
    expect((await kobo.sync()).body).toEqual([]);

    // 8. KOReader moves the comic to page 3: the next sync carries it as a changed reading state.
    const koreader = koreaderClient(t, 'kobo', `/koreader/${key.key}`);
    const document = koreaderPartialMd5(files.cbz!);
    expect(
      (await koreader('PUT', '/syncs/progress', { document, progress: '3', percentage: 0.9, device: 'KOReader', device_id: 'KO-1' }))
        .status,
    ).toBe(200);
    const changed = await kobo.sync();
    expect(changed.body).toEqual([
      {
        ChangedReadingState: {
          ReadingState: expect.objectContaining({
            EntitlementId: ids['Kobo Comic'],
            StatusInfo: expect.objectContaining({ Status: 'Reading' }),
            CurrentBookmark: expect.objectContaining({
              ProgressPercent: 100,
              Location: expect.objectContaining({ Source: 'OEBPS/page-0003.xhtml' }),
            }),
          }),
        },
      },
    ]);

    // 9. Finished on the device: it sends the first document; the last place read is kept.
    const reading = { Source: novel.DownloadUrls[0].Url ? 'OEBPS/chapter2.xhtml' : '', Type: 'KoboSpan', Value: 'kobo.7.3' };
    const pages = (await call<Json[]>(t, reader.jwt, 'GET', `/api/v1/books/${ids['Kobo Novel']}/pages`)).body;
    reading.Source = String(pages[1]!.file_name);
    for (const [status, location, percent] of [
      ['Reading', reading, 40],
      ['Finished', { Source: String(pages[0]!.file_name), Type: 'KoboSpan', Value: 'kobo.1.1' }, 100],
    ] as const)
      await kobo.request('PUT', `/v1/library/${ids['Kobo Novel']}/state`, {
        ReadingStates: [
          {
            EntitlementId: ids['Kobo Novel'],
            StatusInfo: { Status: status },
            CurrentBookmark: { ProgressPercent: percent, Location: location },
          },
        ],
      });
    const finished = (await kobo.request('GET', `/v1/library/${ids['Kobo Novel']}/state`)).body[0];
    expect(finished).toMatchObject({ StatusInfo: { Status: 'Finished' }, CurrentBookmark: { ProgressPercent: 100, Location: reading } });
    // Marked unread on the device: the progress is cleared, and nothing is echoed back.
    await kobo.request('PUT', `/v1/library/${ids['Kobo Novel']}/state`, {
      ReadingStates: [{ EntitlementId: ids['Kobo Novel'], StatusInfo: { Status: 'ReadyToRead' }, CurrentBookmark: {} }],
    });
    expect((await call(t, reader.jwt, 'GET', `/api/v1/books/${ids['Kobo Novel']}/progress`)).status).toBe(404);
    expect((await kobo.sync()).body).toEqual([]);

    const syncAll = async (): Promise<Json[]> => {
      const items: Json[] = [];
      for (let more = true; more;) {
        const page = await kobo.sync();
        items.push(...(page.body as Json[]));
        more = page.headers.get('x-kobo-sync') === 'continue';
      }
      return items;
    };
    const removedIds = (items: Json[]) =>
      items.filter((i) => i.ChangedEntitlement?.BookEntitlement.IsRemoved).map((i) => i.ChangedEntitlement.BookEntitlement.Id as string);

    // 10. The device's choice: the want-to-read series (the comics) and a read list, which becomes a shelf; the
    // novel leaves the device.
    const comicSeries = entry.BookMetadata.Series.Id as string;
    expect((await call(t, reader.jwt, 'PUT', `/api/v1/me/want-to-read/${comicSeries}`)).status).toBe(204);
    const list = await call<Json>(t, reader.jwt, 'POST', '/api/v1/read-lists', { name: 'On the Kobo', book_ids: [ids['Kobo Comic Two']] });
    expect(list.status).toBe(201);
    const chosen = await call<Json>(t, reader.jwt, 'PUT', `/api/v1/me/kobo/${key.id}`, { want_to_read: true, read_lists: [list.body.id] });
    expect(chosen.body).toMatchObject({ api_key_id: key.id, selection: { want_to_read: true }, kobo_device_id: 'a1b2c3d4e5f60718' });
    const narrowed = await syncAll();
    expect(removedIds(narrowed)).toEqual([ids['Kobo Novel']]);
    expect(narrowed.find((i) => i.NewTag)).toEqual({
      NewTag: {
        Tag: expect.objectContaining({
          Id: list.body.id,
          Name: 'On the Kobo',
          Type: 'UserTag',
          Items: [{ RevisionId: ids['Kobo Comic Two'], Type: 'ProductRevisionTagItem' }],
        }),
      },
    });

    // 11. A book the user can no longer see leaves the device, and its shelf.
    await setAccess(t, reader.id, { age_restriction: { max_age: 12, include_unrated: false } });
    const hidden = await syncAll();
    expect(removedIds(hidden).sort()).toEqual([ids['Kobo Comic']!, ids['Kobo Comic Two']!].sort());
    expect(hidden.find((i) => i.ChangedTag)?.ChangedTag.Tag).toMatchObject({ Id: list.body.id, Items: [] });
    expect((await call(t, reader.jwt, 'PUT', `/api/v1/me/kobo/${key.id}`, { want_to_read: true })).status).toBe(200);
    expect((await syncAll()).filter((i) => i.DeletedTag)).toEqual([
      { DeletedTag: { Tag: { Id: list.body.id, LastModified: expect.any(String) } } },
    ]);

    // 12. The key revoked: the next call is refused.
    expect((await call(t, reader.jwt, 'DELETE', `/api/v1/api-keys/${key.id}`)).status).toBe(204);
    expect((await kobo.sync()).status).toBe(401);
    expect((await kobo.request('GET', '/v1/initialization')).status).toBe(401);
  }, 60_000);

  it('delivers an EPUB as KEPUB, cached until the file changes, and maps its spans to the web reader and back', async () => {
    const own = await createApiKey(t, t.headers, { name: 'Admin Kobo (KEPUB)', permissions: KOBO_PERMISSIONS });
    const endpoint = `${origin}/kobo/${own.key}`;
    const kobo = koboDevice(endpoint);
    const bookId = ids['Stormy Night']!;
    const url = (await kobo.request('GET', `/v1/library/${bookId}/metadata`)).body[0].DownloadUrls[0];
    expect(url).toMatchObject({ Format: 'KEPUB', Url: `${endpoint}/v1/books/${bookId}/file/kepub` });

    // Converted once, then served from the cache.
    const before = derivedCacheStats();
    const [first, second] = await Promise.all([kobo.request('GET', url.Url), kobo.request('GET', url.Url)]);
    expect(first!.status).toBe(200);
    expect(first!.headers.get('content-disposition')).toContain('stormy.kepub.epub');
    expect(second!.bytes.equals(first!.bytes)).toBe(true);
    expect(derivedCacheStats().misses - before.misses).toBe(1);
    const chapters = await unzip(first!.bytes);
    for (const name of CHAPTER_PATHS) expect(chapters.get(name)!.toString()).toContain('<span class="koboSpan" id="kobo.2.1">');

    // A new version of the file, not scanned yet: the copy kept under the old content hash is not served for it.
    await makeProseEpub(other.dir, 'Prose/stormy.epub', 'a changed ending');
    const changed = await kobo.request('GET', url.Url);
    expect(changed.status).toBe(200);
    expect((await unzip(changed.bytes)).get(CHAPTER_PATHS[1])!.toString()).toContain('a changed ending');
    expect(derivedCacheStats().misses - before.misses).toBe(1);

    // The device reads the first chapter's second sentence: the web reader opens there (a CFI).
    const put = await kobo.request('PUT', `/v1/library/${bookId}/state`, {
      ReadingStates: [
        {
          EntitlementId: bookId,
          StatusInfo: { Status: 'Reading' },
          CurrentBookmark: { ProgressPercent: 20, Location: { Source: 'text/chapter1.xhtml', Type: 'KoboSpan', Value: 'kobo.2.2' } },
        },
      ],
    });
    expect(put.status).toBe(200);
    const locator = await call<Json>(t, t.headers, 'GET', `/api/v1/books/${bookId}/progress/locator`);
    expect(locator.body).toMatchObject({
      current_page: 1,
      percentage: 0.2,
      locator: { href: CHAPTER_PATHS[0], cfi: 'epubcfi(/6/2!/4/4/1:30)', progression: expect.any(Number) },
    });
    expect((await kobo.request('GET', `/v1/library/${bookId}/state`)).body[0].CurrentBookmark.Location).toEqual({
      Source: 'text/chapter1.xhtml',
      Type: 'KoboSpan',
      Value: 'kobo.2.2',
    });

    // The web reader goes on into chapter two ("Another one?"): the device gets that sentence's span.
    const web = await call(t, t.headers, 'PUT', `/api/v1/books/${bookId}/progress/locator`, {
      locator: { href: CHAPTER_PATHS[1], cfi: 'epubcfi(/6/4!/4/4,/1:11,/1:20)' },
      percentage: 0.7,
    });
    expect(web.status).toBe(200);
    expect((await kobo.request('GET', `/v1/library/${bookId}/state`)).body[0].CurrentBookmark).toMatchObject({
      ProgressPercent: 70,
      Location: { Source: CHAPTER_PATHS[1], Type: 'KoboSpan', Value: 'kobo.2.2' },
    });
  }, 30_000);

  it('fits comic pages to the screen set for the device, never enlarged, one cached EPUB per size', async () => {
    const own = await createApiKey(t, t.headers, { name: 'Admin Kobo (screen)', permissions: KOBO_PERMISSIONS });
    const kobo = koboDevice(`${origin}/kobo/${own.key}`);
    const pageSizes = async () => {
      const download = await kobo.request('GET', `/v1/books/${ids['Kobo Comic']}/file/epub3fl`);
      expect(download.status).toBe(200);
      const files = await unzip(download.bytes);
      const images = [...files.keys()].filter((n) => /^OEBPS\/page-\d+\.(jpg|png)$/.test(n)).sort();
      return Promise.all(
        images.map(async (n) => {
          const image = sharp(files.get(n)!);
          const [meta, { channels }] = await Promise.all([image.metadata(), image.stats()]);
          const grey = channels.every((c) => Math.abs(c.mean - channels[0]!.mean) < 1);
          return [meta.width, meta.height, grey ? 'grey' : 'colour'];
        }),
      );
    };
    const set = (body: unknown) => call<Json>(t, t.headers, 'PUT', `/api/v1/me/kobo/${own.id}`, body);
    for (const bad of [
      { screen: { width: 10, height: 10 } },
      { screen: { width: 'wide', height: 1448 } },
      { kepub: 'yes' },
      { screen: [1072, 1448] },
    ])
      expect((await set(bad)).status, JSON.stringify(bad)).toBe(400);

    const clara = await set({ screen: { width: 200, height: 250 } });
    expect(clara.body.selection).toMatchObject({ kepub: true, greyscale: false, screen: { width: 200, height: 250 } });
    // 300 × 450 pages inside 200 × 250.
    expect(await pageSizes()).toEqual([
      [167, 250, 'colour'],
      [167, 250, 'colour'],
      [167, 250, 'colour'],
    ]);
    expect((await set({ screen: null, greyscale: true, kepub: false })).body.selection).toMatchObject({ screen: null, kepub: false });
    expect(await pageSizes()).toEqual([
      [300, 450, 'grey'],
      [300, 450, 'grey'],
      [300, 450, 'grey'],
    ]);
    // A screen larger than the pages: they stay as they are.
    await set({ screen: { width: 1440, height: 1920 } });
    expect((await pageSizes()).map(([w, h]) => [w, h])).toEqual([
      [300, 450],
      [300, 450],
      [300, 450],
    ]);
  }, 30_000);

  it('the fixed-layout EPUB of a comic, put in a library, is read as the comic: one image page per comic page', async () => {
    const own = await createApiKey(t, t.headers, { name: 'Admin Kobo (pages)', permissions: KOBO_PERMISSIONS });
    const download = await koboDevice(`${origin}/kobo/${own.key}`).request('GET', `/v1/books/${ids['Kobo Comic']}/file/epub3fl`);
    expect(download.status).toBe(200);
    const library = await scannedLibrary(t, async (dir) => writeFile(path.join(dir, 'comic.epub'), download.bytes));
    const listed = await call<{ data: Json[] }>(t, t.headers, 'GET', `/api/v1/books?library_id=${library.id}`);
    expect(listed.body.data).toHaveLength(1);
    const book = listed.body.data[0]!;
    expect(book).toMatchObject({ format: 'epub', page_count: 3 });
    // Every page an image: the web reader shows it with the comic reader (isImageBook in web/src/reader/data.ts).
    const pages = (await call<Json[]>(t, t.headers, 'GET', `/api/v1/books/${book.id}/pages`)).body;
    const comicPages = (await call<Json[]>(t, t.headers, 'GET', `/api/v1/books/${ids['Kobo Comic']}/pages`)).body;
    expect(pages).toHaveLength(3);
    expect(pages.map((p) => [p.media_type, p.width, p.height])).toEqual(comicPages.map((p) => [p.media_type, p.width, p.height]));
    expect(pages.every((p) => String(p.media_type).startsWith('image/'))).toBe(true);
    // Each page served is the comic's page, byte for byte.
    for (let n = 1; n <= 3; n++) {
      const [page, original] = await Promise.all(
        [book.id as string, ids['Kobo Comic']!].map((id) =>
          t.app.inject({ method: 'GET', url: `/api/v1/books/${id}/pages/${n}`, headers: t.headers }),
        ),
      );
      expect(page!.statusCode).toBe(200);
      expect(page!.headers['content-type']).toBe(original!.headers['content-type']);
      expect(page!.rawPayload.equals(original!.rawPayload)).toBe(true);
    }
  }, 30_000);

  it.skipIf(noEpubcheck)(
    epubcheckTitle('the fixed-layout EPUB of a comic passes epubcheck'),
    async () => {
      const own = await createApiKey(t, t.headers, { name: 'Admin Kobo', permissions: KOBO_PERMISSIONS });
      const download = await koboDevice(`${origin}/kobo/${own.key}`).request('GET', `/v1/books/${ids['Kobo Comic']}/file/epub3fl`);
      expect(download.status).toBe(200);
      const file = path.join(makeTempDir('kobo-epub-'), 'comic.epub');
      await writeFile(file, download.bytes);
      expect(await epubcheck(file)).toMatch(/No errors or warnings detected/);
    },
    180_000,
  );
});
