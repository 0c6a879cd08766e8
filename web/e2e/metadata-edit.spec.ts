import { AxeBuilder } from '@axe-core/playwright';
import type { Locator, Page } from '@playwright/test';
import { expect, signIn, test } from './fixtures.js';

/** The SHA-256 of the picture an <img> shows (covers are blob: URLs fetched with the session). */
async function pictureOf(img: Locator): Promise<string> {
  await expect(img).toHaveAttribute('src', /^blob:/);
  // Drawn on a canvas (the page's policy keeps fetch away from blob: URLs).
  return img.evaluate(async (el: HTMLImageElement) => {
    await el.decode();
    const canvas = document.createElement('canvas');
    canvas.width = el.naturalWidth;
    canvas.height = el.naturalHeight;
    const context = canvas.getContext('2d')!;
    context.drawImage(el, 0, 0);
    const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
    const digest = await crypto.subtle.digest('SHA-256', pixels);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  });
}

async function expectNoSeriousViolations(page: Page, include: string) {
  const results = await new AxeBuilder({ page }).include(include).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

const sagaCard = (page: Page) => page.getByTestId('series-card').filter({ hasText: 'Saga' });

test('pick a page as the series cover: the grid shows it; undo from the history list puts it all back', async ({ page }) => {
  await signIn(page);
  await page.goto('/libraries');
  const before = await pictureOf(sagaCard(page).locator('img'));

  await sagaCard(page).click();
  await expect(page.getByRole('heading', { name: 'Saga', level: 1 })).toBeVisible();
  await page.getByRole('button', { name: 'Change cover…' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cover of Saga' });
  await expect(dialog.getByRole('status')).toContainText('Now: The generated cover');
  await expectNoSeriousViolations(page, '.cover-picker');
  // Keyboard: the page buttons are reachable and pressed with Enter.
  await dialog.getByRole('button', { name: 'Page 2' }).focus();
  await page.keyboard.press('Enter');
  await expect(dialog.getByRole('status')).toContainText('Now: Page 2 of');
  await expect(dialog.getByRole('button', { name: 'Page 2' })).toHaveAttribute('aria-pressed', 'true');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);

  // Back in the app (not a reload): the covers on screen were told to revalidate.
  await page.goBack();
  const chosen = await pictureOf(sagaCard(page).locator('img'));
  expect(chosen).not.toBe(before);

  // Undo from the history list: the generated cover is back, in the grid too.
  await sagaCard(page).click();
  await page.getByText('History of changes').click();
  const history = page.getByRole('list', { name: 'Changes, newest first' });
  await expect(history.getByRole('listitem').first()).toContainText('Cover: the generated cover → page 2');
  await history.getByRole('button', { name: 'Undo the change of Cover' }).first().click();
  await expect(history.getByRole('listitem').first()).toContainText('Cover: page 2 → the generated cover');
  await page.goBack();
  await expect.poll(() => pictureOf(sagaCard(page).locator('img'))).toBe(before);
});

test('edit a series (title, genre, right to left): the reader opens right to left; undo puts it all back', async ({ page }) => {
  await signIn(page);
  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Bone' }).click();
  await expect(page.getByRole('heading', { name: 'Bone', level: 1 })).toBeVisible();

  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Bone' });
  await dialog.getByLabel('Title', { exact: true }).fill('Bone, edited');
  await expect(dialog.getByRole('button', { name: 'Lock Title', exact: true })).toHaveAttribute('aria-pressed', 'true');
  await dialog.getByLabel('Reading direction').selectOption('rtl');
  await dialog.getByLabel('Genres', { exact: true }).fill('Comedy');
  await dialog.getByLabel('Genres', { exact: true }).press('Enter');
  await expect(dialog.getByRole('row', { name: 'Comedy' })).toBeVisible();
  await expectNoSeriousViolations(page, '.edit-metadata');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  await expect(page.getByRole('heading', { name: 'Bone, edited', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Comedy' })).toBeVisible();

  // The reader takes the series' direction.
  await page.getByRole('link', { name: /^(Start|Continue): / }).click();
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'rtl');
  await page.goBack();

  // Undo from the history: the title, the genre and the direction come back, and the reader is left to right again.
  await page.getByText('History of changes').click();
  const history = page.getByRole('list', { name: 'Changes, newest first' });
  await expect(history.getByRole('button', { name: 'Undo the change of Reading direction' })).toBeVisible();
  // One edit is one change: undoing its title undoes it all.
  await history.getByRole('button', { name: 'Undo the change of Title' }).click();
  await expect(page.getByRole('heading', { name: 'Bone', level: 1 })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Comedy' })).toHaveCount(0);
  await page.getByRole('link', { name: /^(Start|Continue): / }).click();
  await expect(page.locator('.reader')).toHaveAttribute('data-mode', 'ltr');
});

test('links and alternate titles in the Edit dialog, shown on the series page; renumber two books from the grid, and undo', async ({
  page,
}) => {
  await signIn(page);
  await page.goto('/libraries');
  await page.getByTestId('series-card').filter({ hasText: 'Akira' }).click();
  await page.getByRole('button', { name: 'Edit', exact: true }).click();
  const dialog = page.getByRole('dialog', { name: 'Edit Akira' });
  await dialog.getByRole('button', { name: 'Add link' }).click();
  await dialog.getByLabel('Link 1 label').fill('Publisher');
  await dialog.getByLabel('Link 1 web address').fill('kodansha.us/akira');
  await dialog.getByRole('button', { name: 'Add alternate title' }).click();
  await dialog.getByLabel('Alternate title 1 label').fill('Japanese');
  await dialog.getByLabel('Alternate title 1 title').fill('アキラ');
  await expect(dialog.getByRole('button', { name: 'Lock Links' })).toHaveAttribute('aria-pressed', 'true');
  // An address that is not a web address is said in words, and nothing is sent.
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog.getByRole('alert')).toContainText('"kodansha.us/akira" is not a web address');
  await dialog.getByLabel('Link 1 web address').fill('https://kodansha.us/akira');
  await dialog.getByRole('button', { name: 'Save' }).click();
  await expect(dialog).toHaveCount(0);
  const link = page.getByRole('list', { name: 'Links' }).getByRole('link', { name: 'Publisher' });
  await expect(link).toHaveAttribute('href', 'https://kodansha.us/akira');
  await expect(link).toHaveAttribute('rel', /noopener/);
  await expect(page.getByText('Also known as: アキラ (Japanese)')).toBeVisible();
  await page.getByText('History of changes').click();
  await page.getByRole('list', { name: 'Changes, newest first' }).getByRole('button', { name: 'Undo the change of Links' }).first().click();
  await expect(page.getByRole('list', { name: 'Links' })).toHaveCount(0);

  // Renumber: the grid's order, changed with Move down; Apply, then Undo.
  await page.goto('/libraries?view=books');
  await page.getByRole('button', { name: 'Select', exact: true }).click();
  const akira = page.getByTestId('book-card').filter({ hasText: 'Akira chapter' });
  await akira.nth(0).click();
  await akira.nth(1).click();
  await page.getByRole('button', { name: 'Renumber…' }).click();
  const renumber = page.getByRole('dialog', { name: 'Renumber 2 books' });
  await renumber.getByLabel('Start at').fill('5');
  await renumber.getByRole('button', { name: /^Move down .*Akira chapter 1$/ }).click();
  await expect(renumber.getByRole('listitem')).toHaveText([/#5.*Akira chapter 2/, /#6.*Akira chapter 1/]);
  await renumber.getByRole('button', { name: 'Renumber', exact: true }).click();
  await expect(renumber.getByRole('status')).toHaveText('Renumbered 2 books.');
  await expect(akira).toHaveText([/#6 · Akira chapter 1/, /#5 · Akira chapter 2/]);
  await renumber.getByRole('button', { name: 'Undo', exact: true }).click();
  await expect(renumber.getByRole('status')).toHaveText('Undone: the books have their numbers back.');
  await expect(akira).toHaveText([/#1 · Akira chapter 1/, /#2 · Akira chapter 2/]);
});
