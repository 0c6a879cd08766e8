import type { CblEntry } from './cbl.js';

/**
 * Matching reading-list entries (series name, number, start year, issue year, ComicVine issue id) to books.
 *
 * - Series names compare by key: case and accents ignored, punctuation as spaces, `&` and `+` as "and", a leading
 *   or trailing "The" dropped, and a trailing year group ("Klaus (2015)") taken off the name as its start year. A
 *   series answers to the keys of its name, its title and its folder's name.
 * - Numbers compare by value: `1`, `001` and `1.0` are one number, `1.5` another; others ("1a") compare as text
 *   without leading zeros.
 * - A series' start year is what it declares: a year group in its name, title or folder ("Klaus (2015)"), else the
 *   book's ComicInfo `Volume` when that is a year. A candidate declaring another start year than the entry's
 *   `Volume` is not the entry's book. Among several candidates, the one declaring the entry's start year wins, then
 *   the one of the entry's `Year`, then the one whose series' earliest year is the start year.
 * - A ComicVine issue id (`Database Name="cv" Issue`) decides between candidates whose ComicInfo `Web` links name
 *   ComicVine issues (`…/4000-<id>/`); a candidate linked to another issue is not the entry's book.
 */
export interface CatalogSeries {
  id: string;
  name: string;
  title: string | null;
  /** Folder relative to the library (POSIX). */
  path: string;
  /** Earliest year of its books. */
  year: number | null;
}

export interface CatalogBook {
  id: string;
  series_id: string;
  number: string | null;
  volume: number | null;
  year: number | null;
  /** ComicVine issue ids from the book's links. */
  cvIssues: readonly string[];
}

export type MatchStatus = 'matched' | 'ambiguous' | 'missing';

export interface MatchCandidate {
  book_id: string;
  series_name: string;
  number: string | null;
  year: number | null;
}

export interface MatchResult {
  status: MatchStatus;
  book_id?: string;
  candidates?: MatchCandidate[];
}

const YEAR_GROUP = /\s*[([]\s*((?:1[89]|20)\d{2})(?:\s*[-\u2013]\s*(?:\d{2}|\d{4}|present|\.*))?\s*[)\]]\s*$/i;

/** The start year a name declares with a trailing "(2015)" (or "[2015]", "(2015-2018)"); null when none. */
export function declaredYear(name: string | null | undefined): number | null {
  const match = name ? YEAR_GROUP.exec(name) : null;
  return match ? Number(match[1]) : null;
}

/** The key series names compare by (see above); "" for a name with no letters or digits. */
export function seriesKey(name: string): string {
  let text = name.replace(YEAR_GROUP, '');
  text = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .replace(/[&+]/g, ' and ')
    .replace(/['`\u2019]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();
  return text.replace(/^the /, '').replace(/ the$/, '');
}

/** The key numbers compare by; null for no number. */
export function numberKey(number: string | null | undefined): string | null {
  if (number === null || number === undefined) return null;
  let text = number.trim().replace(/^#/, '').trim().toLowerCase();
  if (text === '') return null;
  if (text === '½' || text === '1/2') return '0.5';
  if (/^-?\d+(\.\d+)?$/.test(text)) return String(Number(text));
  text = text.replace(/^0+(?=\d)/, '');
  return text;
}

/** A year written in a CBL field ("2015"); null when it is not one. */
export function yearOf(text: string | null | undefined): number | null {
  if (!text) return null;
  const match = /^\s*((?:1[89]|20)\d{2})\s*$/.exec(text);
  return match ? Number(match[1]) : null;
}

/** ComicVine issue ids in a text (a book's stored metadata record: its `Web` links). */
export function comicVineIssues(text: string | null | undefined): string[] {
  if (!text || !text.includes('comicvine')) return [];
  const ids = new Set<string>();
  for (const match of text.matchAll(/comicvine\.gamespot\.com\/[^\s"',]*?\/4000-(\d+)/gi)) ids.add(match[1]!);
  return [...ids];
}

const lastSegment = (p: string) => p.slice(p.lastIndexOf('/') + 1);

/** The keys a series answers to: of its name, title and folder. */
export function keysOfSeries(series: Pick<CatalogSeries, 'name' | 'title' | 'path'>): string[] {
  const keys = new Set<string>();
  for (const name of [series.name, series.title, lastSegment(series.path)]) if (name) keys.add(seriesKey(name));
  keys.delete('');
  return [...keys];
}

function declaredStartOf(series: Pick<CatalogSeries, 'name' | 'title' | 'path'>): number | null {
  return declaredYear(series.name) ?? declaredYear(series.title) ?? declaredYear(lastSegment(series.path));
}

interface Candidate {
  book: CatalogBook;
  series: CatalogSeries;
  declared: number | null;
}

/** The series and books an import or a gap filling looks at, indexed by series key. */
export class MatchIndex {
  private readonly byKey = new Map<string, CatalogSeries[]>();
  private readonly booksOf = new Map<string, CatalogBook[]>();
  private readonly declared = new Map<string, number | null>();

  constructor(series: readonly CatalogSeries[], books: readonly CatalogBook[]) {
    for (const s of series) {
      this.declared.set(s.id, declaredStartOf(s));
      for (const key of keysOfSeries(s)) {
        const list = this.byKey.get(key);
        if (list) list.push(s);
        else this.byKey.set(key, [s]);
      }
    }
    for (const b of books) {
      const list = this.booksOf.get(b.series_id);
      if (list) list.push(b);
      else this.booksOf.set(b.series_id, [b]);
    }
  }

  match(entry: CblEntry): MatchResult {
    const number = numberKey(entry.number);
    let candidates: Candidate[] = [];
    for (const series of this.byKey.get(seriesKey(entry.series)) ?? []) {
      for (const book of this.booksOf.get(series.id) ?? []) {
        if (numberKey(book.number) !== number) continue;
        const ownYear = book.volume !== null && book.volume >= 1800 && book.volume <= 2100 ? book.volume : null;
        candidates.push({ book, series, declared: this.declared.get(series.id) ?? ownYear });
      }
    }
    if (entry.cvIssue) {
      const issue = entry.cvIssue;
      candidates = candidates.filter((c) => c.book.cvIssues.length === 0 || c.book.cvIssues.includes(issue));
      const linked = candidates.filter((c) => c.book.cvIssues.includes(issue));
      if (linked.length === 1) return { status: 'matched', book_id: linked[0]!.book.id };
    }
    const start = yearOf(entry.volume) ?? declaredYear(entry.series);
    if (start !== null) candidates = candidates.filter((c) => c.declared === null || c.declared === start);
    if (candidates.length === 0) return { status: 'missing' };
    const narrow = (keep: (c: Candidate) => boolean) => {
      if (candidates.length < 2) return;
      const kept = candidates.filter(keep);
      if (kept.length > 0) candidates = kept;
    };
    const year = yearOf(entry.year);
    if (start !== null) narrow((c) => c.declared === start);
    if (year !== null) narrow((c) => c.book.year === year);
    if (start !== null) narrow((c) => c.series.year === start);
    if (candidates.length === 1) return { status: 'matched', book_id: candidates[0]!.book.id };
    return {
      status: 'ambiguous',
      candidates: candidates
        .map((c) => ({ book_id: c.book.id, series_name: c.series.name, number: c.book.number, year: c.book.year }))
        .sort((a, b) => a.series_name.localeCompare(b.series_name) || a.book_id.localeCompare(b.book_id)),
    };
  }
}

/** The keys of the series the entries name (what the catalog is narrowed to before matching). */
export function entryKeys(entries: readonly Pick<CblEntry, 'series'>[]): Set<string> {
  return new Set(entries.map((e) => seriesKey(e.series)).filter((k) => k !== ''));
}
