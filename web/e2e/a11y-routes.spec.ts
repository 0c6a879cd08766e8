import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { ADMIN, expect, serverUrl, signIn, test } from './fixtures.js';

/**
 * axe on every route of the router (issue 53): the list comes from the running app (`globalThis.colophonRoutes`, set
 * by web/src/router.tsx), so a new screen is covered without editing this file. As an administrator and as a reader,
 * at desktop and phone size, in the light and dark themes; WCAG 2.0–2.2 A and AA rules, no violation of any impact.
 */
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa'];
// Screens for a person who is not signed in, or that only redirect once the server is set up.
const SIGNED_OUT = new Set(['/setup', '/sign-in', '/register', '/verify-email']);

async function routesOf(page: Page): Promise<string[]> {
  await page.goto('/');
  await expect
    .poll(() => page.evaluate(() => (globalThis as { colophonRoutes?: string[] }).colophonRoutes?.length ?? 0))
    .toBeGreaterThan(20);
  return page.evaluate(() => (globalThis as unknown as { colophonRoutes: string[] }).colophonRoutes);
}

/** Ids for the routes' parameters, from the API as the administrator sees it. */
async function parameters(page: Page, token: string): Promise<Record<string, string>> {
  const get = async <T>(url: string): Promise<T> =>
    (await (await page.request.get(`${serverUrl()}/api/v1${url}`, { headers: { authorization: `Bearer ${token}` } })).json()) as T;
  const book = (await get<{ data: { id: string; series_id: string; library_id: string }[] }>('/books?pageSize=1')).data[0]!;
  const post = async (url: string, data: object) =>
    (await (await page.request.post(`${serverUrl()}/api/v1${url}`, { headers: { authorization: `Bearer ${token}` }, data })).json()) as {
      id: string;
    };
  const collection = await post('/collections', { name: `Axe collection ${Date.now()}`, shared: true, series_ids: [book.series_id] });
  const readList = await post('/read-lists', { name: `Axe read list ${Date.now()}`, book_ids: [book.id] });
  return {
    $bookId: book.id,
    $seriesId: book.series_id,
    $libraryId: book.library_id,
    $collectionId: collection.id,
    $readListId: readList.id,
    $shelf: 'recently-added-books',
  };
}

/** Waits for the screen to have drawn what it loads: its main content, no "Loading…" left. */
async function settled(page: Page): Promise<void> {
  await expect(page.locator('main, [role=main], [role=region]').first()).toBeVisible();
  await expect(page.getByText(/^Loading…$/)).toHaveCount(0, { timeout: 10_000 });
}

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

for (const [who, size, scheme] of [
  ['admin', 'desktop', 'light'],
  ['admin', 'desktop', 'dark'],
  ['admin', 'phone', 'light'],
  ['admin', 'phone', 'dark'],
  ['reader', 'desktop', 'light'],
  ['reader', 'desktop', 'dark'],
  ['reader', 'phone', 'light'],
  ['reader', 'phone', 'dark'],
] as const) {
  test(`every route has no accessibility violation: ${who}, ${size}, ${scheme} theme`, async ({ page }) => {
    test.setTimeout(300_000);
    const adminToken = await signIn(page);
    const ids = await parameters(page, adminToken);
    if (who === 'reader') {
      const username = `axe${size}${scheme}${Date.now().toString(36)}`;
      const password = 'a long password for the axe test';
      const created = await page.request.post(`${serverUrl()}/api/v1/users`, {
        headers: { authorization: `Bearer ${adminToken}` },
        data: { username, email: `${username}@example.org`, password, role: 'reader' },
      });
      expect(created.status()).toBe(201);
      await page.context().clearCookies();
      await signIn(page, { ...ADMIN, username, password });
    }
    await page.setViewportSize(size === 'phone' ? PHONE : DESKTOP);
    await page.emulateMedia({ colorScheme: scheme });
    const routes = (await routesOf(page)).filter((r) => !SIGNED_OUT.has(r));
    expect(routes).toEqual(expect.arrayContaining(['/', '/libraries', '/series/$seriesId', '/books/$bookId/read', '/admin/users']));
    const violations: string[] = [];
    for (const route of routes) {
      const url = route.replace(/\$[A-Za-z]+/g, (p) => ids[p] ?? p).replace(/\/$/, '') || '/';
      await page.goto(url);
      await settled(page);
      const results = await new AxeBuilder({ page }).withTags(WCAG).analyze();
      for (const v of results.violations)
        violations.push(`${route}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
    }
    expect(violations).toEqual([]);
  });
}
