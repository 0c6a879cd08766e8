/**
 * How the match calibration's labelled names were made (`npx tsx bench/match-names.ts` writes
 * test/fixtures/calibration/names.json; the committed file is what `npm run bench -- --match` and the calibration
 * test read). Each name is a folder name as ripped and scanlated releases name their folders — groups in brackets,
 * "(Digital)", volume and chapter ranges, years, underscores, the Japanese or romanised or English title — made from
 * one entry of a recorded candidate list, and labelled with that entry's id: the one it must match. Names made from
 * an entry whose title another entry of the list shares exactly are labelled too (a person must choose: review is the
 * right outcome, applying the other one is wrong). Negatives name works the list does not hold (label null: any
 * automatic match is wrong). Hand-written cases (typos, articles, English names of romanised works) come last.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { foldTitle } from '../src/catalog/identify/names.js';
import type { ProviderEntry } from '../src/catalog/identify/providers/provider.js';
import { pool } from './match-pools.js';

export interface LabelledName {
  name: string;
  media: 'manga' | 'comics' | 'books';
  /** The recorded candidate list (test/fixtures/providers/…) a search for it is answered with. */
  pool: string;
  /** The id it must match; null: none of the list's entries is the work. */
  expect: string | null;
  how: string;
}

const GROUPS = ['Scanlations', 'LHtranslation', 'Danke', 'Zone', 'Tempest', 'Hatigarm', 'MangaStream', 'Digital-Empire'];
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;
const LATIN = /^[\x20-\x7e\u00c0-\u024f]+$/;

function mangaName(e: ProviderEntry, i: number): { name: string; how: string } {
  const title = e.title;
  const alternates = e.candidate.titles.slice(1);
  const japanese = alternates.find((t) => CJK.test(t));
  const romanised = alternates.find((t) => LATIN.test(t) && foldTitle(t) !== foldTitle(title) && t.length > 3);
  // A range no longer than the work is (a folder holds the volumes that exist).
  const k = Math.min((i % 8) + 2, e.candidate.count ?? 99);
  switch (i % 6) {
    case 0:
      return {
        name: `[${GROUPS[i % GROUPS.length]}] ${title} v01-${String(k).padStart(2, '0')} (Digital)`,
        how: 'group, volume range, (Digital)',
      };
    case 1:
      return e.candidate.year
        ? { name: `${title} (${e.candidate.year})`, how: 'title and start year' }
        : { name: `${title} Vol. 1-${k}`, how: 'volume range' };
    case 2:
      return romanised
        ? { name: `${romanised} c001-0${k}0 [${GROUPS[(i + 3) % GROUPS.length]}]`, how: 'an alternate title, chapter range, group' }
        : { name: `${title} c001-0${k}0`, how: 'chapter range' };
    case 3:
      return { name: `${title.replace(/[^\p{L}\p{N}]+/gu, '_')}_v01`, how: 'underscores for spaces' };
    case 4:
      return japanese ? { name: japanese, how: 'the Japanese (or Korean, Chinese) title' } : { name: title.toUpperCase(), how: 'capitals' };
    default:
      return { name: `${title} - Volume ${k}`, how: 'one volume' };
  }
}

function comicName(e: ProviderEntry, i: number): { name: string; how: string } {
  const year = e.candidate.year;
  switch (i % 3) {
    case 0:
      return year ? { name: `${e.title} (${year})`, how: 'title and start year' } : { name: e.title, how: 'title' };
    case 1:
      return {
        name: `${e.title} 001-${String(Math.min((i % 9) * 10 + 12, e.candidate.count ?? 999)).padStart(3, '0')} (digital) (Zone-Empire)`,
        how: 'issue range, (digital), ripper',
      };
    default:
      return year ? { name: `${e.title} v1 (${year})`, how: 'volume number and year' } : { name: `${e.title} v1`, how: 'volume number' };
  }
}

/** Entries worth a name: a readable title (the lists hold placeholders like "313908" for untitled issues). */
const named = (entries: readonly ProviderEntry[]) => entries.filter((e) => /\p{L}{3}/u.test(e.title));

function fromPool(file: string, media: LabelledName['media'], take: number, step = 1, offset = 0): LabelledName[] {
  const entries = named(pool(file));
  const out: LabelledName[] = [];
  for (let n = 0, i = offset; n < take && i < entries.length; n += 1, i += step) {
    const e = entries[i]!;
    const { name, how } = media === 'comics' ? comicName(e, i) : mangaName(e, i);
    out.push({ name, media, pool: file, expect: e.external_id, how });
  }
  return out;
}

/** The golden searches: the query as a folder name, labelled with the record it names (its title or the title hit). */
function golden(): LabelledName[] {
  const queries: Record<string, string> = {
    'attack-on-titan': 'Attack on Titan',
    berserk: 'Berserk',
    'chainsaw-man': 'Chainsaw Man',
    kingdom: 'Kingdom',
    monster: 'Monster',
    'one-piece': 'One Piece',
    'shingeki-no-kyojin': 'Shingeki no Kyojin',
    'sousou-no-frieren': 'Sousou no Frieren',
    'tower-of-god': 'Tower of God',
  };
  return Object.entries(queries).map(([slug, query], i) => {
    const file = `mangaupdates/golden-search-${slug}.trimmed-upstream.json`;
    const entry = pool(file).find((e) => e.candidate.titles.some((t) => foldTitle(t) === foldTitle(query)));
    return {
      name: i % 2 ? `[${GROUPS[i]}] ${query} v01-10` : `${query} (Digital)`,
      media: 'manga' as const,
      pool: file,
      expect: entry?.external_id ?? null,
      how: "a search of MangaPixer's golden set, as a folder name; the record whose title or hit title is the query",
    };
  });
}

/** Works the list does not hold: a match would be wrong. */
const NEGATIVES: Array<[string, string, LabelledName['media']]> = [
  ['Vinland Saga v01-12 (Digital)', 'mangadex/manga-list-title-komi-limit100-total55.json', 'manga'],
  ['[Group] Blue Period c001-050', 'mangadex/manga-list-title-komi-limit100-total55.json', 'manga'],
  ['Yotsuba&! v01-15', 'mangadex/manga-list-title-chainsaw-man.json', 'manga'],
  ['Dorohedoro (2000)', 'mangadex/manga-list-title-chainsaw-man.json', 'manga'],
  ['Mob Psycho 100 v01-16', 'mangadex/manga-list-title-one-punch-man.json', 'manga'],
  ['Golden Kamuy', 'mangadex/manga-list-limit100-includes-total85451-hondana.json', 'manga'],
  ['Blame! Master Edition', 'mangadex/manga-list-limit100-includes-total85451-hondana.json', 'manga'],
  ['Oyasumi Punpun', 'mangadex/manga-list-limit100-total77858-capymanga.json', 'manga'],
  ['Nana v01-21 (Digital)', 'mangadex/manga-list-limit100-total77858-capymanga.json', 'manga'],
  ['Berserk of Gluttony', 'mangaupdates/series-search-berserk-perpage5.trimmed-upstream.json', 'manga'],
  ['Solo Camping for Two', 'mangaupdates/series-search-solo-leveling-perpage5.trimmed-upstream.json', 'manga'],
  ['Saga (2012) 001-054', 'comicvine/search-volume-green-lantern-limit20-fieldlist.json', 'comics'],
  ['Sandman (1989)', 'comicvine/volumes-list-limit100-offset0.json', 'comics'],
  ['Watchmen 001-012 (1986)', 'comicvine/volumes-list-limit100-offset0.json', 'comics'],
  ['Fate Grand Order Turas Realta', 'anilist/page-media-search-fate-page1-perpage50.json', 'manga'],
  ['The Hobbit', 'openlibrary/search-title-lord-of-the-rings-author-tolkien.json', 'books'],
  ['The Road to Serfdom', 'openlibrary/search-q-capitalism-and-freedom.json', 'books'],
];

/** Cases written by hand: what real folders do that the rules above do not. */
function handWritten(): LabelledName[] {
  const byTitle = (file: string, title: string) => pool(file).find((e) => e.title === title)?.external_id ?? null;
  const komi = 'mangadex/manga-list-title-komi-limit100-total55.json';
  const chainsaw = 'mangadex/manga-list-title-chainsaw-man.json';
  const opm = 'mangadex/manga-list-title-one-punch-man.json';
  const lotr = 'openlibrary/search-title-lord-of-the-rings-author-tolkien.json';
  const cap = 'openlibrary/search-q-capitalism-and-freedom.json';
  const gl = 'comicvine/search-volume-green-lantern-limit20-fieldlist.json';
  return [
    { name: 'Chainsawman v01-11', media: 'manga', pool: chainsaw, expect: byTitle(chainsaw, 'Chainsaw Man'), how: 'words run together' },
    {
      name: 'Chainsaw Man [Official Colored] v01',
      media: 'manga',
      pool: chainsaw,
      expect: byTitle(chainsaw, 'Chainsaw Man'),
      how: 'edition in brackets (dropped): the plain work or a person',
    },
    {
      name: 'One Punch Man (Digital) (LuCaZ)',
      media: 'manga',
      pool: opm,
      expect: byTitle(opm, 'One-Punch Man'),
      how: 'hyphen missing, ripper',
    },
    { name: 'Onepunch-Man v01-27', media: 'manga', pool: opm, expect: byTitle(opm, 'One-Punch Man'), how: 'hyphen moved' },
    {
      name: "Komi Can't Communicate v01-30 (Digital)",
      media: 'manga',
      pool: komi,
      expect: byTitle(komi, 'Komi-san wa Komyushou Desu.'),
      how: 'the English title of a romanised work (fan-coloured and oneshot entries share it: review)',
    },
    {
      name: '古見さんは、コミュ症です。',
      media: 'manga',
      pool: komi,
      expect: byTitle(komi, 'Komi-san wa Komyushou Desu.'),
      how: 'the Japanese title',
    },
    {
      name: 'komi-san wa komyushou desu',
      media: 'manga',
      pool: komi,
      expect: byTitle(komi, 'Komi-san wa Komyushou Desu.'),
      how: 'lower case, no full stop',
    },
    {
      name: 'The Lord of the Rings (1954)',
      media: 'books',
      pool: lotr,
      expect: byTitle(lotr, 'The Lord of the Rings'),
      how: 'a book with its year; many editions share the title',
    },
    {
      name: 'J.R.R. Tolkien - The Lord of the Rings',
      media: 'books',
      pool: lotr,
      expect: byTitle(lotr, 'The Lord of the Rings'),
      how: 'author first, as ebook folders are often named',
    },
    {
      name: 'Milton Friedman - Capitalism and Freedom (1962)',
      media: 'books',
      pool: cap,
      expect: byTitle(cap, 'Capitalism and freedom'),
      how: 'author first and year',
    },
    {
      name: 'Green Lantern (2011) 001-052',
      media: 'comics',
      pool: gl,
      expect: pool(gl).find((e) => e.title === 'Green Lantern' && e.candidate.year === 2011)?.external_id ?? null,
      how: 'one of many volumes of the same name, told apart by its year',
    },
    {
      name: 'Green Lantern',
      media: 'comics',
      pool: gl,
      expect: pool(gl).find((e) => e.title === 'Green Lantern' && e.candidate.year === 2011)?.external_id ?? null,
      how: 'the same name with no year: a person must choose',
    },
  ];
}

export function labelledNames(): LabelledName[] {
  return [
    ...fromPool('mangadex/manga-list-limit100-includes-total85451-hondana.json', 'manga', 45, 2),
    ...fromPool('mangadex/manga-list-limit100-total77858-capymanga.json', 'manga', 40, 2, 1),
    ...fromPool('mangadex/manga-list-limit10-total77769-capymanga.json', 'manga', 5, 2),
    ...fromPool('mangadex/manga-list-title-komi-limit100-total55.json', 'manga', 8, 6, 1),
    ...fromPool('mangaupdates/series-search-berserk-perpage5.trimmed-upstream.json', 'manga', 2),
    ...fromPool('mangaupdates/series-search-solo-leveling-perpage5.trimmed-upstream.json', 'manga', 2),
    ...golden(),
    ...fromPool('anilist/page-media-search-fate-page1-perpage50.json', 'manga', 12, 3),
    ...fromPool('anilist/page-media-search-fate-page2-perpage50.json', 'manga', 4, 4),
    ...fromPool('comicvine/volumes-list-limit100-offset0.json', 'comics', 25, 4),
    ...fromPool('comicvine/search-volume-green-lantern-limit20-fieldlist.json', 'comics', 5, 4, 1),
    ...NEGATIVES.map(([name, file, media]) => ({ name, media, pool: file, expect: null, how: 'a work the list does not hold' })),
    ...handWritten(),
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const names = labelledNames();
  const out = path.resolve(import.meta.dirname, '../test/fixtures/calibration/names.json');
  writeFileSync(out, `${JSON.stringify(names, null, 2)}\n`);
  console.log(`${names.length} labelled names → ${path.relative(process.cwd(), out)}`);
}
