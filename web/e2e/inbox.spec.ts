import { mkdirSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { expectNoSeriousA11yViolations } from './admin-fixtures.js';
import { expect, libraryRoot, serverUrl, signIn, test } from './fixtures.js';

// Issue 55: two books uploaded from the browser into the inbox, one series fixed by hand, both filed, one opened.
test('inbox: upload two files, fix a series, file both, open the book', async ({ page }) => {
  test.setTimeout(120_000);
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  const request = page.request;
  const dir = path.join(libraryRoot(), 'Inbox Shelf');
  mkdirSync(path.join(dir, 'Harbour'), { recursive: true });
  await makeCbz(path.join(dir, 'Harbour'), 'Harbour 001.cbz', { pages: 2, comicInfo: { Series: 'Harbour', Number: 1, Title: 'Low tide' } });
  const library = (await (
    await request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: 'Inbox Shelf', path: dir } })
  ).json()) as {
    id: string;
  };
  const inbox = path.join(mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-inbox-')), 'inbox');
  mkdirSync(inbox);
  try {
    await request.post(`${serverUrl()}/api/v1/libraries/${library.id}/scan`, { headers });
    await expect
      .poll(
        async () =>
          ((await (await request.get(`${serverUrl()}/api/v1/series?library_id=${library.id}`, { headers })).json()) as { total: number })
            .total,
        {
          timeout: 30_000,
        },
      )
      .toBe(1);
    const folder = await request.post(`${serverUrl()}/api/v1/inbox/folders`, { headers, data: { path: inbox, library_id: library.id } });
    expect(folder.status()).toBe(201);
    const files = mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-uploads-'));
    const right = await makeCbz(files, 'Harbour 002.cbz', { pages: 2 });
    const typo = await makeCbz(files, 'Harbur 003.cbz', { pages: 3 });

    await page.goto('/admin/inbox');
    await expect(page.getByRole('heading', { name: 'Inbox', exact: true })).toBeVisible();
    await page.getByLabel('Choose files…').setInputFiles([right, typo]);
    const queue = page.getByRole('list', { name: 'Books in the inbox' });
    const rightRow = queue.getByRole('listitem', { name: /^Harbour 002\.cbz/ });
    const typoRow = queue.getByRole('listitem', { name: /^Harbur 003\.cbz/ });
    await expect(rightRow).toBeVisible({ timeout: 30_000 });
    await expect(typoRow).toBeVisible();
    await expect(rightRow.getByLabel('Name in the library')).toHaveValue('Harbour/Harbour #002.cbz');
    // The typo makes a new series: fixed to the existing one, the name follows.
    await expect(typoRow.getByText('A new series will be made.')).toBeVisible();
    await typoRow.getByLabel('Series').fill('Harbour');
    await typoRow.getByRole('button', { name: 'Save changes' }).click();
    await expect(typoRow.getByLabel('Name in the library')).toHaveValue('Harbour/Harbour #003.cbz');
    await expect(typoRow.getByText('A new series will be made.')).toHaveCount(0);
    await expectNoSeriousA11yViolations(page);

    await page.getByLabel('Select every book ready to file').check();
    await page.getByRole('button', { name: 'File the 2 selected books' }).click();
    await expect(page.getByText('Nothing waiting.', { exact: false })).toBeVisible({ timeout: 30_000 });
    await page.getByRole('button', { name: 'Filed', exact: true }).click();
    const filed = page.getByRole('list', { name: 'Books in the inbox' }).getByRole('listitem', { name: /^Harbur 003\.cbz/ });
    await filed.getByRole('link', { name: 'Open the book' }).click({ timeout: 30_000 });
    await expect(page).toHaveURL(/\/books\/[0-9a-f-]+$/);
    await expect(page.getByRole('heading', { level: 1 })).toContainText(/Harbour|Harbur/);
    const series = (await (await request.get(`${serverUrl()}/api/v1/series?library_id=${library.id}`, { headers })).json()) as {
      data: Array<{ name: string; book_count: number }>;
    };
    expect(series.data.map((s) => [s.name, s.book_count])).toEqual([['Harbour', 3]]);
  } finally {
    // Later specs count the libraries: this one goes.
    await request.delete(`${serverUrl()}/api/v1/libraries/${library.id}`, { headers });
  }
});
