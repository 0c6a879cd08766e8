import { ADMIN, expect, serverUrl, signIn, test } from './fixtures.js';

test('account: create an API key, shown once with a QR code, that works for OPDS, then revoke it', async ({ page }) => {
  await signIn(page);
  await page.goto('/');
  await page.getByRole('link', { name: /Account/ }).click();
  await expect(page.getByRole('heading', { name: 'Your account' })).toBeVisible();

  const form = page.getByRole('form', { name: 'Create an API key' });
  await form.getByLabel('Name').fill('Test phone');
  await form.getByLabel('Permissions').selectOption('reader_app');
  await form.getByLabel('Expires').selectOption('30');
  await form.getByRole('button', { name: 'Create key' }).click();

  const key = await page.getByTestId('new-key').textContent();
  expect(key).toMatch(/^bindery_[A-Za-z0-9]{8}_/);
  await expect(page.getByRole('img', { name: /QR code with the OPDS address/ })).toHaveAttribute('src', /^data:image\/png;base64,/);
  await expect(page.getByText('Copy it now: it is shown only once.')).toBeVisible();

  // The key opens the OPDS catalog as the QR code tells a phone app to use it.
  const opds = await page.request.get(`${serverUrl()}/opds/v1.2/catalog`, { headers: { Authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` } });
  expect(opds.status()).toBe(200);

  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-key')).toHaveCount(0);
  const row = page.getByTestId('api-key').filter({ hasText: 'Test phone' });
  await expect(row).toContainText('expires');
  await row.getByRole('button', { name: /Revoke/ }).click();
  await expect(row).toHaveCount(0);
  const refused = await page.request.get(`${serverUrl()}/opds/v1.2/catalog`, { headers: { Authorization: `Basic ${Buffer.from(`api:${key}`).toString('base64')}` } });
  expect(refused.status()).toBe(401);
});

test('account: the theme preference switches the interface to dark and back to the system', async ({ page }) => {
  await signIn(page);
  await page.goto('/account');
  await page.getByLabel('Theme').selectOption('dark');
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.reload();
  await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
  await page.getByRole('button', { name: 'Reset Theme' }).click();
  await expect(page.locator('html')).not.toHaveAttribute('data-theme', /./);
});

test('account: a wrong current password is refused in words; the right one changes the password', async ({ page }) => {
  await signIn(page);
  await page.goto('/account');
  const form = page.getByRole('form', { name: 'Change your password' });
  await form.getByLabel('Current password').fill('not the password');
  await form.getByLabel('New password', { exact: true }).fill('another long secret');
  await form.getByLabel('Repeat the new password').fill('another long secret');
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByRole('alert')).toHaveText('The current password is not correct');

  await form.getByLabel('Current password').fill(ADMIN.password);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect(form.getByText('Your password is changed.')).toBeVisible();
  const login = await page.request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: 'another long secret' } });
  expect(login.status()).toBe(200);
  // Back to the shared password for the tests that follow.
  await form.getByLabel('Current password').fill('another long secret');
  await form.getByLabel('New password', { exact: true }).fill(ADMIN.password);
  await form.getByLabel('Repeat the new password').fill(ADMIN.password);
  await form.getByRole('button', { name: 'Change password' }).click();
  await expect
    .poll(async () => (await page.request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } })).status())
    .toBe(200);
});
