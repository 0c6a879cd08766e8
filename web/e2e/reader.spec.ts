import path from 'node:path';
import { expectNoSeriousA11yViolations } from './admin-fixtures.js';
import { apiFailure, expect, failedAnswers, serverUrl, test } from './fixtures.js';
import {
  expectPages,
  LONG_SERIES_BOOKS,
  longSeriesLibrary,
  newContextAs,
  newReader,
  progressOf,
  readerLibrary,
  setReaderSettings,
  shownPages,
  useSession,
  type ReaderLibrary,
} from './reader-fixtures.js';

/**
 * The web reader against the real server: books whose every page shows its own number as a colour, so order,
 * pairing and direction are checked on what is painted, not on the DOM's idea of it.
 */
let lib: ReaderLibrary;
test.beforeAll(async ({ request }) => {
  lib = await readerLibrary(request);
});

/** The same settings for every device class, so a test reads alike on the desktop and the phone project. */
const everywhere = (settings: Record<string, unknown>) => ({ all_series: { desktop: settings, phone: settings, tablet: settings } });
const single = everywhere({ spread: 'single' });

/** A tap: a touch on touch screens (the phone project), a click elsewhere. */
async function tapAt(page: import('@playwright/test').Page, fx: number, fy = 0.5): Promise<void> {
  const box = (await page.locator('.reader-host').boundingBox())!;
  const x = box.x + box.width * fx;
  const y = box.y + box.height * fy;
  if (test.info().project.use.hasTouch) await page.touchscreen.tap(x, y);
  else await page.mouse.click(x, y);
}
const status = (page: import('@playwright/test').Page) => page.getByTestId('page-status');

test('left to right by keys: arrows, Space, Shift+Space, Home, End; the status says page x of y', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  await expect(status(page)).toHaveText('Page 1 of 6');
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [2]);
  await page.keyboard.press('Space');
  await expectPages(page, [3]);
  await page.keyboard.press('Shift+Space');
  await expectPages(page, [2]);
  await page.keyboard.press('PageDown');
  await expectPages(page, [3]);
  await page.keyboard.press('End');
  await expectPages(page, [6]);
  await page.keyboard.press('Home');
  await expectPages(page, [1]);
  await page.keyboard.press('ArrowLeft');
  await expect(page.getByRole('dialog', { name: /Start of/ })).toBeVisible();
});

test('@phone right to left (the series is manga): the left arrow and a tap on the left go forward', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Manga one']!.id}/read`);
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'rtl');
  await expectPages(page, [1]);
  await page.keyboard.press('ArrowLeft');
  await expectPages(page, [2]);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [1]);
  await tapAt(page, 0.1);
  await expectPages(page, [2]);
  await tapAt(page, 0.9);
  await expectPages(page, [1]);
});

test('@phone left to right by taps: right side next, left side previous, middle opens the menu', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  await tapAt(page, 0.9);
  await expectPages(page, [2]);
  await tapAt(page, 0.1);
  await expectPages(page, [1]);
  await tapAt(page, 0.5);
  await expect(page.getByText('Paged one').first()).toBeVisible();
  const slider = page.getByRole('slider', { name: 'Page' });
  await expect(slider).toBeVisible();
  if (!test.info().project.use.hasTouch) {
    // The slider shows a thumbnail of the page under the pointer.
    const s = (await slider.boundingBox())!;
    await page.mouse.move(s.x + s.width - 2, s.y + s.height / 2);
    await expect(page.getByTestId('slider-preview')).toContainText('6');
    await expect(page.getByTestId('slider-preview').locator('img')).toBeVisible();
  }
});

test('double pages: the cover alone, a wide page alone, pairs in between; right to left pairs in manga order; shift by one', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, { all_series: { desktop: { spread: 'double' } } });
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Spreads one']!.id}/read`);
  const seen: number[][] = [];
  for (let i = 0; i < 5; i++) {
    await expect.poll(async () => (await shownPages(page)).length > 0 && !(await page.locator('.reader-slot.loading').count())).toBe(true);
    seen.push(await shownPages(page));
    await page.keyboard.press('ArrowRight');
  }
  expect(seen).toEqual([[1], [2, 3], [4], [5, 6], [7]]);

  await setReaderSettings(request, user.token, { all_series: { desktop: { spread: 'double', mode: 'rtl' } } });
  await page.goto(`/books/${lib.books['Paged one']!.id}/read?page=2`);
  await expectPages(page, [3, 2]);

  await setReaderSettings(request, user.token, { all_series: { desktop: { spread: 'double', shift: true } } });
  await page.goto(`/books/${lib.books['Paged one']!.id}/read?page=1`);
  await expectPages(page, [1]);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [2]);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [3, 4]);
  // And the one-key way back, from the settings panel.
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Shift pairs by one page').uncheck();
  await page.keyboard.press('Escape');
  await expectPages(page, [2, 3]);
});

test('@phone webtoon: page heights reserved from the API sizes, current page at the centre, position restored after a reload', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  // Fit width: the column follows the window (by default it is the pages' own width, which a resize leaves alone).
  await setReaderSettings(request, user.token, everywhere({ mode: 'webtoon', padding: 30, fit: 'width' }));
  await useSession(page, user);
  const book = lib.books['Webtoon one']!;
  // Images are held back: the boxes must already have their final heights.
  let release: () => void = () => undefined;
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/pages/*?**', async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(`/books/${book.id}/read`);
  const slots = page.locator('.reader-strip .reader-slot');
  await expect(slots).toHaveCount(40);
  const width = await page.locator('.reader-strip').evaluate((el) => (el as unknown as { clientWidth: number }).clientWidth);
  const heights = await slots.evaluateAll((els) => els.slice(0, 4).map((el) => (el as unknown as { clientHeight: number }).clientHeight));
  expect(heights).toEqual([300, 400, 500, 600].map((h) => Math.round((width * h) / 200)));
  const totalBefore = await page.locator('.reader-stage').evaluate((el) => (el as unknown as { scrollHeight: number }).scrollHeight);
  release();
  await expect(page.locator('.reader-strip img').first()).toBeVisible();
  expect(await page.locator('.reader-stage').evaluate((el) => (el as unknown as { scrollHeight: number }).scrollHeight)).toBe(totalBefore);

  // Scroll until page 12 is at the centre of the viewport.
  const target = await slots.nth(11).evaluate((el) => {
    const e = el as unknown as { offsetTop: number; clientHeight: number };
    return e.offsetTop + e.clientHeight / 2;
  });
  await page.locator('.reader-stage').evaluate((el, y) => {
    const stage = el as unknown as { scrollTop: number; clientHeight: number };
    stage.scrollTop = y - stage.clientHeight / 2;
  }, target);
  await expect(status(page)).toHaveText('Page 12 of 40');
  await expect.poll(async () => (await progressOf(request, user.token, book.id))?.current_page, { timeout: 10_000 }).toBe(12);

  await page.reload();
  await expect(status(page)).toHaveText('Page 12 of 40');
  const centre = await page.locator('.reader-stage').evaluate((el) => {
    const stage = el as unknown as { scrollTop: number; clientHeight: number };
    return stage.scrollTop + stage.clientHeight / 2;
  });
  const box = await slots.nth(11).evaluate((el) => {
    const e = el as unknown as { offsetTop: number; clientHeight: number };
    return { top: e.offsetTop, bottom: e.offsetTop + e.clientHeight };
  });
  expect(centre).toBeGreaterThanOrEqual(box.top);
  expect(centre).toBeLessThanOrEqual(box.bottom);

  // A narrower window keeps page 12 at the centre.
  await page.setViewportSize({ width: 700, height: 720 });
  await expect(status(page)).toHaveText('Page 12 of 40');
});

/** The element with the focus, as a short description (the e2e project compiles without the DOM library). */
const focusedElement = (page: import('@playwright/test').Page) =>
  page.evaluate(() => {
    const el = (globalThis as unknown as { document: { activeElement: { tagName: string; className: string } | null } }).document
      .activeElement;
    return el ? `${el.tagName}.${el.className}` : '';
  });

test("webtoon on a desktop: a centred column at the pages' own width, fit width widens it; the strip is reached by Tab and scrolled by keys; axe finds nothing serious", async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, { all_series: { desktop: { mode: 'webtoon' } } });
  await useSession(page, user);
  await page.setViewportSize({ width: 1366, height: 900 });
  const widths: number[] = [];
  page.on('request', (r) => {
    const width = new URL(r.url()).searchParams.get('width');
    if (r.url().includes('/pages/') && width) widths.push(Number(width));
  });
  await page.goto(`/books/${lib.books['Webtoon one']!.id}/read`);
  const strip = page.locator('.reader-strip');
  const stage = page.locator('.reader-stage');
  await expect(page.locator('.reader-strip img').first()).toBeVisible();
  await expect(page.locator('.reader-strip .reader-slot.loading')).toHaveCount(0);

  // The pages are 200 px wide: drawn at 200 px in the middle of the window, not stretched to its 1366 px.
  const stageWidth = await stage.evaluate((el) => (el as unknown as { clientWidth: number }).clientWidth);
  const column = (await strip.boundingBox())!;
  expect(column.width).toBe(200);
  expect(Math.abs(column.x - (stageWidth - column.x - column.width))).toBeLessThanOrEqual(2);
  // Asked from the server at the size drawn.
  expect(widths.length).toBeGreaterThan(0);
  expect(Math.max(...widths)).toBeLessThanOrEqual(200);
  // A page's height follows its width: the first (200 × 300) is 300 px tall, not 3.4 times that.
  expect(
    await page
      .locator('.reader-strip .reader-slot')
      .first()
      .evaluate((el) => (el as unknown as { clientHeight: number }).clientHeight),
  ).toBe(300);

  // The scrolling strip can be reached by the keyboard (axe's scrollable-region-focusable) and is named.
  await expectNoSeriousA11yViolations(page);
  await page.keyboard.press('Tab');
  await expect(page.getByRole('group', { name: 'Pages' })).toBeFocused();
  const scrollTop = () => stage.evaluate((el) => (el as unknown as { scrollTop: number }).scrollTop);
  let top = await scrollTop();
  for (const key of ['ArrowDown', 'PageDown', 'Space']) {
    await page.keyboard.press(key);
    await expect.poll(scrollTop).toBeGreaterThan(top);
    top = await scrollTop();
  }
  await page.keyboard.press('ArrowUp');
  await expect.poll(scrollTop).toBeLessThan(top);
  await page.keyboard.press('End');
  await expect(status(page)).toHaveText('Page 40 of 40');
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: /End of/ })).toHaveCount(0);

  // Fit width: the full width of the window.
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByRole('dialog', { name: 'Reader settings' }).getByLabel('Fit').selectOption('width');
  await page.keyboard.press('Escape');
  await expect.poll(async () => (await strip.boundingBox())!.width).toBeGreaterThanOrEqual(stageWidth - 20);
  expect((await strip.boundingBox())!.width).toBeLessThanOrEqual(1366);
});

test('the page number shows for a moment after each turn, then goes; it takes no focus and no click, and a setting turns it off', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  await page.goto(`/books/${book.id}/read`);
  await expectPages(page, [1]);
  const flash = page.getByTestId('page-flash');
  // Nothing on opening: only a turn shows it.
  await expect(flash).toBeHidden();
  const focusBefore = await focusedElement(page);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [2]);
  await expect(flash).toBeVisible();
  const shownAt = Date.now();
  await expect(flash).toHaveText('2 / 6');
  // Drawn only: screen readers hear the status line instead, and the focus stays where it was.
  await expect(flash).toHaveAttribute('aria-hidden', 'true');
  expect(await focusedElement(page)).toBe(focusBefore);
  // Gone after about a second and a half.
  await expect(flash).toBeHidden({ timeout: 5_000 });
  expect(Date.now() - shownAt).toBeGreaterThan(800);

  // A click where it is goes through to the page: the middle of the page opens the menu (which shows the position).
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [3]);
  await expect(flash).toHaveText('3 / 6');
  await expect(flash).toBeVisible();
  const box = (await flash.boundingBox())!;
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  await expect(page.getByRole('slider', { name: 'Page' })).toBeVisible();
  await expect(flash).toBeHidden();
  await page.keyboard.press('m');
  await expect(page.getByRole('slider', { name: 'Page' })).toHaveCount(0);

  // Reduced motion: no fade, it appears and then goes at once.
  await page.emulateMedia({ reducedMotion: 'reduce' });
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [4]);
  await expect(flash).toBeVisible();
  await expect(flash).not.toHaveClass(/\bshown\b/, { timeout: 5_000 });
  const gone = await flash.evaluate((el) => {
    const e = el as unknown as { getAnimations(): unknown[] };
    const style = (
      globalThis as unknown as { getComputedStyle(e: unknown): { visibility: string; transitionDuration: string } }
    ).getComputedStyle(el);
    return { animations: e.getAnimations().length, visibility: style.visibility, transition: style.transitionDuration };
  });
  // No transition: 0s, or the global reduced-motion rule's 0.01 ms (which still lets transition events fire).
  expect({ ...gone, transition: parseFloat(gone.transition) <= 0.00001 ? 'none' : gone.transition }).toEqual({
    animations: 0,
    visibility: 'hidden',
    transition: 'none',
  });
  await page.emulateMedia({ reducedMotion: 'no-preference' });

  // The reader settings turn it off, for this browser: it stays off after a reload.
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reader settings' });
  const setting = dialog.getByLabel('Show the page number after each turn (this browser)');
  await expect(setting).toBeChecked();
  await setting.uncheck();
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await page.keyboard.press('m');
  await expect(page.getByRole('slider', { name: 'Page' })).toHaveCount(0);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [5]);
  await page.waitForTimeout(300);
  await expect(flash).toBeHidden();
  await page.goto(`/books/${book.id}/read?page=2`);
  await expectPages(page, [2]);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [3]);
  await page.waitForTimeout(300);
  await expect(flash).toBeHidden();
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await expect(dialog.getByLabel('Show the page number after each turn (this browser)')).not.toBeChecked();
});

test("EPUB: the position (the book's percentage) shows for a moment after each turn", async ({ page, request }) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Novel one']!.id}/read`);
  await expect(status(page)).toHaveText(/Section 1 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 1'))).toBe(true);
  const flash = page.getByTestId('page-flash');
  await expect(flash).toBeHidden();
  await page.keyboard.press('ArrowRight');
  await expect(status(page)).toHaveText(/Section 2 of 5/);
  await expect(flash).toBeVisible();
  await expect(flash).toHaveText(/^\d+%$/);
  const percent = Number((await flash.textContent())!.replace('%', ''));
  expect(percent).toBeGreaterThan(0);
  await expect(flash).toBeHidden({ timeout: 5_000 });
});

test('zoom: a double click zooms in, then a swipe pans the page and never turns it', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  const box = (await page.locator('.reader-host').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.mouse.click(cx, cy);
  await page.mouse.click(cx, cy);
  await expect(page.locator('.reader-stage')).toHaveClass(/zoomed/);
  const before = await page.locator('.reader-view').evaluate((el) => (el as unknown as { style: { transform: string } }).style.transform);
  await page.mouse.move(cx + 200, cy);
  await page.mouse.down();
  await page.mouse.move(cx, cy, { steps: 5 });
  await page.mouse.move(cx - 200, cy, { steps: 5 });
  await page.mouse.up();
  const after = await page.locator('.reader-view').evaluate((el) => (el as unknown as { style: { transform: string } }).style.transform);
  expect(after).not.toBe(before);
  await expect(status(page)).toHaveText('Page 1 of 6');
  await expectPages(page, [1]);
  // Zoom by keys back to the fit, and a swipe turns again.
  await page.keyboard.press('0');
  await expect(page.locator('.reader-stage')).not.toHaveClass(/zoomed/);
  await page.mouse.move(cx + 200, cy);
  await page.mouse.down();
  await page.mouse.move(cx - 200, cy, { steps: 5 });
  await page.mouse.up();
  await expectPages(page, [2]);
});

test('@phone end of a book: the panel offers the next book of the series, and continue opens it at its start', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  await page.keyboard.press('End');
  await expectPages(page, [6]);
  // The last page completes the book.
  await expect
    .poll(async () => (await progressOf(request, user.token, lib.books['Paged one']!.id))?.is_completed, { timeout: 10_000 })
    .toBe(true);
  await page.keyboard.press('ArrowRight');
  const panel = page.getByRole('dialog', { name: /End of/ });
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('neighbour-title')).toHaveText(/#2/);
  // Continue has the focus (Enter takes it), and paging on with → continues too.
  await expect(panel.getByRole('button', { name: /Continue/ })).toBeFocused();
  await page.keyboard.press('ArrowRight');
  await expect(page).toHaveURL(new RegExp(`/books/${lib.books['Paged two']!.id}/read`));
  await expect(status(page)).toHaveText('Page 1 of 3');
  await expectPages(page, [1]);
});

test("a series longer than the API's largest page: its page lists every book, and the reader offers the 502nd after the 501st", async ({
  page,
  request,
}) => {
  const long = await longSeriesLibrary(request);
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/series/${long.seriesId}`);
  await expect(page.getByTestId('book-row')).toHaveCount(LONG_SERIES_BOOKS, { timeout: 15_000 });

  const book501 = long.books[500]!;
  expect(book501.number).toBe('501');
  await page.goto(`/books/${book501.id}/read`);
  await expectPages(page, [1]);
  // Its only page is its last: the next turn ends it.
  await page.keyboard.press('ArrowRight');
  const panel = page.getByRole('dialog', { name: /End of/ });
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('neighbour-title')).toHaveText(/502/);
  await panel.getByRole('button', { name: /Continue/ }).click();
  await expect(page).toHaveURL(new RegExp(`/books/${long.books[501]!.id}/read`));
});

test('@phone progress is saved as pages turn and resumed in another browser (another device)', async ({ page, request, browser }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  const failed = failedAnswers(page);
  await page.goto(`/books/${book.id}/read`);
  await expectPages(page, [1]);
  expect(failed).toEqual([]);
  // Opening a book alone records nothing.
  expect(await progressOf(request, user.token, book.id)).toBeNull();
  for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowRight');
  await expectPages(page, [4]);
  await expect.poll(async () => (await progressOf(request, user.token, book.id))?.current_page, { timeout: 10_000 }).toBe(4);

  const other = await newContextAs(browser, user);
  await other.page.goto(`/books/${book.id}`);
  await other.page.getByRole('link', { name: 'Continue reading' }).click();
  await expect(status(other.page)).toHaveText('Page 4 of 6');
  await expectPages(other.page, [4]);
  await other.context.close();
});

test('a page turn while the server is unreachable is kept and sent when it is back', async ({ page, request, context }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  await page.goto(`/books/${book.id}/read`);
  await expectPages(page, [1]);
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [3]);
  await context.setOffline(true);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [4]);
  await expect
    .poll(
      () =>
        page.evaluate(() =>
          (globalThis as unknown as { localStorage: { getItem(k: string): string | null } }).localStorage.getItem(
            'colophon.reader.pending-progress',
          ),
        ),
      { timeout: 10_000 },
    )
    .toContain('"current_page":4');
  // Said, small: the position waits to be sent.
  const unsaved = page.getByRole('status').filter({ hasText: 'Progress not saved yet' });
  await expect(unsaved).toBeVisible();
  await context.setOffline(false);
  await expect.poll(async () => (await progressOf(request, user.token, book.id))?.current_page, { timeout: 10_000 }).toBe(4);
  await expect(unsaved).toHaveCount(0);
});

test('a page turn kept while offline does not move back a position another device saved since', async ({ page, request, context }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  await page.goto(`/books/${book.id}/read`);
  await expectPages(page, [1]);
  await context.setOffline(true);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [2]);
  const unsaved = page.getByRole('status').filter({ hasText: 'Progress not saved yet' });
  await expect(unsaved).toBeVisible({ timeout: 10_000 });
  // Meanwhile another device reads on to page 5.
  const other = await request.put(`${serverUrl()}/api/v1/books/${book.id}/progress`, {
    headers: { Authorization: `Bearer ${user.token}` },
    data: { current_page: 5 },
  });
  expect(other.status()).toBe(200);
  await context.setOffline(false);
  // The queued page 2 is sent (and leaves the queue), but as what it is: older than page 5.
  await expect(unsaved).toHaveCount(0, { timeout: 10_000 });
  expect((await progressOf(request, user.token, book.id))?.current_page).toBe(5);
});

test('reader settings that cannot be loaded are said, with a way to try again; a setting that cannot be saved is said', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  const failing = apiFailure(503, 'Database unavailable');
  await page.route('**/api/v1/user/preferences', failing);
  await page.goto(`/books/${book.id}/read`);
  await expect(page.getByRole('alert')).toContainText('Database unavailable', { timeout: 15_000 });
  await expect(page.locator('.reader-view')).toHaveCount(0);
  await page.unroute('**/api/v1/user/preferences');
  await page.getByRole('button', { name: 'Try again' }).click();
  await expect(page.locator('.reader-view img').first()).toBeVisible();

  await page.route('**/api/v1/user/preferences/reader_settings', failing);
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Pages loaded ahead').fill('5');
  await expect(page.getByRole('status').filter({ hasText: 'Reader settings not saved: Database unavailable' })).toBeVisible();
});

test('a page that failed to load offers a retry, and is asked again when the browser is back online', async ({
  page,
  request,
  context,
}) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  const pages = new RegExp(`/api/v1/books/${book.id}/pages/`);
  await page.route(pages, (route) => route.abort('connectionrefused'));
  await page.goto(`/books/${book.id}/read`);
  const failed = page.locator('.reader-slot.failed');
  await expect(failed).toContainText('This page could not be loaded.');
  // The network comes back: the page is asked again by itself.
  await page.unroute(pages);
  await context.setOffline(true);
  await context.setOffline(false);
  await expectPages(page, [1]);

  // Failing again, then the server is back: "Try again" shows the page.
  await page.route(pages, (route) => route.abort('connectionrefused'));
  await page.reload();
  await expect(failed).toContainText('This page could not be loaded.');
  await page.unroute(pages);
  await failed.getByRole('button', { name: 'Try again' }).click();
  await expectPages(page, [1]);
});

test('incognito reads without saving anything', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  await page.goto(`/books/${book.id}/read`);
  await expectPages(page, [1]);
  await page.keyboard.press('m');
  await page.getByLabel('Incognito').check();
  await page.keyboard.press('m');
  for (let i = 0; i < 5; i++) await page.keyboard.press('ArrowRight');
  await expectPages(page, [6]);
  await page.goto('/');
  await page.waitForTimeout(2500);
  expect(await progressOf(request, user.token, book.id)).toBeNull();
});

test('settings follow the user to another browser; "all series" applies everywhere, "this series" only here', async ({
  page,
  request,
  browser,
}) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'ltr');
  await expect(page.locator('.reader-view img').first()).toBeVisible();
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('All series (apply to all)').check();
  await page.getByLabel('Reading mode').selectOption('vertical');
  await page.getByLabel('This series').check();
  await page.getByLabel('Pages loaded ahead').fill('5');
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'vertical');
  await expect
    .poll(async () => {
      const prefs = (await (
        await request.get(`${serverUrl()}/api/v1/user/preferences`, { headers: { Authorization: `Bearer ${user.token}` } })
      ).json()) as Array<{ key: string; value: unknown }>;
      return JSON.stringify(prefs.find((p) => p.key === 'reader_settings')?.value);
    })
    .toContain('"preload":5');

  const other = await newContextAs(browser, user);
  await other.page.goto(`/books/${lib.books['Spreads one']!.id}/read`);
  await expect(other.page.locator('.reader')).toHaveAttribute('data-mode', 'vertical');
  await other.page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expect(other.page.locator('.reader-view img').first()).toBeVisible();
  await other.page.keyboard.press('m');
  await other.page.getByRole('button', { name: 'Settings' }).click();
  await expect(other.page.getByLabel('Pages loaded ahead')).toHaveValue('5');
  await other.context.close();
});

test('the settings dialog and the incognito switch: each checkbox or radio at its own size, beside its label', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expect(page.locator('.reader-view img').first()).toBeVisible();
  await page.keyboard.press('m');
  const besideItsLabel = async (control: import('@playwright/test').Locator, label: import('@playwright/test').Locator) => {
    const c = (await control.boundingBox())!;
    const l = (await label.boundingBox())!;
    expect(c.width).toBeLessThan(30);
    expect(c.height).toBeLessThan(30);
    // On the label's line, not above or below it.
    expect(Math.abs(c.y + c.height / 2 - (l.y + l.height / 2))).toBeLessThan(12);
  };
  await besideItsLabel(page.getByLabel('Incognito'), page.locator('.reader-toggle'));
  await page.getByRole('button', { name: 'Settings' }).click();
  const dialog = page.getByRole('dialog', { name: 'Reader settings' });
  await besideItsLabel(dialog.getByLabel('This series'), dialog.locator('.scope label').first());
  await besideItsLabel(dialog.getByLabel(/^E-ink mode/), dialog.locator('.reader-field').filter({ hasText: 'E-ink mode' }));
  // A select sits on its label's line too.
  const mode = (await dialog.getByLabel('Reading mode').boundingBox())!;
  const modeRow = (await dialog.locator('.reader-field').filter({ hasText: 'Reading mode' }).boundingBox())!;
  expect(mode.height).toBeGreaterThan(modeRow.height / 2);
});

test('e-ink mode: no transitions, paged only, high contrast, grey pages from the server', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, { all_series: { eink: { grayscale: true, mode: 'webtoon' } } });
  await useSession(page, user);
  const greyRequests: string[] = [];
  page.on('request', (r) => r.url().includes('grayscale=true') && greyRequests.push(r.url()));
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expect(page.locator('.reader-view img').first()).toBeVisible();
  await page.keyboard.press('m');
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('E-ink mode (no animation, paged, high contrast)').check();
  await expect(page.locator('.reader')).toHaveClass(/eink/);
  // Webtoon (chosen for e-ink above) becomes vertical paging.
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'vertical');
  await expect(page.getByRole('option', { name: 'Webtoon (continuous scroll)' })).toBeDisabled();
  await page.keyboard.press('Escape');
  const styles = await page.locator('.reader-bar.top').evaluate((el) => {
    const s = (
      globalThis as unknown as { getComputedStyle(e: unknown): { transitionDuration: string; backgroundColor: string; color: string } }
    ).getComputedStyle(el);
    return { transition: s.transitionDuration, background: s.backgroundColor, color: s.color };
  });
  expect(styles).toEqual({ transition: '0s', background: 'rgb(255, 255, 255)', color: 'rgb(0, 0, 0)' });
  await expect.poll(() => greyRequests.length).toBeGreaterThan(0);
  // The page on screen once the grey image has replaced the coloured one (no image while it is on its way).
  const greyness = () =>
    page.evaluate(() => {
      const doc = (globalThis as unknown as { document: { querySelector(s: string): unknown; createElement(t: string): unknown } })
        .document;
      const img = doc.querySelector('.reader-view img') as { naturalWidth: number; naturalHeight: number } | null;
      if (!img) return 255;
      const canvas = doc.createElement('canvas') as {
        width: number;
        height: number;
        getContext(k: string): {
          drawImage(...a: unknown[]): void;
          getImageData(x: number, y: number, w: number, h: number): { data: number[] };
        };
      };
      canvas.width = canvas.height = 1;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(img, img.naturalWidth / 2, img.naturalHeight / 2, 1, 1, 0, 0, 1, 1);
      const [r, g, b] = ctx.getImageData(0, 0, 1, 1).data;
      return Math.max(Math.abs(r! - g!), Math.abs(g! - b!));
    });
  await expect.poll(greyness).toBeLessThan(4);
  await page.evaluate(() =>
    (globalThis as unknown as { localStorage: { removeItem(k: string): void } }).localStorage.removeItem('colophon.reader.eink'),
  );
});

test('@phone a PDF is read as pages', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['file:Paper 001.pdf']!.id}/read`);
  // The first PDF page also starts the server's rendering workers.
  await expect(page.locator('.reader-view img')).toHaveAttribute('data-page', '1', { timeout: 30_000 });
  await expect(status(page)).toHaveText('Page 1 of 3');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('.reader-view img')).toHaveAttribute('data-page', '2', { timeout: 20_000 });
  const size = await page.locator('.reader-view img').evaluate((el) => (el as unknown as { naturalWidth: number }).naturalWidth);
  expect(size).toBeGreaterThan(300);
});

test('@phone a fixed-layout image EPUB opens in the comic reader', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Pictures one']!.id}/read`);
  await expect(page.locator('.comic-reader')).toBeVisible();
  await expect(page.locator('.reader-view img')).toHaveAttribute('data-page', '1');
  await expect(status(page)).toHaveText('Page 1 of 3');
  await page.keyboard.press('ArrowRight');
  await expect(page.locator('.reader-view img')).toHaveAttribute('data-page', '2');
});

test('the key map opens with ? and Esc leaves the reader for the book page', async ({ page, request }) => {
  const user = await newReader(request);
  await useSession(page, user);
  const book = lib.books['Paged one']!;
  await page.goto(`/books/${book.id}/read`);
  await expect(status(page)).toHaveText(/Page 1|Pages 1/);
  await page.keyboard.press('?');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeVisible();
  await page.keyboard.press('Escape');
  await expect(page.getByRole('dialog', { name: 'Keyboard shortcuts' })).toBeHidden();
  await page.keyboard.press('Escape');
  await expect(page).toHaveURL(new RegExp(`/books/${book.id}$`));
});

/** The text and background of the EPUB chapter on screen (foliate draws chapters in frames inside a closed shadow root). */
async function chapterFrames(page: import('@playwright/test').Page): Promise<Array<{ text: string; background: string }>> {
  const out: Array<{ text: string; background: string }> = [];
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const info = await frame
      .evaluate(() => {
        const g = globalThis as unknown as {
          document: { body: { innerText: string } | null; documentElement: unknown };
          getComputedStyle(e: unknown): { backgroundColor: string };
        };
        return { text: g.document.body?.innerText ?? '', background: g.getComputedStyle(g.document.documentElement).backgroundColor };
      })
      .catch(() => null);
    if (info) out.push(info);
  }
  return out;
}

test('@phone EPUB: opened, paged, themed, its locator saved and resumed in another browser', async ({ page, request, browser }) => {
  const user = await newReader(request);
  await useSession(page, user);
  const book = lib.books['Novel one']!;
  const failed = failedAnswers(page);
  await page.goto(`/books/${book.id}/read`);
  await expect(status(page)).toHaveText(/Section 1 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 1'))).toBe(true);
  expect(failed).toEqual([]);
  await page.keyboard.press('ArrowRight');
  await expect(status(page)).toHaveText(/Section 2 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 2'))).toBe(true);
  await page.getByRole('button', { name: 'Next page' }).click();
  await expect(status(page)).toHaveText(/Section 3 of 5/);

  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Theme').selectOption('dark');
  await page.getByLabel('Text size (%)').fill('150');
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(page.locator('.epub-reader')).toHaveAttribute('data-theme', 'dark');
  await expect.poll(async () => (await chapterFrames(page)).find((f) => f.text.includes('Chapter 3'))?.background).toBe('rgb(18, 18, 18)');

  await expect
    .poll(
      async () => {
        const res = await request.get(`${serverUrl()}/api/v1/books/${book.id}/progress/locator`, {
          headers: { Authorization: `Bearer ${user.token}` },
        });
        return res.ok() ? ((await res.json()) as { locator: { href: string } | null }).locator?.href : null;
      },
      { timeout: 10_000 },
    )
    .toBe('OEBPS/chapter3.xhtml');

  const other = await newContextAs(browser, user);
  await other.page.goto(`/books/${book.id}/read`);
  await expect(status(other.page)).toHaveText(/Section 3 of 5/);
  // The theme followed too (settings are the account's).
  await expect(other.page.locator('.epub-reader')).toHaveAttribute('data-theme', 'dark');
  await other.context.close();
});

test('a saved position that cannot be read is said, and the book is not opened at its start over it', async ({ page, request }) => {
  const user = await newReader(request);
  await useSession(page, user);
  const book = lib.books['Novel one']!;
  const saved = await request.put(`${serverUrl()}/api/v1/books/${book.id}/progress/locator`, {
    headers: { Authorization: `Bearer ${user.token}` },
    data: { locator: { href: 'OEBPS/chapter3.xhtml' }, percentage: 0.5 },
  });
  expect(saved.status()).toBe(200);
  await page.route(`**/api/v1/books/${book.id}/progress/locator`, apiFailure(500, 'Position store unavailable', 'GET'));
  await page.goto(`/books/${book.id}/read`);
  await expect(page.getByRole('alert')).toContainText('Position store unavailable');
  await expect(page.locator('.epub-reader')).toHaveCount(0);
  expect((await progressOf(request, user.token, book.id))?.current_page).toBe(3);
});

test('@phone EPUB: paging on from the last page by keys opens the end panel; taps turn in the outer thirds, the middle opens the menu', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Novel one']!.id}/read`);
  await expect(status(page)).toHaveText(/Section 1 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 1'))).toBe(true);
  // A tap a third of the way in from the right edge turns the page.
  const box = (await page.locator('.epub-host').boundingBox())!;
  const tap = async (fx: number) => {
    const x = box.x + box.width * fx;
    const y = box.y + box.height / 2;
    if (test.info().project.use.hasTouch) await page.touchscreen.tap(x, y);
    else await page.mouse.click(x, y);
  };
  if (test.info().project.use.hasTouch) {
    await tap(0.75);
    await expect(status(page)).toHaveText(/Section 2 of 5/);
    await tap(0.5);
    await expect(page.getByRole('button', { name: 'Settings' })).toBeVisible();
    await tap(0.5);
    await expect(page.getByRole('button', { name: 'Settings' })).toHaveCount(0);
    await tap(0.25);
    await expect(status(page)).toHaveText(/Section 1 of 5/);
    // The tapped turn button keeps the focus, and Space on a focused button presses it: keys go to the page.
    await page.evaluate(() =>
      (globalThis as unknown as { document: { activeElement: { blur(): void } | null } }).document.activeElement?.blur(),
    );
  }
  await page.keyboard.press('End');
  await expect(status(page)).toHaveText(/^100%/);
  for (const key of ['PageDown', ' ', 'ArrowRight']) {
    await page.keyboard.press(key);
    const panel = page.getByRole('dialog', { name: /End of/ });
    await expect(panel).toBeVisible();
    await expect(panel).toContainText('This is the last book of the series.');
    await panel.getByRole('button', { name: 'Stay here' }).click();
    await expect(panel).toHaveCount(0);
  }
});

test('EPUB: a second page turn asked while the first is under way is not lost', async ({ page, request }) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Novel one']!.id}/read`);
  await expect(status(page)).toHaveText(/Section 1 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 1'))).toBe(true);
  // Two presses in quick succession: foliate is still turning to section 2 when the second arrives.
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  await expect(status(page)).toHaveText(/Section 3 of 5/);
  await expect.poll(async () => (await chapterFrames(page)).some((f) => f.text.includes('Chapter 3'))).toBe(true);
  await expect(status(page)).toHaveText(/Section 3 of 5/);
});

test('zoom by Ctrl+wheel: in at the pointer, back out to the fit; a plain wheel neither zooms nor turns', async ({ page, request }) => {
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  const stage = page.locator('.reader-stage');
  const box = (await page.locator('.reader-host').boundingBox())!;
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.keyboard.down('Control');
  await page.mouse.wheel(0, -200);
  await expect(stage).toHaveClass(/zoomed/);
  expect(Number(await stage.getAttribute('data-zoom'))).toBeGreaterThan(1.5);
  await page.mouse.wheel(0, 400);
  await page.keyboard.up('Control');
  await expect(stage).not.toHaveClass(/zoomed/);
  await page.mouse.wheel(0, -200);
  await page.keyboard.press('ArrowRight');
  await expectPages(page, [2]);
  await expect(stage).not.toHaveClass(/zoomed/);
});

/** Touches through the DevTools protocol: Playwright's touchscreen has one finger, a pinch needs two. */
async function touchGesture(
  page: import('@playwright/test').Page,
  from: Array<[number, number]>,
  to: Array<[number, number]>,
  steps = 6,
): Promise<void> {
  const cdp = await page.context().newCDPSession(page);
  const box = (await page.locator('.reader-host').boundingBox())!;
  const at = (points: Array<[number, number]>, share: number) =>
    points.map(([fx, fy], id) => {
      const [tx, ty] = to[id]!;
      return { x: box.x + box.width * (fx + (tx - fx) * share), y: box.y + box.height * (fy + (ty - fy) * share), id };
    });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(from, 0) });
  for (let s = 1; s <= steps; s++) await cdp.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(from, s / steps) });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await cdp.detach();
}

test('@phone touch: a swipe turns the page; a pinch zooms, and while zoomed a swipe pans and never turns', async ({ page, request }) => {
  test.skip(!test.info().project.use.hasTouch, 'a touch screen');
  const user = await newReader(request);
  await setReaderSettings(request, user.token, single);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read`);
  await expectPages(page, [1]);
  await touchGesture(page, [[0.8, 0.5]], [[0.2, 0.5]]);
  await expectPages(page, [2]);
  await touchGesture(page, [[0.2, 0.5]], [[0.8, 0.5]]);
  await expectPages(page, [1]);

  const stage = page.locator('.reader-stage');
  await touchGesture(
    page,
    [
      [0.45, 0.5],
      [0.55, 0.5],
    ],
    [
      [0.2, 0.5],
      [0.8, 0.5],
    ],
  );
  await expect(stage).toHaveClass(/zoomed/);
  expect(Number(await stage.getAttribute('data-zoom'))).toBeGreaterThan(2);
  const transform = () =>
    page.locator('.reader-view').evaluate((el) => (el as unknown as { style: { transform: string } }).style.transform);
  const before = await transform();
  await touchGesture(page, [[0.7, 0.5]], [[0.3, 0.5]]);
  await expect.poll(transform).not.toBe(before);
  await expect(stage).toHaveClass(/zoomed/);
  await expect(status(page)).toHaveText('Page 1 of 6');
  await expectPages(page, [1]);
});

/** Style of the EPUB chapter frame showing `text`: its font, text size and whether it is laid out in columns (pages). */
async function chapterStyle(page: import('@playwright/test').Page, text: string) {
  for (const frame of page.frames()) {
    if (frame === page.mainFrame()) continue;
    const style = await frame
      .evaluate((wanted) => {
        const g = globalThis as unknown as {
          document: { body: { innerText: string } | null; documentElement: unknown };
          getComputedStyle(e: unknown): { fontFamily: string; fontSize: string; columnWidth: string };
        };
        if (!g.document.body?.innerText.includes(wanted)) return null;
        const body = g.getComputedStyle(g.document.body);
        return {
          font: body.fontFamily,
          size: parseFloat(body.fontSize),
          columns: g.getComputedStyle(g.document.documentElement).columnWidth,
        };
      }, text)
      .catch(() => null);
    if (style) return style;
  }
  return null;
}

test('EPUB: the table of contents goes to a chapter; scrolled layout, font family and text size apply to the text', async ({
  page,
  request,
}) => {
  const user = await newReader(request);
  await useSession(page, user);
  await page.goto(`/books/${lib.books['Guide one']!.id}/read`);
  await expect(status(page)).toHaveText(/Chapter 1/);
  await page.getByRole('button', { name: 'Menu' }).click();
  await page.getByRole('button', { name: 'Contents' }).click();
  await page.getByRole('dialog', { name: 'Contents' }).getByRole('button', { name: 'Chapter 3' }).click();
  await expect(status(page)).toHaveText(/Chapter 3/);
  await expect.poll(async () => (await chapterStyle(page, 'Chapter 3'))?.columns).not.toBe('auto');
  const before = (await chapterStyle(page, 'Chapter 3'))!;

  await page.getByRole('button', { name: 'Settings' }).click();
  await page.getByLabel('Layout').selectOption('scrolled');
  await page.locator('#setting-epub_font').selectOption('monospace');
  await page.getByLabel('Text size (%)').fill('200');
  await page.getByRole('button', { name: 'Close' }).click();
  await expect(page.locator('.epub-reader')).toHaveAttribute('data-flow', 'scrolled');
  await expect.poll(async () => (await chapterStyle(page, 'Chapter 3'))?.font).toContain('monospace');
  const after = (await chapterStyle(page, 'Chapter 3'))!;
  expect(after.columns).toBe('auto');
  expect(after.size).toBeGreaterThan(before.size * 1.5);
  await expect(status(page)).toHaveText(/Chapter 3/);
});

test('README screenshots: a comic page, a double-page spread, webtoon, an EPUB', async ({ page, request }) => {
  test.skip(!!test.info().project.use.hasTouch, 'taken on the desktop');
  const docs = path.resolve(import.meta.dirname, '../../docs/screenshots');
  const user = await newReader(request);
  await useSession(page, user);
  await page.setViewportSize({ width: 1280, height: 800 });
  const settled = () => expect(page.locator('.reader-slot.loading')).toHaveCount(0);

  await setReaderSettings(request, user.token, single);
  await page.goto(`/books/${lib.books['Paged one']!.id}/read?page=2`);
  await expectPages(page, [2]);
  await page.keyboard.press('m');
  await expect(page.getByRole('slider', { name: 'Page' })).toBeVisible();
  await page.screenshot({ path: path.join(docs, 'reader-page.png') });

  await setReaderSettings(request, user.token, { all_series: { desktop: { spread: 'double' } } });
  await page.goto(`/books/${lib.books['Spreads one']!.id}/read?page=2`);
  await expectPages(page, [2, 3]);
  await settled();
  await page.screenshot({ path: path.join(docs, 'reader-double.png') });

  await setReaderSettings(request, user.token, { all_series: { desktop: { mode: 'webtoon', padding: 25 } } });
  await page.goto(`/books/${lib.books['Webtoon one']!.id}/read?page=3`);
  await expect(status(page)).toHaveText(/Page 3 of 40/);
  await expect(page.locator('.reader-strip img').first()).toBeVisible();
  await settled();
  await page.screenshot({ path: path.join(docs, 'reader-webtoon.png') });

  await setReaderSettings(request, user.token, { all_series: { desktop: { epub_theme: 'sepia' } } });
  await page.goto(`/books/${lib.books['Guide one']!.id}/read`);
  await expect(status(page)).toHaveText(/Chapter 1/);
  await expect.poll(async () => (await chapterStyle(page, 'Chapter 1'))?.font).toBeTruthy();
  await page.screenshot({ path: path.join(docs, 'reader-epub.png') });
});
