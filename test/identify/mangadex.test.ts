import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ProviderClient } from '../../src/catalog/identify/client.js';
import { mangadex, mangaDexCandidate, mangaDexCandidates } from '../../src/catalog/identify/providers/mangadex.js';
import { folderTitle } from '../../src/catalog/identify/names.js';
import { decide, scoreCandidate } from '../../src/catalog/identify/score.js';
import { json, replayServer } from '../helpers/replay-server.js';

/** A real recorded MangaDex answer (test/fixtures/providers/SOURCES.md). */
const recorded = (name: string): unknown =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/providers/mangadex', name), 'utf8')) as unknown;

/** The candidates of a recorded search for a folder's name, best first, with the decision. */
function identify(folder: string, answer: string, books: number) {
  const { title, year } = folderTitle(folder);
  const scored = mangaDexCandidates(recorded(answer))
    .map((c) => ({ ...c, ...scoreCandidate({ title, year, count: books }, c.candidate) }))
    .sort((a, b) => b.score - a.score);
  return { scored, decision: decide(scored.map((c) => c.score)) };
}

describe('identify over recorded MangaDex searches', () => {
  it('reads the fields that matter: titles in every language, year, last volume, language, audience, links', () => {
    const [first] = mangaDexCandidates(recorded('manga-list-title-one-punch-man.json'));
    expect(first).toMatchObject({
      external_id: 'd8a959f7-648e-4c8d-8f23-f1f3f8e129f3',
      url: 'https://mangadex.org/title/d8a959f7-648e-4c8d-8f23-f1f3f8e129f3',
      title: 'One-Punch Man',
      candidate: { year: 2012, count: null, language: 'ja' },
      fields: { age_rating: 'Teen', language: 'ja', reading_direction: 'rtl' },
    });
    // Its AniList id names the same work there; MangaUpdates' old numeric id (80345) names nothing its API knows.
    expect(first!.linked_ids).toEqual([
      { provider: 'anilist', id: '74347', url: 'https://anilist.co/manga/74347' },
      { provider: 'myanimelist', id: expect.any(String), url: expect.stringMatching(/^https:\/\/myanimelist\.net\/manga\//) },
    ]);
    expect(first!.candidate.titles).toEqual(expect.arrayContaining(['One-Punch Man', 'Wanpanman', 'ワンパンマン', 'OPM']));
  });

  it("a scanlator's folder of One Punch Man matches the manga, not its webcomic or the doujinshi, and is applied", () => {
    const { scored, decision } = identify('[Scans] One Punch Man v01-24 (Digital)', 'manga-list-title-one-punch-man.json', 24);
    expect(scored[0]).toMatchObject({ external_id: 'd8a959f7-648e-4c8d-8f23-f1f3f8e129f3', score: 1 });
    expect(scored[1]!.score).toBeLessThan(0.9);
    expect(decision).toBe('apply');
  });

  it('Chainsaw Man (2018) is applied; its colored edition and the doujinshi score lower', () => {
    const { scored, decision } = identify('Chainsaw Man (2018)', 'manga-list-title-chainsaw-man.json', 11);
    expect(scored[0]).toMatchObject({ external_id: 'a77742b1-befd-49a4-bff5-1ad4e6b0ef7b', score: 1 });
    expect(scored.find((c) => c.title === 'Chainsaw Man (Official Colored)')!.score).toBeLessThan(0.7);
    expect(decision).toBe('apply');
  });

  it('a name that is none of them finds no match', () => {
    expect(identify('Vinland Saga', 'manga-list-title-chainsaw-man.json', 3).decision).toBe('none');
  });

  it('an answer of another shape is refused, not read half', () => {
    expect(() => mangaDexCandidates({ result: 'error', errors: [{ status: 404 }] })).toThrow();
  });

  it('an entry asked by id (a pasted MangaDex address) brings its cover to fetch and its authors', () => {
    const entry = mangaDexCandidate(recorded('manga-d86cf65b-5f6c-437d-a0af-19a31f94ec55-includes.json'));
    expect(entry.external_id).toBe('d86cf65b-5f6c-437d-a0af-19a31f94ec55');
    expect(entry.cover_url).toBe(
      'https://uploads.mangadex.org/covers/d86cf65b-5f6c-437d-a0af-19a31f94ec55/5e4a4e0e-b2a6-4e7e-8e6e-169a8d26c7a8.jpg',
    );
    expect(entry.fields.authors!.map((a) => a.role).sort()).toEqual(['penciller', 'writer']);
    expect(entry.linked_ids.map((l) => l.provider)).toContain('anilist');
    // What applying writes: the summary as text, the status, MangaDex's genre and theme tags, the finished volume count.
    expect(entry.fields).toMatchObject({ status: 'ended', total_book_count: 20, genres: expect.arrayContaining(['Romance']) });
    expect(entry.fields.summary).not.toMatch(/<[a-z]/i);
  });

  it('a search goes out as MangaDex documents it, with a User-Agent, through the client', async () => {
    const body = readFileSync(
      path.resolve(import.meta.dirname, '../fixtures/providers/mangadex/manga-list-title-chainsaw-man.json'),
      'utf8',
    );
    const server = await replayServer(json(200, body));
    const { seen } = server;
    try {
      const client = new ProviderClient({
        name: 'MangaDex',
        baseUrl: server.url,
        userAgent: 'Colophon/0.1',
        limits: { rate: 5, burst: 5 },
      });
      const found = await mangadex.search(client, { title: 'Chainsaw Man' });
      expect(found[0]!.external_id).toBe('a77742b1-befd-49a4-bff5-1ad4e6b0ef7b');
      const url = new URL(seen[0]!.url!, 'http://x');
      expect(url.pathname).toBe('/manga');
      expect(url.searchParams.get('title')).toBe('Chainsaw Man');
      expect(url.searchParams.getAll('includes[]')).toEqual(['cover_art', 'author', 'artist']);
      expect(seen[0]!.headers['user-agent']).toBe('Colophon/0.1');
    } finally {
      await server.close();
    }
  });
});
