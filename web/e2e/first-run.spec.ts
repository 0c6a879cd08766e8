import path from 'node:path';
import { ADMIN, expect, libraryRoot, test } from './fixtures.js';

test('first run: create the admin, pick the library folder on the server, watch the scan, land on home with the series', async ({
  page,
}) => {
  await page.goto('/');
  await expect(page).toHaveURL(/\/setup$/);
  await expect(page.getByRole('heading', { name: 'Create the administrator' })).toBeVisible();

  await page.getByLabel('Username').fill(ADMIN.username);
  await page.getByLabel('E-mail').fill(ADMIN.email);
  await page.getByLabel('Password', { exact: true }).fill(ADMIN.password);
  await page.getByLabel('Repeat the password').fill(ADMIN.password);
  await page.getByRole('button', { name: 'Create administrator' }).click();

  await expect(page.getByRole('heading', { name: 'Add your first library' })).toBeVisible();
  // Start the picker in the folder holding the library, then open "Comics" from the list and use it.
  await page.getByLabel('Folder on the server').fill(libraryRoot());
  // The name follows the folder as it is typed (and as it is browsed to, below), until a name is typed.
  await expect(page.getByLabel('Name')).toHaveValue(path.basename(libraryRoot()));
  await page.getByRole('button', { name: 'Browse…' }).click();
  const folders = page.getByRole('listbox', { name: /Folders in/ });
  await folders.getByRole('option', { name: 'Comics' }).click();
  await expect(page.locator('.current-path')).toHaveText(`${libraryRoot()}/Comics`);
  await page.getByRole('button', { name: 'Use this folder' }).click();
  await expect(page.getByLabel('Folder on the server')).toHaveValue(`${libraryRoot()}/Comics`);
  await expect(page.getByLabel('Name')).toHaveValue('Comics');
  await page.getByRole('button', { name: 'Add library and scan it' }).click();

  await expect(page.getByRole('heading', { name: 'Your library is ready' })).toBeVisible({ timeout: 30_000 });
  await expect(page.getByRole('progressbar', { name: 'Scan progress' })).toHaveAttribute('aria-valuenow', '100');
  await expect(page.getByText('3 series · 7 books')).toBeVisible();
  // Each series found is a link to its page; three fit the list, so nothing is "more".
  const found = page.locator('.found-series');
  for (const name of ['Saga', 'Bone', 'Akira'])
    await expect(found.getByRole('link', { name, exact: true })).toHaveAttribute('href', /^\/series\/[^/]+$/);
  await expect(page.getByRole('link', { name: /^and \d+ more$/ })).toHaveCount(0);
  await found.getByRole('link', { name: 'Saga', exact: true }).click();
  await expect(page).toHaveURL(/\/series\/[^/]+$/);
  await expect(page.getByRole('heading', { name: 'Saga', level: 1 })).toBeVisible();
  await page.goBack();
  await expect(page.getByRole('heading', { name: 'Your library is ready' })).toBeVisible();
  // Finished: no "so far", no "you do not have to wait", and the counts in good grammar.
  await expect(page.getByRole('heading', { name: 'Series found', exact: true })).toBeVisible();
  await expect(page.getByText('You do not have to wait')).toHaveCount(0);
  await expect(page.getByText('7 of 7 files processed · 3 series · 7 books')).toBeVisible();
  await expect(page.getByText(/could not be read|errors?\b/)).toHaveCount(0);

  await page.getByRole('link', { name: 'Go to the home page' }).click();
  await expect(page).toHaveURL(/\/$/);
  const recentSeries = page.getByRole('region', { name: 'Recently added series' });
  for (const name of ['Saga', 'Bone', 'Akira']) await expect(recentSeries.getByRole('link', { name: new RegExp(name) })).toBeVisible();

  // Setup is over: the wizard's first step is gone for good.
  await page.goto('/setup');
  await expect(page).toHaveURL(/\/$/);
});
