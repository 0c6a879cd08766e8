import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { makeCbz } from '../../test/media/fixtures.js';
import { expect, libraryRoot, signIn, test } from './fixtures.js';

test('administration: add a library with a schedule checked as you type, watch its scan, scan it again', async ({ page }) => {
  const folder = path.join(libraryRoot(), 'Manga');
  for (const series of ['Berserk', 'Monster']) {
    mkdirSync(path.join(folder, series), { recursive: true });
    for (let n = 1; n <= 2; n += 1) await makeCbz(path.join(folder, series), `${series} v0${n}.cbz`, { pages: 2, pageSize: { width: 300, height: 450 } });
  }
  await signIn(page);
  await page.goto('/');
  await page.getByRole('link', { name: 'Administration' }).click();
  await expect(page.getByRole('heading', { name: 'Libraries', level: 1 })).toBeVisible();
  await expect(page.getByTestId('library-row')).toHaveCount(1);

  await page.getByRole('button', { name: 'Add a library' }).click();
  const form = page.getByRole('form', { name: 'New library' });
  await form.getByLabel('Name').fill('Manga');
  await form.getByLabel('Folder on the server').fill(folder);
  await form.getByLabel('Scan on a schedule').check();
  const schedule = form.getByRole('textbox', { name: /Schedule \(cron/ });
  await schedule.fill('0 25 * * *');
  await expect(form.getByText(/hour field must stay within 0–23/)).toBeVisible();
  await expect(form.getByRole('button', { name: 'Add library and scan it' })).toBeDisabled();
  await schedule.fill('0 4 * * *');
  await expect(form.getByText('Valid schedule.', { exact: false })).toBeVisible();
  await form.getByRole('button', { name: 'Add library and scan it' }).click();

  const row = page.getByTestId('library-row').filter({ hasText: 'Manga' });
  await expect(row).toContainText('2 series', { timeout: 30_000 });
  await expect(row).toContainText('4 books');
  await expect(row).toContainText('scheduled 0 4 * * *');
  await expect(row.getByTestId('scan-state')).toHaveText(/Last scan completed/);

  await row.getByRole('button', { name: 'Deep scan Manga' }).click();
  await expect(row.getByTestId('scan-state')).toHaveText(/Last scan completed/, { timeout: 30_000 });
});
