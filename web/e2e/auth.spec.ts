import { ADMIN, expect, serverUrl, signOutFromHeader, test } from './fixtures.js';

test.describe('sign in and out', () => {
  test('a visitor is sent to sign-in, comes back to the page asked for, and signs out', async ({ page }) => {
    await page.goto('/libraries?sort=name,desc');
    await expect(page).toHaveURL(/\/sign-in\?redirect=/);
    // A first visit: no session ever ended here, so none is said to have.
    await expect(page.getByRole('heading', { name: 'Sign in to Colophon' })).toBeVisible();
    await expect(page.getByText('Your session ended')).toHaveCount(0);
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/libraries\?sort=name%2Cdesc|\/libraries\?sort=name,desc/);
    await expect(page.getByRole('heading', { name: 'All libraries' })).toBeVisible();

    await signOutFromHeader(page);
    await expect(page).toHaveURL(/\/sign-in$/);
    await page.goto('/');
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test('a wrong password is told in words', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert')).toContainText(/invalid|incorrect|wrong/i);
  });

  test('an expired or revoked session returns to sign-in and then back to the same page', async ({ page }) => {
    // A session whose token the server refuses (as after a logout elsewhere or a restart with a new secret).
    const session = { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl', expiresAt: Date.now() + 3_600_000, username: 'admin' };
    await page.goto('/sign-in');
    await page.evaluate(
      (value) =>
        (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem(
          'colophon.session',
          value,
        ),
      JSON.stringify(session),
    );
    await page.goto('/libraries');
    await expect(page).toHaveURL(/\/sign-in\?redirect=%2Flibraries/);
    await expect(page.getByText('Your session ended')).toBeVisible();
    await page.getByLabel('Username or e-mail').fill(ADMIN.username);
    await page.getByLabel('Password').fill(ADMIN.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(/\/libraries$/);
  });

  test('the verification landing page reports a bad token in words', async ({ page }) => {
    await page.goto('/verify-email?token=not-a-real-token');
    await expect(page.getByRole('heading', { name: 'E-mail verification' })).toBeVisible();
    await expect(page.getByRole('alert')).not.toBeEmpty();
  });

  test('the sign-in screen offers registration only while the server allows it', async ({ page }) => {
    const login = await page.request.post(`${serverUrl()}/api/v1/auth/login`, {
      data: { username: ADMIN.username, password: ADMIN.password },
    });
    const headers = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const allow = (value: boolean) =>
      page.request.put(`${serverUrl()}/api/v1/admin/settings/registration_enabled`, { headers, data: { value } });

    await page.goto('/sign-in');
    await expect(page.getByText('Ask the administrator of this server for one')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Create one' })).toHaveCount(0);
    expect((await allow(true)).status()).toBe(200);
    try {
      await page.reload();
      await page.getByRole('link', { name: 'Create one' }).click();
      await expect(page.getByRole('heading', { name: 'Create an account' })).toBeVisible();
      await expect(page.getByText('does not take new accounts')).toHaveCount(0);
    } finally {
      expect((await allow(false)).status()).toBe(200);
    }
  });

  test('registration shows the server’s refusal while the setting is off', async ({ page }) => {
    await page.goto('/register');
    await expect(page.getByText('This server does not take new accounts at the moment')).toBeVisible();
    await page.getByLabel('Username').fill('newreader');
    await page.getByLabel('E-mail').fill('reader@example.org');
    await page.getByLabel('Password').fill('a long password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expect(page.getByRole('alert')).toContainText(/registration/i);
    expect(serverUrl()).toMatch(/^http:\/\/127\.0\.0\.1:/);
  });
});
