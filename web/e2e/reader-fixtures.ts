import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { APIRequestContext, Browser, BrowserContext, Page } from '@playwright/test';
import { makeCbz, makeEpub, makePdf } from '../../test/media/fixtures.js';
import { ADMIN, expect, libraryRoot, serverUrl } from './fixtures.js';

/**
 * The reader's own library, made once per server (the other specs count the series of "Comics", so it is
 * added by the reader project, which runs last): every page is a solid colour whose red channel is 12 × its
 * page number, so a test reads which page is on screen from the pixels themselves.
 */
export const LIBRARY_NAME = 'Reader books';
export const pageColour = (n: number) => `rgb(${n * 12}, 90, 160)`;
const portrait = (n: number) => ({ name: `p${String(n).padStart(3, '0')}.png`, width: 300, height: 450, color: pageColour(n) });
const wide = (n: number) => ({ name: `p${String(n).padStart(3, '0')}.png`, width: 600, height: 450, color: pageColour(n) });

async function writeBooks(dir: string): Promise<void> {
  const at = (folder: string) => {
    const full = path.join(dir, folder);
    mkdirSync(full, { recursive: true });
    return full;
  };
  await makeCbz(at('Paged'), 'Paged 001.cbz', {
    pages: [1, 2, 3, 4, 5, 6].map(portrait),
    comicInfo: { Series: 'Paged', Number: 1, Title: 'Paged one' },
  });
  await makeCbz(at('Paged'), 'Paged 002.cbz', {
    pages: [1, 2, 3].map(portrait),
    comicInfo: { Series: 'Paged', Number: 2, Title: 'Paged two' },
  });
  await makeCbz(at('Spreads'), 'Spreads 001.cbz', {
    pages: [portrait(1), portrait(2), portrait(3), wide(4), portrait(5), portrait(6), portrait(7)],
    comicInfo: { Series: 'Spreads', Number: 1, Title: 'Spreads one' },
  });
  await makeCbz(at('Manga'), 'Manga 001.cbz', {
    pages: [1, 2, 3, 4, 5].map(portrait),
    comicInfo: { Series: 'Manga', Number: 1, Title: 'Manga one', Manga: 'YesAndRightToLeft' },
  });
  await makeCbz(at('Webtoon'), 'Webtoon 001.cbz', {
    pages: Array.from({ length: 40 }, (_, i) => ({
      name: `w${String(i + 1).padStart(3, '0')}.png`,
      width: 200,
      height: 300 + (i % 4) * 100,
      color: pageColour(i + 1),
    })),
    comicInfo: { Series: 'Webtoon', Number: 1, Title: 'Webtoon one' },
  });
  await makePdf(at('Papers'), 'Paper 001.pdf', { pages: 3, text: 'Paper page' });
  await makeEpub(at('Picture books'), 'Pictures 001.epub', {
    kind: 'image',
    fixedLayout: true,
    pages: 3,
    metadata: { title: 'Pictures one', series: 'Picture books', seriesIndex: '1' },
  });
  await makeEpub(at('Novels'), 'Novel 001.epub', {
    pages: 5,
    metadata: { title: 'Novel one', series: 'Novels', seriesIndex: '1', language: 'en' },
  });
  await makeEpub(at('Guides'), 'Guide 001.epub', {
    pages: 4,
    toc: true,
    metadata: { title: 'Guide one', series: 'Guides', seriesIndex: '1', language: 'en' },
  });
}

export interface ReaderLibrary {
  books: Record<string, { id: string; series_id: string; page_count: number }>;
}

let library: Promise<ReaderLibrary> | null = null;

async function adminToken(request: APIRequestContext): Promise<string> {
  const status = (await (await request.get(`${serverUrl()}/api/v1/setup/status`)).json()) as { setup_required: boolean };
  if (status.setup_required) await request.post(`${serverUrl()}/api/v1/setup/initialize`, { data: ADMIN });
  const res = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } });
  expect(res.status()).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The reader library, created and scanned on first use (or found, when another project made it). */
export function readerLibrary(request: APIRequestContext): Promise<ReaderLibrary> {
  library ??= (async () => {
    const headers = { Authorization: `Bearer ${await adminToken(request)}` };
    const libraries = (await (await request.get(`${serverUrl()}/api/v1/libraries`, { headers })).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    let id = libraries.data.find((l) => l.name === LIBRARY_NAME)?.id;
    if (!id) {
      const dir = mkdtempSync(path.join(libraryRoot(), 'reader-'));
      await writeBooks(dir);
      const created = await request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: LIBRARY_NAME, path: dir } });
      expect(created.status()).toBe(201);
      id = ((await created.json()) as { id: string }).id;
      await request.post(`${serverUrl()}/api/v1/libraries/${id}/scan`, { headers });
    }
    const books: ReaderLibrary['books'] = {};
    await expect
      .poll(
        async () => {
          const list = (await (await request.get(`${serverUrl()}/api/v1/books?library_id=${id}&pageSize=100`, { headers })).json()) as {
            data: Array<{ id: string; title: string; path: string; series_id: string; page_count: number }>;
          };
          for (const b of list.data) books[b.title] = books[`file:${path.basename(b.path)}`] = b;
          return list.data.filter((b) => b.page_count > 0).length;
        },
        { timeout: 60_000 },
      )
      .toBe(9);
    return { books };
  })();
  return library;
}

let users = 0;

/** A new reader account (its own progress and settings), signed in on `page` the way the sign-in screen does it. */
export async function newReader(request: APIRequestContext): Promise<{ username: string; password: string; token: string }> {
  const headers = { Authorization: `Bearer ${await adminToken(request)}` };
  users += 1;
  const username = `reader${users}_${Math.random().toString(36).slice(2, 7)}`;
  const password = 'reading is fun 123';
  const created = await request.post(`${serverUrl()}/api/v1/users`, {
    headers,
    data: { username, email: `${username}@example.org`, password, role: 'reader' },
  });
  expect(created.status()).toBe(201);
  const login = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username, password } });
  expect(login.status()).toBe(200);
  return { username, password, token: ((await login.json()) as { access_token: string }).access_token };
}

/** Hands a token to a page (before any of its scripts run). */
export async function useSession(target: Page | BrowserContext, user: { username: string; token: string }): Promise<void> {
  const session = { token: user.token, expiresAt: Date.now() + 3600_000, username: user.username };
  await target.addInitScript(
    (value) =>
      (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('colophon.session', value),
    JSON.stringify(session),
  );
}

export async function setReaderSettings(request: APIRequestContext, token: string, value: unknown): Promise<void> {
  const res = await request.put(`${serverUrl()}/api/v1/user/preferences/reader_settings`, {
    headers: { Authorization: `Bearer ${token}` },
    data: { value },
  });
  expect(res.status()).toBe(200);
}

export async function progressOf(
  request: APIRequestContext,
  token: string,
  bookId: string,
): Promise<{ current_page: number; is_completed: boolean } | null> {
  const res = await request.get(`${serverUrl()}/api/v1/books/${bookId}/progress`, { headers: { Authorization: `Bearer ${token}` } });
  return res.status() === 404 ? null : ((await res.json()) as { current_page: number; is_completed: boolean });
}

/** The page numbers on screen, left to right, read from the colour at the centre of each shown image. */
export async function shownPages(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const doc = (
      globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<unknown>; createElement(t: string): unknown } }
    ).document;
    const images = Array.from(doc.querySelectorAll('.reader-view img')) as Array<{ naturalWidth: number; naturalHeight: number }>;
    return images.map((img) => {
      const canvas = doc.createElement('canvas') as {
        width: number;
        height: number;
        getContext(k: string): {
          drawImage(...a: unknown[]): void;
          getImageData(x: number, y: number, w: number, h: number): { data: number[] };
        };
      };
      canvas.width = 1;
      canvas.height = 1;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, img.naturalWidth / 2, img.naturalHeight / 2, 1, 1, 0, 0, 1, 1);
      return Math.round(ctx.getImageData(0, 0, 1, 1).data[0]! / 12);
    });
  });
}

export async function expectPages(page: Page, expected: number[]): Promise<void> {
  await expect.poll(() => shownPages(page), { timeout: 10_000 }).toEqual(expected);
}

export async function newContextAs(
  browser: Browser,
  user: { username: string; token: string },
  options: Parameters<Browser['newContext']>[0] = {},
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: serverUrl(), ...options });
  await useSession(context, user);
  return { context, page: await context.newPage() };
}

export const LONG_SERIES_BOOKS = 502;
let longSeries: Promise<{ seriesId: string; books: Array<{ id: string; number: string | null }> }> | null = null;

/**
 * A series longer than the API's largest page (500): one-page books, copies of one file, in a library of their
 * own ("Long series") so that no other spec's counts change. Made once per server.
 */
export function longSeriesLibrary(
  request: APIRequestContext,
): Promise<{ seriesId: string; books: Array<{ id: string; number: string | null }> }> {
  longSeries ??= (async () => {
    const headers = { Authorization: `Bearer ${await adminToken(request)}` };
    const dir = mkdtempSync(path.join(libraryRoot(), 'long-'));
    const folder = path.join(dir, 'Long');
    mkdirSync(folder, { recursive: true });
    const source = await makeCbz(dir, 'source.cbz', { pages: [portrait(1)] });
    for (let n = 1; n <= LONG_SERIES_BOOKS; n++) copyFileSync(source, path.join(folder, `Long ${String(n).padStart(3, '0')}.cbz`));
    rmSync(source);
    const created = await request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: 'Long series', path: dir } });
    expect(created.status()).toBe(201);
    const id = ((await created.json()) as { id: string }).id;
    await request.post(`${serverUrl()}/api/v1/libraries/${id}/scan`, { headers });
    let seriesId = '';
    await expect
      .poll(
        async () => {
          const list = (await (await request.get(`${serverUrl()}/api/v1/series?library_id=${id}`, { headers })).json()) as {
            data: Array<{ id: string; book_count: number }>;
          };
          seriesId = list.data[0]?.id ?? '';
          return list.data[0]?.book_count ?? 0;
        },
        { timeout: 60_000 },
      )
      .toBe(LONG_SERIES_BOOKS);
    const books: Array<{ id: string; number: string | null }> = [];
    for (let page = 1; books.length < LONG_SERIES_BOOKS; page++) {
      const res = await request.get(`${serverUrl()}/api/v1/series/${seriesId}/books?page=${page}&pageSize=500&sort=number,asc`, {
        headers,
      });
      books.push(...((await res.json()) as { data: Array<{ id: string; number: string | null }> }).data);
    }
    return { seriesId, books };
  })();
  return longSeries;
}
