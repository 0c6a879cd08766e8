import { ConfigSchema } from '../../src/config/schema.js';
import { openDatabase } from '../../src/db/connection.js';
import { newId } from '../../src/db/ids.js';
import { E2E_ENV } from './env.js';
import { expect, signIn, test } from './fixtures.js';

const SERIES = 10_000;

/**
 * A 10,000-series library written straight into the running server's SQLite database (as the browsing
 * benchmark does: scanning 10,000 files would take minutes here), then scrolled from top to bottom.
 */
async function insertBigLibrary(): Promise<string> {
  const config = ConfigSchema.parse({ data_dir: process.env[E2E_ENV.dataDir], logging: { level: 'silent' } });
  const database = openDatabase(config);
  const db = database.db;
  const now = new Date().toISOString();
  const libraryId = newId();
  await db
    .insertInto('libraries')
    .values({
      id: libraryId,
      name: 'Big',
      path: '/nonexistent/big',
      scanning_config: '{}',
      settings: '{}',
      created_at: now,
      updated_at: now,
      last_scanned_at: now,
    })
    .execute();
  await db.transaction().execute(async (trx) => {
    for (let start = 0; start < SERIES; start += 500) {
      const series = [];
      const books = [];
      for (let i = start; i < start + 500; i++) {
        const id = newId();
        const name = `Big ${String(i).padStart(5, '0')}`;
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
