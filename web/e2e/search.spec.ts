import { expect, signIn, test } from './fixtures.js';

test('the header search shows series and books in groups as you type', async ({ page }) => {
  await signIn(page);
  await page.goto('/');
  await page.getByRole('searchbox', { name: 'Search series and books' }).fill('akira');
  await expect(page).toHaveURL(/\/search\?q=akira/);
  const series = page.getByRole('region', { name: /Series/ });
  const books = page.getByRole('region', { name: /Books/ });
  await expect(series.getByRole('heading')).toHaveText('Series (1)');
  await expect(series.getByTestId('series-card')).toContainText('Akira');
  await expect(books.getByRole('heading')).toHaveText('Books (2)');
  await books.getByTestId('book-card').first().click();
  await expect(page).toHaveURL(/\/books\//);

  await page.goto('/search?q=nothingmatchesthis');
  await expect(page.getByText(/Nothing matches/)).toBeVisible();
});
