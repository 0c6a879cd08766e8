import { startTestProvider, type TestProvider } from '../../test/helpers/oidc-provider.js';
import { ADMIN, expect, serverUrl, test } from './fixtures.js';

/*
 * Sign-in with the household's identity provider (issue 39): a real OpenID provider (oidc-provider) runs in this
 * process, is added in Administration (no restart), and a person signs in with it, lands on home and signs out; with
 * password sign-in off the login page goes straight to the provider, and an API key still opens OPDS. The file name
 * ends in "admin.spec.ts" so that it runs in the "live" project. The provider and the setting are removed at the end.
 */
test.describe.configure({ mode: 'serial' });
test.describe('Sign-in with an OpenID provider', () => {
  let idp: TestProvider;
  let headers: Record<string, string>;

  test.beforeAll(async ({ playwright }) => {
    idp = await startTestProvider([
      {
        client_id: 'colophon-e2e',
        client_secret: 'e2e-secret',
        redirect_uris: [`${serverUrl()}/api/v1/auth/oidc/e2e/callback`],
        post_logout_redirect_uris: [`${serverUrl()}/sign-in`],
      },
    ]);
    idp.accounts.set('olive-sub', { email: 'olive@home.example', email_verified: true, preferred_username: 'olive' });
    const request = await playwright.request.newContext({ baseURL: serverUrl() });
    const login = await request.post('/api/v1/auth/login', { data: { username: ADMIN.username, password: ADMIN.password } });
    headers = { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
    const added = await request.post('/api/v1/admin/oidc/providers', {
      headers,
      data: {
        id: 'e2e',
        name: 'Household ID',
        issuer: idp.issuer,
        client_id: 'colophon-e2e',
        client_secret: 'e2e-secret',
        provision: true,
        allow_http: true,
        // A provider added over the API starts disabled: offered on the sign-in page only once enabled.
        enabled: true,
      },
    });
    expect(added.status()).toBe(201);
    await request.dispose();
  });

  test.afterAll(async ({ playwright }) => {
    const request = await playwright.request.newContext({ baseURL: serverUrl() });
    // The projects after this one sign in with passwords: the setting must be back, or everything after fails.
    expect((await request.post('/api/v1/admin/settings/password_sign_in_disabled/reset', { headers })).status()).toBe(200);
    expect((await request.delete('/api/v1/admin/oidc/providers/e2e', { headers })).status()).toBe(204);
    await request.dispose();
    await idp?.close();
  });

  const signInAtProvider = async (page: import('@playwright/test').Page) => {
    await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/interaction/`));
    await page.locator('input[name="login"]').fill('olive-sub');
    await page.locator('input[name="password"]').fill('anything');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  };

  test('sign in with the provider, land on home, sign out', async ({ page }) => {
    await page.goto('/sign-in');
    await page.getByRole('link', { name: 'Sign in with Household ID' }).click();
    await signInAtProvider(page);
    await expect(page).toHaveURL(`${serverUrl()}/`);
    await expect(page.getByRole('link', { name: /your account/ })).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider's session ends too (RP-initiated logout): its own confirmation page.
    await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/session/end`));
  });

  test('with password sign-in off, the login page offers only the provider; an API key still opens OPDS', async ({ page, request }) => {
    const key = await request.post(`${serverUrl()}/api/v1/api-keys`, { headers, data: { name: 'e2e OPDS' } });
    const apiKey = ((await key.json()) as { key: string }).key;
    expect(
      (await request.put(`${serverUrl()}/api/v1/admin/settings/password_sign_in_disabled`, { headers, data: { value: true } })).status(),
    ).toBe(200);
    await page.goto('/sign-in?local=1');
    await expect(page.getByLabel('Password')).toBeVisible();
    // The only provider and no password form: straight to the provider.
    await page.goto('/sign-in');
    await expect(page).toHaveURL(new RegExp(`^${idp.issuer}/`));
    expect((await request.get(`${serverUrl()}/opds/v1.2/catalog`, { headers: { 'X-API-Key': apiKey } })).status()).toBe(200);
  });
});
