import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.js';

async function expectNoSeriousViolations(page: Page, screen: string) {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${screen}: ${v.id} (${v.impact}) ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual(
    [],
  );
}

test('sign-in, registration and verification pages have no serious accessibility violations', async ({ page }) => {
  for (const [url, heading] of [
    ['/sign-in', 'Sign in to Colophon'],
    ['/register', 'Create an account'],
    ['/verify-email', 'E-mail verification'],
  ] as const) {
    await page.goto(url);
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
    await expectNoSeriousViolations(page, url);
  }
});

for (const scheme of ['light', 'dark'] as const) {
  test(`every signed-in screen has no serious accessibility violations (${scheme} theme)`, async ({ page }) => {
    // Six axe runs on a shared two-core machine.
    test.setTimeout(180_000);
    await signIn(page);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto('/');
    await expect(page.getByRole('region', { name: 'Recently added series' }).getByTestId('series-card').first()).toBeVisible();
    await expectNoSeriousViolations(page, `home (${scheme})`);

    await page.goto('/libraries?genre=Fantasy');
    await expect(page.getByTestId('series-card')).toHaveCount(1);
    await expectNoSeriousViolations(page, `grid (${scheme})`);

    await page.getByTestId('series-card').first().click();
    await expect(page.getByTestId('book-row').first()).toBeVisible();
    await expectNoSeriousViolations(page, `series (${scheme})`);

    await page.getByTestId('book-row').first().getByRole('link').first().click();
    await expect(page.getByRole('link', { name: 'Download', exact: true })).toBeVisible();
    await expectNoSeriousViolations(page, `book (${scheme})`);

    await page.goto('/search?q=saga');
    await expect(page.getByTestId('series-card').first()).toBeVisible();
    await expectNoSeriousViolations(page, `search (${scheme})`);

    await page.goto('/shelves/recently-added-books');
    await expect(page.getByTestId('book-card').first()).toBeVisible();
    await expectNoSeriousViolations(page, `shelf (${scheme})`);

    await page.goto('/account/api-keys');
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await expectNoSeriousViolations(page, `account (${scheme})`);
  });
}

test('covers missing or still loading are no unnamed images: decorative next to a title, named on detail pages', async ({ page }) => {
  test.setTimeout(120_000);
  await signIn(page);
  const thumbnails = /\/thumbnail(\?|$)/;
  // Thumbnails the server cannot give: the detail cover says so, the card covers stay out of the way.
  await page.route(thumbnails, (route) =>
    route.fulfill({ status: 404, contentType: 'application/json', body: '{"error":"NotFound","message":"No cover"}' }),
  );
  await page.goto('/');
  const books = page.getByRole('region', { name: 'Recently added books' }).getByTestId('book-card');
  await expect(books.first()).toBeVisible();
  await expect(page.locator('.cover-placeholder').first()).toBeAttached();
  await expectNoSeriousViolations(page, 'home, no covers');
  await books.first().click();
  await expect(page.getByRole('img', { name: /^Cover of .* \(no cover\)$/ })).toBeVisible();
  await expectNoSeriousViolations(page, 'book, no cover');

  // Thumbnails that never arrive, as on a slow network: every cover stays a placeholder.
  await page.unrouteAll({ behavior: 'wait' });
  await page.route(thumbnails, () => undefined);
  await page.goto('/');
  await expect(page.getByRole('region', { name: 'Recently added series' }).getByTestId('series-card').first()).toBeVisible();
  await expectNoSeriousViolations(page, 'home, covers loading');
  await page.getByRole('region', { name: 'Recently added series' }).getByTestId('series-card').filter({ hasText: 'Saga' }).click();
  await expect(page.getByTestId('book-row').first()).toBeVisible();
  await expect(page.getByRole('img', { name: 'Cover of Saga' })).toBeVisible();
  await expectNoSeriousViolations(page, 'series, covers loading');
});
