import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { expect, libraryDir, serverUrl, signIn, test } from './fixtures.js';

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
