import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { aniListCandidate, aniListCandidates, anilist } from '../../src/catalog/identify/providers/anilist.js';
import { comicVineCandidates, comicVineVolume, comicvine } from '../../src/catalog/identify/providers/comicvine.js';
import { mangaUpdatesCandidates, mangaUpdatesSeries, mangaupdates } from '../../src/catalog/identify/providers/mangaupdates.js';
import { openLibraryCandidates } from '../../src/catalog/identify/providers/openlibrary.js';
import { folderTitle } from '../../src/catalog/identify/names.js';
import { decide, scoreCandidate } from '../../src/catalog/identify/score.js';
import { SecretBox } from '../../src/util/secret-box.js';

/** Real recorded answers (test/fixtures/providers/SOURCES.md and SOURCES-found.md). */
const recorded = (provider: string, name: string): unknown =>
  JSON.parse(readFileSync(path.resolve(import.meta.dirname, '../fixtures/providers', provider, name), 'utf8')) as unknown;

describe("the providers' answers as entries (real recordings)", () => {
  it('AniList: a manga by id, with its titles, year, finished volume count, origin and reading direction', () => {
    const entry = aniListCandidate(recorded('anilist', 'media-101415-manga-sora-yori-mo-tooi-basho.json'));
    expect(entry).toMatchObject({ provider: 'anilist', external_id: '101415', title: 'Sora Yori Mo Tooi Basho' });
    expect(entry.candidate).toMatchObject({ year: 2017, count: 3, language: 'ja' });
    expect(entry.fields).toMatchObject({ status: 'ended', total_book_count: 3, language: 'ja', reading_direction: 'rtl' });
    expect(entry.fields.alternate_titles).toContainEqual({ label: 'Native', title: '宇宙よりも遠い場所' });
    expect(entry.fields.age_rating).toBeUndefined();
    expect(anilist.idFrom('https://anilist.co/manga/101415/Sora-Yori-Mo-Tooi-Basho')).toBe('101415');
  });

  it('AniList: a search answer holding anime too gives only its manga as candidates', () => {
    const all = aniListCandidates(recorded('anilist', 'page-media-search-fate-page1-perpage50.json'));
    expect(all.length).toBeGreaterThan(30);
    expect(all.length).toBeLessThan(50);
    const { title } = folderTitle('[Group] Fate Zero v01-03 (Digital)');
    const best = all.map((e) => ({ e, s: scoreCandidate({ title }, e.candidate).score })).sort((a, b) => b.s - a.s)[0]!;
    expect(best.e.title.toLowerCase()).toContain('fate/zero');
  });

  it('MangaUpdates: a search scores the title it matched; a series record gives status, volumes, authors and age', () => {
    const found = mangaUpdatesCandidates(recorded('mangaupdates', 'series-search-berserk-perpage5.trimmed-upstream.json'));
    expect(found[0]).toMatchObject({ external_id: '51239621230', title: 'Berserk', candidate: { year: 1989, language: 'ja' } });
    const scores = found.map((e) => scoreCandidate({ title: 'Berserk', year: 1989 }, e.candidate).score);
    expect(decide(scores)).toBe('apply');
    const series = mangaUpdatesSeries(recorded('mangaupdates', 'series-51239621230-berserk.trimmed-upstream.json'));
    expect(series.fields).toMatchObject({ status: 'ongoing', age_rating: 'Mature 17+', reading_direction: 'rtl' });
    expect(series.fields.authors).toContainEqual({ name: 'MIURA Kentaro', role: 'writer' });
    expect(series.fields.total_book_count).toBeUndefined();
    expect(mangaupdates.idFrom('https://www.mangaupdates.com/series/njeqwry/berserk')).toBe('51239621230');
  });

  it('ComicVine: a volume search and a volume record; an error envelope is a refusal, not an empty list', () => {
    const found = comicVineCandidates(recorded('comicvine', 'search-volume-green-lantern-limit20-fieldlist.json'));
    expect(found.length).toBe(20);
    expect(found[0]!.title).toMatch(/green lantern/i);
    const volume = comicVineVolume(recorded('comicvine', 'volume-4050-23437.json'));
    expect(volume).toMatchObject({ external_id: '23437', fields: { publisher: 'IDW Publishing', year: 2007, total_book_count: 1 } });
    expect(volume.fields.summary).not.toMatch(/<p>/);
    expect(() => comicVineVolume(recorded('comicvine', 'error-101-object-not-found.json'))).toThrow(/status_code 101/);
    expect(comicvine.idFrom('https://comicvine.gamespot.com/cory-doctorows/4050-23437/')).toBe('23437');
    expect(comicvine.credentials!('k').query).toEqual({ api_key: 'k' });
  });

  it('Open Library: a search by title and author, with ISBNs that score 0.99', () => {
    const found = openLibraryCandidates(recorded('openlibrary', 'search-title-lord-of-the-rings-author-tolkien.json'));
    expect(found[0]).toMatchObject({ external_id: 'OL27448W', title: 'The Lord of the Rings', candidate: { year: 1954 } });
    expect(scoreCandidate({ title: 'LOTR', isbn: '978-0-395-19395-2' }, found[0]!.candidate).score).toBe(0.99);
  });
});

describe('keys kept sealed', () => {
  it('opens what it sealed; another secret or an altered text opens nothing', () => {
    const box = new SecretBox('x'.repeat(40));
    const sealed = box.seal('my-api-key');
    expect(sealed).not.toContain('my-api-key');
    expect(box.open(sealed)).toBe('my-api-key');
    expect(new SecretBox('y'.repeat(40)).open(sealed)).toBeNull();
    expect(box.open(sealed.slice(0, -2) + 'AA')).toBeNull();
    expect(() => new SecretBox('short')).toThrow();
  });
});
