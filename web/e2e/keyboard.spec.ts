import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Locator, Page } from '@playwright/test';
import { makeCbz } from '../../test/media/fixtures.js';
import { expect, test } from './fixtures.js';
import { freshServer } from './fresh-server.js';

/** What has the focus, and whether it is drawn (an outline or a ring), read in the page. */
const focusState = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement as HTMLElement | null;
    if (!el || el === document.body) return { name: 'the page', drawn: true };
    const style = getComputedStyle(el);
    const drawn = (style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0) || style.boxShadow !== 'none';
    const name = el.getAttribute('aria-label') ?? (el.textContent ?? '').trim().slice(0, 40);
    return { name: `${el.tagName.toLowerCase()} "${name}"`, drawn };
  });

/**
 * Presses Tab (Shift+Tab backwards) until `target` has the focus; every element passed on the way must show that
 * it has it (visible focus), and the target must be reached (no trap before it).
 */
async function tabTo(page: Page, target: Locator, { backwards = false, max = 60 } = {}): Promise<void> {
  const handle = await target.elementHandle();
  if (!handle) throw new Error('the element to tab to is not on the screen');
  const passed: string[] = [];
  for (let presses = 0; presses < max; presses += 1) {
    if (await handle.evaluate((el) => el === document.activeElement)) {
      const here = await focusState(page);
      expect(here.drawn, `the focus on ${here.name} is visible`).toBe(true);
      return;
    }
    await page.keyboard.press(backwards ? 'Shift+Tab' : 'Tab');
    const state = await focusState(page);
    expect(state.drawn, `the focus on ${state.name} is visible (after ${passed.join(' → ')})`).toBe(true);
    passed.push(state.name);
  }
  throw new Error(`${max} presses of Tab did not reach the element: ${passed.join(' → ')}`);
}

/** Whether `locator` holds the focus now. */
const focused = (locator: Locator) => locator.evaluate((el) => el === document.activeElement);

// Issue 53: the whole first hour of a household, without a mouse: setup, a library, a series, ten pages read, the
// book marked read, the series' metadata edited and an API key made, on a server of its own (the setup wizard
// is a fresh server's first screen).
test('keyboard only: setup → library → series → ten pages → mark read → edit metadata → API key', async ({ browser }) => {
  test.setTimeout(150_000);
  const work = mkdtempSync(path.join(os.tmpdir(), 'colophon-e2e-keyboard-'));
  const library = path.join(work, 'library', 'Walks');
  mkdirSync(library, { recursive: true });
  await makeCbz(path.join(library, 'Harbour Walk'), 'Harbour Walk 001.cbz', {
    pages: 12,
    pageSize: { width: 300, height: 450 },
    comicInfo: { Series: 'Harbour Walk', Number: 1, Title: 'Low tide' },
  });
  const server = await freshServer(path.join(work, 'data'));
  const context = await browser.newContext({ baseURL: server.url });
  try {
    const page = await context.newPage();
    const keys = page.keyboard;

    // 1. The setup wizard.
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Create the administrator' })).toBeVisible();
    for (const [label, value] of [
      ['Username', 'keys'],
      ['E-mail', 'keys@example.org'],
      ['Password', 'typed on a keyboard'],
      ['Repeat the password', 'typed on a keyboard'],
    ] as const) {
      await tabTo(page, page.getByLabel(label, { exact: true }));
      await keys.type(value);
    }
    await tabTo(page, page.getByRole('button', { name: 'Create administrator' }));
    await keys.press('Enter');

    // 2. The first library: its folder typed, then added.
    await expect(page.getByRole('heading', { name: 'Add your first library' })).toBeVisible();
    await tabTo(page, page.getByLabel('Folder on the server'));
    await keys.type(library);
    await tabTo(page, page.getByRole('button', { name: 'Add library and scan it' }));
    await keys.press('Enter');
    await expect(page.getByRole('heading', { name: 'Your library is ready' })).toBeVisible({ timeout: 30_000 });

    // 3. The series, from the list of what the scan found.
    await tabTo(page, page.locator('.found-series').getByRole('link', { name: 'Harbour Walk', exact: true }));
    await keys.press('Enter');
    await expect(page.getByRole('heading', { name: 'Harbour Walk', level: 1 })).toBeVisible();

    // 4. Ten pages: each turn is said by the polite live region.
    await tabTo(page, page.getByRole('link', { name: /^Start: / }));
    await keys.press('Enter');
    const status = page.getByTestId('page-status');
    await expect(status).toHaveText('Page 1 of 12', { timeout: 15_000 });
    await expect(status).toHaveAttribute('aria-live', 'polite');
    await expect(status).toHaveAttribute('role', 'status');
    // A wide screen shows two pages at once ("Pages 2–3 of 12"): turn until ten more pages have been shown.
    const lastShown = async () => Number(/(\d+) of 12$/.exec((await status.textContent()) ?? '')?.[1] ?? 0);
    for (let turns = 0; (await lastShown()) < 11; turns += 1) {
      expect(turns, 'ten pages within ten turns').toBeLessThan(10);
      const before = await status.textContent();
      await keys.press('ArrowRight');
      await expect(status).not.toHaveText(before ?? '');
      await expect(status).toHaveText(/^Pages? \d+(\u2013\d+)? of 12$/);
    }
    // The reader's menu is reached without a pointer too, and Escape closes it before it closes the reader.
    await keys.press('m');
    const menuButton = page.getByRole('button', { name: /Reading settings|Settings/ }).first();
    await expect(menuButton).toBeVisible();
    await keys.press('m');
    await keys.press('Escape');

    // 5. Back on the book: mark it read.
    await expect(page).toHaveURL(/\/books\/[^/]+$/);
    await tabTo(page, page.getByRole('button', { name: 'Mark read' }));
    await keys.press('Enter');
    await expect(page.getByRole('button', { name: 'Mark unread' })).toBeVisible();

    // 6. The series' metadata, in a dialog that gives the focus back to what opened it.
    await tabTo(page, page.getByRole('link', { name: 'Harbour Walk', exact: true }).first(), { backwards: true });
    await keys.press('Enter');
    await expect(page.getByRole('heading', { name: 'Harbour Walk', level: 1 })).toBeVisible();
    const edit = page.getByRole('button', { name: 'Edit', exact: true });
    await tabTo(page, edit);
    await keys.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Edit Harbour Walk' });
    await expect(dialog).toBeVisible();
    // Escape closes it and the focus is back on Edit.
    await keys.press('Escape');
    await expect(dialog).toHaveCount(0);
    await expect.poll(() => focused(edit)).toBe(true);
    await keys.press('Enter');
    await expect(dialog).toBeVisible();
    expect(await dialog.evaluate((el) => el.contains(document.activeElement))).toBe(true);
    await tabTo(page, dialog.getByLabel('Title', { exact: true }));
    await keys.press('ControlOrMeta+a');
    await keys.type('Harbour Walk, by keyboard');
    await tabTo(page, dialog.getByRole('button', { name: 'Save' }));
    await keys.press('Enter');
    await expect(page.getByRole('heading', { name: 'Harbour Walk, by keyboard', level: 1 })).toBeVisible();
    await expect(dialog).toHaveCount(0);
    await expect.poll(() => focused(edit)).toBe(true);

    // 7. An API key, from the account screen reached through the header.
    await tabTo(page, page.getByRole('link', { name: 'keys, your account' }), { backwards: true });
    await keys.press('Enter');
    await tabTo(page, page.getByRole('navigation', { name: 'Account' }).getByRole('link', { name: 'API keys' }));
    await keys.press('Enter');
    await expect(page.getByRole('heading', { name: 'API keys' })).toBeVisible();
    await tabTo(page, page.getByLabel('Name', { exact: true }));
    await keys.type('E-reader');
    await tabTo(page, page.getByRole('button', { name: 'Create key' }));
    await keys.press('Enter');
    const created = page.getByRole('region', { name: 'New API key' });
    await expect(created.getByRole('heading', { name: 'Key \u201cE-reader\u201d created' })).toBeVisible();
    await expect(created.getByLabel('API key')).toHaveValue(/^colophon_[A-Za-z0-9]{8}_\S+$/);
  } finally {
    await context.close();
    await server.stop();
    rmSync(work, { recursive: true, force: true });
  }
});
