import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { makeCbz, makeImage } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { makeTempDir } from '../helpers/temp-dir.js';

export interface Item {
  id: string;
  folder_id: string;
  library_id: string;
  file_name: string;
  status: string;
  proposed_series: string | null;
  series_id: string | null;
  number: string | null;
  volume: number | null;
  proposed_path: string | null;
  reasons: string[];
  score: number;
  duplicate_of: string | null;
  moved_from: string | null;
  problem: string | null;
  book_id: string | null;
  filed_path: string | null;
  metadata: Record<string, unknown>;
}

export const TEMPLATE = '{series}/{series}[ v{volume:02}][ #{number:03}][ ({year})].{ext}';

/** A folder for an inbox, outside every library (under `root`, default a new temporary folder). */
export function inboxDir(root = makeTempDir('colophon-inbox-')): string {
  const dir = path.join(root, 'inbox');
  mkdirSync(dir, { recursive: true });
  return dir;
}

export async function addInbox(
  t: CatalogTestApp,
  dir: string,
  libraryId: string,
  extra: Record<string, unknown> = {},
): Promise<{ id: string }> {
  const res = await api<{ id: string }>(t, 'POST', '/api/v1/inbox/folders', {
    path: dir,
    library_id: libraryId,
    template: TEMPLATE,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

/** The queue's items (every status), polled until `done` says so. */
export async function waitForItems(t: CatalogTestApp, done: (items: Item[]) => boolean, what: string, timeoutMs = 60_000): Promise<Item[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await api<{ data: Item[] }>(
      t,
      'GET',
      '/api/v1/inbox/items?pageSize=500&status=analysing,review,duplicate,clash,damaged,filing,failed,filed,rejected',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    // An item still being analysed has no proposal yet: the queue is judged without it.
    const settled = res.body.data.filter((i) => i.status !== 'analysing');
    if (done(settled)) return settled;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not after ${timeoutMs} ms; items: ${JSON.stringify(res.body.data.map((i) => [i.file_name, i.status, i.proposed_path, i.book_id]))}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** An app on the engine under test, listening, with one library holding `Saga/Saga #001.cbz` (scanned). */
export async function sagaLibrary(
  quietSeconds: number,
): Promise<{ t: CatalogTestApp; base: string; lib: string; libraryId: string; page: Buffer }> {
  const t = await createCatalogApp({ inbox: { quiet_seconds: quietSeconds, check_seconds: 1 } });
  const page = await makeImage({ width: 8, height: 8, format: 'png' });
  const lib = libraryDir();
  mkdirSync(path.join(lib, 'Saga'));
  await makeCbz(path.join(lib, 'Saga'), 'Saga #001.cbz', {
    pages: [{ name: 'p.png', data: page }],
    comicInfo: { Series: 'Saga', Number: 1 },
  });
  const libraryId = (await createLibrary(t, lib)).id;
  await scan(t, libraryId);
  const base = await t.app.listen({ host: '127.0.0.1', port: 0 });
  return { t, base, lib, libraryId, page };
}
