import { fieldDefs, type EntityType } from './fields.js';

/**
 * Which ComicInfo.xml elements an edited field is written to (metadata write-back, decision 036), and their text
 * from the catalog's current value. A book's fields go into its own file; the series fields below go into every
 * file of the series. Fields without an element are not written: a series' summary, tags, status, links,
 * alternate titles and sort title, and a book's sort number. The `vertical` reading direction has no ComicInfo value.
 */
type Row = Record<string, unknown>;
type Elements = Map<string, string | null>;

const ROLE_ELEMENTS: ReadonlyArray<[string, readonly string[]]> = [
  ['Writer', ['writer', 'author']],
  ['Penciller', ['penciller', 'illustrator']],
  ['Inker', ['inker']],
  ['Colorist', ['colorist']],
  ['Letterer', ['letterer']],
  ['CoverArtist', ['cover']],
  ['Editor', ['editor']],
  ['Translator', ['translator']],
];

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : null);
const words = (v: unknown): string | null => (Array.isArray(v) && v.length > 0 ? v.join(', ') : null);

const BOOK: Record<string, (value: unknown, out: Elements) => void> = {
  title: (v, out) => out.set('Title', text(v)),
  number: (v, out) => out.set('Number', text(v)),
  summary: (v, out) => out.set('Summary', text(v)),
  release_date: (v, out) => {
    const [year, month, day] = typeof v === 'string' ? v.split('-').map(Number) : [];
    out.set('Year', year ? String(year) : null);
    out.set('Month', month ? String(month) : null);
    out.set('Day', day ? String(day) : null);
  },
  authors: (v, out) => {
    const authors = Array.isArray(v) ? (v as { name: string; role: string }[]) : [];
    for (const [element, roles] of ROLE_ELEMENTS) out.set(element, words(authors.filter((a) => roles.includes(a.role)).map((a) => a.name)));
  },
  tags: (v, out) => out.set('Tags', words(v)),
  isbn: (v, out) => out.set('GTIN', text(v)),
  // ComicInfo 2.1 separates several links with spaces; labels have no place there.
  links: (v, out) => out.set('Web', Array.isArray(v) && v.length > 0 ? (v as { url: string }[]).map((l) => l.url).join(' ') : null),
};

const SERIES: Record<string, (value: unknown, out: Elements, row: Row) => void> = {
  title: (v, out, row) => out.set('Series', text(v) ?? text(row.name)),
  publisher: (v, out) => out.set('Publisher', text(v)),
  genres: (v, out) => out.set('Genre', words(v)),
  age_rating: (v, out) => out.set('AgeRating', text(v)),
  language: (v, out) => out.set('LanguageISO', text(v)),
  reading_direction: (v, out) => {
    // What the reader reads back (media/metadata/comicinfo.ts): Manga for the direction, Format for webtoons.
    // `vertical` has no value there: like none, it leaves no Manga element to read a direction from.
    if (v === 'webtoon') out.set('Format', 'Webtoon');
    else out.set('Manga', v === 'rtl' ? 'YesAndRightToLeft' : v === 'ltr' ? 'No' : null);
  },
  total_book_count: (v, out) => out.set('Count', text(v)),
};

/** Whether an edit of this field is written into files. */
export const writesBack = (type: EntityType, field: string): boolean => field in (type === 'book' ? BOOK : SERIES);

/** The elements for the fields of a book and of its series, from their rows as they are now. */
export function comicInfoElements(fields: readonly string[], book: Row, series: Row | undefined): Elements {
  const out: Elements = new Map();
  for (const key of fields) {
    const [type, field] = key.split(':', 2) as [EntityType, string];
    if (type === 'book' && BOOK[field]) BOOK[field](fieldDefs('book')[field]!.fromRow(book), out);
    else if (type === 'series' && series && SERIES[field]) SERIES[field](fieldDefs('series')[field]!.fromRow(series), out, series);
  }
  return out;
}
