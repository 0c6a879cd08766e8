import { test as base, expect, type Page, type Route } from '@playwright/test';
import { E2E_ENV } from './env.js';

/** The administrator the first-run test creates; every later test signs in as it. */
export const ADMIN = { username: 'admin', email: 'admin@example.org', password: 'correct horse battery' };

export const serverUrl = () => {
  const url = process.env[E2E_ENV.url];
  if (!url) throw new Error('the e2e global setup did not start a server');
  return url;
};
export const libraryDir = () => process.env[E2E_ENV.libraryDir] as string;
export const libraryRoot = () => process.env[E2E_ENV.libraryRoot] as string;

export const test = base.extend({
  // eslint-disable-next-line no-empty-pattern -- Playwright fixtures take their dependencies destructured.
  baseURL: async ({}, use) => use(serverUrl()),
});
export { expect };

/** Signs in over the API and hands the session to the page the way the sign-in screen stores it. */
export async function signIn(page: Page, user = ADMIN): Promise<string> {
  const res = await page.request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: user.username, password: user.password } });
  expect(res.status()).toBe(200);
  const login = (await res.json()) as { access_token: string; expires_in: number; user: { username: string } };
  const session = { token: login.access_token, expiresAt: Date.now() + login.expires_in * 1000, username: login.user.username };
  // Runs in the browser; the e2e project compiles without the DOM library.
  await page.addInitScript(
    (value) =>
      (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('colophon.session', value),
    JSON.stringify(session),
  );
  return login.access_token;
}

/**
 * A route handler answering as the API does when it fails: `status` with the error body carrying `message`.
 * `method`: only requests of that method fail; the others go through.
 */
export function apiFailure(status: number, message: string, method?: string): (route: Route) => Promise<void> {
  return (route) =>
    method && route.request().method() !== method
      ? route.continue()
      : route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ error: 'Failure', message, details: {} }) });
}

/** The answers of 400 and above a page receives from now on, as `status METHOD /path` (a browser logs each one). */
export function failedAnswers(page: Page): string[] {
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.request().method()} ${new URL(r.url()).pathname}`);
  });
  return failed;
}

/**
 * The header's account link and Sign out: in the header on a wide screen, behind the "Menu" button on a phone (whose
 * drawer holds the main places too). Opens the menu when there is one; returns where to find them.
 */
export async function headerMenu(page: Page): Promise<Page | ReturnType<Page['getByRole']>> {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  // The header first: the menu button on a phone, Sign out on a wide screen.
  await expect(menu.or(page.getByRole('button', { name: 'Sign out' })).first()).toBeVisible();
  if (await menu.isVisible()) {
    await menu.click();
    const drawer = page.getByRole('dialog', { name: 'Menu' });
    await expect(drawer).toBeVisible();
    return drawer;
  }
  return page;
}

/** Signs out with the header's button (in the menu on a phone). */
export async function signOutFromHeader(page: Page): Promise<void> {
  await (await headerMenu(page)).getByRole('button', { name: 'Sign out' }).click();
}
