import { ConfigSchema } from '../../src/config/schema.js';
import { openDatabase } from '../../src/db/connection.js';
import { newId } from '../../src/db/ids.js';
import { E2E_ENV } from './env.js';
import type { Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.js';

const SERIES = 10_000;

/**
 * A 10,000-series library written straight into the running server's SQLite database (as the browsing
 * benchmark does: scanning 10,000 files would take minutes here), then scrolled from top to bottom.
 */
async function insertBigLibrary(count = SERIES, label = 'Big'): Promise<string> {
  const config = ConfigSchema.parse({ data_dir: process.env[E2E_ENV.dataDir], logging: { level: 'silent' } });
  const database = openDatabase(config);
  const db = database.db;
  const now = new Date().toISOString();
  const libraryId = newId();
  await db
    .insertInto('libraries')
    .values({
      id: libraryId,
      name: label,
      path: `/nonexistent/${label.toLowerCase()}`,
      scanning_config: '{}',
      settings: '{}',
      created_at: now,
      updated_at: now,
      last_scanned_at: now,
    })
    .execute();
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < count; start += 500) {
      const series = [];
      const books = [];
      for (let i = start; i < Math.min(count, start + 500); i++) {
        const id = newId();
        const name = `${label} ${String(i).padStart(5, '0')}`;
        series.push({
          id,
          library_id: libraryId,
          path: `S${i}`,
          name,
          sort_name: name.toLowerCase(),
          title: null,
          summary: null,
          publisher: null,
          status: null,
          language: null,
          age_rating: null,
          reading_direction: null,
          year: null,
          genres: '[]',
          tags: '[]',
          external_id: null,
          metadata: '{}',
          book_count: 1,
          total_size: 1000,
          total_pages: 10,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        });
        books.push({
          id: newId(),
          library_id: libraryId,
          series_id: id,
          path: `S${i}/1.cbz`,
          file_name: '1.cbz',
          format: 'cbz',
          size: 1000,
          mtime_ms: 0,
          hash: null,
          page_count: 10,
          pages: '[]',
          title: `${name} #1`,
          number: '1',
          number_sort: 1,
          volume: null,
          year: null,
          summary: null,
          publisher: null,
          language: null,
          isbn: null,
          genres: '[]',
          tags: '[]',
          authors: '[]',
          metadata: '{}',
          cover_page: null,
          analysis_error: null,
          analyzed_at: now,
          created_at: now,
          updated_at: now,
          deleted_at: null,
        });
      }
      await trx.insertInto('series').values(series).execute();
      for (let b = 0; b < books.length; b += 250)
        await trx
          .insertInto('books')
          .values(books.slice(b, b + 250))
          .execute();
    }
  });
  await database.close();
  return libraryId;
}

test('the grid of a 10,000-series library never holds more than ~300 cards while scrolling to the bottom', async ({ page }) => {
  test.setTimeout(240_000);
  const libraryId = await insertBigLibrary();
  await signIn(page);
  await page.goto(`/libraries/${libraryId}`);
  await expect(page.getByText('10000 series')).toBeVisible();
  const cards = page.getByTestId('series-card');
  await expect(cards.first()).toContainText('Big 00000');

  let most = 0;
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  expect(height).toBeGreaterThan(100_000);
  for (let y = 0; y <= height; y += Math.floor(height / 40)) {
    await page.evaluate((top) => window.scrollTo(0, top), y);
    await page.waitForTimeout(50);
    most = Math.max(most, await page.locator('.virtual-row [role="listitem"]').count());
  }
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
  await expect(cards.filter({ hasText: 'Big 09999' })).toBeVisible({ timeout: 20_000 });
  most = Math.max(most, await page.locator('.virtual-row [role="listitem"]').count());
  expect(most).toBeGreaterThan(0);
  expect(most).toBeLessThanOrEqual(300);
});

/** Scrolls a library's grid to its last row. */
async function scrollToEnd(page: Page): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
}

const PAGE_3 = /\/api\/v1\/series\/list\?page=3&/;

test('a page refused by the rate limit (429) is asked again after the wait, and its cards fill in', async ({ page }) => {
  const libraryId = await insertBigLibrary(300, 'Waited');
  await signIn(page);
  let refused = 0;
  await page.route(PAGE_3, async (route) => {
    if (refused > 0) return route.fallback();
    refused += 1;
    // What the server answers when a user's bucket is empty (spec, "Rate limiting").
    return route.fulfill({
      status: 429,
      headers: { 'Retry-After': '1' },
      contentType: 'application/json',
      body: JSON.stringify({ error: 'rate_limit_exceeded', message: 'Too many requests: wait 1 s', retry_after: 1, details: null }),
    });
  });
  await page.goto(`/libraries/${libraryId}`);
  await expect(page.getByText('300 series')).toBeVisible();
  await scrollToEnd(page);
  await expect(page.getByTestId('series-card').filter({ hasText: 'Waited 00299' })).toBeVisible({ timeout: 15_000 });
  expect(refused).toBe(1);
  await expect(page.getByRole('alert')).toHaveCount(0);
});

test('a page that cannot be loaded is said in words at the bottom of the window, with a way to ask again', async ({ page }) => {
  const libraryId = await insertBigLibrary(300, 'Failing');
  await signIn(page);
  const busy = { error: 'ServiceUnavailable', message: 'The database is busy: try again in a moment', details: null };
  await page.route(PAGE_3, (route) => route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(busy) }));
  await page.goto(`/libraries/${libraryId}`);
  await expect(page.getByText('300 series')).toBeVisible();
  await scrollToEnd(page);
  const alert = page.getByRole('alert').filter({ hasText: 'Some series could not be loaded' });
  await expect(alert).toContainText(busy.message, { timeout: 15_000 });
  await expect(alert).toBeInViewport();
  await expect(page.getByTestId('series-card').filter({ hasText: 'Failing 00299' })).toHaveCount(0);

  await page.unroute(PAGE_3);
  await alert.getByRole('button', { name: 'Try again' }).click();
  await expect(page.getByTestId('series-card').filter({ hasText: 'Failing 00299' })).toBeVisible();
  await expect(alert).toHaveCount(0);
});
