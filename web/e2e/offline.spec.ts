import { devices, type APIRequestContext, type Page } from '@playwright/test';
import path from 'node:path';
import { ADMIN, expect, serverUrl, test } from './fixtures.js';
import { newReader, readerLibrary, useSession } from './reader-fixtures.js';

// Issue 54: books downloaded into the browser, read with no network, their positions sent home afterwards.
test.use({ serviceWorkers: 'allow' });

const docs = path.resolve(import.meta.dirname, '../../docs/screenshots');
const api = (request: APIRequestContext, token: string) => ({
  get: async <T>(url: string) =>
    (await (await request.get(`${serverUrl()}${url}`, { headers: { Authorization: `Bearer ${token}` } })).json()) as T,
  put: (url: string, data: object) => request.put(`${serverUrl()}${url}`, { headers: { Authorization: `Bearer ${token}` }, data }),
  patch: (url: string, data: object) => request.patch(`${serverUrl()}${url}`, { headers: { Authorization: `Bearer ${token}` }, data }),
});

/** The page, once the service worker controls it (the first visit installs it; the reload is its first page). */
async function controlled(page: Page): Promise<void> {
  await page.goto('/');
  await page.evaluate(async () => {
    await (globalThis as unknown as { navigator: { serviceWorker: { ready: Promise<unknown> } } }).navigator.serviceWorker.ready;
  });
  await page.reload();
  await expect
    .poll(() =>
      page.evaluate(
        () => !!(globalThis as unknown as { navigator: { serviceWorker: { controller: unknown } } }).navigator.serviceWorker.controller,
      ),
    )
    .toBe(true);
}

async function download(page: Page, bookId: string): Promise<void> {
  await page.goto(`/books/${bookId}`);
  await page.getByRole('button', { name: 'Download for offline' }).click();
  await expect(page.getByRole('group', { name: 'Offline copy' }).getByRole('status')).toContainText('On this device', { timeout: 30_000 });
}

const lastShown = async (page: Page) => Number(/(\d+) of \d+$/.exec((await page.getByTestId('page-status').textContent()) ?? '')?.[1] ?? 0);

test('installable: a manifest with its fields, a service worker in control, the start URL answered offline', async ({
  page,
  request,
  context,
}) => {
  const manifest = (await (await request.get(`${serverUrl()}/manifest.webmanifest`)).json()) as Record<string, unknown>;
  expect(manifest).toMatchObject({ name: 'Colophon', short_name: 'Colophon', start_url: '/', display: 'standalone' });
  expect(manifest.theme_color).toMatch(/^#/);
  expect(manifest.background_color).toMatch(/^#/);
  const icons = manifest.icons as { sizes: string; purpose?: string }[];
  expect(icons.map((i) => i.sizes)).toEqual(expect.arrayContaining(['192x192', '512x512']));
  expect(icons.some((i) => i.purpose === 'maskable')).toBe(true);
  const worker = await request.get(`${serverUrl()}/sw.js`);
  expect(worker.headers()['cache-control']).toBe('no-cache');
  const user = await newReader(request);
  await useSession(context, user);
  await controlled(page);
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
  await context.setOffline(true);
  const start = await page.goto('/');
  expect(start?.status()).toBe(200);
  expect(start?.fromServiceWorker()).toBe(true);
  await expect(page.getByRole('status').filter({ hasText: 'You are offline' })).toBeVisible();
  await context.setOffline(false);
});

test('download a comic and an EPUB, read both offline, and the positions come home by when they were read', async ({
  page,
  request,
  context,
}) => {
  test.setTimeout(150_000);
  const { books } = await readerLibrary(request);
  const comic = books['Paged one']!;
  const epub = books['Novel one']!;
  const login = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } });
  const admin = api(request, ((await login.json()) as { access_token: string }).access_token);
  const libraries = await admin.get<{ data: { id: string; name: string }[] }>('/api/v1/libraries');
  const comicsLibrary = libraries.data.find((l) => l.name === 'Comics')!;
  const readerLibraryId = (await admin.get<{ library_id: string }>(`/api/v1/books/${comic.id}`)).library_id;
  const saga = (
    await admin.get<{ data: { id: string; title: string }[] }>(`/api/v1/books?library_id=${comicsLibrary.id}&pageSize=1&sort=title,asc`)
  ).data[0]!;

  const user = await newReader(request);
  const as = api(request, user.token);
  const me = await as.get<{ id: string }>('/api/v1/auth/me');
  await useSession(context, user);
  await controlled(page);

  for (const book of [comic, epub, saga]) await download(page, book.id);
  await page.goto('/downloads');
  const shelf = page.getByRole('list', { name: 'Downloaded books' });
  await expect(shelf.getByTestId('downloaded-book')).toHaveCount(3);
  await expect(page.getByTestId('storage-use')).toContainText('used');

  // No network: the app opens from its start URL, and the books from this device.
  await context.setOffline(true);
  await page.goto('/');
  await page.getByRole('status').filter({ hasText: 'You are offline' }).getByRole('link', { name: 'Downloads' }).click();
  await expect(page).toHaveURL(/\/downloads$/);
  await page.getByRole('link', { name: /Paged one/ }).click();
  const status = page.getByTestId('page-status');
  await expect(status).toHaveText(/^Pages? 1(\u20132)? of 6$/, { timeout: 15_000 });
  const readAt = Date.now();
  while ((await lastShown(page)) < 5) {
    const before = await status.textContent();
    await page.keyboard.press('ArrowRight');
    await expect(status).not.toHaveText(before ?? '');
  }
  // The place saved is the last page on screen (of a spread, its second).
  const comicPage = await lastShown(page);
  // Not sent (no network): the reader says it keeps the place for later.
  await expect(page.locator('.reader-unsaved')).toBeVisible({ timeout: 10_000 });

  await page.goto(`/books/${epub.id}/read`);
  await expect(page.locator('.epub-reader')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId('page-status')).not.toBeEmpty({ timeout: 20_000 });
  for (let i = 0; i < 4; i += 1) await page.keyboard.press('ArrowRight');
  await expect(page.locator('.reader-unsaved')).toBeVisible({ timeout: 10_000 });

  // Meanwhile another device of the same person moves the comic on, after this one read it; and the household
  // takes the third book's library away from this person.
  expect((await as.put(`/api/v1/books/${comic.id}/progress`, { current_page: 2 })).status()).toBe(200);
  expect((await admin.patch(`/api/v1/users/${me.id}`, { library_access: { all: false, library_ids: [readerLibraryId] } })).status()).toBe(
    200,
  );

  await page.goto('/downloads');
  await context.setOffline(false);
  // Home again: each position reaches the ledger with the time it was read; the other device's newer one stays.
  type History = { data: { page: number; client_at: string | null; applied: boolean }[] };
  await expect
    .poll(async () => (await as.get<History>(`/api/v1/books/${comic.id}/progress/history`)).data.some((e) => e.client_at !== null), {
      timeout: 20_000,
    })
    .toBe(true);
  const offlineEntry = (await as.get<History>(`/api/v1/books/${comic.id}/progress/history`)).data.find((e) => e.client_at !== null)!;
  expect(offlineEntry).toMatchObject({ page: comicPage, applied: false });
  expect(Math.abs(Date.parse(offlineEntry.client_at!) - readAt)).toBeLessThan(30_000);
  expect((await as.get<{ current_page: number }>(`/api/v1/books/${comic.id}/progress`)).current_page).toBe(2);
  await expect
    .poll(async () => (await as.get<History>(`/api/v1/books/${epub.id}/progress/history`)).data.some((e) => e.client_at !== null), {
      timeout: 20_000,
    })
    .toBe(true);
  // The book whose library was taken away is gone from this device.
  await expect(shelf.getByTestId('downloaded-book')).toHaveCount(2, { timeout: 20_000 });
  await expect(shelf).not.toContainText(saga.title);

  // Signing out leaves nothing of this person's downloads readable in the browser.
  const before = await page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('colophon-offline-')).length);
  expect(before).toBe(1);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await expect.poll(() => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('colophon-offline-')).length)).toBe(0);
});

test('a session the server no longer takes (the account disabled) removes the downloads at the next sync', async ({
  page,
  request,
  context,
}) => {
  const { books } = await readerLibrary(request);
  const user = await newReader(request);
  const me = await api(request, user.token).get<{ id: string }>('/api/v1/auth/me');
  await useSession(context, user);
  await controlled(page);
  await download(page, books['Paged two']!.id);
  const offlineCaches = () => page.evaluate(async () => (await caches.keys()).filter((k) => k.startsWith('colophon-offline-')).length);
  expect(await offlineCaches()).toBe(1);
  await context.setOffline(true);
  await page.goto('/downloads');
  const login = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } });
  const admin = api(request, ((await login.json()) as { access_token: string }).access_token);
  expect((await admin.patch(`/api/v1/users/${me.id}`, { disabled: true })).status()).toBe(200);
  await context.setOffline(false);
  await expect.poll(offlineCaches, { timeout: 20_000 }).toBe(0);
});

test('a download pauses and resumes, waits through a lost connection and goes on by itself, and cancels', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const { books } = await readerLibrary(request);
  const user = await newReader(request);
  // The downloads run in the page (the worker only answers offline): routes slow the page images and cut the network.
  const context = await browser.newContext({ baseURL: serverUrl(), serviceWorkers: 'block' });
  try {
    await useSession(context, user);
    const page = await context.newPage();
    let cut = false;
    await context.route(/\/api\/v1\/books\/[^/]+\/pages\/\d+\?|\/health$/, async (route) => {
      if (cut) return route.abort('internetdisconnected');
      await new Promise((r) => setTimeout(r, 150));
      return route.continue();
    });
    await page.goto(`/books/${books['Webtoon one']!.id}`);
    const group = page.getByRole('group', { name: 'Offline copy' });
    await page.getByRole('button', { name: 'Download for offline' }).click();
    await expect(group.getByRole('status')).toContainText(/Downloading: [1-9]\d* of 40 files/);
    await group.getByRole('button', { name: 'Pause' }).click();
    await expect(group.getByRole('status')).toContainText(/Paused at \d+ of 40 files/);
    const pausedAt = Number(/Paused at (\d+)/.exec((await group.getByRole('status').textContent()) ?? '')?.[1]);
    expect(pausedAt).toBeLessThan(40);
    await group.getByRole('button', { name: 'Resume' }).click();
    await expect(group.getByRole('status')).toContainText('Downloading:');
    // The connection goes: the download waits, and goes on by itself once the server answers again.
    cut = true;
    await expect(group.getByRole('status')).toContainText('Waiting for the connection', { timeout: 15_000 });
    cut = false;
    await expect(group.getByRole('status')).toContainText('On this device', { timeout: 40_000 });
    // Remove takes the copy away; Cancel stops a download and takes what it kept.
    await group.getByRole('button', { name: 'Remove from this device' }).click();
    await page.getByRole('button', { name: 'Download for offline' }).click();
    await expect(group.getByRole('status')).toContainText(/Downloading: [1-9]\d* of 40 files/);
    await group.getByRole('button', { name: 'Cancel' }).click();
    await expect(page.getByRole('button', { name: 'Download for offline' })).toBeVisible();
    expect(
      await page.evaluate(
        async () =>
          await (
            await caches.keys()
          ).reduce(
            async (n, k) => (await n) + (await (await caches.open(k)).keys()).filter((r) => r.url.includes('/pages/')).length,
            Promise.resolve(0),
          ),
      ),
    ).toBe(0);
  } finally {
    await context.close();
  }
});

test('a full quota: the download stops with a message that says so', async ({ page, request, context }) => {
  const { books } = await readerLibrary(request);
  const user = await newReader(request);
  await useSession(context, user);
  await controlled(page);
  const cdp = await context.newCDPSession(page);
  await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(serverUrl()).origin, quotaSize: 20_000 });
  try {
    await page.goto(`/books/${books['Webtoon one']!.id}`);
    await page.getByRole('button', { name: 'Download for offline' }).click();
    await expect(page.getByRole('group', { name: 'Offline copy' }).getByRole('status')).toContainText('no room left', { timeout: 30_000 });
    await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
  } finally {
    await cdp.send('Storage.overrideQuotaForOrigin', { origin: new URL(serverUrl()).origin });
  }
});

test('the Downloaded shelf on a phone @phone', async ({ browser, request }) => {
  const { books } = await readerLibrary(request);
  const user = await newReader(request);
  const context = await browser.newContext({ ...devices['Pixel 7'], baseURL: serverUrl(), serviceWorkers: 'allow' });
  try {
    await useSession(context, user);
    const page = await context.newPage();
    await controlled(page);
    for (const title of ['Paged one', 'Novel one']) await download(page, books[title]!.id);
    await page.goto('/downloads');
    await expect(page.getByTestId('downloaded-book')).toHaveCount(2);
    await page.screenshot({ path: path.join(docs, 'downloads-phone.png') });
    // Remove: the book leaves the shelf and the device.
    await page.getByRole('button', { name: /^Remove .*Paged one.* from this device$/ }).click();
    await expect(page.getByTestId('downloaded-book')).toHaveCount(1);
    await page.reload();
    await expect(page.getByTestId('downloaded-book')).toHaveCount(1);
    await expect(page.getByTestId('downloaded-book')).toContainText('Novel one');
  } finally {
    await context.close();
  }
});
