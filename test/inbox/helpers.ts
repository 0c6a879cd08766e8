import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'vitest';
import { api, type CatalogTestApp } from '../scanner/helpers.js';
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
      '/api/v1/inbox/items?pageSize=500&status=review,duplicate,clash,damaged,filing,failed,filed,rejected',
    );
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    if (done(res.body.data)) return res.body.data;
    if (Date.now() > deadline)
      throw new Error(
        `${what}: not after ${timeoutMs} ms; items: ${JSON.stringify(res.body.data.map((i) => [i.file_name, i.status, i.proposed_path, i.book_id]))}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}
