import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { APIRequestContext, Page } from '@playwright/test';
import { makeCbz } from '../../test/media/fixtures.js';
import { createUserByApi, expectNoSeriousA11yViolations, unique } from './admin-fixtures.js';
import { ADMIN, apiFailure, expect, libraryRoot, serverUrl, signIn, test } from './fixtures.js';

/*
 * A server for a household (issue 36): an administrator decides, in Administration → Users, which libraries, ages
 * and sharing labels a user sees; that user's screens then show nothing else. The file name ends in
 * "admin.spec.ts" so that it runs in the "live" project, after the counts of the browsing tests: it adds a library
 * (removed at the end).
 */

/** The household library: four one-book series, rated (ComicInfo AgeRating) or not. */
const HOUSEHOLD_SERIES = [
  { name: 'Bluey Days', rating: 'Everyone' },
  { name: 'Night Watch', rating: 'Mature 17+' },
  { name: 'Picnic Club', rating: null },
  { name: 'Secret Diary', rating: 'Everyone' },
] as const;

async function makeHouseholdLibrary(name: string): Promise<string> {
  const dir = path.join(libraryRoot(), name);
  for (const series of HOUSEHOLD_SERIES) {
    const folder = path.join(dir, series.name);
    mkdirSync(folder, { recursive: true });
    await makeCbz(folder, `${series.name} 001.cbz`, {
      pages: 2,
      comicInfo: { Series: series.name, Number: 1, Title: `${series.name} one`, ...(series.rating ? { AgeRating: series.rating } : {}) },
    });
  }
  return dir;
}

interface Named {
  id: string;
  name: string;
}

async function adminHeaders(request: APIRequestContext): Promise<Record<string, string>> {
  const login = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } });
  return { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
}

async function getJson<T>(request: APIRequestContext, url: string, headers: Record<string, string>): Promise<T> {
  const res = await request.get(`${serverUrl()}${url}`, { headers });
  expect(res.status(), url).toBe(200);
  return (await res.json()) as T;
}

/** A second page, signed in as another user. */
async function pageOf(page: Page, user: { username: string; password: string }): Promise<Page> {
  const context = await page.context().browser()!.newContext({ baseURL: serverUrl() });
  const other = await context.newPage();
  await signIn(other, { ...user, email: '' });
  return other;
}

test.describe.configure({ mode: 'serial' });
test.describe('Household access', () => {
  const libraryName = unique('Household');
  let libraryId = '';
  let comicsId = '';
  const seriesIds = new Map<string, string>();

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(60_000);
    const request = await playwright.request.newContext();
    const headers = await adminHeaders(request);
    const dir = await makeHouseholdLibrary(libraryName);
    const created = await request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: libraryName, path: dir } });
    expect(created.status()).toBe(201);
    libraryId = ((await created.json()) as Named).id;
    await request.post(`${serverUrl()}/api/v1/libraries/${libraryId}/scan`, { headers });
    await expect
      .poll(async () => (await getJson<{ state: string }>(request, `/api/v1/libraries/${libraryId}/scan-status`, headers)).state, {
        timeout: 30_000,
      })
      .toBe('completed');
    const series = await getJson<{ data: Named[] }>(request, `/api/v1/series?library_id=${libraryId}&pageSize=100`, headers);
    for (const s of series.data) seriesIds.set(s.name, s.id);
    expect([...seriesIds.keys()].sort()).toEqual(HOUSEHOLD_SERIES.map((s) => s.name));
    const libraries = await getJson<{ data: Named[] }>(request, '/api/v1/libraries?pageSize=500', headers);
    comicsId = libraries.data.find((l) => l.name === 'Comics')!.id;
    await request.dispose();
  });

  test.afterAll(async ({ playwright }) => {
    const request = await playwright.request.newContext();
    const headers = await adminHeaders(request);
    if (libraryId) expect((await request.delete(`${serverUrl()}/api/v1/libraries/${libraryId}`, { headers })).status()).toBe(204);
    await request.dispose();
  });

  test('an administrator restricts a user to one library, an age and no "parents-only"; the user sees only what is allowed', async ({
    page,
  }) => {
    test.setTimeout(120_000);
    const adminToken = await signIn(page);
    const reader = { username: unique('kid'), password: 'kid password 1' };
    await createUserByApi(page, adminToken, reader);

    // The series page: an administrator gives "Secret Diary" a sharing label (typed in capitals, kept lower-cased).
    await page.goto(`/series/${seriesIds.get('Secret Diary')}`);
    await expect(page.getByRole('heading', { name: 'Secret Diary', level: 1 })).toBeVisible();
    await page.getByText('Sharing labels (none)').click();
    const labelField = page.getByLabel('Sharing labels of this series', { exact: true });
    await labelField.fill('Parents-Only');
    await labelField.press('Enter');
    await expect(page.getByText('Sharing labels: parents-only')).toBeVisible();
    await expect(page.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await page.reload();
    await expect(page.getByText('Sharing labels: parents-only')).toBeVisible();

    // Administration → Users: the reader sees everything until restricted; the counts follow the form as it changes.
    await page.goto('/admin/users');
    const row = page.getByRole('listitem', { name: reader.username, exact: true });
    await row.getByText(`What ${reader.username} sees: all libraries`).click();
    const form = row.getByRole('form', { name: `Access of ${reader.username}` });
    const preview = form.getByRole('status').filter({ hasText: /^Sees/ });
    await expect(preview).toHaveText(/^Sees (\d+) of \1 series in (\d+) of \2 libraries/);
    const administrator = page.getByRole('listitem', { name: ADMIN.username, exact: true });
    await expect(administrator).toContainText('Sees everything: an administrator sees every library and series');

    await form.getByLabel('All libraries, also future ones').uncheck();
    const only = form.getByRole('group', { name: 'Only these libraries' });
    for (const box of await only.getByRole('checkbox').all()) {
      const label = (await box.evaluate((el) => el.parentElement?.textContent ?? '')).trim();
      if (label !== libraryName) await box.uncheck();
    }
    await expect(only.getByLabel(libraryName)).toBeChecked();
    await expect(preview).toHaveText(/^Sees 4 of \d+ series in 1 of \d+ libraries/);

    await form.getByRole('radio', { name: /Only series rated for an age/ }).check();
    await form.getByLabel('Maximum age').fill('12');
    await expect(form.getByLabel('Include series without a rating')).not.toBeChecked();
    // "Night Watch" is rated 17, "Picnic Club" has no rating.
    await expect(preview).toHaveText(/^Sees 2 of \d+ series in 1 of \d+ libraries/);

    const excluded = form.getByLabel('Labels excluded', { exact: true });
    await excluded.fill('parents-only');
    await excluded.press('Enter');
    await expect(form.getByRole('grid', { name: 'Labels excluded: chosen' })).toContainText('parents-only');
    await expect(preview).toHaveText(/^Sees 1 of \d+ series in 1 of \d+ libraries/);
    await expectNoSeriousA11yViolations(page);

    // A refused save is said in words, and the form stays as it was typed.
    await page.route('**/api/v1/users/*', apiFailure(400, 'No library has the id 00000000-0000-0000-0000-000000000000', 'PATCH'));
    await form.getByRole('button', { name: `Save access of ${reader.username}` }).click();
    await expect(form.getByRole('alert')).toContainText('No library has the id');
    await page.unroute('**/api/v1/users/*');

    await form.getByRole('button', { name: `Save access of ${reader.username}` }).click();
    await expect(form.getByRole('status').filter({ hasText: 'Saved' })).toBeVisible();
    await expect(row.getByText(`What ${reader.username} sees: ${libraryName} · up to age 12, rated only · 1 label excluded`)).toBeVisible();
    // What is saved is what the user sees now (the access summary).
    await page.reload();
    await page.getByRole('listitem', { name: reader.username, exact: true }).getByText(`What ${reader.username} sees:`).click();
    await expect(
      page
        .getByRole('form', { name: `Access of ${reader.username}` })
        .getByRole('status')
        .filter({ hasText: /^Sees/ }),
    ).toHaveText(/^Sees 1 of \d+ series in 1 of \d+ libraries/);

    // The reader: home, the grid, search and addresses of hidden things.
    const kid = await pageOf(page, reader);
    await kid.goto('/');
    const shelf = kid.getByRole('region', { name: 'Recently added series' });
    await expect(shelf.getByTestId('series-card')).toHaveCount(1);
    await expect(shelf).toContainText('Bluey Days');
    await expect(kid.getByRole('region', { name: 'Recently added books' }).getByTestId('book-card')).toHaveCount(1);

    await kid.goto('/libraries');
    await expect(kid.getByText('1 series', { exact: true })).toBeVisible();
    await expect(kid.getByTestId('series-card')).toHaveCount(1);
    await expect(kid.getByTestId('series-card')).toContainText('Bluey Days');
    await kid.getByRole('button', { name: 'Books', exact: true }).click();
    await expect(kid.getByText('1 book', { exact: true })).toBeVisible();

    await kid.goto(`/libraries/${comicsId}`);
    await expect(kid.getByRole('heading', { name: 'Library not found' })).toBeVisible();

    await kid.goto('/search?q=Saga');
    await expect(kid.getByText(/Nothing matches “Saga”.*Only what your account can see is searched/)).toBeVisible();
    await kid.goto('/search?q=Night');
    await expect(kid.getByText(/Nothing matches “Night”/)).toBeVisible();
    await kid.goto('/search?q=Bluey');
    await expect(kid.getByRole('heading', { name: 'Series (1)' })).toBeVisible();

    await kid.goto(`/series/${seriesIds.get('Night Watch')}`);
    await expect(kid.getByRole('heading', { name: 'Series not found' })).toBeVisible();
    await kid.goto(`/series/${seriesIds.get('Secret Diary')}`);
    await expect(kid.getByRole('heading', { name: 'Series not found' })).toBeVisible();
    const saga = await getJson<{ data: Named[] }>(kid.request, `/api/v1/series?library_id=${comicsId}`, {
      Authorization: `Bearer ${adminToken}`,
    });
    await kid.goto(`/series/${saga.data[0]!.id}`);
    await expect(kid.getByRole('heading', { name: 'Series not found' })).toBeVisible();

    // The series it may see: no sharing labels shown to a reader, who cannot change them.
    await kid.goto(`/series/${seriesIds.get('Bluey Days')}`);
    await expect(kid.getByRole('heading', { name: 'Bluey Days', level: 1 })).toBeVisible();
    await expect(kid.getByText(/Sharing labels/)).toHaveCount(0);
    await kid.context().close();
  });

  test('a user who may see no library is told why its screens are empty', async ({ page }) => {
    const adminToken = await signIn(page);
    const reader = { username: unique('guest'), password: 'guest password 1' };
    const id = await createUserByApi(page, adminToken, reader);
    const res = await page.request.patch(`${serverUrl()}/api/v1/users/${id}`, {
      headers: { Authorization: `Bearer ${adminToken}` },
      data: { library_access: { all: false, library_ids: [] } },
    });
    expect(res.status()).toBe(200);

    const guest = await pageOf(page, reader);
    await guest.goto('/');
    await expect(guest.getByText('No library you can see yet.')).toBeVisible();
    await expect(
      guest.getByText(/An administrator adds libraries, and decides which libraries and ratings your account shows/),
    ).toBeVisible();
    await guest.goto('/libraries');
    await expect(
      guest.getByText('Nothing here you can see. An administrator decides which libraries and ratings your account shows.'),
    ).toBeVisible();
    await guest.goto('/shelves/recently-added-series');
    await expect(guest.getByText('Nothing here you can see.', { exact: false })).toBeVisible();
    await guest.context().close();

    // The server setting for new accounts is listed among the settings.
    await page.goto('/admin/settings');
    const setting = page.getByRole('listitem', { name: 'New users see all libraries' });
    await expect(setting.getByLabel('New users see all libraries')).toBeChecked();
  });
});
