import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { expect, libraryDir, libraryRoot, serverUrl, signIn, test } from './fixtures.js';

test('a series found by a scan appears in the open grid without a reload', async ({ page }) => {
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  const libraries = (await (await page.request.get(`${serverUrl()}/api/v1/libraries`, { headers })).json()) as {
    data: Array<{ id: string; name: string }>;
  };
  const comics = libraries.data.find((l) => l.name === 'Comics');
  await page.goto(`/libraries/${comics?.id}`);
  const cards = page.getByTestId('series-card');
  await expect(cards).toHaveCount(3);
  // Nothing reloads the page from here on: a marker set now must still be there at the end.
  await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));

  const folder = path.join(libraryDir(), 'Hellboy');
  mkdirSync(folder, { recursive: true });
  await makeCbz(folder, 'Hellboy 001.cbz', {
    pages: 2,
    pageSize: { width: 300, height: 450 },
    comicInfo: { Series: 'Hellboy', Number: 1 },
  });
  const scan = await page.request.post(`${serverUrl()}/api/v1/libraries/${comics?.id}/scan`, { headers });
  expect(scan.status()).toBe(202);

  await expect(cards).toHaveCount(4, { timeout: 30_000 });
  await expect(cards.filter({ hasText: 'Hellboy' })).toBeVisible();
  expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
});

test("the setup wizard's scan step: each series found links to its page, a long list stops at 8 with the rest on the library's page", async ({
  page,
}) => {
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  // A library of its own (twelve one-book series), scanned over the API; then its scan step, as the wizard shows it.
  const dir = mkdtempSync(path.join(libraryRoot(), 'setup-list-'));
  for (let n = 1; n <= 12; n++) {
    const name = `Found ${String(n).padStart(2, '0')}`;
    mkdirSync(path.join(dir, name), { recursive: true });
    await makeCbz(path.join(dir, name), `${name} 001.cbz`, { pages: 1, comicInfo: { Series: name, Number: 1 } });
  }
  const created = await page.request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: 'Setup list', path: dir } });
  expect(created.status()).toBe(201);
  const libraryId = ((await created.json()) as { id: string }).id;
  await page.request.post(`${serverUrl()}/api/v1/libraries/${libraryId}/scan`, { headers });
  await expect
    .poll(
      async () =>
        (
          (await (await page.request.get(`${serverUrl()}/api/v1/libraries/${libraryId}/scan-status`, { headers })).json()) as {
            state: string;
          }
        ).state,
      { timeout: 30_000 },
    )
    .toBe('completed');

  await page.goto(`/setup?step=scan&library=${libraryId}`);
  await expect(page.getByRole('heading', { name: 'Your library is ready' })).toBeVisible();
  const found = page.locator('.found-series').getByRole('link');
  await expect(found).toHaveCount(8);
  const more = page.getByRole('link', { name: 'and 4 more', exact: true });
  await expect(more).toHaveAttribute('href', `/libraries/${libraryId}`);

  const first = (await found.first().textContent())!;
  expect(first).toMatch(/^Found \d\d$/);
  await found.first().click();
  await expect(page).toHaveURL(/\/series\/[^/]+$/);
  await expect(page.getByRole('heading', { name: first, level: 1 })).toBeVisible();

  await page.goBack();
  await more.click();
  await expect(page).toHaveURL(new RegExp(`/libraries/${libraryId}$`));
  await expect(page.getByTestId('series-card')).toHaveCount(12);
});

test('a book copied into a watched library appears in the open grid by itself, without a scan asked for or a reload', async ({ page }) => {
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  // A library of its own, deleted at the end (later specs count what "all libraries" holds); a quiet period of
  // 0.5 s instead of the default 10 s, so that the test waits for the watcher, not for the clock.
  const dir = mkdtempSync(path.join(libraryRoot(), 'watched-'));
  mkdirSync(path.join(dir, 'Watched A'));
  await makeCbz(path.join(dir, 'Watched A'), 'Watched A 001.cbz', { pages: 1, comicInfo: { Series: 'Watched A', Number: 1 } });
  const created = await page.request.post(`${serverUrl()}/api/v1/libraries`, {
    headers,
    data: { name: 'Watched', path: dir, scanning_config: { watch: true, watch_quiet_seconds: 0.5 } },
  });
  expect(created.status()).toBe(201);
  const libraryId = ((await created.json()) as { id: string }).id;
  const staging = mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-watch-'));
  try {
    await page.request.post(`${serverUrl()}/api/v1/libraries/${libraryId}/scan`, { headers });
    const watching = async () =>
      ((await (await page.request.get(`${serverUrl()}/api/v1/libraries/${libraryId}/watching`, { headers })).json()) as { state: string })
        .state;
    await expect.poll(watching, { timeout: 15_000 }).toBe('watching');

    await page.goto(`/libraries/${libraryId}`);
    const cards = page.getByTestId('series-card');
    await expect(cards).toHaveCount(1);
    await page.evaluate(() => ((globalThis as unknown as { marker: string }).marker = 'same page'));

    // Written elsewhere, then copied in, as a user copies a book into the folder.
    await makeCbz(staging, 'Watched B 001.cbz', { pages: 1, comicInfo: { Series: 'Watched B', Number: 1 } });
    mkdirSync(path.join(dir, 'Watched B'));
    copyFileSync(path.join(staging, 'Watched B 001.cbz'), path.join(dir, 'Watched B', 'Watched B 001.cbz'));

    await expect(cards.filter({ hasText: 'Watched B' })).toBeVisible({ timeout: 20_000 });
    await expect(cards).toHaveCount(2);
    expect(await page.evaluate(() => (globalThis as unknown as { marker?: string }).marker)).toBe('same page');
  } finally {
    expect((await page.request.delete(`${serverUrl()}/api/v1/libraries/${libraryId}`, { headers })).status()).toBe(204);
    rmSync(staging, { recursive: true, force: true });
  }
});
