import path from 'node:path';
import type { APIRequestContext } from '@playwright/test';
import { makeCbz } from '../../test/media/fixtures.js';
import { expectNoSeriousA11yViolations, unique } from './admin-fixtures.js';
import { expect, libraryRoot, serverUrl, signIn, test } from './fixtures.js';

/** Polls a task until it has finished; its final state. */
async function finished(request: APIRequestContext, headers: Record<string, string>, id: string): Promise<{ status: string }> {
  for (let i = 0; i < 200; i += 1) {
    const task = (await (await request.get(`${serverUrl()}/api/v1/tasks/${id}`, { headers })).json()) as { status: string };
    if (['completed', 'failed', 'cancelled'].includes(task.status)) return task;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`task ${id} did not finish`);
}

// MangaDex is the global setup's replay of its recorded answers (COLOPHON_METADATA__PROVIDERS__MANGADEX__BASE_URL).
test('a series from the review page: identified in the dialog, then undone', async ({ page }) => {
  const token = await signIn(page);
  const headers = { Authorization: `Bearer ${token}` };
  const name = unique('Manga ');
  const dir = path.join(libraryRoot(), name);
  // MangaDex lists the work and its fan-coloured edition under this English title: a person chooses (review).
  await makeCbz(path.join(dir, "[Scans] Komi Can't Communicate (Fan-Colored) v01-03 (Digital)"), 'Komi 01.cbz', { pages: 1 });
  expect((await page.request.put(`${serverUrl()}/api/v1/metadata/providers/mangadex`, { headers, data: { enabled: true } })).status()).toBe(
    200,
  );
  const library = (await (
    await page.request.post(`${serverUrl()}/api/v1/libraries`, {
      headers,
      data: { name, path: dir, scanning_config: { media_type: 'manga' } },
    })
  ).json()) as { id: string };
  try {
    const scan = (await (await page.request.post(`${serverUrl()}/api/v1/libraries/${library.id}/scan`, { headers })).json()) as {
      id: string;
    };
    expect((await finished(page.request, headers, scan.id)).status).toBe('completed');
    const identify = (await (
      await page.request.post(`${serverUrl()}/api/v1/libraries/${library.id}/identify`, { headers, data: { which: 'all' } })
    ).json()) as { id: string };
    expect((await finished(page.request, headers, identify.id)).status).toBe('completed');

    await page.setViewportSize({ width: 1366, height: 900 });
    await page.goto('/admin/metadata-review');
    const row = page.getByRole('listitem', { name: /Komi Can't Communicate/ });
    await expect(row).toContainText('Best: Komi');
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 1366, height: 900 });

    // Keyboard alone: the row takes focus, I opens Identify on it.
    await row.focus();
    await page.keyboard.press('i');
    const dialog = page.getByRole('dialog', { name: 'Identify series' });
    const candidates = dialog.getByRole('list', { name: 'Candidates' });
    const first = candidates.getByRole('listitem').first();
    await expect(first).toContainText('Komi');
    const chosenTitle = (await first.locator('strong').textContent()) ?? '';
    await expectNoSeriousA11yViolations(page);
    await first.getByRole('button', { name: 'Choose' }).click();
    await expect(dialog.getByRole('row', { name: /Title/ })).toContainText(chosenTitle);
    await dialog.getByRole('button', { name: /^Apply \d+ fields?$/ }).click();
    await expect(dialog.getByRole('status').filter({ hasText: 'Applied' })).toBeVisible();
    const series = (await (await page.request.get(`${serverUrl()}/api/v1/series?library_id=${library.id}`, { headers })).json()) as {
      data: { id: string; metadata: { title: string } }[];
    };
    expect(series.data[0]!.metadata.title).toBe(chosenTitle);

    await dialog.getByRole('button', { name: 'Undo' }).click();
    await expect(dialog.getByText('Undone: the series is as it was.')).toBeVisible();
    const after = (await (await page.request.get(`${serverUrl()}/api/v1/series/${series.data[0]!.id}`, { headers })).json()) as {
      metadata: { title: string };
    };
    expect(after.metadata.title).not.toBe(chosenTitle);
    await page.keyboard.press('Escape');
    await expect(dialog).toHaveCount(0);
    await page.getByRole('button', { name: /^Accepted/ }).click();
    await expect(page.getByRole('listitem', { name: /Komi Can't Communicate/ })).toBeVisible();

    // Administration → Metadata sources: MangaDex on, the keyed sources saying what they need, at both sizes.
    await page.goto('/admin/metadata-sources');
    const mangadex = page.getByRole('listitem', { name: 'MangaDex' });
    await expect(mangadex.getByRole('checkbox', { name: 'Turned on' })).toBeChecked();
    await expect(page.getByRole('listitem', { name: 'ComicVine' })).toContainText('API key — not set');
    await mangadex.getByRole('button', { name: 'Test connection' }).click();
    await expect(mangadex.getByRole('status').filter({ hasText: 'MangaDex answers' })).toBeVisible();
    await expectNoSeriousA11yViolations(page);
    await page.setViewportSize({ width: 360, height: 780 });
    await expectNoSeriousA11yViolations(page);
  } finally {
    await page.request.delete(`${serverUrl()}/api/v1/libraries/${library.id}`, { headers });
    await page.request.put(`${serverUrl()}/api/v1/metadata/providers/mangadex`, { headers, data: { enabled: false } });
  }
});
