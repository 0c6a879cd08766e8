import { ADMIN, apiFailure, expect, failedAnswers, serverUrl, signIn, test } from './fixtures.js';
import { createUserByApi, expectNoSeriousA11yViolations, makeBigLibrary, makeSmallLibrary, unique } from './admin-fixtures.js';

// Serial: the duplicates and analysis-error checks look at the library the scan test builds and scans.
test.describe.configure({ mode: 'serial' });
test.describe('Administration', () => {
  // The big library would change what later specs see in "all libraries": it goes when this file is done.
  test.afterAll(async ({ playwright }) => {
    const request = await playwright.request.newContext({ baseURL: serverUrl() });
    const login = await request.post('/api/v1/auth/login', { data: { username: ADMIN.username, password: ADMIN.password } });
    const headers = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const libraries = (await (await request.get('/api/v1/libraries?pageSize=500', { headers })).json()) as {
      data: Array<{ id: string; name: string }>;
    };
    for (const library of libraries.data.filter((l) => l.name.startsWith('Big'))) {
      expect((await request.delete(`/api/v1/libraries/${library.id}`, { headers })).status()).toBe(204);
    }
    await request.dispose();
  });

  test('is hidden from a reader: no menu link, and the address says there are no rights', async ({ page }) => {
    const adminToken = await signIn(page);
    const reader = { username: unique('reader'), password: 'reader password 1' };
    await createUserByApi(page, adminToken, reader);
    const context = await page.context().browser()!.newContext({ baseURL: serverUrl() });
    const readerPage = await context.newPage();
    await signIn(readerPage, { username: reader.username, password: reader.password, email: '' });
    await readerPage.goto('/');
    await expect(readerPage.getByRole('link', { name: /your account/ })).toBeVisible();
    await expect(readerPage.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' })).toHaveCount(0);
    await readerPage.goto('/admin/users');
    await expect(readerPage.getByText('Your account has no administration rights.')).toBeVisible();
    await context.close();

    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Administration' }).click();
    await expect(page).toHaveURL(/\/admin\/libraries$/);
  });

  test('libraries: create with a validated schedule, scanned at once with live progress, cancel, scan again to the end', async ({
    page,
  }) => {
    test.setTimeout(180_000);
    const name = unique('Big');
    const folder = await makeBigLibrary(name);
    await signIn(page);
    await page.goto('/admin/libraries');
    await page.getByRole('button', { name: 'Add library' }).click();
    const form = page.getByRole('form', { name: 'Add a library' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Folder on the server').fill(folder);
    await form.getByLabel('Scan on a schedule').check();
    const cron = form.getByRole('textbox', { name: /^Schedule/ });
    await expect(form.getByText('A schedule is needed to scan automatically.')).toBeVisible();
    await cron.fill('61 3 * * *');
    await expect(cron).toHaveAttribute('aria-invalid', 'true');
    await expect(form.getByRole('button', { name: 'Create library' })).toBeDisabled();
    await cron.fill('0 3 * * 1 *');
    await expect(form.getByText(/five fields.*this one has 6/)).toBeVisible();
    await cron.fill('30 3 * * 1');
    await expect(cron).toHaveAttribute('aria-invalid', 'false');
    await expect(form.getByText(/^Next runs: /)).toBeVisible();
    await form.getByLabel('Scheduled scan mode').selectOption('deep');
    // Writing edits into the files: off unless chosen, and said what it does.
    const writeBack = form.getByRole('checkbox', { name: 'Write metadata edits into the CBZ files (ComicInfo.xml)' });
    await expect(writeBack).not.toBeChecked();
    await expect(writeBack).toHaveAccessibleDescription(/each edit of a book or series also rewrites its CBZ files/);
    await writeBack.check();
    await form.getByRole('button', { name: 'Create library' }).click();

    const row = page.getByRole('listitem', { name, exact: true });
    await expect(row).toContainText('scheduled: 30 3 * * 1 (deep)');
    await expect(row).toContainText('edits written into CBZ files');

    // The new library is scanned at once: the progress bar moves with the scan stream, then the scan is cancelled
    // while it runs. These small files scan in a few seconds, and the scan can end between a progress event and
    // the click (the row then says that no scan is running): a deep scan, which reads every file again, gives the
    // cancel another go.
    const progress = row.getByRole('progressbar', { name: `Scan progress of ${name}` });
    let cancelled = false;
    for (let attempt = 0; attempt < 3 && !cancelled; attempt++) {
      if (attempt > 0) await row.getByRole('button', { name: 'Deep scan', exact: true }).click();
      await expect(progress).toBeVisible();
      await expect(row.getByText(/Scanning · [1-9]\d* of \d+ files/)).toBeVisible({ timeout: 30_000 });
      await row
        .getByRole('button', { name: 'Cancel scan' })
        .click({ timeout: 2000 })
        .catch(() => undefined);
      await expect(row.getByText(/^Scan (cancelled|completed)/)).toBeVisible({ timeout: 15_000 });
      cancelled = await row.getByText(/^Scan cancelled/).isVisible();
    }
    expect(cancelled).toBe(true);
    await expect(progress).toHaveCount(0);
    await expectNoSeriousA11yViolations(page);

    // Scan again to the end: the counts of the library follow.
    await row.getByRole('button', { name: 'Scan', exact: true }).click();
    await expect(row.getByText(/^Scan completed/)).toBeVisible({ timeout: 120_000 });
    // The library's totals (the scan's own counters cover only what the cancelled scan left over).
    await expect(row).toContainText('101 series · 3003 books');
    // The row is as tall as its text: no empty band between "last scanned" and the buttons.
    expect((await row.locator('.row-main').boundingBox())!.height).toBeLessThan(200);
  });

  test('a library whose first scan cannot be started is added all the same, and says so', async ({ page }) => {
    const name = unique('Big');
    const folder = await makeSmallLibrary(name);
    await signIn(page);
    await page.route('**/api/v1/libraries/*/scan', apiFailure(503, 'Task queue unavailable', 'POST'));
    await page.goto('/admin/libraries');
    await page.getByRole('button', { name: 'Add library' }).click();
    const form = page.getByRole('form', { name: 'Add a library' });
    await form.getByLabel('Name').fill(name);
    await form.getByLabel('Folder on the server').fill(folder);
    await form.getByRole('button', { name: 'Create library' }).click();
    await expect(page.getByRole('alert')).toContainText(
      `${name} was added, but its first scan could not be started (Task queue unavailable)`,
    );
    await expect(form).toHaveCount(0);
    const row = page.getByRole('listitem', { name, exact: true });
    await expect(row).toContainText('never scanned');
    await page.unroute('**/api/v1/libraries/*/scan');
    await row.getByRole('button', { name: 'Scan', exact: true }).click();
    await expect(row.getByText(/^Scan completed/)).toBeVisible({ timeout: 30_000 });
  });

  test('a maintainer adds libraries by their path: no folder browsing or thumbnail cleanup offered, nothing refused', async ({ page }) => {
    const adminToken = await signIn(page);
    const maintainer = { username: unique('maintainer'), password: 'maintainer password 1', role: 'maintainer' };
    await createUserByApi(page, adminToken, maintainer);
    const context = await page.context().browser()!.newContext({ baseURL: serverUrl() });
    const own = await context.newPage();
    const failed = failedAnswers(own);
    await signIn(own, { username: maintainer.username, password: maintainer.password, email: '' });
    await own.goto('/admin/libraries');
    await own.getByRole('button', { name: 'Add library' }).click();
    const form = own.getByRole('form', { name: 'Add a library' });
    await expect(form.getByLabel('Folder on the server')).toBeVisible();
    await expect(form.getByRole('button', { name: 'Browse…' })).toHaveCount(0);
    await own.goto('/admin/server');
    await expect(own.getByRole('heading', { name: 'Server', exact: true })).toBeVisible();
    await expect(own.getByText(/Uptime|Database/).first()).toBeVisible();
    await expect(own.getByRole('button', { name: 'Clean up thumbnails' })).toHaveCount(0);
    expect(failed).toEqual([]);
    await context.close();
  });

  test('tasks: the scans are listed, and a new task appears and ends without reloading', async ({ page }) => {
    const token = await signIn(page);
    await page.goto('/admin/tasks');
    const tasks = page.getByRole('list', { name: 'Tasks' });
    await expect(tasks.getByRole('listitem', { name: /^Library scan, (completed|cancelled)$/ }).first()).toBeVisible();
    const before = await tasks.getByRole('listitem', { name: /^Duplicate detection/ }).count();
    const res = await page.request.post(`${serverUrl()}/api/v1/duplicates/scan`, { headers: { Authorization: `Bearer ${token}` } });
    expect(res.status()).toBe(202);
    await expect(tasks.getByRole('listitem', { name: /^Duplicate detection/ })).toHaveCount(before + 1);
    await expect(tasks.getByRole('listitem', { name: 'Duplicate detection, completed' }).first()).toBeVisible({ timeout: 30_000 });
    await expectNoSeriousA11yViolations(page);
  });

  test('duplicates, analysis errors and the server page', async ({ page }) => {
    await signIn(page);
    await page.goto('/admin/duplicates');
    await page.getByRole('button', { name: 'Look for duplicates now' }).click();
    await expect(page.getByText(/Duplicate detection started/)).toBeVisible();
    await expect(async () => {
      await page.reload();
      await expect(page.locator('.dupe-group').filter({ hasText: 'Twin' }).first()).toBeVisible({ timeout: 2000 });
    }).toPass({ timeout: 30_000 });
    await expect(page.locator('.dupe-group').filter({ hasText: 'Twin' }).first().locator('.dupe-cover')).toHaveCount(2);
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Analysis errors' }).click();
    const errors = page.getByRole('list', { name: 'Books with analysis errors' });
    await expect(errors.getByRole('listitem').filter({ hasText: 'Broken' }).first()).toBeVisible();
    await expectNoSeriousA11yViolations(page);

    await page.getByRole('navigation', { name: 'Administration' }).getByRole('link', { name: 'Server' }).click();
    await expect(page.getByText(/^Healthy · database ok/)).toBeVisible();
    await expect(page.locator('.stat-tile').filter({ hasText: 'Catalog' })).toContainText('books');
    await page.getByRole('button', { name: 'Clean up thumbnails' }).click();
    await expect(page.getByText(/^Removed \d+ files?/)).toBeVisible();
    await expectNoSeriousA11yViolations(page);
  });

  test('users @phone: create, change role, disable, delete; the last administrator is protected in words', async ({ page }) => {
    await signIn(page);
    await page.goto('/admin/users');
    const username = unique('newuser');
    await page.getByRole('button', { name: 'Add user' }).click();
    const form = page.getByRole('form', { name: 'Add a user' });
    await form.getByLabel('Username').fill(username);
    await form.getByLabel('E-mail').fill(`${username}@example.org`);
    await form.getByLabel('Password').fill('new user password');
    await form.getByLabel('Role').selectOption('reader');
    await form.getByText(/Custom permissions/).click();
    // By area and by name (the code on hover).
    await form.getByText(/^Server/).click();
    const seeTasks = form.getByRole('checkbox', { name: 'See tasks' });
    await expect(seeTasks.locator('xpath=ancestor::label[1]')).toHaveAttribute('title', 'tasks-read');
    await seeTasks.check();
    await form.getByRole('button', { name: 'Create user' }).click();

    const row = page.getByRole('listitem', { name: username, exact: true });
    await expect(row).toBeVisible();
    await expect(row.getByText('Custom permissions (1)')).toBeVisible();
    await row.getByLabel('Role').selectOption('maintainer');
    await expect(row.getByLabel('Role')).toHaveValue('maintainer');
    await row.getByRole('button', { name: `Disable ${username}` }).click();
    await expect(row.getByText('disabled', { exact: true })).toBeVisible();
    await expectNoSeriousA11yViolations(page);

    // The admin is the only administrator: deleting it is refused, with what to do instead.
    const me = page.getByRole('listitem', { name: 'admin', exact: true });
    page.once('dialog', (dialog) => void dialog.accept());
    await me.getByRole('button', { name: 'Delete admin' }).click();
    await expect(me.getByRole('alert')).toContainText(
      'The last administrator cannot be deleted. Colophon always keeps at least one active administrator',
    );

    page.once('dialog', (dialog) => void dialog.accept());
    await row.getByRole('button', { name: `Delete ${username}` }).click();
    await expect(row).toHaveCount(0);
  });

  test('settings: a change is saved and shows in the history, then reset', async ({ page }) => {
    await signIn(page);
    await page.goto('/admin/settings');
    const setting = page.getByRole('listitem', { name: 'Task retention days' });
    const input = setting.getByLabel('Task retention days');
    const value = String(10 + Math.floor(Math.random() * 80));
    await input.fill(value);
    await input.press('Enter');
    await expect(setting.getByRole('status')).toHaveText('Saved');
    await setting.getByRole('button', { name: 'History of Task retention days' }).click();
    await expect(setting.getByRole('list', { name: 'History of Task retention days' })).toContainText(`admin changed`);
    await expect(setting.getByRole('list', { name: 'History of Task retention days' }).getByRole('listitem').first()).toContainText(
      `→ ${value}`,
    );
    await expectNoSeriousA11yViolations(page);
    await setting.getByRole('button', { name: 'Reset Task retention days' }).click();
    await expect(setting.getByRole('list', { name: 'History of Task retention days' }).getByRole('listitem').first()).toContainText(
      'default (reset)',
    );
    await page.reload();
    await expect(page.getByRole('listitem', { name: 'Task retention days' }).getByText('(default)')).toBeVisible();
  });
});
