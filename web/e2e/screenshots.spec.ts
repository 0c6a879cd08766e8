import path from 'node:path';
import { expect, signIn, test } from './fixtures.js';

const docs = path.resolve(import.meta.dirname, '../../docs/screenshots');

/** The README's pictures of the home page and a series page, taken from the real app on generated books. */
test('README screenshots: home and a series page', async ({ page }) => {
  await signIn(page);
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto('/');
  const shelf = page.getByRole('region', { name: 'Recently added books' });
  await expect(shelf.locator('img')).toHaveCount(7);
  await page.screenshot({ path: path.join(docs, 'home.png') });

  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Saga' }).click();
  await expect(page.getByTestId('book-row').locator('img')).toHaveCount(3);
  await page.screenshot({ path: path.join(docs, 'series.png') });
});
