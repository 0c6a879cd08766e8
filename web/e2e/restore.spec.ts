import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { E2E_ENV } from './env.js';
import { ADMIN, expect, serverUrl, signIn, test } from './fixtures.js';
import { freePort, waitForHealth } from './global-setup.js';

const root = path.resolve(import.meta.dirname, '../..');
/** The environment without the tests' own COLOPHON_E2E_* variables, which the server would take for config keys. */
const serverEnv = (extra: Record<string, string | undefined>): NodeJS.ProcessEnv => ({
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('COLOPHON_E2E_'))),
  ...extra,
});

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
  const port = await freePort();
  const second = spawn(process.execPath, [path.join(root, 'dist/cli.js'), 'serve'], {
    env: serverEnv({
      COLOPHON_DATA_DIR: path.join(work, 'data'),
      COLOPHON_SERVER__HOST: '127.0.0.1',
      COLOPHON_SERVER__PORT: String(port),
      COLOPHON_LOGGING__LEVEL: 'warn',
    }),
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const context = await browser.newContext({ baseURL: url });
  try {
    await waitForHealth(url, 30_000);
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
    second.kill('SIGTERM');
    await new Promise((r) => second.once('exit', r));
    rmSync(work, { recursive: true, force: true });
    await page.request.delete(`${serverUrl()}/api/v1/books/${book.id}/progress`, { headers });
  }
});
