import { expect, signIn, signOutFromHeader, test } from './fixtures.js';

test.beforeEach(async ({ page }) => {
  await signIn(page);
});

test('home shows the shelves with covers and a "see all" list', async ({ page }) => {
  await page.goto('/');
  const series = page.getByRole('region', { name: 'Recently added series' });
  await expect(series.getByTestId('series-card')).toHaveCount(3);
  // The unread badge is part of the card's name in words, not a bare number run into the title.
  await expect(series.getByRole('link', { name: /^[12] unread, Akira ?, 2 books$/ })).toBeVisible();
  const books = page.getByRole('region', { name: 'Recently added books' });
  await expect(books.getByTestId('book-card')).toHaveCount(7);
  await expect(page.getByRole('region', { name: 'Keep reading' }).getByText(/Books you have started/)).toBeVisible();
  // Covers arrive as blob: images fetched with the session.
  await expect(series.locator('img').first()).toHaveAttribute('src', /^blob:/);
  await books.getByRole('link', { name: /See all/ }).click();
  await expect(page.getByRole('heading', { name: 'Recently added books' })).toBeVisible();
  await expect(page.getByTestId('book-card')).toHaveCount(7);
});

test('grid: sort, filter chips and search live in the URL and survive a reload', async ({ page }) => {
  await page.goto('/libraries');
  const cards = page.getByTestId('series-card');
  await expect(cards).toHaveCount(3);
  await expect(cards.first()).toContainText('Akira');

  await page.getByRole('button', { name: /Ascending/ }).click();
  await expect(page).toHaveURL(/sort=name%2Cdesc/);
  await expect(cards.first()).toContainText('Saga');

  await page.getByLabel('Filter by').selectOption('genre');
  await page.getByPlaceholder('Genre…').fill('Science Fiction');
  await page.getByRole('button', { name: 'Add filter' }).click();
  await expect(page).toHaveURL(/genre=/);
  await expect(cards).toHaveCount(2);
  await expect(page.getByRole('row', { name: 'Genre: Science Fiction' })).toBeVisible();

  await page.getByRole('searchbox', { name: 'Search in this view' }).fill('akira');
  await expect(page).toHaveURL(/q=akira/);
  await expect(cards).toHaveCount(1);

  await page.reload();
  await expect(cards).toHaveCount(1);
  await expect(cards.first()).toContainText('Akira');
  await expect(page.getByRole('searchbox', { name: 'Search in this view' })).toHaveValue('akira');

  await page.goBack();
  await expect(cards).toHaveCount(2);
  await page.getByRole('button', { name: /Remove filter Genre: Science Fiction/ }).click();
  await page.getByRole('searchbox', { name: 'Search in this view' }).fill('');
  await expect(cards).toHaveCount(3);

  // Books view with a read-status chip.
  await page.getByRole('button', { name: 'Books' }).click();
  await expect(page).toHaveURL(/view=books/);
  await expect(page.getByTestId('book-card')).toHaveCount(7);
});

test('series page: books in order, mark a book and the series read and unread', async ({ page }) => {
  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Saga' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Saga' })).toBeVisible();
  const rows = page.getByTestId('book-row');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('#1');
  await expect(rows.nth(2)).toContainText('#3');
  await expect(page.getByRole('link', { name: /Start: #1/ })).toBeVisible();
  // Nothing read yet: nothing to mark unread.
  await expect(page.getByRole('button', { name: 'Mark series unread' })).toBeDisabled();

  await rows
    .nth(0)
    .getByRole('button', { name: /Mark read/ })
    .click();
  await expect(rows.nth(0)).toContainText('Read');
  await expect(page.getByText('1 of 3 read')).toBeVisible();
  await expect(page.getByRole('link', { name: /Continue: #2/ })).toBeVisible();

  await page.getByRole('button', { name: 'Mark series read' }).click();
  await expect(page.getByText('3 of 3 read')).toBeVisible();
  await page.getByRole('button', { name: 'Mark series unread' }).click();
  await expect(page.getByText('0 of 3 read')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Mark series unread' })).toBeDisabled();
});

test('book page: facts, previous and next, mark read, and download', async ({ page }) => {
  await page.goto('/libraries?view=books&q=Saga');
  await page.getByTestId('book-card').filter({ hasText: '#2' }).click();
  await expect(page.getByRole('heading', { level: 1, name: /#2/ })).toBeVisible();
  await expect(page.getByText('CBZ', { exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Saga', exact: true })).toBeVisible();
  await expect(page.getByRole('link', { name: /Previous: #1/ })).toBeVisible();
  await page.getByRole('link', { name: /Next: #3/ }).click();
  await expect(page.getByRole('heading', { level: 1, name: /#3/ })).toBeVisible();
  await expect(page.getByRole('link', { name: /Next:/ })).toHaveCount(0);

  await page.getByRole('button', { name: 'Mark read' }).click();
  await expect(page.getByRole('button', { name: 'Mark unread' })).toBeVisible();
  await page.getByRole('button', { name: 'Mark unread' }).click();

  // Each value names its source: ComicInfo.xml for what the archive declares, the file for the page count.
  await expect(page.locator('.facts div').filter({ hasText: 'Publisher' })).toContainText('Image' + 'from ComicInfo.xml');
  await expect(page.locator('.facts div').filter({ hasText: 'Pages' })).toContainText('from the file itself');
  await expect(page.locator('.facts div').filter({ hasText: 'Series' })).toContainText('from ComicInfo.xml');

  // A direct download: the browser streams the endpoint itself (no blob: built in memory), under the file's name.
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: 'Download', exact: true }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Saga 003.cbz');
  expect(file.url()).toMatch(/\/api\/v1\/books\/[0-9a-f-]{36}\/file$/);
  expect(await file.failure()).toBeNull();
});

test('series page: each book downloads directly, and stops once signed out', async ({ page }) => {
  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Bone' }).click();
  const download = page.waitForEvent('download');
  await page.getByRole('link', { name: /^Download #2 ·/ }).click();
  const file = await download;
  expect(file.suggestedFilename()).toBe('Bone 002.cbz');
  expect(await file.failure()).toBeNull();

  // Signing out clears the download cookie with the session: the same address is refused.
  await signOutFromHeader(page);
  await expect(page).toHaveURL(/\/sign-in/);
  expect((await page.context().cookies()).map((c) => c.name)).not.toContain('colophon_file_token');
  expect((await page.request.get(file.url())).status()).toBe(401);
});

test('a failing API call is told in words, never shown as an empty list', async ({ page }) => {
  const busy = { error: 'ServiceUnavailable', message: 'The database is busy: try again in a moment', details: null };
  await page.route(/\/api\/v1\/books\/on-deck(\?|$)/, (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(busy) }),
  );
  await page.goto('/');
  const onDeck = page.getByRole('region', { name: 'On deck' });
  await expect(onDeck.getByRole('alert')).toHaveText(busy.message);
  await expect(onDeck.getByText('When you finish a book')).toHaveCount(0);
  // The other shelves are unaffected.
  await expect(page.getByRole('region', { name: 'Recently added series' }).getByTestId('series-card')).toHaveCount(3);

  await page.route(/\/api\/v1\/api-keys(\?|$)/, (route) =>
    route.fulfill({ status: 503, contentType: 'application/json', body: JSON.stringify(busy) }),
  );
  await page.goto('/account/api-keys');
  await expect(page.getByRole('alert').filter({ hasText: busy.message })).toBeVisible();
  await expect(page.getByText('No API keys yet')).toHaveCount(0);
});

test('an address with nothing behind it says what is missing, with a way home and no pointless retry', async ({ page }) => {
  const missing = '0b6c1f9e-4f7e-4a55-9d0c-3a5e2f1b7c11';
  for (const [address, heading] of [
    [`/books/${missing}`, 'Book not found'],
    [`/series/${missing}`, 'Series not found'],
    ['/books/not-an-id', 'Book not found'],
    [`/books/${missing}/read`, 'Book not found'],
    ['/shelves/constructor', 'Shelf not found'],
    ['/shelves/nope', 'Shelf not found'],
  ] as const) {
    await page.goto(address);
    await expect(page.getByRole('heading', { name: heading })).toBeVisible();
    await expect(page.getByText('Something went wrong')).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'Try again' })).toHaveCount(0);
    await expect(page.getByRole('link', { name: 'Go to the home page' })).toBeVisible();
  }
});

test('a server that cannot be reached is said in those words, with a retry', async ({ page }) => {
  await page.goto('/');
  const card = page.getByRole('region', { name: 'Recently added series' }).getByTestId('series-card').first();
  await expect(card).toBeVisible();
  await page.route(/\/api\/v1\/series\//, (route) => route.abort('connectionrefused'));
  await card.click();
  await expect(page.getByRole('heading', { name: "Can't reach the server" })).toBeVisible();
  await expect(page.getByText(/^Can't reach the server\. Check your connection/)).toBeVisible();
  await expect(page.getByText('Failed to fetch')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Try again' })).toBeVisible();
});

test('grid: switching series → books never shows the series as books while the books load', async ({ page }) => {
  let release = () => undefined as void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  await page.route(/\/api\/v1\/books\/list/, async (route) => {
    await gate;
    await route.continue();
  });
  await page.goto('/libraries');
  await expect(page.getByTestId('series-card')).toHaveCount(3);
  await page.getByRole('group', { name: 'Show' }).getByRole('button', { name: 'Books' }).click();
  await expect(page).toHaveURL(/view=books/);
  await page.waitForTimeout(300);
  await expect(page.getByTestId('book-card')).toHaveCount(0);
  await expect(page.getByTestId('series-card')).toHaveCount(0);
  release();
  await expect(page.getByTestId('book-card')).toHaveCount(7);
});

test('grid: every cover of the grid has the same width, whatever the length of its title', async ({ page }) => {
  await page.goto('/libraries?view=books');
  const items = page.getByRole('list', { name: /: books$/ }).getByRole('listitem');
  await expect(page.getByTestId('book-card')).toHaveCount(7);
  const widths = await items.evaluateAll((elements) => elements.map((e) => Math.round(e.getBoundingClientRect().width)));
  expect(new Set(widths).size).toBe(1);
});

test('a library address that names no library says "Library not found", not an empty library', async ({ page }) => {
  await page.goto('/libraries/0b6c1f9e-4f7e-4a55-9d0c-3a5e2f1b7c11');
  await expect(page.getByRole('heading', { name: 'Library not found' })).toBeVisible();
  await expect(page.getByText(/has no series yet/)).toHaveCount(0);
  await page.getByRole('link', { name: 'See all libraries' }).click();
  await expect(page.getByRole('heading', { name: 'All libraries' })).toBeVisible();
});

test('phone: the header scrolls away, "Start" is on the first screen, and book rows give the title the width', async ({ page }) => {
  test.skip(page.viewportSize()!.width > 640, 'the phone layout');
  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Saga' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Saga' })).toBeVisible();
  const header = page.locator('.app-header');
  expect((await header.boundingBox())!.height).toBeLessThan(160);
  const start = page.getByRole('link', { name: /^(Start|Continue): / });
  expect((await start.boundingBox())!.y).toBeLessThan(page.viewportSize()!.height * 0.6);

  const row = page.getByTestId('book-row').first();
  const title = (await row.getByRole('link').first().boundingBox())!;
  const button = (await row.getByRole('button', { name: /Mark (read|unread)/ }).boundingBox())!;
  // The buttons sit under the title, not beside it.
  expect(button.y).toBeGreaterThan(title.y + title.height - 1);
  expect((await row.boundingBox())!.height).toBeLessThan(160);

  // It scrolls away with the page instead of keeping its rows on screen.
  await expect(header).toHaveCSS('position', 'static');
});
