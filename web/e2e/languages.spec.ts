import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import PO from 'pofile';
import { ADMIN, expect, serverUrl, signIn, test } from './fixtures.js';

/**
 * The web app in other languages (issue 53): French and Arabic (right to left) on a phone — home, a series, the
 * reader's menu, the users of Administration — with no English left and no text cut off; the language chosen on the
 * sign-in page holds after signing in and on another device of the same person.
 */
const locales = path.resolve(import.meta.dirname, '../src/locales');
const shots = path.resolve(import.meta.dirname, '../../test-results/languages');

/** English messages of two words or more whose translation differs: none of them may show on a translated screen. */
function englishLeft(locale: string): string[] {
  const english = PO.parse(readFileSync(path.join(locales, 'en.po'), 'utf8'));
  const translated = new Map(
    PO.parse(readFileSync(path.join(locales, `${locale}.po`), 'utf8')).items.map((i) => [
      `${i.msgctxt ?? ''}\u0004${i.msgid}`,
      i.msgstr[0] ?? '',
    ]),
  );
  const phrases = new Set<string>();
  for (const item of english.items) {
    const other = translated.get(`${item.msgctxt ?? ''}\u0004${item.msgid}`);
    if (other === undefined || other.trim() === '' || other === item.msgid || /\{\w+,\s*(plural|select)/.test(item.msgid)) continue;
    // A message without variables whole (two words or more); around variables and tags, its runs of three words or more.
    if (/^[^{}<>]+$/.test(item.msgid)) {
      if (item.msgid.trim().split(/\s+/).length >= 2) phrases.add(item.msgid);
      continue;
    }
    for (const run of item.msgid.split(/\{[^}]*\}|<\/?\d+\/?>/)) {
      const words = run.trim();
      if (words.split(/\s+/).length >= 3 && !other.includes(words)) phrases.add(words);
    }
  }
  return [...phrases];
}

/** What is on the screen now: English messages left, and controls whose text is cut off. */
async function problemsOn(page: Page, english: readonly string[]): Promise<string[]> {
  const text = await page.locator('body').innerText();
  const left = english.filter((phrase) => text.includes(phrase)).map((phrase) => `English left: "${phrase}"`);
  const cut = await page.evaluate(() => {
    const found: string[] = [];
    for (const el of Array.from(document.querySelectorAll<HTMLElement>('button, a.button, label, h1, h2, h3, th, [role=tab]'))) {
      const style = getComputedStyle(el);
      if (el.offsetParent === null || style.visibility === 'hidden') continue;
      // Hidden on purpose for screen readers only (.visually-hidden: one clipped pixel): not cut off.
      if (el.clientWidth <= 2 || el.clientHeight <= 2) continue;
      const clipped = style.overflow === 'hidden' || style.overflowX === 'hidden' || style.textOverflow === 'ellipsis';
      if (clipped && el.scrollWidth > el.clientWidth + 1) found.push(`cut off: "${el.innerText.trim().slice(0, 60)}"`);
    }
    return found;
  });
  return [...left, ...cut];
}

async function firstBookAndSeries(page: Page, token: string): Promise<{ bookId: string; seriesId: string }> {
  const res = await page.request.get(`${serverUrl()}/api/v1/books?pageSize=1`, { headers: { authorization: `Bearer ${token}` } });
  const book = ((await res.json()) as { data: { id: string; series_id: string }[] }).data[0]!;
  return { bookId: book.id, seriesId: book.series_id };
}

for (const [locale, dir] of [
  ['fr', 'ltr'],
  ['ar', 'rtl'],
] as const) {
  test(`the app in ${locale} on a phone: home, series, reader menu, admin users — translated, nothing cut off`, async ({ page }) => {
    test.setTimeout(120_000);
    await page.setViewportSize({ width: 390, height: 844 });
    const token = await signIn(page);
    await page.addInitScript((language) => globalThis.localStorage.setItem('colophon.language', language), locale);
    const english = englishLeft(locale);
    expect(english.length).toBeGreaterThan(200);
    const { bookId, seriesId } = await firstBookAndSeries(page, token);
    const problems: string[] = [];
    const screen = async (name: string) => {
      await page.screenshot({ path: path.join(shots, `${locale}-${name}.png`), fullPage: false });
      problems.push(...(await problemsOn(page, english)).map((p) => `${name}: ${p}`));
    };

    await page.goto('/');
    await expect(page.locator('html')).toHaveAttribute('lang', locale);
    await expect(page.locator('html')).toHaveAttribute('dir', dir);
    await expect(page.getByTestId('series-card').first()).toBeVisible();
    await screen('home');

    await page.goto(`/series/${seriesId}`);
    await expect(page.getByTestId('book-row').first()).toBeVisible();
    await screen('series');

    await page.goto(`/books/${bookId}/read`);
    await expect(page.getByTestId('page-status')).toBeAttached();
    await page.keyboard.press('m');
    await screen('reader-menu');

    await page.goto('/admin/users');
    await expect(page.getByText(ADMIN.email).first()).toBeVisible();
    await screen('admin-users');

    expect(problems).toEqual([]);
  });
}

test('a language chosen on the sign-in page holds after signing in, and on another device for the same person', async ({
  page,
  browser,
}) => {
  // A person of their own, so that their language does not change the other tests' screens.
  const admin = await signIn(page);
  const username = `sprache${Date.now().toString(36)}`;
  const password = 'a long password for this test';
  const created = await page.request.post(`${serverUrl()}/api/v1/users`, {
    headers: { authorization: `Bearer ${admin}` },
    data: { username, email: `${username}@example.org`, password, role: 'reader' },
  });
  expect(created.status()).toBe(201);

  const device = await browser.newContext({ baseURL: serverUrl(), locale: 'en-US' });
  const first = await device.newPage();
  await first.goto('/sign-in');
  await expect(first.locator('html')).toHaveAttribute('lang', 'en');
  await first.getByLabel('Language').selectOption('de');
  await expect(first.locator('html')).toHaveAttribute('lang', 'de');
  await first.locator('input[name=username]').fill(username);
  await first.locator('input[name=password]').fill(password);
  await first.locator('button[type=submit]').click();
  await expect(first).toHaveURL(/\/$/);
  await expect(first.locator('html')).toHaveAttribute('lang', 'de');
  // The choice is the account's now.
  await expect
    .poll(async () => {
      const token = await first.evaluate(() => JSON.parse(globalThis.localStorage.getItem('colophon.session') ?? '{}').token as string);
      const prefs = await first.request.get(`${serverUrl()}/api/v1/user/preferences`, { headers: { authorization: `Bearer ${token}` } });
      return ((await prefs.json()) as { key: string; value: unknown }[]).find((p) => p.key === 'language')?.value;
    })
    .toBe('de');
  await device.close();

  // Another device, another browser language: signed in as the same person, the interface is German.
  const other = await browser.newContext({ baseURL: serverUrl(), locale: 'fr-FR' });
  const second = await other.newPage();
  await signIn(second, { ...ADMIN, username, password });
  await second.goto('/');
  await expect(second.locator('html')).toHaveAttribute('lang', 'de');
  await other.close();
});
