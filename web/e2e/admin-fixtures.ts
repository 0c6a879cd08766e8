import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import type { Page } from '@playwright/test';
import { makeCbz, makeImage } from '../../test/media/fixtures.js';
import { expect, libraryRoot, serverUrl } from './fixtures.js';

/**
 * A library big enough that its scan can be watched and cancelled while it runs: `series` folders of `books`
 * one-page CBZs (one shared page image, so building it takes a moment), plus two byte-identical copies of one
 * book (a duplicate group) and one damaged file (an analysis error).
 */
export async function makeBigLibrary(name: string, series = 100, books = 30): Promise<string> {
  const dir = path.join(libraryRoot(), name);
  const page = await makeImage({ width: 200, height: 300, format: 'jpeg', color: 'hsl(200, 60%, 50%)' });
  for (let s = 1; s <= series; s += 1) {
    const folder = path.join(dir, `Series ${String(s).padStart(3, '0')}`);
    mkdirSync(folder, { recursive: true });
    for (let n = 1; n <= books; n += 1) {
      await makeCbz(folder, `Series ${s} ${String(n).padStart(3, '0')}.cbz`, {
        pages: [{ name: 'p001.jpg', data: page }],
        comicInfo: { Series: `Series ${s}`, Number: n, Title: `Chapter ${n}` },
      });
    }
  }
  const extras = path.join(dir, 'Extras');
  mkdirSync(extras, { recursive: true });
  const original = await makeCbz(extras, 'Twin A.cbz', { pages: 2, comicInfo: { Series: 'Extras', Number: 1, Title: 'Twin' } });
  copyFileSync(original, path.join(extras, 'Twin B.cbz'));
  writeFileSync(path.join(extras, 'Broken.cbz'), Buffer.from('PK\u0003\u0004 this is not a zip archive at all'));
  return dir;
}

/** A library of one series of one two-page book: nothing in it for the duplicates or analysis-error checks. */
export async function makeSmallLibrary(name: string): Promise<string> {
  const folder = path.join(libraryRoot(), name, 'Solo');
  mkdirSync(folder, { recursive: true });
  await makeCbz(folder, 'Solo 001.cbz', { pages: 2, comicInfo: { Series: `Solo ${name}`, Number: 1, Title: 'One' } });
  return path.dirname(folder);
}

/** Creates a user over the API as the admin; returns its id. */
export async function createUserByApi(
  page: Page,
  adminToken: string,
  user: { username: string; password: string; role?: string },
): Promise<string> {
  const res = await page.request.post(`${serverUrl()}/api/v1/users`, {
    headers: { Authorization: `Bearer ${adminToken}` },
    data: { username: user.username, email: `${user.username}@example.org`, password: user.password, role: user.role ?? 'reader' },
  });
  expect(res.status()).toBe(201);
  return ((await res.json()) as { id: string }).id;
}

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectNoSeriousA11yViolations(page: Page): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const serious = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(' ')).join(', ')})`)).toEqual([]);
}

export const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
