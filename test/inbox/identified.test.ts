import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replayServer, routed, type ReplayServer } from '../helpers/replay-server.js';
import { makeCbz } from '../media/fixtures.js';
import { api, createCatalogApp, createLibrary, libraryDir, scan, type CatalogTestApp } from '../scanner/helpers.js';
import { addInbox, inboxDir, waitForItems } from './helpers.js';

/** MangaDex's real answer to a search for "Chainsaw Man" (test/fixtures/providers/SOURCES.md). */
const CHAINSAW = readFileSync(
  path.resolve(import.meta.dirname, '../fixtures/providers/mangadex/manga-list-title-chainsaw-man.json'),
  'utf8',
);
const CHAINSAW_ID = 'a77742b1-befd-49a4-bff5-1ad4e6b0ef7b';

/**
 * A file named by the English title, a series of the library named in Japanese: no name matches, but the series was
 * identified as the MangaDex work the file's title finds, so the file is proposed for it.
 */
describe('the inbox with online identification', { timeout: 90_000 }, () => {
  let replay: ReplayServer;
  let t: CatalogTestApp;
  let libraryId: string;
  let seriesId: string;
  const searched: string[] = [];

  beforeAll(async () => {
    replay = await replayServer(
      routed({
        mangadex: (url, _req, res) => {
          searched.push(url.searchParams.get('title') ?? '');
          res.writeHead(200, { 'content-type': 'application/json' }).end(CHAINSAW);
        },
      }),
    );
    t = await createCatalogApp({
      inbox: { quiet_seconds: 0.3, check_seconds: 1 },
      metadata: { providers: { mangadex: { base_url: `${replay.url}mangadex` } } },
    });
    const lib = libraryDir();
    await makeCbz(path.join(lib, '\u30c1\u30a7\u30f3\u30bd\u30fc\u30de\u30f3'), '\u30c1\u30a7\u30f3\u30bd\u30fc\u30de\u30f3 v01.cbz', {
      pages: 1,
    });
    libraryId = (await createLibrary(t, lib)).id;
    await scan(t, libraryId);
    seriesId = (await t.database.db.selectFrom('series').select('id').where('library_id', '=', libraryId).executeTakeFirstOrThrow()).id;
    // What identification leaves on a series it applied (external_ids), written here as it writes it.
    await t.database.db
      .updateTable('series')
      .set({ external_ids: JSON.stringify([{ provider: 'mangadex', id: CHAINSAW_ID, url: `https://mangadex.org/title/${CHAINSAW_ID}` }]) })
      .where('id', '=', seriesId)
      .execute();
    expect((await api(t, 'PUT', '/api/v1/metadata/providers/mangadex', { enabled: true })).status).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await replay?.close();
  });

  it('Chainsaw Man v02 goes to the series identified as that work, saying so', async () => {
    const inbox = inboxDir();
    await addInbox(t, inbox, libraryId);
    await makeCbz(inbox, 'Chainsaw Man v02 (2019) (Digital).cbz', { pages: 3 });
    const [item] = await waitForItems(t, (all) => all.length === 1 && all[0]!.status !== 'analysing', 'the file');
    expect(searched).toContain('Chainsaw Man');
    expect(item, JSON.stringify(item)).toMatchObject({ series_id: seriesId, status: 'review' });
    expect(String(item!.proposed_path), JSON.stringify(item)).toMatch(/^\u30c1\u30a7\u30f3\u30bd\u30fc\u30de\u30f3\//);
    expect(item!.reasons.join(' ')).toContain('Identified online as "Chainsaw Man" (mangadex)');
  });
});
