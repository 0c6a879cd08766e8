import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { makeCbz } from '../../test/media/fixtures.js';
import { expectNoSeriousA11yViolations, unique } from './admin-fixtures.js';
import { ADMIN, expect, libraryRoot, serverUrl, test } from './fixtures.js';
import { newReader, progressOf, setReaderSettings, useSession } from './reader-fixtures.js';

/*
 * Collections, read lists and want to read (issue 37) in the web app. The file name ends in "reader.spec.ts" so that
 * it runs in the "reader" project, after every count of the other projects: it adds a library (removed at the end).
 */

/** Two books of "Harbor Lights", and "Tidewater" #1 twice: the 2015 series and the 2019 one (a CBL entry without a volume cannot tell them apart). */
const BOOKS = [
  { folder: 'Harbor Lights', file: 'Harbor Lights 001.cbz', info: { Series: 'Harbor Lights', Number: 1, Title: 'Harbor one' } },
  { folder: 'Harbor Lights', file: 'Harbor Lights 002.cbz', info: { Series: 'Harbor Lights', Number: 2, Title: 'Harbor two' } },
  {
    folder: 'Tidewater (2015)',
    file: 'Tidewater 001.cbz',
    info: { Series: 'Tidewater', Volume: 2015, Year: 2015, Number: 1, Title: 'Tide old' },
  },
  {
    folder: 'Tidewater (2019)',
    file: 'Tidewater 001.cbz',
    info: { Series: 'Tidewater', Volume: 2019, Year: 2019, Number: 1, Title: 'Tide new' },
  },
] as const;

/**
 * A ComicRack reading list across the two series: Harbor #1, Tidewater #1 (which one?), Harbor #2, a book nobody has, and
 * one under a name the library does not use (found by hand).
 */
const CBL = `<?xml version="1.0" encoding="utf-8"?>
<ReadingList xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">
  <Name>Harbor and Tide</Name>
  <Books>
    <Book Series="Harbor Lights" Number="1" />
    <Book Series="Tidewater" Number="1" />
    <Book Series="Harbor Lights" Number="2" />
    <Book Series="Nowhere Man" Number="1" Volume="1999" Year="1999" />
    <Book Series="Tide Special" Number="9" />
  </Books>
</ReadingList>
`;

interface Named {
  id: string;
  name: string;
}

async function adminHeaders(request: APIRequestContext): Promise<Record<string, string>> {
  const login = await request.post(`${serverUrl()}/api/v1/auth/login`, { data: { username: ADMIN.username, password: ADMIN.password } });
  return { Authorization: `Bearer ${((await login.json()) as { access_token: string }).access_token}` };
}

const single = { all_series: { desktop: { spread: 'single' }, phone: { spread: 'single' }, tablet: { spread: 'single' } } };

test.describe.configure({ mode: 'serial' });
test.describe('Collections, read lists and want to read', () => {
  const libraryName = unique('Lists');
  let libraryId = '';
  const series = new Map<string, string>();
  const books = new Map<string, string>();

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(90_000);
    const dir = path.join(libraryRoot(), libraryName);
    for (const b of BOOKS) {
      mkdirSync(path.join(dir, b.folder), { recursive: true });
      await makeCbz(path.join(dir, b.folder), b.file, { pages: 2, comicInfo: b.info });
    }
    const request = await playwright.request.newContext();
    const headers = await adminHeaders(request);
    const created = await request.post(`${serverUrl()}/api/v1/libraries`, { headers, data: { name: libraryName, path: dir } });
    expect(created.status()).toBe(201);
    libraryId = ((await created.json()) as Named).id;
    await request.post(`${serverUrl()}/api/v1/libraries/${libraryId}/scan`, { headers });
    await expect
      .poll(
        async () =>
          ((await (await request.get(`${serverUrl()}/api/v1/libraries/${libraryId}/scan-status`, { headers })).json()) as { state: string })
            .state,
        { timeout: 60_000 },
      )
      .toBe('completed');
    const found = (await (await request.get(`${serverUrl()}/api/v1/books?library_id=${libraryId}&pageSize=100`, { headers })).json()) as {
      data: Array<{ id: string; title: string; series_id: string }>;
    };
    for (const b of found.data) {
      books.set(b.title, b.id);
      if (b.title.startsWith('Harbor')) series.set('Harbor Lights', b.series_id);
    }
    expect([...books.keys()].sort()).toEqual(['Harbor one', 'Harbor two', 'Tide new', 'Tide old']);
    await request.dispose();
  });

  test.afterAll(async ({ playwright }) => {
    const request = await playwright.request.newContext();
    const headers = await adminHeaders(request);
    if (libraryId) expect((await request.delete(`${serverUrl()}/api/v1/libraries/${libraryId}`, { headers })).status()).toBe(204);
    await request.dispose();
  });

  test('want to read from a series page fills the home shelf; a collection is made from a series page', async ({ page, request }) => {
    const user = await newReader(request);
    await useSession(page, user);
    await page.goto(`/series/${series.get('Harbor Lights')}`);
    await expect(page.getByRole('heading', { name: 'Harbor Lights', level: 1 })).toBeVisible();

    // Want to read: a toggle button; the home page's shelf shows the series.
    const want = page.getByRole('button', { name: /Want to read/ });
    await expect(want).toHaveAttribute('aria-pressed', 'false');
    await want.click();
    await expect(want).toHaveAttribute('aria-pressed', 'true');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    const shelf = page.getByRole('region', { name: 'Want to read' });
    await expect(shelf.getByTestId('series-card')).toHaveCount(1);
    await expect(shelf.getByTestId('series-card')).toContainText('Harbor Lights');
    await expectNoSeriousA11yViolations(page);

    // Add to collection… → a new collection holding the series.
    await page.goto(`/series/${series.get('Harbor Lights')}`);
    await page.getByRole('button', { name: 'Add to collection…' }).click();
    await page.getByLabel('New collection').fill('Sea stories');
    await page.getByRole('button', { name: 'Create and add' }).click();
    await expect(page.getByRole('status').filter({ hasText: 'Added to Sea stories' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await page.keyboard.press('Escape');

    // The Collections page (from the header) shows it; opening it shows its series.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Collections' }).click();
    await expect(page.getByRole('heading', { name: 'Collections', level: 1 })).toBeVisible();
    await page.getByTestId('collection-card').filter({ hasText: 'Sea stories' }).click();
    await expect(page.getByRole('heading', { name: 'Sea stories', level: 1 })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Series of Sea stories' }).getByTestId('series-card')).toHaveText([/Harbor Lights/]);
    await expectNoSeriousA11yViolations(page);

    // Taken off the shelf again from the series page: the collection now lists it there.
    await page.goto(`/series/${series.get('Harbor Lights')}`);
    await expect(page.getByText('Add to collection… (in 1)')).toBeVisible();
    await want.click();
    await expect(want).toHaveAttribute('aria-pressed', 'false');
  });

  test('a collection made from the library grid’s selection (mouse, Shift-click range, keyboard)', async ({ page, request }) => {
    const user = await newReader(request);
    await useSession(page, user);
    await page.goto(`/libraries/${libraryId}`);
    const cards = page.getByTestId('series-card');
    await expect(cards).toHaveText([/Harbor Lights/, /Tidewater/, /Tidewater/]);

    // Selection mode: a click selects (no navigation), a Shift-click selects the range, Space toggles one off.
    await page.getByRole('button', { name: 'Select' }).click();
    const bar = page.getByRole('region', { name: 'Selected series' });
    await expect(bar.getByRole('status')).toHaveText('0 selected');
    await cards.nth(0).click();
    await expect(cards.nth(0)).toHaveAttribute('aria-pressed', 'true');
    await cards.nth(2).click({ modifiers: ['Shift'] });
    await expect(bar.getByRole('status')).toHaveText('3 selected');
    await cards.nth(1).focus();
    await page.keyboard.press('Space');
    await expect(cards.nth(1)).toHaveAttribute('aria-pressed', 'false');
    await expect(bar.getByRole('status')).toHaveText('2 selected');
    await expect(page).toHaveURL(new RegExp(`/libraries/${libraryId}`));
    await expectNoSeriousA11yViolations(page);

    // Add to collection… → a new collection with the two series.
    // The choice opens in a dialog: the bar keeps its size over the grid.
    await bar.getByRole('button', { name: 'Add to collection…' }).click();
    const dialog = page.getByRole('dialog', { name: /^Add 2 series to a collection/ });
    await dialog.getByLabel('New collection').fill('Grid picks');
    await dialog.getByRole('button', { name: 'Create and add' }).click();
    await expect(dialog.getByRole('status').filter({ hasText: 'Added to Grid picks' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect(dialog).toHaveCount(0);
    await bar.getByRole('button', { name: 'Clear' }).click();
    await expect(bar.getByRole('status')).toHaveText('0 selected');
    await expect(cards.nth(0)).toHaveAttribute('aria-pressed', 'false');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Collections' }).click();
    await page.getByTestId('collection-card').filter({ hasText: 'Grid picks' }).click();
    await expect(page.getByRole('heading', { name: 'Grid picks', level: 1 })).toBeVisible();
    await expect(page.getByRole('list', { name: 'Series of Grid picks' }).getByTestId('series-card')).toHaveText([
      /Harbor Lights/,
      /Tidewater/,
    ]);
  });

  test('a CBL import with an ambiguous entry fixed; the list is reordered and read across two series in order', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000);
    const user = await newReader(request);
    await setReaderSettings(request, user.token, single);
    await useSession(page, user);
    await page.goto('/');
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Read lists' }).click();
    await expect(page.getByRole('heading', { name: 'Read lists', level: 1 })).toBeVisible();

    // Choose the file: a dry run reports the matches.
    await page.getByRole('button', { name: 'Import a reading list (.cbl)…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Import a reading list (.cbl)' });
    await dialog
      .getByLabel('Reading list file')
      .setInputFiles({ name: 'harbor.cbl', mimeType: 'application/xml', buffer: Buffer.from(CBL) });
    await expect(dialog.getByRole('status').filter({ hasText: 'matched' })).toHaveText(/2 matched, 1 ambiguous, 2 missing/);
    const entries = dialog.getByTestId('cbl-entry');
    await expect(entries).toHaveCount(5);
    await expect(entries.nth(0)).toContainText('Matched');
    await expect(entries.nth(1)).toContainText('Ambiguous');
    await expect(entries.nth(3)).toContainText('Missing');
    await expectNoSeriousA11yViolations(page);

    // The ambiguous Tidewater #1: the 2015 series.
    await dialog.getByLabel('Book for Tidewater #1').selectOption({ label: 'Tidewater #1 (2015)' });
    // The missing "Tide Special #9": found by hand.
    await dialog.getByLabel('Find a book for Tide Special #9').fill('Tide new');
    await dialog.getByRole('button', { name: /Pick.*Tide new/ }).click();
    await expect(entries.nth(4)).toContainText('Picked: Tidewater #1 · Tide new');
    await dialog.getByRole('button', { name: 'Import “Harbor and Tide”' }).click();

    // The list, in the file's order, the missing entry kept.
    await expect(page.getByRole('heading', { name: 'Harbor and Tide', level: 1 })).toBeVisible();
    const items = page.getByRole('list', { name: 'Books of Harbor and Tide' }).getByTestId('read-list-item');
    await expect(items).toHaveText([/Harbor one/, /Tide old/, /Harbor two/, /Nowhere Man \(1999\) #1/, /Tide new/]);
    await expectNoSeriousA11yViolations(page);

    // Reordered with the keyboard's buttons (kept after a reload), and by dragging.
    await page.getByRole('button', { name: /Move up.*Tide old/ }).click();
    await expect(items).toHaveText([/Tide old/, /Harbor one/, /Harbor two/, /Nowhere Man/, /Tide new/]);
    await page.reload();
    await expect(items).toHaveText([/Tide old/, /Harbor one/, /Harbor two/, /Nowhere Man/, /Tide new/]);
    await items.nth(1).dragTo(items.nth(0));
    await expect(items).toHaveText([/Harbor one/, /Tide old/, /Harbor two/, /Nowhere Man/, /Tide new/]);
    await page.reload();
    await expect(items).toHaveText([/Harbor one/, /Tide old/, /Harbor two/, /Nowhere Man/, /Tide new/]);

    // Read: the first book; at its end the reader offers the list's next book (Tidewater), not the series' (Harbor #2).
    await page.getByRole('link', { name: 'Read: #1 · Harbor one' }).click();
    await expect(page).toHaveURL(new RegExp(`/books/${books.get('Harbor one')}/read`));
    // The reader has its book before a key turns its pages.
    await expect(page.getByTestId('page-status')).toHaveText(/^Page 1 of \d+/, { timeout: 15_000 });
    await page.keyboard.press('End');
    await expect
      .poll(async () => (await progressOf(request, user.token, books.get('Harbor one')!))?.is_completed, { timeout: 20_000 })
      .toBe(true);
    await page.keyboard.press('ArrowRight');
    const panel = page.getByRole('dialog', { name: /End of/ });
    await expect(panel).toContainText('Next in the read list “Harbor and Tide”');
    await expect(panel.getByTestId('neighbour-title')).toHaveText('#1 · Tide old');
    await panel.getByRole('button', { name: /Continue/ }).click();
    await expect(page).toHaveURL(new RegExp(`/books/${books.get('Tide old')}/read\\?readList=`));
    await expect(page.getByTestId('page-status')).toHaveText(/^Page 1 of \d+/, { timeout: 15_000 });
    await page.keyboard.press('End');
    await expect
      .poll(async () => (await progressOf(request, user.token, books.get('Tide old')!))?.is_completed, { timeout: 20_000 })
      .toBe(true);
    await page.keyboard.press('ArrowRight');
    await expect(panel.getByTestId('neighbour-title')).toHaveText('#2 · Harbor two');

    // Back on the list: two of three read, Continue with the third.
    await page.goBack();
    await page.goBack();
    await expect(page.getByRole('heading', { name: 'Harbor and Tide', level: 1 })).toBeVisible();
    await expect(page.getByText('2 of 4 read')).toBeVisible();
    await expect(page.getByRole('link', { name: 'Continue: #2 · Harbor two' })).toBeVisible();
  });
});
