import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_ENV } from './env.js';
import { ADMIN, expect, serverUrl, signIn, test } from './fixtures.js';
import { freshServer, serverEnv } from './fresh-server.js';

const root = path.resolve(import.meta.dirname, '../..');

// A second server on a fresh data folder, restored from a backup of the first one through the setup wizard (issue 52).
test('restore from the setup wizard, then sign in as a restored user and open their Keep reading shelf', async ({ page, browser }) => {
  test.setTimeout(120_000);
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  const books = (await (await page.request.get(`${serverUrl()}/api/v1/books?pageSize=1&sort=title,asc`, { headers })).json()) as {
    data: { id: string; title: string }[];
  };
  const book = books.data[0]!;
  expect((await page.request.put(`${serverUrl()}/api/v1/books/${book.id}/progress`, { headers, data: { current_page: 2 } })).status()).toBe(
    200,
  );

  const work = mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-restore-'));
  const file = path.join(work, 'household.tar.gz');
  // Online, from another process, as an administrator's cron job would.
  try {
    execFileSync(process.execPath, [path.join(root, 'dist/cli.js'), 'backup', '--output', file], {
      env: serverEnv({ COLOPHON_DATA_DIR: process.env[E2E_ENV.dataDir], COLOPHON_LOGGING__LEVEL: 'warn' }),
      stdio: 'pipe',
    });
  } catch (err) {
    throw new Error(`colophon backup failed: ${String((err as { stderr?: Buffer }).stderr ?? err).slice(-1500)}`);
  }
  const second = await freshServer(path.join(work, 'data'));
  const context = await browser.newContext({ baseURL: second.url });
  try {
    const fresh = await context.newPage();
    await fresh.goto('/setup');
    await fresh.getByText('Restore from a backup instead').click();
    await fresh.getByLabel('Backup file (.tar.gz)').setInputFiles(file);
    await fresh.getByRole('button', { name: 'Restore', exact: true }).click();
    await expect(fresh.getByRole('status').filter({ hasText: 'is restored' })).toBeVisible({ timeout: 30_000 });
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    await fresh.getByLabel('Username or e-mail').fill(ADMIN.username);
    await fresh.getByLabel('Password').fill(ADMIN.password);
    await fresh.getByRole('button', { name: 'Sign in' }).click();
    const shelf = fresh.getByRole('region', { name: 'Keep reading' });
    await expect(shelf).toContainText(book.title);
  } finally {
    await context.close();
    await second.stop();
    rmSync(work, { recursive: true, force: true });
    await page.request.delete(`${serverUrl()}/api/v1/books/${book.id}/progress`, { headers });
  }
});
